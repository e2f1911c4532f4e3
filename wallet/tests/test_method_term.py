"""GP §5(11): a full account whose last registered payment method was refused (or cancelled, or removed) must
register another within 30 days. The plan cancels only a temporary account for it; for a full account the
platform's consequence (docs/wallet.md) is: from the deadline on deposits are refused (provider and branch cash),
stakes stay allowed, the wallet is flagged for staff and the player is told. Boundaries with a frozen clock."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from accounts.models import Message
from core.audit import Actor
from core.models import AuditEvent
from tests.kit.accounts import make_player
from tests.kit.money import czk
from tests.kit.refusals import refused
from tests.kit.wallet import SYSTEM, bank, fund, ledger_clean, pay_deposit, ref, verified_bank
from wallet import errors, selectors
from wallet.models import PaymentMethod, Wallet
from wallet.services import (
    branch_cash_record,
    deposit_start,
    method_document_review,
    method_document_upload,
    payment_method_refuse,
    stake_debit,
)
from wallet.services.sandbox import default_sandbox_payer
from wallet.tasks import sweep

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
DEADLINE = T0 + timedelta(days=30)  # GP §5(11): 30 days to register another method


def lost_method_at_t0():
    """A full account with money whose only registered method is refused at T0 (GP §5(11))."""
    with time_machine.travel(T0 - timedelta(days=60), tick=False):
        p = make_player()
        m = verified_bank(p)
        fund(p, czk(1000))
    with time_machine.travel(T0, tick=False):
        payment_method_refuse(method=m, reason="ownership doubtful after a request (GP §5(11))", actor=SYSTEM)
    return p


def start(player, method, amount):
    return deposit_start(player=player, method=method, amount=amount, reference=ref("dep"), actor=Actor.player(player))


def flagged(player) -> bool:
    return Wallet.objects.get(player=player).method_term_flagged_at is not None


def test_the_term_of_a_full_account_runs_30_days_from_losing_its_last_method():
    p = lost_method_at_t0()
    assert selectors.payment_method_deadline(p) == DEADLINE
    wallet = Wallet.objects.get(player=p)
    assert selectors.method_term_passed(wallet, DEADLINE - timedelta(seconds=1)) is None
    assert selectors.method_term_passed(wallet, DEADLINE) == DEADLINE


def test_on_day_29_deposits_are_taken_on_day_30_refused_but_stakes_stay_allowed():
    p = lost_method_at_t0()
    with time_machine.travel(DEADLINE - timedelta(days=1), tick=False):  # day 29
        new = bank(p)
        assert start(p, new, czk(100)).status == "initiated"
    with time_machine.travel(DEADLINE - timedelta(seconds=1), tick=False):  # the last second of the term
        in_term = start(p, new, czk(100))
        branch_cash_record(player=p, direction="in", amount=czk(10), reference="cash-29", branch="Praha", actor=SYSTEM)
    assert selectors.balance(p) == czk(1010)
    with time_machine.travel(DEADLINE, tick=False):  # day 30: the term has run out
        err = refused(lambda: start(p, new, czk(100)), errors.METHOD_TERM_PASSED.code)
        assert err.details["deadline"] == DEADLINE and err.details["missing_since"] == T0
        refused(
            lambda: branch_cash_record(
                player=p, direction="in", amount=czk(10), reference="cash-30", branch="Praha", actor=SYSTEM
            ),
            errors.METHOD_TERM_PASSED.code,
        )
        assert selectors.balance(p) == czk(1010)
        stake_debit(player=p, amount=czk(5), reference="stake-day-30", actor=SYSTEM)  # play goes on
        assert selectors.balance(p) == czk(1005)
    # a deposit started within the term and paid after it is credited, and its first payment verifies the method
    with time_machine.travel(DEADLINE + timedelta(hours=1), tick=False):
        assert pay_deposit(in_term, payer=default_sandbox_payer(p))["result"] == "confirmed"
        assert selectors.balance(p) == czk(1105) and selectors.payment_method_deadline(p) is None
        assert start(p, new, czk(100)).status == "initiated"  # deposits work again
    ledger_clean()


def test_the_sweeper_flags_the_wallet_for_staff_at_day_30_not_before_and_tells_the_player_once():
    p = lost_method_at_t0()
    with time_machine.travel(DEADLINE - timedelta(seconds=1), tick=False):
        assert "method_term.flagged" not in sweep()
    assert not flagged(p)
    with time_machine.travel(DEADLINE, tick=False):
        assert sweep().get("method_term.flagged") == 1
        assert "method_term.flagged" not in sweep()  # safe to run twice
    assert flagged(p)
    assert AuditEvent.objects.filter(action="wallet.method_term_passed", details__player_id=p.pk).count() == 1
    notice = Message.objects.get(player=p, reference__startswith="wallet.method_term_passed:")
    assert "HP §5 odst. 11" in notice.body_cs and "keep playing" in notice.body_en


def test_a_method_verified_by_documents_after_the_term_ends_it_and_clears_the_flag():
    p = lost_method_at_t0()
    with time_machine.travel(DEADLINE + timedelta(days=2), tick=False):
        sweep()
        assert flagged(p)
        m = bank(p)
        refused(lambda: start(p, m, czk(100)), errors.METHOD_TERM_PASSED.code)  # no first payment after the term
        doc = method_document_upload(method=m, name="statement.pdf", content=b"%PDF-1.4 statement", actor=SYSTEM)
        method_document_review(document=doc, approve=True, note="statement names the player", actor=SYSTEM)
        assert PaymentMethod.objects.get(pk=m.pk).status == "verified"
        assert not flagged(p) and Wallet.objects.get(player=p).method_missing_since is None
        assert start(p, m, czk(100)).status == "initiated"
        assert "method_term.flagged" not in sweep()


def test_a_temporary_account_is_left_to_its_own_expiry():
    """The temporary account's term is the accounts app's (GP §5(2)a, §5(11)): the wallet neither flags it nor
    refuses its deposits for this rule."""
    with time_machine.travel(T0, tick=False):
        p = make_player(status="temporary")
        m = bank(p)
        payment_method_refuse(method=m, reason="doubtful", actor=SYSTEM)
    with time_machine.travel(DEADLINE, tick=False):
        assert selectors.method_term_passed(Wallet.objects.get(player=p), DEADLINE) is None
        assert "method_term.flagged" not in sweep()
    assert not flagged(p)
