"""Retention: the daily job ``core.partitions_archive`` (core/archiving.py, docs/scaling.md "Retention").

A month of a partitioned table is archived (detached into the ``archive`` schema, no row deleted) from 00:00 Prague of
the day after its last row's legal period ends, and not a second before; a month other rows still point at stays and
is reported with the referencing table; the tables a reconciliation sums stay while their carry-forward hooks are not
registered, and say which check sums them (tests/test_partition_carry_forward.py archives them with the hooks); a
retention shorter than the law's is refused; a month held by another worker is left to it, and two workers archive
each month once. The clock is moved with time-machine; the database is real, each month in its own transaction.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
import time_machine
from django.db import connection, connections, transaction

from core import partitioning
from core.archiving import ARCHIVED, BUSY, LOCK_CLASS, REFERENCED, SUMMED, archive_due_at, partitions_archive_due
from core.audit import Actor
from core.models import AuditEvent
from core.partitioning import month_index, month_range, partition_name
from core.retention_rules import RetentionTooShort, partition_retention
from core.rng import use_rng
from core.tests.test_celery_worker import ROOT
from core.tests.test_celery_worker import worker_env as worker_env
from games.models import Round, RoundAction
from games.services import round_play
from games.tests.platform.testgames import FixedRNG
from tests.kit.money import czk
from tests.kit.wallet import fund

JUNE_2020 = month_index(date(2020, 6, 1))
JULY_2020 = JUNE_2020 + 1
AUGUST_2020 = JUNE_2020 + 2
#: June 2020's last row was written before 2020-07-01 00:00 UTC = 02:00 Prague on 1 July; 120 months on, its period
#: ends with 1 July 2030 (Prague), so the month is due at 00:00 Prague on 2 July 2030 = 22:00 UTC on 1 July
JUNE_DUE = datetime(2030, 7, 1, 22, 0, tzinfo=UTC)
RED = {"bets": [{"type": "red", "amount": 1_000}]}


def _one(sql: str, params: list | None = None):
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchone()


def _attached(table: str) -> set[str]:
    return {name for name, _ in partitioning.partitions(connection, table)}


def _old_month(table: str, index: int) -> str:
    partitioning.ensure(connection, table, index, 0)
    return partition_name(table, index)


def _audit_event_in(index: int, action: str = "test.old") -> int:
    pk = month_range(index)[0] + 1
    AuditEvent(
        pk=pk,
        occurred_at=datetime.combine(partitioning.month_of(index), datetime.min.time(), tzinfo=UTC),
        actor_type="system",
        actor_label="test",
        action=action,
    ).save(force_insert=True)
    return pk


def _round_in(index: int, settings) -> int:
    """A settled roulette round played now, copied with an id of month ``index`` (and its own idempotency key)."""
    from tests.kit.accounts import make_player

    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}
    player = make_player()
    fund(player, czk(100))
    key = f"r-{uuid.uuid4().hex[:12]}"
    with use_rng(FixedRNG(0)):
        round_play(
            player=player, game_code="european_roulette", idempotency_key=key, bet=RED, actor=Actor.player(player)
        )
    source = Round.objects.get(player=player, idempotency_key=key)
    pk = month_range(index)[0] + 1 + Round.objects.count()
    columns = [f.column for f in Round._meta.concrete_fields if f.column not in ("id", "idempotency_key")]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO games_round (id, idempotency_key, {', '.join(columns)}) "
            f"SELECT %s, %s, {', '.join(columns)} FROM games_round WHERE id = %s",
            [pk, f"old-{key}", source.pk],
        )
    return pk


def _by(results, table: str) -> dict[str, tuple[str, str]]:
    return {r.partition: (r.outcome, r.detail) for r in results if r.table == table}


def test_a_month_becomes_due_at_midnight_prague_after_the_day_its_last_rows_period_ends():
    assert archive_due_at(JUNE_2020, 120) == JUNE_DUE
    # a winter month: the last row before 2021-01-01 00:00 UTC is written on 1 January 00:59 Prague
    assert archive_due_at(month_index(date(2020, 12, 1)), 36) == datetime(2024, 1, 1, 23, 0, tzinfo=UTC)
    # one month after December 2023's last row (1 January 2024, 00:59 Prague) ends with 1 February
    assert archive_due_at(month_index(date(2023, 12, 1)), 1) == datetime(2024, 2, 1, 23, 0, tzinfo=UTC)


def test_a_retention_below_the_legal_period_is_refused_at_start_and_by_the_job(settings):
    with pytest.raises(RetentionTooShort, match="253/2008"):
        partition_retention({"games_round": 119}, audit_years=5, audit_aml_years=10)
    with pytest.raises(RetentionTooShort, match="466/2023"):
        partition_retention({"limits_settledbet": 35}, audit_years=5, audit_aml_years=10)
    with pytest.raises(RetentionTooShort, match="not a partitioned table"):
        partition_retention({"accounts_player": 500}, audit_years=5, audit_aml_years=10)
    # the audit trail's months follow a longer configured audit period
    assert partition_retention({}, audit_years=5, audit_aml_years=12)["core_auditevent"] == 144
    with pytest.raises(RetentionTooShort):
        partition_retention({"core_auditevent": 130}, audit_years=5, audit_aml_years=12)
    assert partition_retention({"games_round": 180}, audit_years=5, audit_aml_years=10)["games_round"] == 180
    settings.PARTITION_RETENTION_MONTHS = {**settings.PARTITION_RETENTION_MONTHS, "core_auditevent": 12}
    with pytest.raises(RetentionTooShort):  # a value slipped past the settings' check is refused by the job too
        partitions_archive_due()


@pytest.mark.django_db
def test_an_audit_month_one_day_inside_its_period_stays_and_the_first_month_past_it_is_archived():
    june, july = _old_month("core_auditevent", JUNE_2020), _old_month("core_auditevent", JULY_2020)
    june_event, july_event = _audit_event_in(JUNE_2020), _audit_event_in(JULY_2020)
    for inside in (JUNE_DUE - timedelta(days=1), JUNE_DUE - timedelta(seconds=1)):
        with time_machine.travel(inside, tick=False):
            assert june not in _by(partitions_archive_due(), "core_auditevent")
        assert {june, july} <= _attached("core_auditevent")
    with time_machine.travel(JUNE_DUE, tick=False):
        results = partitions_archive_due()
    assert _by(results, "core_auditevent") == {june: (ARCHIVED, f"archive.{june}")}  # July is not due
    assert june not in _attached("core_auditevent") and july in _attached("core_auditevent")
    assert not AuditEvent.objects.filter(pk=june_event).exists()  # out of the live table ...
    assert _one(f"SELECT action FROM archive.{june} WHERE id = %s", [june_event]) == ("test.old",)  # ... not deleted
    assert AuditEvent.objects.filter(pk=july_event).exists()
    record = AuditEvent.objects.get(action="core.partition.archived", object_id=june)
    assert record.details == {
        "table": "core_auditevent",
        "month": "2020-06-01",
        "rows": 1,
        "archive": f"archive.{june}",
        "retention_months": 120,
    }
    with time_machine.travel(JUNE_DUE + timedelta(days=3), tick=False):  # idempotent: nothing left to do
        assert _by(partitions_archive_due(), "core_auditevent") == {}


@pytest.mark.django_db
def test_a_round_month_still_referenced_by_a_round_action_stays_and_is_reported(settings):
    june, august = _old_month("games_round", JUNE_2020), _old_month("games_round", AUGUST_2020)
    referenced, free = _round_in(JUNE_2020, settings), _round_in(AUGUST_2020, settings)
    RoundAction.objects.create(
        round_id=referenced,
        seq=1,
        action={"collect": True},
        idempotency_key="a-1",
        draws_before=0,
        draws_after=0,
        created_at=JUNE_DUE,
    )
    august_key = Round.objects.get(pk=free).idempotency_key
    with time_machine.travel(archive_due_at(AUGUST_2020, 120), tick=False):
        results = partitions_archive_due()
    assert _by(results, "games_round") == {
        june: (REFERENCED, "games_roundaction.round_id"),
        august: (ARCHIVED, f"archive.{august}"),
    }
    assert june in _attached("games_round") and Round.objects.filter(pk=referenced).exists()
    assert not Round.objects.filter(pk=free).exists()
    # the archived round's idempotency claim left with it; the referenced one's stays
    assert _one(
        "SELECT count(*) FROM games_round_unique_player_key_claim WHERE idempotency_key = %s", [august_key]
    ) == (0,)
    assert _one("SELECT count(*) FROM games_round_unique_player_key_claim WHERE row_id = %s", [referenced]) == (1,)


@pytest.mark.django_db
def test_the_summed_tables_keep_their_due_months_while_their_carry_forward_hooks_are_not_registered(monkeypatch):
    """Fail closed: a summed table is archived only through the hook that carries its months' totals forward
    (tests/test_partition_carry_forward.py archives them with the hooks); without it the month stays, and says
    which check sums it and which hook is missing."""
    from core import archiving

    tables = ("wallet_ledgertransaction", "wallet_entry", "jackpots_contribution", "limits_settledbet")
    names = {table: _old_month(table, JUNE_2020) for table in tables}
    for hook in archiving.CARRY_FORWARD:
        monkeypatch.setattr(hook, "_impl", None)
    assert archiving.carry_forward_missing() == [
        "jackpots_contribution",
        "limits_settledbet",
        "wallet_entry",
        "wallet_ledgertransaction",
    ]
    assert {m.id for m in archiving.carry_forward_check()} == {"core.W020"}
    with time_machine.travel(JUNE_DUE, tick=False):
        results = partitions_archive_due()
    for table, name in names.items():
        outcome, detail = _by(results, table)[name]
        assert outcome == SUMMED and "not registered" in detail, table
        assert name in _attached(table), table
    assert "ledger_check" in _by(results, "wallet_entry")[names["wallet_entry"]][1]
    assert "limits_reconcile" in _by(results, "limits_settledbet")[names["limits_settledbet"]][1]
    with pytest.raises(ValueError, match="not a summed partitioned table"):
        archiving.carry_forward(RoundAction)


@pytest.fixture
def far_settled_bets(settings):
    """The settled bets kept as long as the ledger: by the instants these tests move the clock to, their 36 months
    would have the job archive this month's settled bets too, in a transaction the test commits."""
    settings.PARTITION_RETENTION_MONTHS = {**settings.PARTITION_RETENTION_MONTHS, "limits_settledbet": 120}


