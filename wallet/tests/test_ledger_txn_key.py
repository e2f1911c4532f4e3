"""What the foreign key of an entry to its ledger transaction guards that nothing else does.

The key is declared per month (wallet/partitions.py, ``core.partition_tables.MonthKey``): each month of
``wallet_entry`` references the same month of ``wallet_ledgertransaction`` (a check that reads one month; a key to
the partitioned table locked every month of it, docs/bench.md "The backend's instructions per round"). Replacing it by
a check inside the zero-sum trigger (``wallet_txn_balanced()``) was studied (docs/scaling.md "Monthly partitions").
It stays, because the trigger cannot see every entry: an entry whose ``transaction_id`` equals the transaction-local
setting ``wallet.open_txn`` is not queued for a check of its own (wallet/migrations/0012), and any SQL of the
application's role can set that setting. Only the key refuses such an entry when its ledger transaction does not
exist. These tests pin that, and what is refused on the referenced side: a month of transactions whose entries' month
is attached cannot be detached (``core.partitioning.partition_archive``), truncated or dropped (PostgreSQL).
wallet/tests/test_ledger_month_key.py covers the key's shape (each month's, made with the month; the migration).
"""

from datetime import date

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from core import clock, partitioning
from core.archiving import references
from core.partitioning import MONTH_BITS, month_index, month_of, partition_name
from wallet.models import LedgerAccount

pytestmark = pytest.mark.django_db

JUNE_2020 = month_index(date(2020, 6, 1))


def _immediate() -> None:
    """What COMMIT does with the deferred checks, inside the test's transaction."""
    with connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cur.execute("SET CONSTRAINTS ALL DEFERRED")


def _house_accounts() -> tuple[int, int]:
    """Two accounts of no player: a leg pair between them passes the zero-sum check's player rule."""
    a, _ = LedgerAccount.objects.get_or_create(
        code="tests:orphan-a",
        defaults={"kind": "house", "currency": "CZK", "tracks_balance": False, "created_at": clock.now()},
    )
    b, _ = LedgerAccount.objects.get_or_create(
        code="tests:orphan-b",
        defaults={"kind": "house", "currency": "CZK", "tracks_balance": False, "created_at": clock.now()},
    )
    return a.pk, b.pk


def _legs(transaction_id: int, *amounts: int, month: int | None = None) -> None:
    """Entries of ``transaction_id`` between the two house accounts; with ``month``, ids of that month (the id
    default the database's clock would have given then), otherwise the default's (this month)."""
    a, b = _house_accounts()
    mask = (1 << MONTH_BITS) - 1
    id_sql = "platform_month_id('wallet_entry_id_seq')"
    if month is not None:
        id_sql = f"({month << MONTH_BITS}::bigint | (nextval('wallet_entry_id_seq') & {mask}))"
    with connection.cursor() as cur:
        for n, amount in enumerate(amounts):
            cur.execute(
                f"INSERT INTO wallet_entry (id, transaction_id, account_id, amount, created_at) "
                f"VALUES ({id_sql}, %s, %s, %s, now())",
                [transaction_id, a if n % 2 == 0 else b, amount],
            )


def _this_month() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT platform_month_index(now())")
        return int(cur.fetchone()[0])


def _not_present(index: int) -> str:
    """The key's refusal of an entry of month ``index`` whose transaction is not in that month."""
    return f'not present in table "{partition_name("wallet_ledgertransaction", index)}"'


def _missing_transaction_id() -> int:
    """An id of this month that no ledger transaction has."""
    with connection.cursor() as cur:
        cur.execute("SELECT platform_month_id('wallet_ledgertransaction_id_seq')")
        return int(cur.fetchone()[0])


def test_balanced_orphan_legs_named_as_the_open_transaction_are_refused_at_commit():
    """The zero-sum trigger's ``WHEN`` skips these entries (their check is left to their transaction's own, which
    never fires: there is no such row); the foreign key refuses them."""
    missing = _missing_transaction_id()
    with pytest.raises(IntegrityError, match=_not_present(_this_month())):
        with transaction.atomic():
            with connection.cursor() as cur:
                cur.execute("SELECT set_config('wallet.open_txn', %s, true)", [str(missing)])
            _legs(missing, 5, -5)
            _immediate()


def test_balanced_orphan_legs_of_another_transaction_are_refused_at_commit():
    missing = _missing_transaction_id()
    with pytest.raises(IntegrityError, match=_not_present(_this_month())):
        with transaction.atomic():
            _legs(missing, 5, -5)
            _immediate()


