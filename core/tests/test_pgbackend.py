"""The health check of a kept connection (core/pgbackend/base.py): no round trip on a quiet connection, and a
connection the server ended is still dropped before the request uses it (the reconnect after a failover)."""

from __future__ import annotations

import random
import select
import time
from collections.abc import Iterator
from contextlib import nullcontext
from typing import Any, cast

import psycopg
import pytest
from django.db import connection as default_connection

from core.pgbackend.base import DatabaseWrapper

pytestmark = pytest.mark.django_db(transaction=True)
connection = cast(DatabaseWrapper, default_connection)


@pytest.fixture
def observer() -> Iterator[psycopg.Cursor[Any]]:
    """A second connection of the test's own, to watch and end the tested one's backend."""
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as raw, raw.cursor() as cur:
        yield cur


def _last_statement(observer: psycopg.Cursor[Any], pid: int) -> str:
    observer.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid])
    row = observer.fetchone()
    assert row is not None
    return str(row[0])


def _backend() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid() /* health check test */")
        return int(cur.fetchone()[0])


def _new_request() -> None:
    """What Django does at a request's start for a kept connection: the health check is due again."""
    connection.health_check_done = False


def test_a_quiet_connection_is_reused_without_a_statement(observer):
    assert connection.health_check_enabled  # CONN_HEALTH_CHECKS is on (config/settings/database.py)
    pid = _backend()
    raw = connection.connection
    _new_request()
    connection.close_if_health_check_failed()
    assert connection.connection is raw and connection.health_check_done
    # the server received nothing since the last statement: no "SELECT 1"
    assert _last_statement(observer, pid) == "SELECT pg_backend_pid() /* health check test */"


def test_a_connection_the_server_ended_is_dropped_before_it_is_used_and_the_next_statement_reconnects(observer):
    pid = _backend()
    observer.execute("SELECT pg_terminate_backend(%s)", [pid])
    assert observer.fetchone()[0] is True
    poller = select.poll()
    poller.register(connection.connection.fileno(), select.POLLIN | select.POLLHUP)
    deadline = time.monotonic() + 10
    while not poller.poll(100) and time.monotonic() < deadline:
        pass  # the server's goodbye reaches the socket
    assert not connection.connection_quiet()
    _new_request()
    connection.close_if_health_check_failed()
    assert connection.connection is None  # dropped, not handed to the request
    assert _backend() != pid  # the request's first statement runs on a new connection


def test_inside_a_transaction_the_check_is_django_s_own_statement(observer):
    pid = _backend()
    with connection.cursor() as cur:
        cur.execute("BEGIN")
    try:
        assert not connection.connection_quiet()  # not idle: the socket alone cannot tell
        _new_request()
        connection.close_if_health_check_failed()
        assert _last_statement(observer, pid) == "SELECT 1"
        assert connection.connection is not None
    finally:
        with connection.cursor() as cur:
            cur.execute("ROLLBACK")


def test_every_enumeration_of_the_models_is_sent_as_its_value() -> None:
    from django.apps import apps
    from django.db.models import Choices

    assert apps.ready
    enums: set[Any] = {c for c in _subclasses(Choices) if issubclass(c, (str, int))}
    assert len(enums) > 50  # the models' choices: accounts alone declares 26
    for cls in sorted(enums, key=lambda c: c.__qualname__):
        for member in cls:
            plain = member.value if not isinstance(member.value, bool) else int(member.value)
            sent = connection.ops.compose_sql("%s", [member])
            assert sent == connection.ops.compose_sql("%s", [plain]), (cls, member, sent)


def _subclasses(cls: type) -> set[type]:
    out: set[type] = set()
    sub: type
    for sub in cls.__subclasses__():
        out |= {sub, *_subclasses(sub)}
    return out


def test_timestamptz_is_read_by_psycopgs_loader_as_djangos_reads_it_and_named_cursors_get_djangos_back() -> None:
    """A UTC connection reads ``timestamptz`` with psycopg's C loader: the same ``datetime`` in ``datetime.UTC`` that
    Django's loader gives, for every instant; a named (server-side) cursor gets Django's loader back first."""
    from datetime import UTC, datetime, timedelta

    from django.db.backends.postgresql.psycopg_any import register_tzloader  # type: ignore[import-untyped]
    from psycopg.types.datetime import TimestamptzLoader

    connection.close()
    connection.ensure_connection()
    raw = connection.connection
    rng = random.Random(36)
    values = [datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)]
    values += [
        datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=rng.randrange(-(10**16), 10**17)) for _ in range(300)
    ]
    query = "SELECT v FROM unnest(%s::timestamptz[]) AS v"
    loader = raw.adapters.get_loader(1184, psycopg.pq.Format.TEXT)
    assert loader.__name__ == TimestamptzLoader.__name__ and not hasattr(loader, "timezone")  # psycopg's (C) own
    with connection.cursor() as cur:
        cur.execute(query, [values])
        ours = [r[0] for r in cur.fetchall()]
    with raw.cursor() as plain:
        register_tzloader(UTC, plain)  # Django's own loader on this cursor only
        plain.execute(query, [values])
        djangos = [r[0] for r in plain.fetchall()]
    assert ours == djangos == values
    assert all(v.tzinfo is UTC for v in ours + djangos)
    with connection.chunked_cursor() as named:  # a server-side cursor: Django's create_cursor with its loader
        named.execute("SELECT now() FROM generate_series(1, 3)")
        assert all(r[0].tzinfo is UTC for r in named.fetchall())
    assert hasattr(raw.adapters.get_loader(1184, psycopg.pq.Format.TEXT), "timezone")  # Django's, back
    connection.close()


def test_cursors_fetch_through_members_of_their_class_with_django_s_errors() -> None:
    import django.db
    from django.test.utils import CaptureQueriesContext

    for logged in (False, True):
        with CaptureQueriesContext(connection) if logged else nullcontext(), connection.cursor() as cur:
            for name in ("fetchone", "fetchmany", "fetchall", "close", "rowcount", "description"):
                assert any(name in vars(k) for k in type(cur).__mro__ if k is not object), (logged, name)
            cur.execute("SELECT n, n * 2 FROM generate_series(1, 4) AS n")
            assert cur.rowcount == 4
            assert [d.name for d in cur.description] == ["n", "?column?"]
            assert cur.fetchone() == (1, 2)
            assert cur.fetchmany(2) == [(2, 4), (3, 6)]
            assert cur.fetchall() == [(4, 8)]
            cur.execute("DO $$ BEGIN END $$")  # no result to fetch: psycopg's error, as Django's
            with pytest.raises(django.db.ProgrammingError, match="didn.t produce records"):
                cur.fetchone()
