"""Django's PostgreSQL backend on psycopg 3 (``ENGINE = "core.pgbackend"``, config/settings/database.py), with four
changes. The first: the health check of a kept connection (``CONN_HEALTH_CHECKS``, done before the first statement of
each request) costs no round trip when the connection is quiet.

Django's check sends ``SELECT 1`` on every request: one round trip, a statement of the server's and the web's CPU
per settled round. A connection the server ended, whatever the reason (a failover that killed the old
primary, an administrator's ``pg_terminate_backend``, a restart, a backend that died), is never quiet: the server
sends its ``FATAL`` message and closes the socket, or the kernel closes it with the process, so the socket is
readable (the message, or the end of the stream). So the check first looks at the socket without waiting (``poll``
with a zero timeout): nothing to read on an idle connection that psycopg still counts open means the connection is
usable as far as any probe can tell, and Django's ``SELECT 1`` is skipped. Anything else (something to read, an
error or hang-up event, a connection not idle, a socket that cannot be polled) runs Django's own check, which reads
what is waiting and closes the connection when the server has gone; the request then reconnects (libpq's multi-host
URL finds the new primary, docs/scaling.md). What neither check can see is a server whose host vanished without
closing the socket: ``SELECT 1`` would wait for TCP's time-out as the request's first statement now does.

``is_usable()`` itself (Django's check after an error inside a request) is unchanged.

A second: the hot statements run as the extended protocol's Bind/Execute of their prepared form
(``core/pgbackend/prepared.py``): every connection's cursors are :class:`~core.pgbackend.prepared.PlatformCursor`
(Django's client-side binding cursor for everything else), a binary ``int`` is a bigint, and where the connection's
time zone is UTC (Django sets it) ``timestamptz`` is read by psycopg's C loader (``datetime.UTC``, as Django's own
Python loader gives); Django's loader comes back for a named cursor or another zone (:meth:`DatabaseWrapper.
create_cursor`).

A third: ``json`` columns are parsed by orjson where it gives ``json.loads``'s value (``core/pgbackend/json.py``).

A fourth: the cursors it hands out (``make_cursor``, and ``make_debug_cursor`` when queries are logged, as
``CaptureQueriesContext`` does) have ``fetchone``/``fetchmany``/``fetchall``, ``close``, ``rowcount`` and
``description`` as methods and properties of their class (:class:`FetchingCursorWrapper`). Django's wrapper finds
them through ``__getattr__``, which Python calls only after the class lookup failed with an AttributeError it
formats and drops, and then builds a closure that wraps the errors: ~25 times a round. The methods here wrap the
errors the same way (``wrap_database_errors``; ``close`` unwrapped, as there), so what a caller gets, and how an
error reads, does not change.
"""

from __future__ import annotations

import select
from datetime import UTC
from typing import Any

import psycopg
from django.db.backends.postgresql.base import CursorDebugWrapper as PostgresCursorDebugWrapper
from django.db.backends.postgresql.base import DatabaseWrapper as PostgresDatabaseWrapper
from django.db.backends.postgresql.psycopg_any import register_tzloader  # type: ignore[import-untyped]
from django.db.backends.utils import CursorWrapper
from django.utils.asyncio import async_unsafe
from psycopg import pq

from core.pgbackend import prepared
from core.pgbackend.json import JsonOperations, register_json_typecaster

_TROUBLE = select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP | select.POLLNVAL
_IDLE = pq.TransactionStatus.IDLE


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

    def get_connection_params(self) -> dict[str, Any]:
        params: dict[str, Any] = super().get_connection_params()
        params["cursor_factory"] = prepared.PlatformCursor  # Django's cursor, the hot statements bound (module doc)
        return params

    def get_new_connection(self, conn_params):  # type: ignore[no-untyped-def]  # Django's signature
        connection = super().get_new_connection(conn_params)
        prepared.configure(connection, utc=self.timezone is UTC)
        register_json_typecaster(connection)  # json columns parsed by orjson where it gives json.loads's value
        return connection

    @async_unsafe
    def create_cursor(self, name: Any = None) -> Any:
        if name is None and self.timezone is UTC:
            # the connection's loader is psycopg's UTC one (configure): Django's comparison of its zone skipped
            return self.connection.cursor()
        _restore_django_tzloader(self.connection)  # Django's create_cursor reads its loader's zone
        return super().create_cursor(name)

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
            if raw is None or raw.closed or raw.info.transaction_status != _IDLE:
                return False
            poller = select.poll()
            poller.register(raw.fileno(), _TROUBLE)
            return not poller.poll(0)
        except (OSError, ValueError, psycopg.Error):
            return False


def _restore_django_tzloader(connection: psycopg.Connection[Any]) -> None:
    """Django's UTC ``timestamptz`` loader back on ``connection`` in place of psycopg's C one (which has no
    ``timezone`` for Django's ``create_cursor`` to compare): before a named cursor or a cursor in another zone."""
    loader = connection.adapters.get_loader(prepared.TIMESTAMPTZ_OID, pq.Format.TEXT)
    if loader is not None and not hasattr(loader, "timezone"):
        register_tzloader(UTC, connection)
