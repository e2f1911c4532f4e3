"""Deposits through the sandbox provider: signed callbacks handled exactly once, the temporary account's cap
(GP §5(2)b, §5(12)), method limits and fees (GP §8(6)), branch cash (GP §5(12))."""

import json
from datetime import timedelta

import pytest
import time_machine

from accounts.errors import SUSPENDED
from core.audit import Actor
from core.money import Money
from tests.kit.accounts import make_player
from tests.kit.money import czk
from tests.kit.refusals import refused
from tests.kit.wallet import SYSTEM, bank, deposit, ledger_clean, pay_deposit, ref
from wallet import errors, selectors
from wallet.adapters import hmac_signature, sandbox_event
from wallet.ledger import operator_balance
from wallet.models import Deposit, LedgerTransaction, Payout, ProviderEvent
from wallet.services import branch_cash_record, deposit_start, provider_callback_handle
from wallet.tasks import sweep

pytestmark = pytest.mark.django_db


def start(player, method, amount):
    return deposit_start(player=player, method=method, amount=amount, reference=ref("dep"), actor=Actor.player(player))


def test_a_deposit_is_credited_only_when_the_provider_confirms_it():
    p = make_player(status="temporary")
    m = bank(p)
    d = start(p, m, czk(500))
    assert d.status == "initiated" and d.instructions["variable_symbol"] == d.payment_reference
    assert selectors.balance(p) == czk(0)
    assert pay_deposit(d)["result"] == "confirmed"
    d.refresh_from_db()
    assert d.status == "confirmed" and selectors.balance(p) == czk(500)
    ledger_clean()


def test_a_callback_with_a_bad_signature_or_a_tampered_body_changes_nothing():
    p = make_player(status="temporary")
    d = start(p, bank(p), czk(500))
    body, sig = sandbox_event("payment.succeeded", d.payment_reference, d.amount)
    refused(
        lambda: provider_callback_handle(provider="sandbox", raw_body=body, signature="sha256=00"),
        errors.BAD_SIGNATURE.code,
    )
    refused(
        lambda: provider_callback_handle(provider="sandbox", raw_body=body, signature=""), errors.BAD_SIGNATURE.code
    )
    tampered = body.replace(b'"amount": 50000', b'"amount": 90000')
    assert tampered != body
    refused(
        lambda: provider_callback_handle(provider="sandbox", raw_body=tampered, signature=sig),
        errors.BAD_SIGNATURE.code,
    )
    wrong_secret = hmac_signature("another secret", body)
    refused(
        lambda: provider_callback_handle(provider="sandbox", raw_body=body, signature=wrong_secret),
        errors.BAD_SIGNATURE.code,
    )
    assert not ProviderEvent.objects.exists() and Deposit.objects.get(pk=d.pk).status == "initiated"
    assert selectors.balance(p) == czk(0)


def test_a_malformed_but_signed_body_is_refused_and_an_unknown_provider_is_not_found():
    refused(
        lambda: provider_callback_handle(
            provider="sandbox",
            raw_body=b"{not json",
            signature=hmac_signature("sandbox-shared-secret-for-development-only", b"{not json"),
        ),
        errors.BAD_CALLBACK.code,
    )
    refused(
        lambda: provider_callback_handle(provider="nope", raw_body=b"{}", signature="x"), errors.UNKNOWN_PROVIDER.code
    )


def test_the_same_callback_twice_is_handled_once():
    p = make_player(status="temporary")
    d = start(p, bank(p), czk(500))
    body, sig = sandbox_event("payment.succeeded", d.payment_reference, d.amount, event_id="evt-1")
    first = provider_callback_handle(provider="sandbox", raw_body=body, signature=sig)
    second = provider_callback_handle(provider="sandbox", raw_body=body, signature=sig)
    assert first["status"] == "processed" and second == {
        "status": "duplicate",
        "event_id": "evt-1",
        "result": "confirmed",
    }
    # another event id for the same payment (a provider's retry with a new id) credits nothing either
    assert pay_deposit(d)["result"] == "already_confirmed"
    assert selectors.balance(p) == czk(500) and LedgerTransaction.objects.filter(kind="deposit").count() == 1
    ledger_clean()


