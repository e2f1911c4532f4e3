"""Withdrawals: only from a full account (GP §5(2)c), only to a verified registered method (GP §5(6), §5(8)),
held from the request on, approved by staff when the amount or risk needs it."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import translation

from accounts.errors import SUSPENDED
from core.money import Money
from tests.kit.accounts import make_player
from tests.kit.money import czk
from tests.kit.refusals import refused
from tests.kit.wallet import SYSTEM, bank, fund, ledger_clean, ref, verified_bank
from wallet import errors, selectors
from wallet.adapters import sandbox_event
from wallet.ledger import operator_balance
from wallet.models import Withdrawal
from wallet.services import (
    payment_method_register,
    provider_callback_handle,
    win_credit,
    withdrawal_approve,
    withdrawal_cancel,
    withdrawal_dispatch,
    withdrawal_reject,
    withdrawal_request,
)

pytestmark = pytest.mark.django_db


def withdraw(p, m, amount, reference=None):
    return withdrawal_request(player=p, method=m, amount=amount, reference=reference or ref("w"), actor=SYSTEM)


def test_nothing_is_withdrawn_from_a_temporary_account():
    p = make_player(status="temporary")
    m = verified_bank(p)
    fund(p, czk(500))
    refused(lambda: withdraw(p, m, czk(100)), errors.TEMPORARY_NO_WITHDRAWAL.code)
    assert selectors.balance(p) == czk(500) and not Withdrawal.objects.exists()


def test_withdrawals_go_only_to_a_verified_method_of_the_player():
    p, other = make_player(), make_player()
    fund(p, czk(500))
    refused(lambda: withdraw(p, bank(p), czk(100)), errors.METHOD_NOT_VERIFIED.code)
    refused(lambda: withdraw(p, verified_bank(other), czk(100)), errors.METHOD_NOT_USABLE.code)
    psc = payment_method_register(player=p, kind="paysafecard", data={"account_id": "p@example.cz"}, actor=SYSTEM)
    refused(lambda: withdraw(p, psc, czk(100)), errors.METHOD_NOT_FOR_WITHDRAWAL.code)
    refused(lambda: withdraw(p, verified_bank(p), czk("99.99")), errors.BELOW_METHOD_MIN.code)
    assert selectors.balance(p) == czk(500) and not Withdrawal.objects.exists()


def test_a_withdrawal_above_the_balance_is_refused():
    p = make_player()
    m = verified_bank(p)
    fund(p, czk(100))
    refused(lambda: withdraw(p, m, czk("100.01")), errors.INSUFFICIENT_FUNDS.code)
    assert selectors.balance(p) == czk(100)


def test_a_frozen_account_may_not_withdraw():
    p = make_player(status="suspended")
    m = verified_bank(p)
    fund(p, czk(500))
    refused(lambda: withdraw(p, m, czk(100)), SUSPENDED.code)


def test_a_small_withdrawal_is_approved_sent_and_confirmed_by_the_provider(django_capture_on_commit_callbacks):
    p = make_player()
    m = verified_bank(p)
    fund(p, czk(1000))
    with django_capture_on_commit_callbacks(execute=True):
        w = withdraw(p, m, czk(400))
        assert w.status == "approved" and selectors.held_balance(p) == czk(400) and selectors.balance(p) == czk(600)
    w.refresh_from_db()
    assert w.status == "confirmed" and w.sent_at and w.finished_at
    assert selectors.held_balance(p) == czk(0) and selectors.balance(p) == czk(600)
    assert operator_balance("clearing:sandbox") == czk(400)
    ledger_clean()


def test_a_large_withdrawal_waits_for_staff_and_a_rejection_returns_the_money(
    settings, django_capture_on_commit_callbacks
):
    settings.WALLET_WITHDRAWAL_APPROVAL_THRESHOLD = 1_000_000
    p = make_player()
    m = verified_bank(p)
    fund(p, czk(25000))
    w1 = withdraw(p, m, czk(10000))
    assert w1.status == "requested" and w1.approval_reasons == ["amount_at_or_above_threshold"]
    with translation.override("cs"):  # staff read the reason, not its stored code
        assert w1.approval_reasons_text == "částka dosahuje hranice pro schválení"
    with translation.override("en"):
        assert w1.approval_reasons_text == "the amount is at or above the approval threshold"
    with django_capture_on_commit_callbacks(execute=True):
        withdrawal_approve(withdrawal=w1, actor=SYSTEM)
    assert Withdrawal.objects.get(pk=w1.pk).status == "confirmed"
    w2 = withdraw(p, m, czk(12000))
    withdrawal_reject(withdrawal=w2, reason="source of funds unclear", actor=SYSTEM)
    assert Withdrawal.objects.get(pk=w2.pk).status == "rejected"
    assert selectors.balance(p) == czk(15000) and selectors.held_balance(p) == czk(0)
    refused(lambda: withdrawal_approve(withdrawal=w2, actor=SYSTEM), errors.WITHDRAWAL_STATE.code)
    ledger_clean()


def test_a_held_win_sends_any_withdrawal_to_staff():
    p = make_player()
    m = verified_bank(p)
    fund(p, czk(500))
    win_credit(player=p, amount=czk(100), reference="doubt", actor=SYSTEM, hold_reason="regularity")
    assert withdraw(p, m, czk(100)).approval_reasons == ["win_held_under_doubt"]


def test_the_player_may_cancel_a_withdrawal_before_it_is_sent():
    p = make_player()
    m = verified_bank(p)
    fund(p, czk(20000))
    w = withdraw(p, m, czk(15000))
    withdrawal_cancel(withdrawal=w, actor=SYSTEM)
    assert selectors.balance(p) == czk(20000)
    refused(lambda: withdrawal_cancel(withdrawal=w, actor=SYSTEM), errors.WITHDRAWAL_STATE.code)


def test_a_payout_the_provider_refuses_fails_and_the_money_returns(settings, django_capture_on_commit_callbacks):
    settings.WALLET_SANDBOX_PAYOUT_OUTCOME = "refused"
    p = make_player()
    m = verified_bank(p)
    fund(p, czk(500))
    with django_capture_on_commit_callbacks(execute=True):
        w = withdraw(p, m, czk(300))
    w.refresh_from_db()
    assert w.status == "failed" and selectors.balance(p) == czk(500) and selectors.held_balance(p) == czk(0)
    ledger_clean()


def test_money_the_bank_returns_after_confirmation_comes_back_to_the_account(
    settings, django_capture_on_commit_callbacks
):
    p = make_player()
    m = verified_bank(p)
    fund(p, czk(500))
    with django_capture_on_commit_callbacks(execute=True):
        w = withdraw(p, m, czk(300))
    body, sig = sandbox_event("payout.failed", w.reference, w.amount, reason="account closed")
    assert provider_callback_handle(provider="sandbox", raw_body=body, signature=sig)["result"] == "returned"
    assert provider_callback_handle(provider="sandbox", raw_body=body, signature=sig)["status"] == "duplicate"
    w.refresh_from_db()
    assert w.status == "returned" and selectors.balance(p) == czk(500)
    assert operator_balance("clearing:sandbox") == Money(0)
    ledger_clean()


def test_a_send_that_crashed_is_retried_by_the_sweeper_with_the_same_reference(settings, monkeypatch):
    from wallet.adapters import SandboxProvider
    from wallet.tasks import sweep

    settings.WALLET_SANDBOX_PAYOUT_OUTCOME = "none"
    p = make_player()
    m = verified_bank(p)
    fund(p, czk(500))
    w = withdraw(p, m, czk(200))
    calls = []
    real = SandboxProvider.send_payout

    def flaky(self, **kw):
        calls.append(kw["reference"])
        if len(calls) == 1:
            raise ConnectionError("provider down")
        return real(self, **kw)

    monkeypatch.setattr(SandboxProvider, "send_payout", flaky)
    assert withdrawal_dispatch(withdrawal_id=w.pk, actor=SYSTEM) == "retry"
    assert Withdrawal.objects.get(pk=w.pk).status == "sending"
    assert withdrawal_dispatch(withdrawal_id=w.pk, actor=SYSTEM) == "skipped"  # not stale yet
    sending_since = Withdrawal.objects.get(pk=w.pk).sending_since
    assert sending_since is not None
    with time_machine.travel(sending_since + timedelta(minutes=15), tick=False):
        assert sweep().get("withdrawal.sent") == 1
    assert calls == [w.reference, w.reference]
    assert Withdrawal.objects.get(pk=w.pk).status == "sent"
    ledger_clean()
