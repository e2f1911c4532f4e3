"""Retention of the summed tables: the ledger's entries and transactions, the jackpot contributions and
the settled bets are archived with their months' totals carried forward (core/archiving.py, docs/scaling.md
"Retention").

Rows are written through the services (rounds with a jackpot level, an adjustment, a branch cash deposit) with the
application's clock in May and June 2020 and the ids of those months (the tables' id default switched for the
writing, as the database's clock would have made them then), and more rows now. At the instant the months are due the
job archives them; ``ledger_check``, the operator balances, ``jackpot_check`` and ``limits_reconcile`` stay clean and
give the same figures before and after. A summed table without its registered hook keeps its month; a failure after
the hook, inside the month's transaction, leaves neither the totals nor the DETACH; a second run or a second worker
carries nothing twice.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.db import IntegrityError, connection, connections, transaction

from core import archiving, partitioning
from core.archiving import (
    ARCHIVED,
    BUSY,
    FAILED,
    LOCK_CLASS,
    REFERENCED,
    SUMMED,
    ArchivingMonth,
    archive_due_at,
    partitions_archive_due,
)
from core.audit import Actor
from core.models import AuditEvent
from core.partitioning import MONTH_BITS, month_index, month_range, partition_name
from core.rng import use_rng
from games.services import round_play
from games.tests.platform.testgames import FixedRNG
from jackpots.management.commands.jackpot_check import problems as jackpot_problems
from jackpots.models import CarriedContributions, Contribution, Jackpot
from jackpots.selectors import pool_books
from limits.models import CarriedBetTotals, SettledBet
from limits.reconcile import reconcile
from tests.kit.money import czk
from tests.kit.wallet import fund
from wallet.archived_totals import carry_entries
from wallet.ledger import account_sum
from wallet.management.commands.ledger_check import run_checks
from wallet.models import Entry, LedgerAccount
from wallet.models_carried import ArchivedLedgerMonth, CarriedEntries
from wallet.selectors import operator_balances

pytestmark = pytest.mark.django_db

MAY, JUNE = month_index(date(2020, 5, 1)), month_index(date(2020, 6, 1))
DUE = archive_due_at(JUNE, 120)  # 2 July 2030 00:00 Prague; May is due by then too
SUMMED_TABLES = ("wallet_entry", "wallet_ledgertransaction", "jackpots_contribution", "limits_settledbet")
RED = {"bets": [{"type": "red", "amount": 1_000}]}
STAFF = Actor.system("tests")


@contextmanager
def _ids_of(index: int) -> Iterator[None]:
    """New rows of the summed tables get ids of month ``index`` (the id default the database's clock would have
    used then); the default is put back afterwards. The ledger's deferred checks run first (an ALTER TABLE waits
    for no pending trigger event), and are deferred again for the postings that follow."""
    mask = (1 << MONTH_BITS) - 1
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        for table in SUMMED_TABLES:
            partitioning.ensure(connection, table, index, 0)
            cursor.execute(
                f"ALTER TABLE {table} ALTER COLUMN id SET DEFAULT "
                f"({index << MONTH_BITS}::bigint | (nextval('{table}_id_seq') & {mask}))"
            )
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            for table in SUMMED_TABLES:
                cursor.execute(f"ALTER TABLE {table} ALTER COLUMN id SET DEFAULT platform_month_id('{table}_id_seq')")


def _play(player: Any, rounds: int, key: str) -> None:
    from jackpots.services import jackpots_fold_all

    with use_rng(FixedRNG(0)):
        for n in range(rounds):
            round_play(
                player=player,
                game_code="european_roulette",
                idempotency_key=f"{key}-{n}",
                bet=RED,
                actor=Actor.player(player),
            )
    jackpots_fold_all()


@pytest.fixture
def history(settings) -> dict[str, Any]:
    """May 2020: a player funded by an adjustment plays 4 rounds; June 2020: a second player deposits cash at a
    branch (a ``wallet_branchcash`` row points at its transaction) and plays 3; now: both play 2 more. A central
    jackpot level takes 1 % of every stake."""
    from jackpots.levels import snapshot_clear
    from jackpots.tests.helpers import central_level
    from tests.kit.accounts import make_player
    from wallet.services.branch import branch_cash_record

    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}
    settings.JACKPOTS_ENABLED = True
    # the settled bets kept as long as the ledger (their 36 months would archive this month's bets too by 2030)
    settings.PARTITION_RETENTION_MONTHS = {**settings.PARTITION_RETENTION_MONTHS, "limits_settledbet": 120}
    with time_machine.travel(datetime(2020, 5, 14, 9, tzinfo=UTC), tick=False):
        level = central_level("central-archive")
        snapshot_clear()
        first = make_player()
        with _ids_of(MAY):
            fund(first, czk(100))
            _play(first, 4, "may")
    with time_machine.travel(datetime(2020, 6, 16, 9, tzinfo=UTC), tick=False):
        snapshot_clear()
        second = make_player()
        with _ids_of(JUNE):
            branch_cash_record(
                player=second, direction="in", amount=czk(50), reference="cash-june", branch="Praha", actor=STAFF
            )
            _play(second, 3, "june")
    snapshot_clear()
    _play(first, 2, "now-1")
    _play(second, 2, "now-2")
    return {"level": level, "players": (first, second)}


def _figures(level: Jackpot) -> dict[str, Any]:
    """Everything the checks and balances say, and whether they are clean."""
    books = pool_books(Jackpot.objects.get(pk=level.pk))
    return {
        "ledger_check": run_checks(),
        "operator_balances": operator_balances(),
        "account_sums": {a.code: account_sum(a.pk) for a in LedgerAccount.objects.order_by("code")},
        "balances": dict(LedgerAccount.objects.filter(tracks_balance=True).values_list("code", "balance")),
        "jackpot_check": jackpot_problems(),
        "pool_books": books,
        "limits_reconcile": reconcile(),
    }


def _attached(table: str) -> set[str]:
    return {name for name, _ in partitioning.partitions(connection, table)}


def _by(results: list[Any]) -> dict[tuple[str, int], tuple[str, str]]:
    return {(r.table, month_index(r.month)): (r.outcome, r.detail) for r in results}


def _carried() -> dict[str, list[tuple[Any, ...]]]:
    return {
        "entries": sorted(CarriedEntries.objects.values_list("account_id", "month", "amount", "entries")),
        "months": sorted(ArchivedLedgerMonth.objects.values_list("table_name", "month", "row_count")),
        "contributions": sorted(
            CarriedContributions.objects.values_list("jackpot_id", "month", "active_micro", "future_micro", "row_count")
        ),
        "bets": sorted(
            CarriedBetTotals.objects.values_list(
                "player_id",
                "kind",
                "period",
                "start",
                "month",
                "stakes_placed",
                "bets_placed",
                "stakes_decided",
                "wins_decided",
                "bets_decided",
            )
        ),
    }


def test_the_summed_months_are_archived_once_due_and_every_check_gives_the_same_figures(history):
    level = history["level"]
    in_may = Entry.objects.filter(pk__gte=month_range(MAY)[0], pk__lt=month_range(MAY)[1]).count()
    assert in_may >= 10 and SettledBet.objects.filter(pk__lt=month_range(JUNE)[1]).count() == 7
    assert Contribution.objects.filter(pk__lt=month_range(JUNE)[1]).count() == 7
    before = _figures(level)
    assert before["ledger_check"] == {} and before["jackpot_check"] == [] and before["limits_reconcile"] == []
    assert before["pool_books"]["log_folded_micro"] == 11 * 10 * 1_000_000  # 1 % of 11 stakes of 10 CZK

    with time_machine.travel(DUE - timedelta(seconds=1), tick=False):  # a second early: June is not due, May is
        early = _by(partitions_archive_due())
    assert {key for key in early if key[1] != MAY} == set()
    assert early[("wallet_entry", MAY)][0] == ARCHIVED and partition_name("wallet_entry", JUNE) in _attached(
        "wallet_entry"
    )
    assert early[("limits_settledbet", MAY)][0] == ARCHIVED
    assert _figures(level) == before

    with time_machine.travel(DUE, tick=False):
        results = {**early, **_by(partitions_archive_due())}
    for table in ("wallet_entry", "wallet_ledgertransaction", "jackpots_contribution"):
        assert results[(table, MAY)][0] == ARCHIVED, (table, results[(table, MAY)])
        assert partition_name(table, MAY) not in _attached(table)
    assert results[("wallet_entry", JUNE)][0] == ARCHIVED
    assert results[("jackpots_contribution", JUNE)][0] == ARCHIVED
    # June's transactions stay: the branch cash row points at one of them (its entries are archived all the same)
    assert results[("wallet_ledgertransaction", JUNE)] == (REFERENCED, "wallet_branchcash.transaction_id")
    assert partition_name("wallet_ledgertransaction", JUNE) in _attached("wallet_ledgertransaction")

    after = _figures(level)
    assert after == before  # the same figures, all clean
    # and they are the same because of the carried totals, not by accident: the live rows alone say otherwise
    house = LedgerAccount.objects.get(code="house")
    live_house = sum(Entry.objects.filter(account=house).values_list("amount", flat=True))
    assert live_house != before["operator_balances"]["house"].amount
    assert sum(r[2] for r in _carried()["entries"] if r[0] == house.pk) + live_house == account_sum(house.pk)
    carried = _carried()
    assert [(t, m) for t, m, _ in carried["months"]] == [
        ("wallet_entry", date(2020, 5, 1)),
        ("wallet_entry", date(2020, 6, 1)),
        ("wallet_ledgertransaction", date(2020, 5, 1)),
    ]
    assert sum(r[3] for r in carried["entries"]) == in_may + sum(
        rows for t, m, rows in carried["months"] if t == "wallet_entry" and m == date(2020, 6, 1)
    )
    assert [r[4] for r in carried["contributions"]] == [4, 3]
    assert sum(r[9] for r in carried["bets"] if r[2] == "day") == 7
    record = AuditEvent.objects.get(action="core.partition.archived", object_id=partition_name("wallet_entry", MAY))
    assert record.details["carried"] == {"accounts": 4, "entries": in_may}, record.details


def test_a_summed_table_whose_hook_is_not_registered_keeps_its_month(history, monkeypatch):
    monkeypatch.setattr(archiving.carry_forward(Entry), "_impl", None)
    with time_machine.travel(DUE, tick=False):
        results = _by(partitions_archive_due())
    outcome, detail = results[("wallet_entry", MAY)]
    assert outcome == SUMMED and "'wallet_entry' not registered" in detail
    assert partition_name("wallet_entry", MAY) in _attached("wallet_entry")
    # its transactions stay with it (the entries point at them); the other summed tables have their hooks
    assert results[("wallet_ledgertransaction", MAY)] == (REFERENCED, "wallet_entry.transaction_id")
    assert results[("jackpots_contribution", MAY)][0] == ARCHIVED
    assert not CarriedEntries.objects.exists() and not ArchivedLedgerMonth.objects.exists()
    assert run_checks() == {} and jackpot_problems() == [] and reconcile() == []


def test_a_failure_after_the_carry_forward_leaves_neither_the_totals_nor_the_detach(history, monkeypatch):
    real = archiving.carry_forward(Entry).implementation

    def carry_then_crash(month: ArchivingMonth) -> dict[str, int]:
        real(month)
        assert CarriedEntries.objects.filter(month=month.month).exists()  # written, in the month's transaction
        raise RuntimeError("the worker dies here")

    monkeypatch.setattr(archiving.carry_forward(Entry), "_impl", carry_then_crash)
    with time_machine.travel(DUE, tick=False):
        results = _by(partitions_archive_due())
    assert results[("wallet_entry", MAY)] == (FAILED, "wallet_entry: RuntimeError: the worker dies here")
    assert partition_name("wallet_entry", MAY) in _attached("wallet_entry")
    assert not CarriedEntries.objects.exists() and not ArchivedLedgerMonth.objects.exists()

    # the DETACH itself failing after the hook (a foreign key no model declares points into the month)
    monkeypatch.setattr(archiving.carry_forward(Entry), "_impl", real)
    entry = Entry.objects.filter(pk__lt=month_range(MAY)[1]).order_by("pk").first()
    assert entry is not None
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE scratch_entry_ref (entry_id bigint REFERENCES wallet_entry (id))")
        cursor.execute("INSERT INTO scratch_entry_ref VALUES (%s)", [entry.pk])
    with time_machine.travel(DUE, tick=False):
        results = _by(partitions_archive_due())
    outcome, detail = results[("wallet_entry", MAY)]
    assert outcome == REFERENCED and "scratch_entry_ref" in detail, detail
    assert partition_name("wallet_entry", MAY) in _attached("wallet_entry")
    assert not CarriedEntries.objects.filter(month=date(2020, 5, 1)).exists()
    assert not ArchivedLedgerMonth.objects.filter(month=date(2020, 5, 1)).exists()
    assert results[("wallet_entry", JUNE)][0] == ARCHIVED  # the next month is not held up
    assert run_checks() == {}  # May live, June carried: the running sums still hold


def test_a_second_run_and_a_second_worker_carry_nothing_twice(history):
    june = partition_name("wallet_entry", JUNE)
    holder = connections.create_connection("default")  # another worker, in the middle of June's entries
    try:
        with holder.cursor() as cursor:
            cursor.execute("BEGIN")
            cursor.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [LOCK_CLASS, june])
            with time_machine.travel(DUE, tick=False):
                first = _by(partitions_archive_due())
            cursor.execute("ROLLBACK")
    finally:
        holder.close()
    assert first[("wallet_entry", JUNE)] == (BUSY, "another worker holds the month")
    assert not CarriedEntries.objects.filter(month=date(2020, 6, 1)).exists()
    assert first[("wallet_entry", MAY)][0] == ARCHIVED

    with time_machine.travel(DUE + timedelta(days=1), tick=False):
        second = _by(partitions_archive_due())
    assert second[("wallet_entry", JUNE)][0] == ARCHIVED and ("wallet_entry", MAY) not in second
    carried = _carried()
    with time_machine.travel(DUE + timedelta(days=2), tick=False):
        third = _by(partitions_archive_due())
    assert not {key for key in third if key[0] != "wallet_ledgertransaction"}  # June's transactions stay referenced
    assert _carried() == carried and run_checks() == {}
    # and a month carried twice (past the lock and the "already archived" check) is refused by its unique key
    low, high = month_range(JUNE)
    with pytest.raises(IntegrityError), transaction.atomic():
        carry_entries(ArchivingMonth("wallet_entry", june, date(2020, 6, 1), low, high, DUE))


def test_each_carry_forward_statement_reads_only_its_months_partition(history):
    from jackpots.sql import CARRY_CONTRIBUTIONS
    from limits.sql_archive import CARRY_SETTLED
    from wallet.sql import CARRY_ENTRIES, CARRY_TRANSACTIONS

    low, high = month_range(JUNE)
    params: dict[str, Any] = {
        "table": "wallet_entry",
        "month": date(2020, 6, 1),
        "archived_month": date(2020, 6, 1),
        "low": low,
        "high": high,
        "at": DUE,
        "tz": "Europe/Prague",
        "period_day": "day",
        "period_month": "month",
    }
    for stmt, table in (
        (CARRY_ENTRIES, "wallet_entry"),
        (CARRY_TRANSACTIONS, "wallet_ledgertransaction"),
        (CARRY_CONTRIBUTIONS, "jackpots_contribution"),
        (CARRY_SETTLED, "limits_settledbet"),
    ):
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN " + stmt.sql, {k: v for k, v in params.items() if k in stmt.params})
            plan = "\n".join(r[0] for r in cursor.fetchall())
        scanned = {name for name in _attached(table) if name in plan} | (
            {f"{table}_p_legacy"} if f"{table}_p_legacy" in plan else set()
        )
        assert scanned == {partition_name(table, JUNE)}, (stmt.name, plan)
