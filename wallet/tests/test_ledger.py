"""The ledger: exact double entry, enforced by the database, proven by ledger_check (design: docs/wallet.md)."""

from datetime import timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction

from core import clock
from core.errors import DomainError
from core.money import Money
from tests.kit.accounts import make_player
from tests.kit.money import czk
from tests.kit.wallet import SYSTEM, fund, ledger_clean, ref, verified_bank
from wallet import errors, selectors
from wallet.ledger import operator_balance, player_account
from wallet.models import Debt, Entry, LedgerAccount, LedgerTransaction, WinHold
from wallet.services import (
    adjustment_credit,
    operator_transfer,
    stake_debit,
    stake_refund,
    wallet_convert_temporary,
    win_credit,
    win_deduct,
    win_hold_extend,
    win_hold_forfeit,
    win_hold_release,
)

pytestmark = pytest.mark.django_db


def test_a_stake_moves_money_from_the_player_to_the_house_and_a_win_back():
    p = make_player()
    fund(p, czk(100))
    t = stake_debit(player=p, amount=czk("10.50"), reference="round-1", actor=SYSTEM)
    win_credit(player=p, amount=czk(30), reference="round-1", actor=SYSTEM)
    assert selectors.balance(p) == czk("119.50")
    assert sorted(e.amount for e in t.entries.all()) == [-1050, 1050]
    assert operator_balance("house") == Money(1050 - 3000)
    ledger_clean()


def test_a_stake_above_the_balance_is_refused_and_nothing_changes():
    p = make_player()
    fund(p, czk(5))
    before = LedgerTransaction.objects.count()
    with pytest.raises(DomainError) as exc:
        stake_debit(player=p, amount=czk("5.01"), reference="r-over", actor=SYSTEM)
    assert exc.value.code == errors.INSUFFICIENT_FUNDS.code
    assert selectors.balance(p) == czk(5) and LedgerTransaction.objects.count() == before


def test_every_money_call_is_idempotent_on_its_reference_and_a_reused_reference_conflicts():
    p = make_player()
    fund(p, czk(100), reference="fund-x")
    fund(p, czk(100), reference="fund-x")
    a = stake_debit(player=p, amount=czk(10), reference="same", actor=SYSTEM)
    b = stake_debit(player=p, amount=czk(10), reference="same", actor=SYSTEM)
    assert a.pk == b.pk and selectors.balance(p) == czk(90)
    with pytest.raises(DomainError) as exc:
        stake_debit(player=p, amount=czk(11), reference="same", actor=SYSTEM)
    assert exc.value.code == errors.REFERENCE_CONFLICT.code
    other = make_player()
    fund(other, czk(50))
    with pytest.raises(DomainError) as exc:
        stake_debit(player=other, amount=czk(10), reference="same", actor=SYSTEM)
    assert exc.value.code == errors.REFERENCE_CONFLICT.code
    assert selectors.balance(p) == czk(90) and selectors.balance(other) == czk(50)
    stake_refund(player=p, amount=czk(10), reference="same", actor=SYSTEM)
    stake_refund(player=p, amount=czk(10), reference="same", actor=SYSTEM)
    assert selectors.balance(p) == czk(100)
    ledger_clean()


def test_amounts_must_be_positive_czk_money():
    p = make_player()
    for bad in (czk(0), Money(-1), Money(100, "EUR")):
        with pytest.raises(DomainError) as exc:
            stake_debit(player=p, amount=bad, reference=ref(), actor=SYSTEM)
        assert exc.value.code in (errors.INVALID_AMOUNT.code, errors.CURRENCY_NOT_SUPPORTED.code)
    assert win_credit(player=p, amount=czk(0), reference=ref(), actor=SYSTEM) is None


