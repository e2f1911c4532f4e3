"""The hot statements run as the extended protocol's Bind/Execute of their prepared form, on psycopg 3.

Each registered hot statement is prepared once per connection under its name, with its parameters' types declared
(SQL ``PREPARE name(types) AS ...``, ``core/sql.py``). Sent as ``EXECUTE name(literal, ...)`` text, the server parses
that text, analyses it, transforms and coerces each literal and evaluates it, and copies the prepared query's target
list to describe the result, on every call. Here the same prepared statement is bound at the protocol level instead
(``Bind``/``Execute``, psycopg's ``send_query_prepared``): the parameters go as values, no SQL is parsed. The server
reads a text value with its declared type's input function, as it reads a literal of that type, and a binary value
with that type's receive function; so a parameter goes in binary only where psycopg's binary dumper of the value's
Python type gives exactly the declared type (bigint, boolean, timestamptz, date), and as text otherwise. A value whose
binary type is not the declared one (a naive datetime for a ``timestamptz``, a ``str`` for a ``bigint``) makes the
statement run as its ``EXECUTE name(literal, ...)`` text through Django's client-side binding, where the server
coerces each literal to the declared type as before (:class:`PlatformCursor`).

What Django and the tests see does not change: a :class:`PreparedSQL` is a ``str`` whose text is the ``EXECUTE``
form (``EXECUTE hot_...(%(a)s, ...)``); an execute wrapper, a ``CaptureQueriesContext`` (``JsonOperations.
last_executed_query`` writes it with its literals, as psycopg2 did) and ``core.sql.readable`` read it as before.

The cursor uses psycopg's internals (the query generator's start, result check and result setting, the connection's
lock and wait): :func:`internals_present` checks they exist, and where they do not (a psycopg release that changed
them) ``core.sql`` keeps sending the ``EXECUTE`` text, slower and the same; ``core/tests/test_pgbackend_prepared.py``
fails on that, so an upgrade that loses the fast path is seen.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from typing import Any

import psycopg
from django.db.backends.postgresql.base import Cursor as DjangoCursor  # type: ignore[attr-defined]  # psycopg 3's
from psycopg import pq
from psycopg.adapt import PyFormat
from psycopg.generators import execute as _execute_gen
from psycopg.types.datetime import TimestamptzLoader
from psycopg.types.numeric import Int8BinaryDumper

log = logging.getLogger("platform.sql")

TIMESTAMPTZ_OID = 1184
_TEXT = pq.Format.TEXT
_PARAM = re.compile(r"%\((\w+)\)s")

#: the declared types whose parameters go in binary, with their oids (psycopg's binary dumper of ``int`` on these
#: connections, ``bool``, an aware ``datetime``, a ``date`` give exactly these); every other type goes as text
BINARY_TYPES = {"bigint": 20, "boolean": 16, "timestamptz": 1184, "date": 1082}


class PreparedSQL(str):
    """A hot statement's ``EXECUTE name(%(a)s, ...)`` text (what Django, its wrappers and the tests see), with what the
    cursor binds it by: the prepared statement's ``name``, the parameters' names in their ``$n`` order, the format
    of each, and the (position, oid) of those sent in binary."""

    name: bytes
    order: tuple[str, ...]
    formats: tuple[PyFormat, ...]
    binary: tuple[tuple[int, int], ...]

    @classmethod
    def of(cls, name: str, execute_sql: str, declared: dict[str, str]) -> PreparedSQL:
        """``declared``: the PREPARE's type of each parameter by name (``execute_sql`` lists them in ``$n`` order)."""
        order = tuple(_PARAM.findall(execute_sql))
        out = cls(execute_sql)
        out.name, out.order = name.encode(), order
        out.formats = tuple(PyFormat.BINARY if declared[n] in BINARY_TYPES else PyFormat.TEXT for n in order)
        out.binary = tuple((i, BINARY_TYPES[declared[n]]) for i, n in enumerate(order) if declared[n] in BINARY_TYPES)
        return out