@pytest.fixture
def cleanup_months():
    """Months made by a test that commits: dropped afterwards, live or archived (the flush does not drop tables)."""
    made: list[str] = []
    yield made
    with connection.cursor() as cursor:
        for name in made:
            cursor.execute(f"DROP TABLE IF EXISTS archive.{name}")
            cursor.execute(f"DROP TABLE IF EXISTS public.{name}")


@pytest.mark.django_db(transaction=True)
def test_a_month_another_worker_holds_is_left_to_it_and_two_workers_archive_each_month_once(
    cleanup_months, far_settled_bets
):
    months = [JUNE_2020, JULY_2020, AUGUST_2020]
    names = [_old_month("core_auditevent", m) for m in months]
    cleanup_months += names
    for m in months:
        _audit_event_in(m)
    due = archive_due_at(AUGUST_2020, 120)

    holder = connections.create_connection("default")  # another worker, in the middle of archiving June
    try:
        with holder.cursor() as cursor:
            cursor.execute("BEGIN")
            cursor.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [LOCK_CLASS, names[0]])
            with time_machine.travel(due, tick=False):
                results = _by(partitions_archive_due(), "core_auditevent")
            cursor.execute("ROLLBACK")
    finally:
        holder.close()
    assert results[names[0]] == (BUSY, "another worker holds the month")
    assert [results[n][0] for n in names[1:]] == [ARCHIVED, ARCHIVED]
    assert names[0] in _attached("core_auditevent")

    # June again, now by two workers at once, and a third run after them: archived once, nothing left
    _old_month("core_auditevent", AUGUST_2020 + 1)
    cleanup_months.append(partition_name("core_auditevent", AUGUST_2020 + 1))
    _audit_event_in(AUGUST_2020 + 1)
    runs: list[list] = []
    barrier = threading.Barrier(2)

    def worker() -> None:
        try:
            barrier.wait()
            runs.append(partitions_archive_due(now=archive_due_at(AUGUST_2020 + 1, 120)))
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    archived = sorted(
        r.partition for run in runs for r in run if r.table == "core_auditevent" and r.outcome == ARCHIVED
    )
    assert archived == sorted([names[0], partition_name("core_auditevent", AUGUST_2020 + 1)])
    assert not [
        r for run in runs for r in run if r.table == "core_auditevent" and r.outcome != ARCHIVED and r.outcome != BUSY
    ]
    assert AuditEvent.objects.filter(action="core.partition.archived").count() == 4
    with transaction.atomic():
        assert _by(partitions_archive_due(now=due + timedelta(days=40)), "core_auditevent") == {}