def test_the_database_refuses_a_transaction_whose_entries_do_not_sum_to_zero():
    p = make_player()
    fund(p, czk(10))
    acc = player_account(p.pk, LedgerAccount.Kind.PLAYER_MAIN)
    with pytest.raises(IntegrityError, match="does not balance"):
        with transaction.atomic():
            txn = LedgerTransaction.objects.create(
                kind="adjustment", reference="bad", player=p, amount=1, created_at=clock.now()
            )
            Entry.objects.create(transaction=txn, account=acc, amount=1, created_at=clock.now())
            Entry.objects.create(
                transaction=txn,
                account=LedgerAccount.objects.get(code="adjustments"),
                amount=-2,
                created_at=clock.now(),
            )
            with connection.cursor() as cur:
                cur.execute("SET CONSTRAINTS ALL IMMEDIATE")  # what COMMIT does with the deferred trigger
    with pytest.raises(IntegrityError, match="at least 2"):
        with transaction.atomic():
            LedgerTransaction.objects.create(
                kind="adjustment", reference="lonely", player=p, amount=1, created_at=clock.now()
            )
            with connection.cursor() as cur:
                cur.execute("SET CONSTRAINTS ALL IMMEDIATE")


def test_the_database_refuses_a_transaction_between_two_players():
    a, b = make_player(), make_player()
    fund(a, czk(10))
    fund(b, czk(1))
    acc_a = player_account(a.pk, LedgerAccount.Kind.PLAYER_MAIN)
    acc_b = player_account(b.pk, LedgerAccount.Kind.PLAYER_MAIN)
    with pytest.raises(IntegrityError, match="no transfers between players"):
        with transaction.atomic():
            txn = LedgerTransaction.objects.create(
                kind="adjustment", reference="p2p", player=a, amount=5, created_at=clock.now()
            )
            Entry.objects.create(transaction=txn, account=acc_a, amount=-5, created_at=clock.now())
            Entry.objects.create(transaction=txn, account=acc_b, amount=5, created_at=clock.now())
            with connection.cursor() as cur:
                cur.execute("SET CONSTRAINTS ALL IMMEDIATE")


def test_the_database_refuses_a_negative_player_balance_that_is_not_a_recorded_debt():
    p = make_player()
    fund(p, czk(10))
    with pytest.raises(IntegrityError, match="wallet_account_player_balance_covered"):
        with transaction.atomic():
            LedgerAccount.objects.filter(player=p, kind="player_main").update(balance=-1)
    with pytest.raises(IntegrityError, match="recorded open debts"):
        with transaction.atomic():
            LedgerAccount.objects.filter(player=p, kind="player_main").update(balance=-1, debt=1)
            with connection.cursor() as cur:
                cur.execute("SET CONSTRAINTS ALL IMMEDIATE")


def test_entries_and_transactions_are_append_only():
    p = make_player()
    t = fund(p, czk(10))
    with pytest.raises(Exception, match="append-only"):
        with transaction.atomic():
            Entry.objects.filter(transaction=t).update(amount=5)
    with pytest.raises(Exception, match="append-only"):
        with transaction.atomic():
            with connection.cursor() as cur:
                cur.execute("DELETE FROM wallet_ledgertransaction WHERE id = %s", [t.pk])


def test_ledger_check_exits_non_zero_when_a_balance_differs_from_its_entries():
    p = make_player()
    fund(p, czk(10))
    call_command("ledger_check", verbosity=0)
    LedgerAccount.objects.filter(player=p, kind="player_main").update(balance=999)
    with pytest.raises(CommandError, match="account balance != sum of entries"):
        call_command("ledger_check", verbosity=0)


def test_operator_accounts_are_never_updated_per_spin_their_balance_is_the_sum_of_entries():
    p = make_player()
    fund(p, czk(100))
    for i in range(3):
        stake_debit(player=p, amount=czk(1), reference=f"spin-{i}", actor=SYSTEM)
    house = LedgerAccount.objects.get(code="house")
    assert not house.tracks_balance and house.balance == 0
    assert operator_balance("house") == czk(3)
    assert selectors.operator_balances()["house"] == czk(3)