class _AsText(Exception):
    """A parameter's value is not of its declared type in binary: the statement runs as its ``EXECUTE`` text."""


#: the hot statements run as ``EXECUTE`` text in this process for a value not of its declared type, by (prepared
#: statement, parameter, the value's type): each is logged once (a warning: correct, and slower than it need be);
#: the round paths' tests assert there is none (``games/tests/platform/test_round_cost.py``)
FALLBACKS: Counter[tuple[str, str, str]] = Counter()


def _fell_back(query: PreparedSQL, reason: tuple[str, str]) -> None:
    key = (query.name.decode(), *reason)
    if key not in FALLBACKS:
        log.warning("hot statement %s runs as EXECUTE text: parameter %s is a %s, not its declared type", *key)
    FALLBACKS[key] += 1


class PlatformCursor(DjangoCursor):  # type: ignore[misc]  # Django's psycopg 3 cursor is untyped
    """Django's client-side binding cursor, which runs a :class:`PreparedSQL` as Bind/Execute of its prepared form."""

    def execute(
        self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: bool | None = None
    ) -> Any:
        if type(query) is PreparedSQL:
            conn = self._conn
            try:
                with conn.lock:
                    conn.wait(self._prepared_gen(query, params))
            except psycopg.errors._NO_TRACEBACK as ex:  # psycopg's own execute does the same
                raise ex.with_traceback(None) from None
            except _AsText as fallback:  # nothing was sent: the EXECUTE text, each literal coerced by the server
                _fell_back(query, fallback.args)
                return super().execute(str(query), params)
            return self
        return super().execute(query, params, prepare=prepare, binary=binary)

    def _prepared_gen(self, query: PreparedSQL, params: Any) -> Any:
        """psycopg's ``_execute_gen`` with the prepared statement ``query.name`` bound instead of a query sent."""
        yield from self._start_query(query)
        tx = self._tx
        values = [params[n] for n in query.order]
        dumped = tx.dump_sequence(values, query.formats)
        types = tx.types
        for i, oid in query.binary:
            if types[i] != oid and values[i] is not None:  # a float for a bigint, a naive datetime...: not the type
                raise _AsText(query.order[i], type(values[i]).__name__)
        self._pgconn.send_query_prepared(query.name, dumped, param_formats=tx.formats, result_format=_TEXT)
        results = yield from _execute_gen(self._pgconn)
        self._check_results(results)
        self._set_results(results)
        self._last_query = query  # the next call of the same statement keeps the transformer (its dumpers)


#: the cursor's private members :class:`PlatformCursor` uses: its query generator's parts and its state
CURSOR_MEMBERS = ("_start_query", "_check_results", "_set_results", "_tx", "_pgconn", "_conn", "_last_query")


def internals_present() -> bool:
    """Whether the psycopg internals :class:`PlatformCursor` uses are there (the module docstring)."""
    slots = {s for k in psycopg.Cursor.__mro__ for s in getattr(k, "__slots__", ())}
    return (
        all(hasattr(psycopg.Cursor, m) or m in slots for m in CURSOR_MEMBERS)
        and hasattr(psycopg.Connection, "wait")
        and hasattr(pq.PGconn, "send_query_prepared")
        and hasattr(psycopg.errors, "_NO_TRACEBACK")
    )


def configure(connection: psycopg.Connection[Any], utc: bool) -> None:
    """A new connection: a binary ``int`` is always a bigint (psycopg's own picks int2/int4/int8 by value, which a
    prepared ``bigint`` parameter would refuse); where its time zone is UTC (Django sets it), psycopg's own C
    ``timestamptz`` loader, which gives ``datetime.UTC`` datetimes as Django's Python one does."""
    connection.adapters.register_dumper(int, Int8BinaryDumper)
    if utc:
        connection.adapters.register_loader("timestamptz", TimestamptzLoader)
