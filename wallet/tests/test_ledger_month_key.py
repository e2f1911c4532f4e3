"""The key of an entry to its ledger transaction, declared per month (wallet/partitions.py, ``MonthKey``).

Each month of ``wallet_entry`` references the same month of ``wallet_ledgertransaction`` (and the legacy partition the
legacy partition); the partitioned tables carry no key between them. A month made by the normal path (the hourly job,
``core.partitioning.ensure``) has its key, the referenced month made first; an entry whose transaction is not in its
month is refused at commit, in a month made ahead, in a month made by the job and in an old month. The key holds for
what the platform writes: a posting's transaction and entries take their ids' month from the database clock of the
one database transaction that writes them (``platform_month_id``: ``now()``, the transaction's start), checked here
with that clock forced to either side of a month's end, through the general posting and a round's hot statements.
The migration (wallet 0017) moves a database with months and rows from the table's key to the months' and back, and
refuses a database where an entry is in another month than its transaction. wallet/tests/test_ledger_txn_key.py pins
what the key guards.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
import time_machine
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from core import clock, partitioning
from core.audit import Actor
from core.partition_tables import declared_month_keys
from core.partitioning import MONTH_BITS, month_index, partition_name
from core.rng import use_rng
from games.services import round_play
from games.tests.platform.testgames import FixedRNG
from tests.kit.money import czk
from tests.kit.wallet import fund
from wallet.models import Entry, LedgerAccount, LedgerTransaction

pytestmark = pytest.mark.django_db

JUNE_2020 = month_index(date(2020, 6, 1))
JULY_2020 = JUNE_2020 + 1
ENTRIES, TXNS = "wallet_entry", "wallet_ledgertransaction"
BEFORE, AFTER = ("wallet", "0016_balanced_check_reads_its_own_row"), ("wallet", "0017_entry_key_per_month")
RED = {"bets": [{"type": "red", "amount": 1_000}]}

#: the id default with the database's clock read from the transaction-local setting ``tests.db_now`` when it is set:
#: ``now()`` (the database transaction's start) forced, everything else as core/partitioning.py's
FORCED_CLOCK = f"""
CREATE OR REPLACE FUNCTION platform_month_id(seq regclass) RETURNS bigint
LANGUAGE sql VOLATILE PARALLEL UNSAFE AS $$
    SELECT (platform_month_index(COALESCE(NULLIF(current_setting('tests.db_now', true), '')::timestamptz, now()))
            << {MONTH_BITS}) | (nextval(seq) & ((1::bigint << {MONTH_BITS}) - 1))
$$"""


def _rows(sql: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cur:
        cur.execute(sql, params or [])
        return list(cur.fetchall()) if cur.description else []


def _immediate() -> None:
    """What COMMIT does with the deferred checks, inside the test's transaction."""
    with connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cur.execute("SET CONSTRAINTS ALL DEFERRED")


def _this_month() -> int:
    return int(_rows("SELECT platform_month_index(now())")[0][0])


def _keys_to_transactions() -> dict[str, tuple[str, bool, bool]]:
    """Every foreign key of ``wallet_entry`` and its partitions to ``wallet_ledgertransaction`` or one of its
    partitions, by the referencing table: (referenced table, deferrable, initially deferred)."""
    return {
        r[0]: (r[1], r[2], r[3])
        for r in _rows(
            """
            SELECT c.conrelid::regclass::text, c.confrelid::regclass::text, c.condeferrable, c.condeferred
            FROM pg_constraint c
            WHERE c.contype = 'f' AND c.conparentid = 0
              AND (c.conrelid = 'wallet_entry'::regclass
                   OR c.conrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'wallet_entry'::regclass))
              AND (c.confrelid = 'wallet_ledgertransaction'::regclass
                   OR c.confrelid IN (SELECT inhrelid FROM pg_inherits
                                      WHERE inhparent = 'wallet_ledgertransaction'::regclass))"""
        )
    }


def _attached(table: str) -> list[str]:
    return [name for name, _ in partitioning.partitions(connection, table)]


def _house_accounts() -> tuple[int, int]:
    ids = []
    for code in ("tests:month-key-a", "tests:month-key-b"):
        account, _ = LedgerAccount.objects.get_or_create(
            code=code, defaults={"kind": "house", "currency": "CZK", "tracks_balance": False, "created_at": clock.now()}
        )
        ids.append(account.pk)
    return ids[0], ids[1]


def _txn(index: int, reference: str) -> int:
    txn_id = (index << MONTH_BITS) | int(_rows("SELECT nextval('wallet_ledgertransaction_id_seq') & 65535")[0][0])
    _rows(
        "INSERT INTO wallet_ledgertransaction (id, kind, reference, amount, currency, memo, created_at, actor_label) "
        "VALUES (%s, 'adjustment', %s, 0, 'CZK', '', now(), 'tests') RETURNING id",
        [txn_id, reference],
    )
    return txn_id


