"""Reads that may lag go to a real streaming replica; money decisions read the primary
(core/db_router.py, docs/scaling.md "Read replicas").

The machine's PostgreSQL may refuse replication connections, so the test makes its own pair
(tests/kit/servers.py): a primary cluster (``initdb``, ``wal_level=replica``, a replication line in
``pg_hba.conf``) on a free port, a copy of the test database's schema and data in it (``pg_dump``), and a hot
standby made with ``pg_basebackup -R`` on another port, streaming from it. Django's ``default`` points at that
primary and ``DATABASES["replica"]`` at the standby for the test, and back afterwards. The pair is built with the
binaries of the test database's server version (the machine's, or the ``pgserver`` wheel's PostgreSQL 16 for the
embedded server) and ``pg_dump`` reads the test database where Django's connection is (a host and port, or the
embedded server's socket directory).
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from core.audit import Actor
from core.db_router import REPLICA, replica_reads
from core.errors import DomainError
from core.money import Money
from core.rng import use_rng
from games.selectors import rounds_history
from games.services import round_play
from games.tests.platform.testgames import FixedRNG
from tests.kit.servers import SERVER_TOOLS, Cluster, StreamingPair, Upstream, postgres_bin_dir
from tests.kit.wallet import fund
from wallet.errors import INSUFFICIENT_FUNDS
from wallet.selectors import balance, statement

pytestmark = [
    pytest.mark.process,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        postgres_bin_dir() is None,
        reason=f"the PostgreSQL server binaries ({', '.join(SERVER_TOOLS)}) are not installed here",
    ),
]

STAKE = 1_000
RED = {"bets": [{"type": "red", "amount": STAKE}]}
DB = "platform"


def _copy_database(source: Upstream, bin_dir: Path, primary: Cluster) -> None:
    """The test database's schema and rows into ``DB`` on the private primary (pg_dump | psql)."""
    env = {"PGPASSWORD": source.password, "PATH": "/usr/bin:/bin"}
    primary.sql(f'CREATE DATABASE "{DB}"')
    dump = subprocess.Popen(
        [
            str(bin_dir / "pg_dump"),
            "-h",
            source.host,
            "-p",
            str(source.port),
            "-U",
            source.user,
            "--no-owner",
            "--no-privileges",
            source.dbname,
        ],
        stdout=subprocess.PIPE,
        env=env,
    )  # its errors: the test's captured stderr
    load = subprocess.run(
        [
            str(bin_dir / "psql"),
            "-h",
            "127.0.0.1",
            "-p",
            str(primary.port),
            "-U",
            "postgres",
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
            "-d",
            DB,
        ],
        stdin=dump.stdout,
        capture_output=True,
        env=env,
    )
    assert dump.wait() == 0 and load.returncode == 0, load.stderr.decode()[-2000:]


def _running_test_case() -> Any:
    """The test case class pytest-django made for this test: Django refuses connections to aliases not in its
    ``databases``, and the replica's alias exists only from this fixture on (Django keeps the class in the closure
    of the ``ensure_connection`` it patches for the test)."""
    from django.db.backends.base.base import BaseDatabaseWrapper

    cells = BaseDatabaseWrapper.ensure_connection.__closure__ or ()
    return next(c.cell_contents for c in cells if isinstance(c.cell_contents, type))


@pytest.fixture
def pair(transactional_db: None, settings: Any) -> Iterator[StreamingPair]:
    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}
    primary = connections["default"].settings_dict
    dicts = {
        id(d): d
        for d in (
            primary,
            connections["refusal_log"].settings_dict,
            connections.settings["default"],
            connections.settings["refusal_log"],
        )
    }
    saved = {key: dict(d) for key, d in dicts.items()}
    databases = [d for d in {id(x): x for x in (django_settings.DATABASES, connections.settings)}.values()]
    test_case: Any = None
    allowed: Any = None
    source = Upstream.of(connections["default"])  # a host and port, or the embedded server's socket directory
    bin_dir = postgres_bin_dir(at_least=source.major)
    if bin_dir is None:
        pytest.skip(f"no PostgreSQL server binaries of version {source.major} or newer here (the test database's)")
    with StreamingPair(bin_dir) as streaming:
        _copy_database(source, streaming.bin_dir, streaming.primary)
        streaming.wait_replayed()
        connections.close_all()
        try:
            for d in dicts.values():
                d.update({"HOST": "127.0.0.1", "PORT": str(streaming.primary.port), "NAME": DB})
            for d in databases:
                d[REPLICA] = {**primary, "PORT": str(streaming.replica.port), "TEST": {"MIRROR": "default"}}
            test_case = _running_test_case()
            allowed = test_case.databases
            test_case.databases = frozenset({*allowed, REPLICA})
            yield streaming
        finally:
            connections.close_all()
            if test_case is not None:
                test_case.databases = allowed
            with contextlib.suppress(AttributeError, KeyError):
                del connections[REPLICA]  # this thread's wrapper, made from this pair's settings
            for d in databases:
                d.pop(REPLICA, None)
            for key, d in dicts.items():
                d.clear()
                d.update(saved[key])
            connections.close_all()


