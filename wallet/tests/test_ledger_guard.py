"""The ledger's zero-sum guard checks each ledger transaction once (wallet/migrations/0012): how many times the check
ran is read from PostgreSQL's own function statistics (``track_functions``), and each way an entry could slip past
a check it no longer runs per row is refused."""

import pytest
from django.db import IntegrityError, connection, transaction

from core import clock
from core.partitioning import MONTH_BITS
from tests.kit.accounts import make_player
from tests.kit.money import czk
from tests.kit.wallet import SYSTEM, fund, ref
from wallet.ledger import player_account
from wallet.models import Entry, LedgerAccount, LedgerTransaction
from wallet.services import stake_debit, win_credit

pytestmark = pytest.mark.django_db


def _immediate() -> None:
    """What COMMIT does with the deferred checks, inside the test's transaction."""
    with connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cur.execute("SET CONSTRAINTS ALL DEFERRED")


def _checks_run() -> int:
    """Calls of ``wallet_txn_balanced()`` in this database transaction so far."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT coalesce(sum(calls), 0) FROM pg_stat_xact_user_functions WHERE funcname = %s",
            ["wallet_txn_balanced"],
        )
        return int(cur.fetchone()[0])


@pytest.fixture
def counted():
    with connection.cursor() as cur:
        cur.execute("SET LOCAL track_functions = 'pl'")


def _txn(player, reference: str) -> LedgerTransaction:
    return LedgerTransaction.objects.create(
        kind="adjustment", reference=reference, player=player, amount=1, created_at=clock.now()
    )


def _entry(txn: LedgerTransaction, account: LedgerAccount, amount: int, **kw) -> Entry:
    return Entry.objects.create(transaction=txn, account=account, amount=amount, created_at=clock.now(), **kw)


def test_a_two_legged_posting_is_checked_once_not_once_per_row(counted):
    p = make_player()
    fund(p, czk(100))
    _immediate()
    before = _checks_run()
    stake_debit(player=p, amount=czk(5), reference=ref(), actor=SYSTEM)
    win_credit(player=p, amount=czk(7), reference=ref(), actor=SYSTEM)
    _immediate()
    assert _checks_run() - before == 2  # was 6: the transaction's row and each of its two entries


def test_an_entry_added_to_an_earlier_ledger_transaction_is_checked_and_refused():
    p = make_player()
    fund(p, czk(10))
    acc, adj = player_account(p.pk, LedgerAccount.Kind.PLAYER_MAIN), LedgerAccount.objects.get(code="adjustments")
    with pytest.raises(IntegrityError, match="does not balance"):
        with transaction.atomic():
            first = _txn(p, "first")
            _entry(first, acc, 1)
            _entry(first, adj, -1)
            second = _txn(p, "second")  # the open ledger transaction is now `second`
            _entry(second, acc, 1)
            _entry(second, adj, -1)
            _entry(first, adj, -1)  # a third leg for `first`, which no longer is open
            _immediate()


def test_an_entry_added_after_the_check_ran_is_checked_again():
    p = make_player()
    fund(p, czk(10))
    acc, adj = player_account(p.pk, LedgerAccount.Kind.PLAYER_MAIN), LedgerAccount.objects.get(code="adjustments")
    with pytest.raises(IntegrityError, match="does not balance"):
        with transaction.atomic():
            txn = _txn(p, "checked")
            _entry(txn, acc, 1)
            _entry(txn, adj, -1)
            _immediate()  # the check ran and passed; the transaction is closed
            _entry(txn, adj, -1)
            _immediate()


def test_a_leg_written_in_a_later_month_partition_is_seen_by_the_check():
    """The check reads entries from its transaction's month on (an entry's id never encodes an earlier month)."""
    p = make_player()
    fund(p, czk(10))
    acc, adj = player_account(p.pk, LedgerAccount.Kind.PLAYER_MAIN), LedgerAccount.objects.get(code="adjustments")
    with pytest.raises(IntegrityError, match="does not balance"):
        with transaction.atomic():
            txn = _txn(p, "months")
            _entry(txn, acc, 1)
            _entry(txn, adj, -1)
            next_month = ((txn.pk >> MONTH_BITS) + 1) << MONTH_BITS
            _entry(txn, adj, -1, id=next_month + 1)  # the partition of next month exists (made ahead)
            _immediate()


def test_a_check_run_in_a_savepoint_that_rolls_back_is_run_again():
    """``wallet.open_txn`` is transaction-local and PostgreSQL un-fires a deferred check fired in a savepoint that
    rolls back: the ledger transaction is open again and its check runs again at commit, seeing the later leg."""
    p = make_player()
    fund(p, czk(10))
    acc, adj = player_account(p.pk, LedgerAccount.Kind.PLAYER_MAIN), LedgerAccount.objects.get(code="adjustments")
    with pytest.raises(IntegrityError, match="does not balance"):
        with transaction.atomic():
            txn = _txn(p, "outer")
            _entry(txn, acc, 1)
            _entry(txn, adj, -1)
            try:
                with transaction.atomic():
                    _immediate()  # the check runs and closes `outer`...
                    raise RuntimeError
            except RuntimeError:  # ...and the savepoint's rollback undoes both
                pass
            _entry(txn, adj, -1)
            _immediate()