def _legs(txn_id: int, index: int) -> None:
    """A balanced pair of entries of ``txn_id`` with ids of month ``index``."""
    a, b = _house_accounts()
    for account, amount in ((a, 5), (b, -5)):
        _rows(
            "INSERT INTO wallet_entry (id, transaction_id, account_id, amount, created_at) VALUES "
            f"({index << MONTH_BITS}::bigint | (nextval('wallet_entry_id_seq') & {(1 << MONTH_BITS) - 1}), "
            "%s, %s, %s, now()) RETURNING id",
            [txn_id, account, amount],
        )


def _months_gone(index: int) -> None:
    """Month ``index`` of both tables moved out (to the archive schema: the keys of deposits, holds ... to the
    transactions keep a month from being dropped), the entries' month first: its key depends on the other."""
    for table in (ENTRIES, TXNS):
        partitioning.partition_archive(connection, table, partition_name(table, index))


def test_each_month_of_entries_references_the_same_month_of_transactions_and_the_tables_have_no_key():
    keys = _keys_to_transactions()
    assert ENTRIES not in keys  # no key on the partitioned table: a check of it locked every month
    expected = {
        partition: (partitioning.month_key_partner(ENTRIES, partition, key) or "", True, True)
        for partition in _attached(ENTRIES)
        for key in declared_month_keys(ENTRIES)
    }
    assert f"{ENTRIES}_p_legacy" in expected and partition_name(ENTRIES, _this_month()) in expected
    assert keys == expected
    assert expected[partition_name(ENTRIES, _this_month())][0] == partition_name(TXNS, _this_month())
    assert partitioning.month_keys_missing(connection, ENTRIES, declared_month_keys(ENTRIES)) == []


def test_a_month_made_by_the_hourly_job_gets_its_key_after_the_referenced_month():
    from core.tasks import partitions_ensure

    ahead = _this_month() + 3
    _months_gone(ahead)
    assert partitions_ensure.apply().get() == [partition_name(TXNS, ahead), partition_name(ENTRIES, ahead)]
    assert _keys_to_transactions()[partition_name(ENTRIES, ahead)] == (partition_name(TXNS, ahead), True, True)
    assert partitions_ensure.apply().get() == []


def test_a_past_month_made_for_the_entries_alone_makes_the_transactions_month_and_the_key():
    made = partitioning.ensure(connection, ENTRIES, JUNE_2020, 1)
    assert made == [partition_name(TXNS, JUNE_2020), partition_name(ENTRIES, JUNE_2020)] + [
        partition_name(TXNS, JULY_2020),
        partition_name(ENTRIES, JULY_2020),
    ]
    for index in (JUNE_2020, JULY_2020):
        assert _keys_to_transactions()[partition_name(ENTRIES, index)] == (partition_name(TXNS, index), True, True)


@pytest.mark.parametrize("month", ["next month (made ahead)", "a month made by the job", "June 2020"])
def test_an_orphan_entry_is_refused_at_commit_in_a_new_month_and_an_old_one(month):
    index = {"next month (made ahead)": _this_month() + 1, "June 2020": JUNE_2020}.get(month, _this_month() + 3)
    if month == "a month made by the job":
        _months_gone(index)
        partitioning.partitions_ensure(connection)
    partitioning.ensure(connection, ENTRIES, index, 0)
    missing = (index << MONTH_BITS) | 12_345
    with pytest.raises(IntegrityError, match=f'not present in table "{partition_name(TXNS, index)}"'):
        with transaction.atomic():
            _legs(missing, index)
            _immediate()


def test_an_entry_in_another_month_than_its_transaction_is_refused_at_commit():
    partitioning.ensure(connection, ENTRIES, JUNE_2020, 1)
    june = _txn(JUNE_2020, "tests:june")
    _legs(june, JUNE_2020)
    _immediate()  # its own month: accepted
    with pytest.raises(IntegrityError, match=f'not present in table "{partition_name(TXNS, JULY_2020)}"'):
        with transaction.atomic():
            _legs(june, JULY_2020)  # balanced legs of June's transaction with July's ids
            _immediate()


def _play_and_fund(player, key: str) -> None:
    fund(player, czk(20))
    with use_rng(FixedRNG(0)):
        round_play(
            player=player, game_code="european_roulette", idempotency_key=key, bet=RED, actor=Actor.player(player)
        )