def _play(player: Any, key: str) -> None:
    round_play(player=player, game_code="european_roulette", idempotency_key=key, bet=RED, actor=Actor.player(player))


def test_a_statement_and_the_round_list_are_read_from_the_replica_and_a_stake_decision_from_the_primary(pair):
    from tests.kit.accounts import make_player

    player = make_player()
    fund(player, Money(3 * STAKE))
    with use_rng(FixedRNG(0)):  # every red bet loses
        _play(player, "r-1")
    pair.wait_replayed()

    with CaptureQueriesContext(connections[REPLICA]) as on_replica, CaptureQueriesContext(connection) as on_primary:
        lines = statement(player)
        rounds = list(rounds_history(player))
    assert [line.kind for line in lines] == ["adjustment", "stake"] and len(rounds) == 1
    assert len(on_replica) >= 2 and len(on_primary) == 0  # the statement and the recall list: the replica only

    with CaptureQueriesContext(connections[REPLICA]) as on_replica, CaptureQueriesContext(connection) as on_primary:
        with use_rng(FixedRNG(0)), replica_reads():  # even inside a block that sends reads to the replica
            _play(player, "r-2")
    assert len(on_replica) == 0 and len(on_primary) > 0  # the stake decision read, locked and wrote the primary


def test_replication_lag_shows_in_a_statement_but_never_in_a_money_decision(pair):
    from tests.kit.accounts import make_player

    player = make_player()
    fund(player, Money(2 * STAKE))
    pair.wait_replayed()
    pair.replay_pause()  # the replica stops here: it still sees 20 CZK on the account
    try:
        with use_rng(FixedRNG(0)):
            _play(player, "lag-1")
            _play(player, "lag-2")  # the whole balance staked on the primary
            with replica_reads(), pytest.raises(DomainError) as refused:
                _play(player, "lag-3")  # the replica would still say 10 CZK are left
        assert refused.value.code == INSUFFICIENT_FUNDS.code
        assert [line.kind for line in statement(player)] == ["adjustment"]  # the statement lags behind
        assert balance(player) == Money(0)  # a read nobody marked as may-lag: the primary
        with replica_reads():
            assert balance(player) == Money(2 * STAKE)  # the same read marked so: the replica, behind
    finally:
        pair.replay_resume()
    pair.wait_replayed()
    assert [line.kind for line in statement(player)] == ["adjustment", "stake", "stake"]  # caught up


def test_the_back_offices_list_of_audit_events_is_read_from_the_replica_and_a_record_from_the_primary(pair):
    from django.test import Client

    from core.models import AuditEvent
    from tests.kit.accounts import make_player, make_staff

    client = Client()
    client.force_login(make_staff(superuser=True))
    fund(make_player(), Money(STAKE))
    pair.wait_replayed()
    event = AuditEvent.objects.latest("id")
    with CaptureQueriesContext(connections[REPLICA]) as on_replica:
        listed = client.get("/admin/core/auditevent/")
    assert listed.status_code == 200 and any("core_auditevent" in q["sql"] for q in on_replica.captured_queries)
    with CaptureQueriesContext(connections[REPLICA]) as on_replica:
        shown = client.get(f"/admin/core/auditevent/{event.pk}/change/")
    assert shown.status_code == 200
    assert not any("core_auditevent" in q["sql"] for q in on_replica.captured_queries)
