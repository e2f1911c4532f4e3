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
"""

from __future__ import annotations

import select

import psycopg2  # type: ignore[import-untyped]  # no stubs installed
from django.db.backends.postgresql.base import DatabaseWrapper as PostgresDatabaseWrapper

_TROUBLE = select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP | select.POLLNVAL


class DatabaseWrapper(PostgresDatabaseWrapper):
    # Django's own attributes (django-stubs does not declare them)
    health_check_enabled: bool
    health_check_done: bool

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
