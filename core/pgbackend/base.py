"""Django's PostgreSQL backend (``ENGINE = "core.pgbackend"``, config/settings/database.py), with one change: the
health check of a kept connection (``CONN_HEALTH_CHECKS``, done before the first statement of each request) costs no
round trip when the connection is quiet.

Django's check sends ``SELECT 1`` on every request: one round trip, a statement of the server's and the web's CPU
per settled round. A connection the server ended, whatever the reason (a failover that killed the old
primary, an administrator's ``pg_terminate_backend``, a restart, a backend that died), is never quiet: the server
sends its ``FATAL`` message and closes the socket, or the kernel closes it with the process, so the socket is
readable (the message, or the end of the stream). So the check first looks at the socket without waiting (``poll``
with a zero timeout): nothing to read on an idle connection that psycopg2 still counts open means the connection is
usable as far as any probe can tell, and Django's ``SELECT 1`` is skipped. Anything else (something to read, an
error or hang-up event, a connection not idle, a socket that cannot be polled) runs Django's own check, which reads
what is waiting and closes the connection when the server has gone; the request then reconnects (libpq's multi-host
URL finds the new primary, docs/scaling.md). What neither check can see is a server whose host vanished without
closing the socket: ``SELECT 1`` would wait for TCP's time-out as the request's first statement now does.

``is_usable()`` itself (Django's check after an error inside a request) is unchanged.

A second change: each new connection first gives every enumeration of ``str`` or ``int`` values the process has
defined (the models' choices: ``Period.DAY``, ``Kind.STAKE``...) the adapter psycopg2 would find for it anyway
(:func:`register_enum_adapters`). psycopg2 looks an adapter up by the value's exact type; for a subclass it fails,
asks the value for ``__conform__`` (an AttributeError raised and formatted) and then walks the class's MRO, about
five times the cost of adapting a plain ``str``. A round passes about ten such values. The same adapter is registered,
so what is sent does not change (``core/tests/test_pgbackend.py``).

A third: an aware ``datetime`` in UTC (what ``django.utils.timezone.now()`` and the platform's clock give) is quoted
once per value and the quoted text kept (:func:`register_datetime_adapter`). psycopg2 formats a datetime through
``isoformat()`` and a second ``printf`` on every execution, about 10,000 instructions a value; a round passes about 18
of them, mostly the few instants of its own ``now``. The text kept is psycopg2's own quoting of the same value (written
by :func:`_utc_text` at a fifth of the cost), so what is sent does not change; a datetime in any other zone (where two
values equal as instants may be written with different offsets, or differ only in ``fold``) and a naive one go to
psycopg2's adapter as before.

A fourth: the cursors it hands out (``make_cursor``, and ``make_debug_cursor`` when queries are logged, as
``CaptureQueriesContext`` does) have ``fetchone``/``fetchmany``/``fetchall``, ``close``, ``rowcount`` and
``description`` as methods and properties of their class (:class:`FetchingCursorWrapper`). Django's wrapper finds
them through ``__getattr__``, which Python calls only after the class lookup failed with an AttributeError it
formats and drops, and then builds a closure that wraps the errors: ~25 times a round. The methods here wrap the
errors the same way (``wrap_database_errors``; ``close`` unwrapped, as there), so what a caller gets, and how an
error reads, does not change.
"""

from __future__ import annotations

import enum
import select
from datetime import UTC, datetime
from typing import Any

import psycopg2  # type: ignore[import-untyped]  # no stubs installed
from django.db.backends.postgresql.base import CursorDebugWrapper as PostgresCursorDebugWrapper
from django.db.backends.postgresql.base import DatabaseWrapper as PostgresDatabaseWrapper
from django.db.backends.utils import CursorWrapper

from core.fastpaths import PreparedAsIs
from core.pgbackend.json import JsonOperations, register_json_typecaster

_TROUBLE = select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP | select.POLLNVAL