@pytest.mark.worker
@pytest.mark.filterwarnings("ignore:task_always_eager has no effect on send_task")
@pytest.mark.django_db(transaction=True)
def test_the_scheduled_task_archives_a_due_month_in_a_real_worker(worker_env, cleanup_months):
    """The task sent through the filesystem broker to a real ``celery worker`` process whose clock time-machine has
    moved past June 2020's period (the wrapper below only moves the clock; the worker is Celery's own)."""
    from config.celery import app
    from core.tasks import partitions_archive
    from core.tests.test_celery_worker import stop_worker, transport_options

    june = _old_month("core_auditevent", JUNE_2020)
    cleanup_months.append(june)
    _audit_event_in(JUNE_2020)
    url, queue = "filesystem://", f"test-{uuid.uuid4().hex[:8]}"
    start = (
        f"import time_machine; time_machine.travel({JUNE_DUE.timestamp()!r}, tick=True).start(); "
        "from celery.__main__ import main; main()"
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            start,
            "-A",
            "config",
            "worker",
            "-l",
            "warning",
            "--pool",
            "solo",
            "-Q",
            queue,
            "-n",
            f"test-{queue}@%h",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # the settled bets as in far_settled_bets
        env={**worker_env, "CELERY_BROKER_URL": url, "PARTITION_RETENTION_MONTHS": '{"limits_settledbet": 120}'},
    )
    try:
        with app.connection_for_write(url, transport_options=transport_options(worker_env, url)) as conn:
            # send_task: always sent to the broker (the tests' eager setting would run apply_async here, in this
            # process)
            app.send_task(partitions_archive.name, queue=queue, connection=conn)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not _one("SELECT to_regclass(%s)", [f"archive.{june}"])[0]:
            time.sleep(0.3)
    finally:
        out = stop_worker(proc)
    assert _one("SELECT to_regclass(%s)::text", [f"archive.{june}"])[0] == f"archive.{june}", out
    assert june not in _attached("core_auditevent")
    assert AuditEvent.objects.filter(action="core.partition.archived", object_id=june).count() == 1