def test_jackpot_wins_are_paid_from_the_jackpot_account_filled_by_operator_transfers():
    p = make_player()
    operator_transfer(
        from_code="house", to_code="jackpot", amount=czk(50), reference="jp-contrib-1", memo="c", actor=SYSTEM
    )
    win_credit(player=p, amount=czk(20), reference="jp-win", actor=SYSTEM, source="jackpot")
    assert operator_balance("jackpot") == czk(30) and selectors.balance(p) == czk(20)
    with pytest.raises(DomainError) as exc:
        operator_transfer(
            from_code="house", to_code=f"player:{p.pk}:main", amount=czk(1), reference="x", memo="", actor=SYSTEM
        )
    assert exc.value.code == errors.NOT_AN_OPERATOR_ACCOUNT.code
    ledger_clean()


def test_a_statement_lists_every_movement_with_its_balance_after():
    p = make_player()
    start = clock.now()
    fund(p, czk(100))
    stake_debit(player=p, amount=czk(10), reference="r1", actor=SYSTEM)
    win_credit(player=p, amount=czk(4), reference="r1", actor=SYSTEM)
    stake_refund(player=p, amount=czk(1), reference="r2", actor=SYSTEM)
    lines = selectors.statement(p, start, None)
    assert [(x.category, x.amount.amount, x.balance_after.amount) for x in lines] == [
        ("correction", 10000, 10000),
        ("stake", -1000, 9000),
        ("win", 400, 9400),
        ("refund", 100, 9500),
    ]
    assert selectors.statement(p, clock.now() + timedelta(seconds=1), None) == []


# GP §5(2)d, §5(5) -----------------------------------------------------------------------------------------------


def test_conversion_moves_the_temporary_balance_to_the_player_account_once():
    p = make_player(status="temporary")
    fund(p, czk(120))
    assert selectors.account_mode(p) == "temporary"
    t = wallet_convert_temporary(player=p, actor=SYSTEM)
    assert t is not None and t.kind == "conversion" and t.amount == 12000
    assert player_account(p.pk, "player_temporary").balance == 0
    assert player_account(p.pk, "player_main").balance == 12000
    assert wallet_convert_temporary(player=p, actor=SYSTEM) is None
    assert selectors.balance(p) == czk(120) and selectors.account_mode(p) == "full"
    ledger_clean()


def test_a_closed_or_expired_account_cannot_be_converted():
    p = make_player(status="temporary")
    fund(p, czk(1))
    p.status = "expired"
    p.save(update_fields=["status"])
    with pytest.raises(DomainError) as exc:
        wallet_convert_temporary(player=p, actor=SYSTEM)
    assert exc.value.code == errors.CONVERSION_STATE.code
    assert selectors.account_mode(p) == "temporary"


# GP §10(3) holds -----------------------------------------------------------------------------------------------


def test_a_doubtful_win_is_held_and_released_by_the_sweeper_after_60_days():
    from wallet.tasks import sweep

    p = make_player()
    win_credit(player=p, amount=czk(500), reference="big", actor=SYSTEM, hold_reason="regularity")
    hold = WinHold.objects.get(reference="big")
    assert selectors.balance(p) == czk(0) and selectors.held_balance(p) == czk(500)
    assert hold.release_due_at == hold.held_at + timedelta(days=60)
    with time_machine.travel(hold.release_due_at - timedelta(minutes=1), tick=False):
        sweep()
    assert WinHold.objects.get(pk=hold.pk).status == "held"
    with time_machine.travel(hold.release_due_at, tick=False):
        sweep()
        sweep()
    assert WinHold.objects.get(pk=hold.pk).status == "released"
    assert selectors.balance(p) == czk(500) and selectors.held_balance(p) == czk(0)
    ledger_clean()


def test_an_aml_hold_lasts_the_aml_period_and_then_waits_for_compliance(settings):
    from wallet.tasks import sweep

    settings.WALLET_AML_HOLD_DAYS = 10
    p = make_player()
    win_credit(player=p, amount=czk(700), reference="aml", actor=SYSTEM, hold_reason="aml")
    hold = WinHold.objects.get(reference="aml")
    assert hold.release_due_at == hold.held_at + timedelta(days=10)
    with time_machine.travel(hold.release_due_at, tick=False):
        sweep()
    hold.refresh_from_db()
    assert hold.status == "escalated" and selectors.held_balance(p) == czk(700)
    win_hold_forfeit(hold=hold, reason="FAU: suspicious, bet void", actor=SYSTEM)
    assert selectors.held_balance(p) == czk(0) and selectors.balance(p) == czk(0)
    ledger_clean()


