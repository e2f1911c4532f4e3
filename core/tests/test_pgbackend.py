"""The health check of a kept connection (core/pgbackend/base.py): no round trip on a quiet connection, and a
connection the server ended is still dropped before the request uses it (the reconnect after a failover)."""

from __future__ import annotations

import random
import select
import time
from collections.abc import Iterator
from contextlib import nullcontext
from typing import Any, cast

import psycopg2  # type: ignore[import-untyped]  # no stubs installed
import pytest
from django.db import connection as default_connection

from core.pgbackend.base import DatabaseWrapper

pytestmark = pytest.mark.django_db(transaction=True)
connection = cast(DatabaseWrapper, default_connection)


@pytest.fixture
def observer() -> Iterator[psycopg2.extensions.cursor]:
    """A second connection of the test's own, to watch and end the tested one's backend."""
    raw = psycopg2.connect(**connection.get_connection_params())
    raw.autocommit = True
    with raw.cursor() as cur:
        yield cur
    raw.close()


def _last_statement(observer: psycopg2.extensions.cursor, pid: int) -> str:
    observer.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid])
    return str(observer.fetchone()[0])


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


def test_every_enumeration_of_the_models_is_adapted_by_its_exact_type_and_sent_as_its_value() -> None:
    from django.apps import apps
    from django.db.models import Choices

    from core.pgbackend.base import register_enum_adapters

    connection.close()
    connection.ensure_connection()  # a new connection registers them
    assert apps.ready
    enums: set[Any] = {c for c in _subclasses(Choices) if issubclass(c, (str, int))}
    assert len(enums) > 50  # the models' choices: accounts alone declares 26
    quote = psycopg2.extensions.ISQLQuote
    assert [c for c in enums if (c, quote) not in psycopg2.extensions.adapters] == []
    assert register_enum_adapters() == 0  # nothing left to add
    with connection.cursor() as cur:
        raw = cur.cursor
        for cls in sorted(enums, key=lambda c: c.__qualname__):
            for member in cls:
                plain = member.value if not isinstance(member.value, bool) else int(member.value)
                assert raw.mogrify("%s", [member]) == raw.mogrify("%s", [plain]), (cls, member)


def _subclasses(cls: type) -> set[type]:
    out: set[type] = set()
    sub: type
    for sub in cls.__subclasses__():
        out |= {sub, *_subclasses(sub)}
    return out


def test_a_utc_datetime_is_quoted_as_psycopg2_quotes_it_once_per_value_and_any_other_datetime_by_psycopg2() -> None:
    from datetime import UTC, datetime, timedelta, timezone
    from zoneinfo import ZoneInfo

    from core.pgbackend.base import _PSYCOPG_DATETIME, _utc_text

    connection.close()
    connection.ensure_connection()  # a new connection registers the adapter
    prague = ZoneInfo("Europe/Prague")
    ambiguous = datetime(2026, 10, 25, 2, 30, tzinfo=prague)  # the hour the clocks go back: fold 0 and 1
    values = [
        datetime(2026, 12, 7, 5, 40, 1, 123456, tzinfo=UTC),
        datetime(2026, 12, 7, 5, 40, 1, tzinfo=UTC),  # no microseconds: isoformat leaves them out
        datetime(1, 1, 1, tzinfo=UTC),
        datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
        datetime(2026, 12, 7, 6, 40, 1, 123456, tzinfo=timezone(timedelta(hours=1))),  # the first one's instant
        ambiguous,
        ambiguous.replace(fold=1),  # equal to the fold-0 one (same zone), an hour later as an instant
        datetime(2026, 12, 7, 5, 40, 1),  # noqa: DTZ001  # naive: timestamp, not timestamptz
    ]
    with connection.cursor() as cur:
        raw = cur.cursor
        sent = [raw.mogrify("%s", [v]) for v in values]
        assert sent == [_PSYCOPG_DATETIME(v).getquoted() for v in values]
        assert len(set(sent)) == len(values)  # the +01:00 one and the fold-1 one are not given another's text
        assert sent[0] == b"'2026-12-07T05:40:01.123456+00:00'::timestamptz"
        assert raw.mogrify("%s", [values[0].replace()]) == sent[0]  # an equal value again: the same text
        for v in values:
            cur.execute("SELECT %s", [v])
            got = cur.fetchone()[0]
            # the instant for an aware value (Python compares an ambiguous time with another zone's as unequal)
            assert (got.timestamp() if got.tzinfo else got) == (v.timestamp() if v.tzinfo else v), v
    rng = random.Random(36)
    for _ in range(2000):  # psycopg2's text, written by core.pgbackend itself: every field, with and without micros
        v = datetime(1, 1, 1, tzinfo=UTC) + timedelta(microseconds=rng.randrange(315_537_897_600_000_000))
        v = v.replace(microsecond=0) if rng.random() < 0.3 else v
        assert _utc_text(v).encode() == _PSYCOPG_DATETIME(v).getquoted(), v
    utc = values[0]
    assert psycopg2.extensions.adapt(utc) is psycopg2.extensions.adapt(utc.replace())  # quoted once, kept
    assert psycopg2.extensions.adapt(ambiguous) is not psycopg2.extensions.adapt(ambiguous)  # not kept


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
            cur.execute("DO $$ BEGIN END $$")  # no result to fetch: psycopg2's error, as Django's
            with pytest.raises(django.db.ProgrammingError, match="no results to fetch"):
                cur.fetchone()
