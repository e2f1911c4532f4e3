"""Bench-only SQL statement counter: an ``X-SQL-Count`` response header on every request when ``SQL_COUNT=1``.

    SQL_COUNT=1 gunicorn -c config/gunicorn.conf.py config.sqlcount:application     (``scripts/bench.py`` does this)

It counts what Django's ``CaptureQueriesContext`` counts, so the bench's figure and a statement-count test agree:
every statement run through a Django cursor (an execute wrapper, ``connection.execute_wrappers``) plus the
transaction control Django sends (``BEGIN`` when an atomic block opens a transaction, ``COMMIT``, ``ROLLBACK``),
summed over every database alias the request used (the stake-refusal log has its own). Not counted, like in
``CaptureQueriesContext``: the connection set-up and the ``CONN_HEALTH_CHECKS`` probe of a reused connection.

The header is added when the view has returned, at ``start_response``: every statement of the request ran before.
Without ``SQL_COUNT=1`` :data:`application` *is* ``config.wsgi.application``, untouched: no cost in production.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Any

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

HEADER = "X-SQL-Count"
_ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None] | tuple[None, None, None]
StartResponse = Callable[..., Callable[[bytes], object]]


class StatementCounter:
    """Counts the statements of one database connection (one per alias and thread: Django's connections are
    thread-local, so a gthread worker's threads never share a counter)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        self.count += 1
        return execute(sql, params, many, context)


def instrument(conn: BaseDatabaseWrapper) -> StatementCounter:
    """The counter of ``conn``, installed on first use: an execute wrapper for the statements, and wraps of the
    three methods Django sends transaction control through (the same places its query log records them)."""
    counter: StatementCounter | None = getattr(conn, "_sql_counter", None)
    if counter is not None:
        return counter
    counter = StatementCounter()
    conn.execute_wrappers.append(counter)
    # Private methods of Django's BaseDatabaseWrapper (stable since Django 1.6), hence reached by attribute name.
    commit, rollback, set_autocommit = (getattr(conn, name) for name in ("_commit", "_rollback", "_set_autocommit"))

    def counted_commit() -> None:
        if conn.connection is not None:
            counter.count += 1  # COMMIT
        commit()

    def counted_rollback() -> None:
        if conn.connection is not None:
            counter.count += 1  # ROLLBACK
        rollback()

    def counted_set_autocommit(autocommit: bool) -> None:
        if not autocommit:
            counter.count += 1  # BEGIN (psycopg sends it before the transaction's first statement)
        set_autocommit(autocommit)

    for name, method in (
        ("_commit", counted_commit),
        ("_rollback", counted_rollback),
        ("_set_autocommit", counted_set_autocommit),
        ("_sql_counter", counter),
    ):
        setattr(conn, name, method)
    return counter


def uninstrument(conn: BaseDatabaseWrapper) -> None:
    """Take the counter off ``conn`` again (tests)."""
    counter: StatementCounter | None = getattr(conn, "_sql_counter", None)
    if counter is None:
        return
    conn.execute_wrappers.remove(counter)
    for name in ("_commit", "_rollback", "_set_autocommit", "_sql_counter"):
        delattr(conn, name)  # the instance attributes go; the class's methods show through again


def counting(
    app: Callable[[dict[str, Any], StartResponse], Iterable[bytes]],
) -> Callable[[dict[str, Any], StartResponse], Iterable[bytes]]:
    """Wrap a Django WSGI application so each response carries the number of SQL statements of its request."""

    def counted_app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        counters = [instrument(connections[alias]) for alias in connections]
        for counter in counters:
            counter.count = 0

        def counted_start_response(
            status: str, headers: list[tuple[str, str]], exc_info: _ExcInfo | None = None
        ) -> Callable[[bytes], object]:
            total = sum(counter.count for counter in counters)
            return start_response(status, [*headers, (HEADER, str(total))], exc_info)

        return app(environ, counted_start_response)

    return counted_app


from config.wsgi import application as django_application  # noqa: E402  (gunicorn's own: the API's handler too)

application: Callable[[dict[str, Any], StartResponse], Iterable[bytes]] = (
    counting(django_application) if os.environ.get("SQL_COUNT") == "1" else django_application
)