def test_out_of_order_callbacks_a_failure_after_success_is_ignored_a_success_after_failure_credits():
    p = make_player(status="temporary")
    m = bank(p)
    d1 = start(p, m, czk(100))
    pay_deposit(d1)
    assert pay_deposit(d1, outcome="failed")["result"] == "ignored_out_of_order"
    assert Deposit.objects.get(pk=d1.pk).status == "confirmed"
    d2 = start(p, m, czk(50))
    assert pay_deposit(d2, outcome="failed")["result"] == "failed"
    assert pay_deposit(d2)["result"] == "confirmed"
    assert selectors.balance(p) == czk(150)
    ledger_clean()


def test_a_late_confirmation_after_the_deposit_expired_is_still_credited():
    p = make_player(status="temporary")
    d = start(p, bank(p), czk(100))
    with time_machine.travel(d.expires_at + timedelta(minutes=1), tick=False):
        sweep()
        assert Deposit.objects.get(pk=d.pk).status == "expired"
        assert pay_deposit(d)["result"] == "confirmed"
    assert selectors.balance(p) == czk(100)


def test_a_confirmation_of_another_amount_is_returned_and_of_nothing_is_ignored(django_capture_on_commit_callbacks):
    p = make_player(status="temporary")
    m = bank(p)
    d = start(p, m, czk(100))
    assert pay_deposit(d, amount=0)["result"] == "amount_mismatch"
    assert Deposit.objects.get(pk=d.pk).status == "initiated"
    with django_capture_on_commit_callbacks(execute=True):
        assert pay_deposit(d, amount=9000)["result"] == "returned"
    assert selectors.balance(p) == czk(0)
    assert Payout.objects.get(player=p, kind="deposit_return").amount == 9000
    ledger_clean()


def test_an_unknown_payment_reference_is_recorded_and_ignored():
    body, sig = sandbox_event("payment.succeeded", "0000000000", 100)
    assert provider_callback_handle(provider="sandbox", raw_body=body, signature=sig)["result"] == "unknown_reference"
    assert not LedgerTransaction.objects.exists()


# GP §5(2)b, §5(12): 3,000 CZK over the temporary account's life ------------------------------------------------------


def test_the_temporary_account_takes_3000_00_czk_in_total_and_refuses_3000_01(settings):
    settings.WALLET_BANK_DEPOSIT_MIN = 1  # so that the boundary can be walked in haléře
    p = make_player(status="temporary")
    m = bank(p)
    refused(lambda: start(p, m, czk("3000.01")), errors.TEMPORARY_DEPOSIT_CAP.code)
    deposit(p, m, czk("2999.99"))
    deposit(p, m, czk("0.01"))
    assert selectors.balance(p) == czk("3000.00")
    before = (LedgerTransaction.objects.count(), Deposit.objects.count())
    err = refused(lambda: start(p, m, czk("0.01")), errors.TEMPORARY_DEPOSIT_CAP.code)
    assert err.details["cap"] == czk(3000) and err.details["remaining"] == Money(0)
    assert (LedgerTransaction.objects.count(), Deposit.objects.count()) == before
    assert selectors.balance(p) == czk("3000.00")


def test_the_cap_counts_the_whole_life_of_the_account_not_the_balance(settings):
    p = make_player(status="temporary")
    m = bank(p)
    deposit(p, m, czk(2000))
    from wallet.services import stake_debit

    stake_debit(player=p, amount=czk(1500), reference="lost", actor=SYSTEM)
    refused(lambda: start(p, m, czk("1000.01")), errors.TEMPORARY_DEPOSIT_CAP.code)
    deposit(p, m, czk(1000))
    assert selectors.temporary_deposit_status(p)["remaining"] == Money(0)