def register_enum_adapters() -> int:
    """Register, for every enumeration class of ``str`` or ``int`` values defined so far that has no adapter of its
    own, the adapter psycopg2's MRO walk would find for it (``str``'s or ``int``'s); returns how many were added."""
    adapters, quote = psycopg2.extensions.adapters, psycopg2.extensions.ISQLQuote
    added = 0
    pending = list(enum.Enum.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if (cls, quote) in adapters or not issubclass(cls, (str, int)):
            continue
        found = next((adapters[(base, quote)] for base in cls.__mro__[1:] if (base, quote) in adapters), None)
        if found is not None:
            psycopg2.extensions.register_adapter(cls, found)
            added += 1
    return added


#: psycopg2's own adapter of ``datetime`` (a C function), kept before ours replaces it
_PSYCOPG_DATETIME = psycopg2.extensions.adapters[(datetime, psycopg2.extensions.ISQLQuote)]
#: the quoted text of the UTC datetimes adapted lately, by value (emptied when it reaches _QUOTED_MAX)
_QUOTED: dict[datetime, object] = {}
_QUOTED_MAX = 256


def _quoted_datetime(value: datetime) -> object:
    """psycopg2's quoting of ``value``, kept per value for a UTC datetime (a UTC instance compares and hashes
    by its instant, with one text for it), psycopg2's adapter itself for any other value."""
    if value.tzinfo is not UTC or type(value) is not datetime:  # a subclass may format itself otherwise
        return _PSYCOPG_DATETIME(value)
    quoted = _QUOTED.get(value)
    if quoted is None:
        if len(_QUOTED) >= _QUOTED_MAX:
            _QUOTED.clear()
        quoted = _QUOTED[value] = PreparedAsIs(_utc_text(value))  # AsIs with a prepare: core/fastpaths.py, 4
    return quoted


def _utc_text(value: datetime) -> str:
    """The text psycopg2 writes for a UTC ``datetime`` (its ``isoformat()``: the microseconds only when not zero,
    the offset ``+00:00``) cast to ``timestamptz``, formatted here at about a fifth of the cost of ``isoformat()``
    (``core/tests/test_pgbackend.py`` compares the two)."""
    fields = (value.year, value.month, value.day, value.hour, value.minute, value.second)
    text = "'%04d-%02d-%02dT%02d:%02d:%02d" % fields  # noqa: UP031  # one C call, not six format() calls
    if value.microsecond:
        return f"{text}.{value.microsecond:06d}+00:00'::timestamptz"
    return f"{text}+00:00'::timestamptz"


def register_datetime_adapter() -> None:
    """Quote UTC datetimes through :func:`_quoted_datetime` (idempotent)."""
    psycopg2.extensions.register_adapter(datetime, _quoted_datetime)


class _Fetching:
    """The fetch methods and the result attributes Django's ``CursorWrapper`` reaches through ``__getattr__``, as
    members of the class: the same calls on the psycopg2 cursor inside the connection's ``wrap_database_errors``."""

    cursor: Any
    db: Any

    def fetchone(self) -> Any:
        with self.db.wrap_database_errors:
            return self.cursor.fetchone()

    def fetchmany(self, *args: Any, **kwargs: Any) -> Any:
        with self.db.wrap_database_errors:
            return self.cursor.fetchmany(*args, **kwargs)

    def fetchall(self) -> Any:
        with self.db.wrap_database_errors:
            return self.cursor.fetchall()

    def close(self) -> Any:
        return self.cursor.close()  # unwrapped, as Django's __getattr__ gives it (its __exit__ calls it)

    @property
    def rowcount(self) -> int:
        return int(self.cursor.rowcount)

    @property
    def description(self) -> Any:
        return self.cursor.description


class FetchingCursorWrapper(_Fetching, CursorWrapper):
    """Django's cursor wrapper with :class:`_Fetching`'s members."""


class FetchingCursorDebugWrapper(_Fetching, PostgresCursorDebugWrapper):
    """Django's PostgreSQL debug cursor wrapper (queries logged) with :class:`_Fetching`'s members."""


class DatabaseWrapper(PostgresDatabaseWrapper):
    ops_class = JsonOperations  # JSONField values written by orjson where the JSON is the same (pgbackend/json.py)
    # Django's own attributes (django-stubs does not declare them)
    health_check_enabled: bool
    health_check_done: bool

    def get_new_connection(self, conn_params):  # type: ignore[no-untyped-def]  # Django's signature
        register_enum_adapters()  # the models' enumerations exist by the first connection
        register_datetime_adapter()
        connection = super().get_new_connection(conn_params)
        register_json_typecaster(connection)  # json columns parsed by orjson where it gives json.loads's value
        return connection

    def make_cursor(self, cursor: Any) -> FetchingCursorWrapper:
        return FetchingCursorWrapper(cursor, self)

    def make_debug_cursor(self, cursor: Any) -> FetchingCursorDebugWrapper:
        return FetchingCursorDebugWrapper(cursor, self)

    def close_if_health_check_failed(self) -> None:
        if (
            self.connection is not None
            and self.health_check_enabled
            and not self.health_check_done
            and self.connection_quiet()
        ):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def connection_quiet(self) -> bool:
        """True when the kept connection is open, idle (no transaction) and its socket has nothing to read: the
        server has not ended it. Any doubt is False (Django's ``SELECT 1`` decides)."""
        raw = self.connection
        try:
            if raw is None or raw.closed or raw.get_transaction_status() != psycopg2.extensions.TRANSACTION_STATUS_IDLE:
                return False
            poller = select.poll()
            poller.register(raw.fileno(), _TROUBLE)
            return not poller.poll(0)
        except (OSError, ValueError, psycopg2.Error):
            return False