def test_a_regularity_hold_cannot_be_extended_past_60_days_and_staff_may_release_early():
    p = make_player()
    win_credit(player=p, amount=czk(50), reference="h1", actor=SYSTEM, hold_reason="regularity")
    hold = WinHold.objects.get(reference="h1")
    with pytest.raises(DomainError) as exc:
        win_hold_extend(hold=hold, until=hold.held_at + timedelta(days=61), reason="x", actor=SYSTEM)
    assert exc.value.code == errors.HOLD_STATE.code
    win_hold_release(hold=hold, actor=SYSTEM, note="cleared")
    assert selectors.balance(p) == czk(50)
    with pytest.raises(DomainError) as exc:
        win_hold_release(hold=hold, actor=SYSTEM)
    assert exc.value.code == errors.HOLD_STATE.code


# GP §7(7), §10(4) deductions and debts ----------------------------------------------------------------------------


def test_a_win_credited_in_error_is_deducted_with_notice_and_a_negative_balance_becomes_a_10_day_debt():
    from wallet.services import withdrawal_request
    from wallet.tasks import sweep

    p = make_player()
    method = verified_bank(p)
    win_credit(player=p, amount=czk(100), reference="err-win", actor=SYSTEM)
    stake_debit(player=p, amount=czk(80), reference="spent", actor=SYSTEM)
    d = win_deduct(
        player=p,
        amount=czk(100),
        reference="deduct-1",
        reason="win credited in error (GP §7(7))",
        notice_text="Výhra byla připsána omylem a byla odečtena.",
        actor=SYSTEM,
    )
    assert d.notice_sent_at and selectors.balance(p) == czk(-80) and selectors.debt(p) == czk(80)
    debt = Debt.objects.get(player=p)
    assert debt.due_at == debt.created_at + timedelta(days=10) and debt.outstanding == 8000
    for call in (
        lambda: stake_debit(player=p, amount=czk(1), reference="blocked", actor=SYSTEM),
        lambda: withdrawal_request(player=p, method=method, amount=czk(100), reference="w-blocked", actor=SYSTEM),
    ):
        with pytest.raises(DomainError) as exc:
            call()
        assert exc.value.code == errors.DEBT_OUTSTANDING.code
    assert selectors.balance(p) == czk(-80)
    with time_machine.travel(debt.due_at, tick=False):
        sweep()
    debt.refresh_from_db()
    assert debt.status == "overdue" and debt.flagged_at is not None
    assert p.wallet.__class__.objects.get(player=p).debt_flagged_at is not None
    fund(p, czk(50))
    debt.refresh_from_db()
    assert debt.outstanding == 3000 and selectors.debt(p) == czk(30)
    fund(p, czk(40))
    debt.refresh_from_db()
    assert debt.status == "paid" and selectors.balance(p) == czk(10) and selectors.debt(p) == czk(0)
    stake_debit(player=p, amount=czk(1), reference="allowed-again", actor=SYSTEM)
    ledger_clean()


def test_a_debt_on_a_temporary_account_moves_with_the_balance_at_conversion():
    p = make_player(status="temporary")
    fund(p, czk(10))
    win_deduct(player=p, amount=czk(25), reference="dd", reason="error", notice_text="notice", actor=SYSTEM)
    wallet_convert_temporary(player=p, actor=SYSTEM)
    assert selectors.balance(p) == czk(-15) and selectors.debt(p) == czk(15)
    assert Debt.objects.get(player=p).account.kind == "player_main"
    adjustment_credit(player=p, amount=czk(15), reference="pay-debt", reason="player paid", actor=SYSTEM)
    assert selectors.debt(p) == czk(0) and Debt.objects.get(player=p).status == "paid"
    ledger_clean()