def test_pending_deposits_reserve_the_cap_until_they_expire(django_capture_on_commit_callbacks):
    p = make_player(status="temporary")
    m = bank(p)
    pending = start(p, m, czk(2000))
    refused(lambda: start(p, m, czk("1000.01")), errors.TEMPORARY_DEPOSIT_CAP.code)
    with time_machine.travel(pending.expires_at, tick=False):
        sweep()
        later = start(p, m, czk(2000))
        pay_deposit(later)
        # the expired one is confirmed late: it would pass the cap, so it is returned, not credited
        with django_capture_on_commit_callbacks(execute=True):
            assert pay_deposit(pending)["result"] == "returned"
    assert selectors.balance(p) == czk(2000)
    assert Deposit.objects.get(pk=pending.pk).status == "returned"
    refund = Payout.objects.get(player=p, kind="deposit_return")
    assert refund.amount == 200000 and refund.status == "completed"  # the sandbox paid it back
    ledger_clean()


def test_after_completion_the_cap_no_longer_applies():
    from wallet.services import wallet_convert_temporary

    p = make_player(status="temporary")
    m = bank(p)
    deposit(p, m, czk(3000))
    wallet_convert_temporary(player=p, actor=SYSTEM)
    p.status = "active"
    p.save(update_fields=["status"])
    deposit(p, m, czk(5000))
    assert selectors.balance(p) == czk(8000)


# GP §8(6): limits and fees per method -------------------------------------------------------------------------------


def test_paysafecard_deposits_pay_the_5_percent_fee_and_the_fee_goes_to_the_fees_account():
    from wallet.services import payment_method_register

    p = make_player()
    m = payment_method_register(player=p, kind="paysafecard", data={"account_id": "jan@example.cz"}, actor=SYSTEM)
    d = deposit(p, m, czk("100.10"))
    assert d.fee == 501  # 5 % of 100.10 = 5.005 -> 5.01 (half up)
    assert selectors.balance(p) == czk("95.09") and operator_balance("fees") == Money(501)
    cats = [x.category for x in selectors.statement(p)]
    assert cats == ["deposit", "fee"]
    ledger_clean()


def test_method_minimums_and_maximums_are_enforced(settings):
    from wallet.services import payment_method_register

    p = make_player()
    card = payment_method_register(
        player=p, kind="card", data={"card_token": "tok_123456789", "card_masked": "**** **** **** 1234"}, actor=SYSTEM
    )
    refused(lambda: start(p, card, czk("99.99")), errors.BELOW_METHOD_MIN.code)
    start(p, card, czk(100))
    settings.WALLET_PAYSAFECARD_DEPOSIT_MAX = 100_000
    psc = payment_method_register(player=p, kind="paysafecard", data={"account_id": "p@example.cz"}, actor=SYSTEM)
    refused(lambda: start(p, psc, czk("1000.01")), errors.ABOVE_METHOD_MAX.code)
    refused(lambda: start(p, bank(p), czk("2.99")), errors.BELOW_METHOD_MIN.code)


def test_deposits_need_a_usable_method_of_the_player_and_an_open_account():
    from wallet.services import payment_method_cancel

    p, other = make_player(), make_player()
    m = bank(p)
    refused(lambda: start(other, m, czk(100)), errors.METHOD_NOT_USABLE.code)
    payment_method_cancel(method=m, reason="misuse", actor=SYSTEM)
    refused(lambda: start(p, m, czk(100)), errors.METHOD_NOT_USABLE.code)
    suspended = make_player(status="suspended")
    m3 = bank(suspended)
    err = refused(lambda: start(suspended, m3, czk(100)), SUSPENDED.code)
    assert err and not Deposit.objects.filter(player=suspended).exists()


def test_a_confirmation_for_an_account_cancelled_meanwhile_is_returned_not_credited(django_capture_on_commit_callbacks):
    p = make_player(status="temporary")
    d = start(p, bank(p), czk(300))
    p.status = "expired"
    p.save(update_fields=["status"])
    with django_capture_on_commit_callbacks(execute=True):
        assert pay_deposit(d)["result"] == "returned"
    assert selectors.balance(p) == czk(0)
    assert Payout.objects.get(player=p, kind="deposit_return").status == "completed"
    ledger_clean()


# GP §5(12): cash at a branch ------------------------------------------------------------------------------------------