def test_a_postings_transaction_and_entries_take_the_month_of_their_database_transactions_clock(settings):
    """The database clock forced to the last microsecond of June 2020, then to the first of July (the application's
    clock with it): the general posting (an adjustment) and a round's hot statements (stake and win postings)
    write each transaction and its entries in the month of the one clock reading of their database transaction, and
    the months' keys accept them at commit."""
    from tests.kit.accounts import make_player

    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}
    for table in partitioning.partitioned_tables(connection):
        partitioning.ensure(connection, table, JUNE_2020, 1)
    with connection.cursor() as cur:
        cur.execute(FORCED_CLOCK)
    players = []
    for instant, key in (
        (datetime(2020, 6, 30, 23, 59, 59, 999_999, tzinfo=UTC), "june"),
        (datetime(2020, 7, 1, 0, 0, tzinfo=UTC), "july"),
    ):
        _rows("SELECT set_config('tests.db_now', %s, true)", [instant.isoformat()])
        with time_machine.travel(instant, tick=False):
            player = make_player()
            _play_and_fund(player, key)
        _immediate()  # the keys and the zero-sum checks, as at commit
        players.append(player)
    _rows("SELECT set_config('tests.db_now', '', true)")
    for player, index in zip(players, (JUNE_2020, JULY_2020), strict=True):
        txns = LedgerTransaction.objects.filter(player_id=player.pk)
        assert txns.count() >= 2  # the funding and the round's stake (and its win, if any)
        for txn in txns:
            entries = list(Entry.objects.filter(transaction=txn).values_list("pk", flat=True))
            assert len(entries) >= 2 and {pk >> MONTH_BITS for pk in [txn.pk, *entries]} == {index}


def _a_few_months_with_rows() -> None:
    """June and July 2020 with a balanced transaction each, and this month's postings."""
    partitioning.ensure(connection, ENTRIES, JUNE_2020, 1)
    for index in (JUNE_2020, JULY_2020):
        _legs(_txn(index, f"tests:month-{index}"), index)
    _immediate()


def _migrate(target: tuple[str, str]) -> None:
    """wallet 0017 unapplied (``BEFORE``) or applied (``AFTER``) by Django's executor, in the test's transaction."""
    executor = MigrationExecutor(connection)
    executor.migrate([target])


def test_the_migration_moves_a_database_with_months_from_the_tables_key_to_the_months_and_back():
    from tests.kit.accounts import make_player

    fund(make_player(), czk(10))
    _a_few_months_with_rows()
    months = _attached(ENTRIES)
    assert len(months) >= 7  # the legacy partition, June and July 2020, this month and three ahead
    _migrate(BEFORE)
    assert _keys_to_transactions() == {ENTRIES: (TXNS, True, True)}
    with pytest.raises(IntegrityError, match=f'not present in table "{TXNS}"'):  # the table's key refuses an orphan
        with transaction.atomic():
            _legs((JUNE_2020 << MONTH_BITS) | 999, JUNE_2020)
            _immediate()
    _migrate(AFTER)
    keys = _keys_to_transactions()
    assert ENTRIES not in keys and set(keys) == set(months)
    assert keys[partition_name(ENTRIES, JULY_2020)] == (partition_name(TXNS, JULY_2020), True, True)
    assert partitioning.month_keys_missing(connection, ENTRIES, declared_month_keys(ENTRIES)) == []


def test_the_migration_refuses_a_database_with_an_entry_in_another_month_than_its_transaction():
    _a_few_months_with_rows()
    _migrate(BEFORE)
    june = _txn(JUNE_2020, "tests:june-again")
    _legs(june, JUNE_2020)
    _legs(june, JULY_2020)  # accepted by the table's key: its transaction exists, in another month
    _immediate()
    with pytest.raises(IntegrityError, match=partition_name(ENTRIES, JULY_2020)):
        _migrate(AFTER)
    assert _keys_to_transactions()[ENTRIES] == (TXNS, True, True)  # the table's key stays
    # the months' keys are there (new rows checked), validated in order up to July's, which is not valid
    assert set(_keys_to_transactions()) == {ENTRIES, *_attached(ENTRIES)}
    unvalidated = {p for p, _ in partitioning.month_keys_unvalidated(connection, ENTRIES, declared_month_keys(ENTRIES))}
    assert partition_name(ENTRIES, JULY_2020) in unvalidated and partition_name(ENTRIES, JUNE_2020) not in unvalidated


def test_health_reports_a_month_of_entries_without_its_key(client):
    assert client.get("/health").json()["checks"]["partitions"] == {"ok": True, "missing": []}
    partition = partition_name(ENTRIES, _this_month() + 1)
    constraint = declared_month_keys(ENTRIES)[0].name(partition)
    _rows(f'ALTER TABLE {partition} DROP CONSTRAINT "{constraint}"')
    assert client.get("/health").json()["checks"]["partitions"] == {"ok": False, "missing": [constraint]}
