"""JSON between psycopg 3 and the platform, at a fraction of the standard library's cost, with its results.

**Rows.** psycopg parses a column of type ``json`` with ``json.loads`` (its ``JsonLoader``); the hot statements
return their aggregates as ``json`` (the limits gate's state row: five ``json_build_object``/``json_agg`` columns,
~3,400 characters a round; a ``jsonb`` column is left as text by Django and parsed by the ``JSONField``).
:func:`loads` parses with orjson (a third of the cost) where orjson's result is ``json.loads``'s and with
``json.loads`` itself everywhere else:

- orjson reads an integer beyond 64 bits as a float (``json.loads``: the exact ``int``), so a text holding a run of
  19 or more digits anywhere (the shortest such integers: ``-9223372036854775809``, 19 digits, and
  ``18446744073709551616``, 20; a long fraction or a long digit string inside a text value also counts, and merely
  takes ``json.loads``) goes to ``json.loads``; the check translates the text's bytes
  (every digit one byte, everything else another) and looks for the run, a few instructions a byte;
- a text orjson refuses (``NaN``/``Infinity``, which ``json.loads`` reads; a lone surrogate escape; a number beyond
  a double; nesting past 1,024 levels; a malformed text) goes to ``json.loads``, which gives its value or its error;
- floats: both give the double nearest to the decimal (correctly rounded); duplicate keys: both keep the last value
  in the first key's place. ``core/tests/test_pgbackend_json.py`` compares the two over generated texts.

It is registered for ``json`` on each new connection (``register_json_typecaster``, called by
``DatabaseWrapper.get_new_connection``; a ``json[]`` array's elements go through it too), replacing psycopg's global
one for the platform's connections only.

**Parameters.** A ``JSONField``'s value is sent as Django's ``Jsonb`` wrapper (psycopg's), whose dumper calls its
``dumps`` (``json.dumps``: ~10 Python calls and the C encoder's small strings, ~2.5 µs a value; a round sends 9: the
round's state, bet, draws, actions, jackpot events, the audit event's values). :class:`FastJsonb` is that wrapper
whose ``dumps`` (:func:`dumps`) gives orjson's UTF-8 bytes when the value is made only of the exact types ``dict``
with ``str`` keys, ``list``, ``tuple``, ``str``, ``int``, ``bool`` and ``None``, or a ``str`` subclass as a value
(:func:`_plain`); the connection speaks UTF-8 (Django sets it), so the bytes are the text psycopg would have encoded.
For such a value both texts are the same JSON value, which is what a ``jsonb`` column keeps (it stores the parsed
value, not the text): orjson writes non-ASCII characters as themselves where ``json.dumps`` writes ``\\u`` escapes,
no spaces, and a ``str`` subclass's text as ``json.dumps`` does (an enumeration member's text, not its value).
Everything else is ``json.dumps``'s text, so its result or its error stays: a float (orjson writes NaN and the
infinities as ``null`` where ``json.dumps`` writes ``NaN``, which PostgreSQL refuses; and a float's text decides the
numeric's scale), an integer beyond 64 bits (orjson refuses it), a lone surrogate (refused), a subclass of another
type (an ``IntEnum``, whose value orjson may write instead of its number), a non-text key, any other type (orjson
would write a UUID, a dataclass, a datetime, an ``Enum``; ``json.dumps`` raises TypeError), a circular structure
(ValueError). Only a ``JSONField`` without its own encoder gets it (:class:`JsonOperations`);
``core/tests/test_pgbackend_json.py`` stores values both ways and compares what PostgreSQL kept.

**The query log.** A hot statement run as Bind/Execute of its prepared form (``core/pgbackend/prepared.py``) is
logged (``connection.queries``, ``CaptureQueriesContext``) as the ``EXECUTE name(literal, ...)`` text it stands for,
its literals written by psycopg's client-side quoting (:meth:`JsonOperations.last_executed_query`).
"""

from __future__ import annotations

import json
from typing import Any

from django.db.backends.postgresql.operations import DatabaseOperations
from django.db.backends.postgresql.psycopg_any import Jsonb  # type: ignore[import-untyped]  # not in the stubs
from psycopg.types.json import JsonLoader

from core.pgbackend.prepared import PreparedSQL

try:  # pragma: no cover - which branch runs depends on the environment
    import orjson
except ImportError:  # pragma: no cover - safe: without orjson every text goes to json.loads
    orjson = None  # type: ignore[assignment]  # optional: None when not installed

#: a byte per byte value: ``0`` for an ASCII digit, a space for anything else
_DIGIT_BYTES = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))
#: 19 digits in a row: the shortest run that may be an integer orjson cannot hold (below -2**63: 19 digits)
_LONG_RUN = b"0" * 19


def loads(text: str | bytes) -> Any:
    """``json.loads(text)``: the same value or the same error (the module docstring says when orjson parses it);
    ``text`` as a ``str`` or as the UTF-8 bytes psycopg hands a loader."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if orjson is not None and _LONG_RUN not in data.translate(_DIGIT_BYTES):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # json.loads decides: its value (NaN, a lone surrogate...) or its own error
    return json.loads(text)


class FastJsonLoader(JsonLoader):
    """psycopg's loader of ``json`` with :func:`loads`."""

    def load(self, data: Any) -> Any:
        return loads(bytes(data))  # a memoryview of the column's UTF-8 bytes


def register_json_typecaster(connection: Any) -> None:
    """Parse ``json`` columns of ``connection`` (and ``json[]``'s elements) with :func:`loads`; ``jsonb`` stays text,
    parsed by the ``JSONField`` (Django's loader)."""
    connection.adapters.register_loader("json", FastJsonLoader)


def _plain(value: Any) -> bool:
    """Whether ``value`` is made only of the exact types orjson writes as ``json.dumps`` does (the module docstring);
    a circular structure raises RecursionError."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return False
            kind = type(item)
            if kind is str or kind is int or kind is bool or item is None:
                continue
            if (kind is dict or kind is list or kind is tuple) and _plain(item):
                continue
            if isinstance(item, str):  # a str subclass (a TextChoices member): both write its text, not its value
                continue
            return False
        return True
    if kind is list or kind is tuple:
        return all(_plain(item) for item in value)
    return kind is str or kind is int or kind is bool or value is None or isinstance(value, str)


def dumps(value: Any) -> str | bytes:
    """``json.dumps(value)``'s JSON value: orjson's UTF-8 bytes where :func:`_plain` says they are the same value."""
    if orjson is not None:
        try:
            if _plain(value):
                return orjson.dumps(value)
        except (TypeError, RecursionError):  # an integer beyond 64 bits, a lone surrogate; a circular value
            pass
    return json.dumps(value)


class FastJsonb(Jsonb):  # type: ignore[misc]  # Jsonb is untyped (Any)
    """psycopg's ``Jsonb`` wrapper of a ``JSONField`` value without an encoder, dumped by :func:`dumps` (the module
    docstring)."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        self.dumps = dumps


class JsonOperations(DatabaseOperations):
    """Django's PostgreSQL operations with :class:`FastJsonb` for a ``JSONField`` without its own encoder, and a hot
    statement logged as its ``EXECUTE`` text (the module docstring)."""

    def adapt_json_value(self, value: Any, encoder: Any) -> Any:
        if encoder is None:
            return FastJsonb(value)
        return super().adapt_json_value(value, encoder)

    def last_executed_query(self, cursor: Any, sql: Any, params: Any) -> str:
        if type(sql) is PreparedSQL:
            return str(self.compose_sql(str(sql), params))
        return super().last_executed_query(cursor, sql, params)