def test_branch_cash_is_limited_to_5000_czk_in_any_rolling_24_hours_each_way():
    from core import clock

    p = make_player()
    t0 = clock.now()
    branch_cash_record(player=p, direction="in", amount=czk(3000), reference="c1", branch="Praha", actor=SYSTEM)
    with time_machine.travel(t0 + timedelta(hours=20), tick=False):
        branch_cash_record(player=p, direction="in", amount=czk(2000), reference="c2", branch="Praha", actor=SYSTEM)
        err = refused(
            lambda: branch_cash_record(
                player=p, direction="in", amount=czk("0.01") * 100, reference="c3", branch="Praha", actor=SYSTEM
            ),
            errors.BRANCH_CASH_24H.code,
        )
        assert err.details["remaining"] == Money(0)
        branch_cash_record(player=p, direction="out", amount=czk(4000), reference="o1", branch="Praha", actor=SYSTEM)
        refused(
            lambda: branch_cash_record(
                player=p, direction="out", amount=czk(1001), reference="o2", branch="Praha", actor=SYSTEM
            ),
            errors.BRANCH_CASH_24H.code,
        )
    with time_machine.travel(t0 + timedelta(hours=24, seconds=1), tick=False):
        branch_cash_record(player=p, direction="in", amount=czk(3000), reference="c4", branch="Praha", actor=SYSTEM)
    assert selectors.balance(p) == czk(4000)
    # the same receipt twice is recorded once
    branch_cash_record(player=p, direction="in", amount=czk(3000), reference="c4", branch="Praha", actor=SYSTEM)
    assert selectors.balance(p) == czk(4000)
    ledger_clean()


def test_the_24_hour_cash_cap_can_count_both_ways_together(settings):
    settings.WALLET_BRANCH_CASH_COMBINED = True
    p = make_player()
    branch_cash_record(player=p, direction="in", amount=czk(3000), reference="k1", branch="Praha", actor=SYSTEM)
    refused(
        lambda: branch_cash_record(
            player=p, direction="out", amount=czk("2000.01"), reference="k2", branch="Praha", actor=SYSTEM
        ),
        errors.BRANCH_CASH_24H.code,
    )
    branch_cash_record(player=p, direction="out", amount=czk(2000), reference="k3", branch="Praha", actor=SYSTEM)
    assert selectors.balance(p) == czk(1000)


def test_a_temporary_account_keeps_its_cap_and_withdrawal_ban_at_the_branch():
    p = make_player(status="temporary")
    branch_cash_record(player=p, direction="in", amount=czk(2500), reference="t1", branch="Brno", actor=SYSTEM)
    refused(
        lambda: branch_cash_record(
            player=p, direction="in", amount=czk("500.01"), reference="t2", branch="Brno", actor=SYSTEM
        ),
        errors.TEMPORARY_DEPOSIT_CAP.code,
    )
    refused(
        lambda: branch_cash_record(
            player=p, direction="out", amount=czk(100), reference="t3", branch="Brno", actor=SYSTEM
        ),
        errors.TEMPORARY_NO_WITHDRAWAL.code,
    )
    assert selectors.balance(p) == czk(2500)


def test_sandbox_callbacks_are_json_with_the_documented_fields():
    body, sig = sandbox_event("payment.succeeded", "123", 100, payer={"name": "A B"})
    data = json.loads(body)
    assert set(data) >= {"event_id", "type", "reference", "amount", "currency", "payer", "occurred_at"}
    assert sig.startswith("sha256=") and len(sig) == 71


def test_the_sandbox_pay_command_confirms_a_deposit_after_commit(django_capture_on_commit_callbacks, capsys):
    from django.core.management import call_command

    p = make_player(status="temporary")
    d = start(p, bank(p), czk(120))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("sandbox_pay", d.payment_reference)
    assert Deposit.objects.get(pk=d.pk).status == "confirmed" and selectors.balance(p) == czk(120)
    d2 = start(p, bank(p), czk(30))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("sandbox_pay", str(d2.pk), "--outcome", "failed")
    assert Deposit.objects.get(pk=d2.pk).status == "failed"
    call_command("wallet_sweep")
    assert "wallet sweep" in capsys.readouterr().out