@pytest.mark.xfail(
    strict=True,
    reason="a known hole of the zero-sum check (wallet 0012), reported to the lead, not fixed here: an INSERT of an "
    "existing ledger transaction's id with ON CONFLICT DO NOTHING runs wallet_txn_open (BEFORE INSERT) but inserts "
    "no row, so no check is queued and the entries of that transaction written next skip theirs",
)
def test_an_unbalanced_leg_after_a_conflicting_insert_of_its_transaction_is_refused():
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute(
                "INSERT INTO wallet_ledgertransaction (kind, reference, amount, currency, memo, created_at, "
                "actor_label) VALUES ('adjustment', 'tests:conflict', 0, 'CZK', '', now(), 'tests') RETURNING id"
            )
            existing = cur.fetchone()[0]
        _legs(existing, 5, -5)
        _immediate()
    with pytest.raises(IntegrityError, match="does not balance"):
        with transaction.atomic():
            with connection.cursor() as cur:
                cur.execute(
                    "INSERT INTO wallet_ledgertransaction (id, kind, reference, amount, currency, memo, created_at, "
                    "actor_label) VALUES (%s, 'adjustment', 'tests:conflict-2', 0, 'CZK', '', now(), 'tests') "
                    "ON CONFLICT DO NOTHING",
                    [existing],
                )
            _legs(existing, 1000)
            _immediate()


def _june_with_a_transaction() -> int:
    """June 2020's months of both tables, with a balanced transaction written then."""
    txn_id = (JUNE_2020 << MONTH_BITS) | 7
    partitioning.ensure(connection, "wallet_entry", JUNE_2020, 0)  # the transactions' month first, then the key
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO wallet_ledgertransaction (id, kind, reference, amount, currency, memo, created_at, "
            "actor_label) VALUES (%s, 'adjustment', 'tests:june', 0, 'CZK', '', now(), 'tests')",
            [txn_id],
        )
    _legs(txn_id, 5, -5, month=JUNE_2020)
    _immediate()
    return txn_id


def _attached(table: str) -> set[str]:
    return {name for name, _ in partitioning.partitions(connection, table)}


def test_a_month_of_transactions_whose_entries_month_is_attached_cannot_be_detached():
    """The archiving job's own check (``core.archiving._referencing``, from the model's field) asks first for a row
    pointing into the month; ``partition_archive`` refuses the DETACH of a month an attached month references
    through its key (PostgreSQL would let it go: the key would point into the archive) before it changes anything.
    The entries' month archived first, the transactions' month follows."""
    _june_with_a_transaction()
    june_txns, june_entries = (partition_name(t, JUNE_2020) for t in ("wallet_ledgertransaction", "wallet_entry"))
    with pytest.raises(IntegrityError, match=f"referenced by the attached partition {june_entries}"):
        with transaction.atomic():
            partitioning.partition_archive(connection, "wallet_ledgertransaction", june_txns)
    assert june_txns in _attached("wallet_ledgertransaction")
    with transaction.atomic():
        partitioning.partition_archive(connection, "wallet_entry", june_entries)
        partitioning.partition_archive(connection, "wallet_ledgertransaction", june_txns)
    assert june_txns not in _attached("wallet_ledgertransaction")
    with connection.cursor() as cur:  # the archived entries keep no key into another table's month
        cur.execute(
            "SELECT count(*) FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'f' "
            "AND confrelid = %s::regclass",
            [f"archive.{june_entries}", f"archive.{june_txns}"],
        )
        assert cur.fetchone()[0] == 0


@pytest.mark.parametrize(
    "statement",
    ["TRUNCATE {txns}, {others}", "TRUNCATE wallet_ledgertransaction, {others}", "DROP TABLE {txns}"],
    ids=["truncate the month", "truncate the table", "drop the month"],
)
def test_a_month_of_transactions_whose_entries_month_is_attached_cannot_be_truncated_or_dropped(statement):
    """PostgreSQL refuses these itself (the month's key depends on the month: no CASCADE is ever written here). The
    tables whose keys reference the whole table (deposits, holds, ...) are truncated with it, so the entries' key is
    what refuses."""
    _june_with_a_transaction()
    txns = partition_name("wallet_ledgertransaction", JUNE_2020)
    others = ", ".join(sorted({t for t, _ in references("wallet_ledgertransaction")} - {"wallet_entry"}))
    # the month's key (the legacy partition's for the whole table: PostgreSQL names the first it meets)
    with pytest.raises(DatabaseError, match=rf"\bwallet_entry_p({month_of(JUNE_2020):%Y%m}|_legacy)\b"):
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute(statement.format(txns=txns, others=others))
    assert txns in _attached("wallet_ledgertransaction")
