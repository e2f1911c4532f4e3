"""GP §5(6) ("výhradně"): deposits only from the player's own payment method. A deposit whose payer the provider
names as another person is refused: nothing is credited, the money goes back to its source through the provider
(a ``deposit_refused`` payout with its own callback), the reason is recorded, the player is told, and the method
takes no deposit until staff decide (confirm it as the player's own, or refuse it, GP §5(11))."""

from datetime import timedelta

import pytest
from django.test import Client

from accounts.models import Message
from core.audit import Actor
from core.models import AuditEvent
from tests.kit.accounts import make_player, make_staff, token_for
from tests.kit.money import czk
from tests.kit.refusals import refused
from tests.kit.wallet import SYSTEM, bank, ledger_clean, pay_deposit, ref, verified_bank
from wallet import errors, selectors
from wallet.adapters import hmac_signature, sandbox_event
from wallet.errors import METHOD_DEPOSITS_BLOCKED
from wallet.ledger import operator_balance
from wallet.models import Deposit, LedgerTransaction, PaymentMethod, Payout, ProviderEvent
from wallet.services import (
    deposit_start,
    payment_method_owner_confirm,
    payment_method_refuse,
    payout_resend,
    provider_callback_handle,
)
from wallet.services.sandbox import default_sandbox_payer

pytestmark = pytest.mark.django_db

STRANGER = {"name": "Petr Svoboda", "birth_date": "1970-01-01"}


def card(player, token="tok_refused_1"):
    from wallet.services import payment_method_register

    return payment_method_register(
        player=player,
        kind="card",
        actor=Actor.player(player),
        data={"card_token": token, "card_masked": "**** **** **** 4242"},
    )


def start(player, method, amount):
    return deposit_start(player=player, method=method, amount=amount, reference=ref("dep"), actor=Actor.player(player))


def actions(player) -> list[str]:
    return list(
        AuditEvent.objects.filter(action__startswith="wallet.")
        .order_by("id")
        .filter(details__player_id=player.pk)
        .values_list("action", flat=True)
    )


def test_a_deposit_from_another_persons_card_is_refused_and_returned_to_its_source_nothing_credited(
    django_capture_on_commit_callbacks,
):
    """GP §5(6): received -> refunds_payable -> refund payout to the source -> its callback completes it."""
    p = make_player(status="temporary")
    m = card(p)
    d = start(p, m, czk(500))
    with django_capture_on_commit_callbacks() as after_commit:
        assert pay_deposit(d, payer=STRANGER)["result"] == "refused"
    d.refresh_from_db()
    assert d.status == "refused" and "another person" in d.status_reason and d.payer == STRANGER
    # nothing credited: the money waits in refunds_payable, owed to the payer, outside any player account
    assert selectors.balance(p) == czk(0) and selectors.temporary_deposit_status(p)["deposited"] == czk(0)
    assert not LedgerTransaction.objects.filter(kind="deposit", reference=d.payment_reference).exists()
    refusal = LedgerTransaction.objects.get(kind="deposit_return", reference=d.payment_reference)
    assert sorted((e.account.code, e.amount) for e in refusal.entries.all()) == [
        ("clearing:sandbox", -50000),
        ("refunds_payable", 50000),
    ]
    payout = Payout.objects.get(reference=f"deposit_refused:{d.pk}")
    assert (payout.kind, payout.method, payout.channel, payout.status, payout.amount) == (
        "deposit_refused",
        m,
        "method",
        "pending",
        50000,
    )
    assert operator_balance("refunds_payable") == czk(500)
    ledger_clean()
    # the method: blocked for deposits until staff decide, ownership doubtful (documents, GP §5(8)b)
    m.refresh_from_db()
    assert (
        m.deposits_blocked_at is not None and m.status == "doubtful" and f"deposit {d.pk}" in m.deposits_blocked_reason
    )
    # the player is told (a notice the operator can prove)
    notice = Message.objects.get(player=p, reference=f"wallet.deposit_refused:{d.pk}")
    assert "HP §5 odst. 6" in notice.body_cs and "GP §5(6)" in notice.body_en and "Svoboda" not in notice.body_en
    # after commit the refund goes out and the provider's own callback completes it
    with django_capture_on_commit_callbacks(execute=True):
        for callback in after_commit:
            callback()
    payout.refresh_from_db()
    assert payout.status == "completed" and payout.paid == 50000
    assert [h["step"] for h in payout.history] == ["started", "sent", "completed"]
    assert operator_balance("refunds_payable") == czk(0) and operator_balance("clearing:sandbox") == czk(0)
    assert selectors.balance(p) == czk(0)
    assert {
        "wallet.deposit_refused",
        METHOD_DEPOSITS_BLOCKED.code,
        "wallet.payout_sent",
        "wallet.payout_completed",
    } <= set(actions(p))
    ledger_clean()


def test_a_second_deposit_from_the_blocked_method_is_refused_with_an_error_and_changes_nothing():
    p = make_player()
    m = verified_bank(p)  # even a verified method: the payer was someone else
    pay_deposit(start(p, m, czk(200)), payer=STRANGER)
    m.refresh_from_db()
    assert m.status == "verified" and m.deposits_blocked_at is not None
    before = Deposit.objects.filter(player=p).count()
    err = refused(lambda: start(p, m, czk(200)), errors.METHOD_DEPOSITS_BLOCKED.code)
    assert err.details["method_id"] == m.pk
    assert Deposit.objects.filter(player=p).count() == before and selectors.balance(p) == czk(0)
    # another method of the player still works
    other = verified_bank(p)
    assert pay_deposit(start(p, other, czk(200)), payer=default_sandbox_payer(p))["result"] == "confirmed"
    assert selectors.balance(p) == czk(200)
    ledger_clean()


def test_a_deposit_started_before_the_block_is_returned_to_its_source_even_when_the_player_paid_it():
    """Until staff decide, nothing from the blocked method is credited."""
    p = make_player()
    m = verified_bank(p)
    first, second = start(p, m, czk(100)), start(p, m, czk(300))
    pay_deposit(first, payer=STRANGER)
    assert pay_deposit(second, payer=default_sandbox_payer(p))["result"] == "refused"
    second.refresh_from_db()
    assert second.status == "refused" and "blocked" in second.status_reason
    assert selectors.balance(p) == czk(0)
    assert Payout.objects.filter(kind="deposit_refused", player=p).count() == 2
    ledger_clean()


def test_the_players_own_name_is_credited_as_before_and_a_namesake_with_another_birth_date_is_refused():
    p = make_player(status="temporary", personal_data={"given_names": "Jiří", "surname": "Dvořák"})
    m = bank(p)
    d = start(p, m, czk(100))
    assert pay_deposit(d, payer={"name": "ING. DVORAK JIRI"})["result"] == "confirmed"
    m.refresh_from_db()
    assert m.status == "verified" and m.deposits_blocked_at is None and selectors.balance(p) == czk(100)
    namesake = {"name": "Jiří Dvořák", "birth_date": (p.personal.date_of_birth - timedelta(days=1)).isoformat()}
    m2 = bank(p)
    assert pay_deposit(start(p, m2, czk(50)), payer=namesake)["result"] == "refused"
    assert selectors.balance(p) == czk(100)
    ledger_clean()


def test_a_payment_without_a_payer_is_credited_and_proves_nothing():
    """The decision (docs/wallet.md): no payer reported is not another person; the money is credited, the method
    stays unverified (withdrawals need a verified method, GP §5(8)), nothing is blocked."""
    p = make_player(status="temporary")
    m = bank(p)
    d = start(p, m, czk(100))
    body, sig = sandbox_event("payment.succeeded", d.payment_reference, d.amount, payer=None)
    assert provider_callback_handle(provider="sandbox", raw_body=body, signature=sig)["result"] == "confirmed"
    m.refresh_from_db()
    assert m.status == "pending" and m.deposits_blocked_at is None and selectors.balance(p) == czk(100)
    assert Deposit.objects.get(pk=d.pk).payer is None
    ledger_clean()


def test_duplicate_callbacks_of_the_refused_deposit_and_of_its_refund_are_harmless(django_capture_on_commit_callbacks):
    p = make_player()
    m = verified_bank(p)
    d = start(p, m, czk(400))
    body, sig = sandbox_event("payment.succeeded", d.payment_reference, d.amount, payer=STRANGER, event_id="evt-ref-1")
    with django_capture_on_commit_callbacks(execute=True):
        assert provider_callback_handle(provider="sandbox", raw_body=body, signature=sig)["result"] == "refused"
    # the same event again, another event for the same payment, a late failure: nothing moves
    assert provider_callback_handle(provider="sandbox", raw_body=body, signature=sig)["status"] == "duplicate"
    assert pay_deposit(d, payer=STRANGER, event_id="evt-ref-2")["result"] == "already_refused"
    assert pay_deposit(d, outcome="failed", event_id="evt-ref-3")["result"] == "ignored_out_of_order"
    payout = Payout.objects.get(kind="deposit_refused", player=p)
    assert payout.status == "completed"
    # the refund's own callback, replayed, and a second confirmation of it with another event id
    refund_event = ProviderEvent.objects.get(event_type="payout.succeeded", raw_body__contains=payout.reference)
    raw = refund_event.raw_body.encode()
    again = provider_callback_handle(provider="sandbox", raw_body=raw, signature=sandbox_signature(raw))
    assert again == {"status": "duplicate", "event_id": refund_event.provider_txn_id, "result": "completed"}
    b2, s2 = sandbox_event("payout.succeeded", payout.send_reference, payout.amount, event_id="evt-refund-2")
    assert provider_callback_handle(provider="sandbox", raw_body=b2, signature=s2)["result"] == "ignored_out_of_order"
    assert Payout.objects.filter(player=p).count() == 1 and Payout.objects.get(pk=payout.pk).paid == 40000
    assert LedgerTransaction.objects.filter(kind__in=["deposit_return", "payout_send"]).count() == 2
    assert selectors.balance(p) == czk(0) and operator_balance("refunds_payable") == czk(0)
    ledger_clean()


def sandbox_signature(raw: bytes) -> str:
    from django.conf import settings

    return hmac_signature(settings.WALLET_SANDBOX_SECRET, raw)


@pytest.mark.parametrize("outcome", ["refused", "failed"])
def test_a_refund_the_source_does_not_take_stops_for_staff_never_goes_to_the_player_and_can_be_sent_again(
    outcome, settings, django_capture_on_commit_callbacks
):
    """Refused at sending, or accepted and then returned by the bank: the money of another person is never
    offered to the player (no branch invitation, no post); staff send it again under a new provider reference."""
    settings.WALLET_SANDBOX_PAYOUT_OUTCOME = outcome
    p = make_player()
    m = verified_bank(p)
    d = start(p, m, czk(250))
    with django_capture_on_commit_callbacks(execute=True):
        pay_deposit(d, payer=STRANGER)
    payout = Payout.objects.get(kind="deposit_refused", player=p)
    assert payout.status == "stopped" and payout.channel == "method" and payout.invited_at is None
    assert payout.outstanding == 25000 and payout.next_action_at is None
    assert operator_balance("refunds_payable") == czk(250) and selectors.balance(p) == czk(0)
    assert "wallet.payout_stopped" in actions(p) and "wallet.payout_invited" not in actions(p)
    ledger_clean()
    # the sweeper leaves it alone (nothing due), and branch collection is impossible
    from wallet.tasks import sweep

    sweep()
    assert Payout.objects.get(pk=payout.pk).status == "stopped"
    settings.WALLET_SANDBOX_PAYOUT_OUTCOME = "succeeded"
    with django_capture_on_commit_callbacks(execute=True):
        payout_resend(payout=payout, actor=Actor.staff(make_staff()))
    payout.refresh_from_db()
    assert payout.status == "completed" and payout.attempt == 1 and payout.paid == 25000
    assert payout.send_reference == f"{payout.reference}/a1"
    assert LedgerTransaction.objects.filter(kind="payout_send", reference=payout.send_reference).exists()
    # a late callback about the first send changes nothing
    b, s = sandbox_event("payout.failed", payout.reference, 25000, event_id=f"evt-late-{outcome}")
    assert provider_callback_handle(provider="sandbox", raw_body=b, signature=s)["result"] == "ignored_out_of_order"
    refused(lambda: payout_resend(payout=payout, actor=SYSTEM), errors.PAYOUT_STATE.code)
    assert operator_balance("refunds_payable") == czk(0) and selectors.balance(p) == czk(0)
    ledger_clean()


def test_staff_confirm_the_method_as_the_players_own_then_its_deposits_are_credited():
    p = make_player(status="temporary")
    m = bank(p)
    pay_deposit(start(p, m, czk(100)), payer={"name": "Jana Dvořáková-Nová"})  # e.g. a name the register lacks
    refused(lambda: payment_method_owner_confirm(method=m, note="", actor=SYSTEM), errors.METHOD_INVALID.code)
    staff = Actor.staff(make_staff())
    payment_method_owner_confirm(method=m, note="account contract shows the player as holder", actor=staff)
    m.refresh_from_db()
    assert m.deposits_blocked_at is None and m.status == "verified" and m.verified_by == "staff"
    assert m.accepted_payers == ["dvorakova jana nova"]
    assert "wallet.method_owner_confirmed" in actions(p)
    # later deposits from it work, from the player and from the confirmed name; a stranger is still refused
    assert pay_deposit(start(p, m, czk(100)), payer={"name": "Nová Jana Dvořáková"})["result"] == "confirmed"
    assert pay_deposit(start(p, m, czk(100)), payer=default_sandbox_payer(p))["result"] == "confirmed"
    assert selectors.balance(p) == czk(200)
    assert pay_deposit(start(p, m, czk(100)), payer=STRANGER)["result"] == "refused"
    assert selectors.balance(p) == czk(200)
    # a second decision on a method that is not blocked any more is refused
    q = make_player()
    refused(
        lambda: payment_method_owner_confirm(method=verified_bank(q), note="x", actor=staff),
        errors.METHOD_NOT_BLOCKED.code,
    )
    ledger_clean()


def test_staff_refuse_the_blocked_method_and_it_takes_nothing_any_more():
    p = make_player()
    m = verified_bank(p)
    pay_deposit(start(p, m, czk(100)), payer=STRANGER)
    payment_method_refuse(method=m, reason="ownership not proven (GP §5(11))", actor=Actor.staff(make_staff()))
    assert PaymentMethod.objects.get(pk=m.pk).status == "refused"
    refused(lambda: start(p, m, czk(100)), errors.METHOD_NOT_USABLE.code)
    refused(lambda: payment_method_owner_confirm(method=m, note="late", actor=SYSTEM), errors.METHOD_NOT_USABLE.code)
    ledger_clean()


def test_staff_decide_in_the_admin_and_a_blocked_deposit_is_a_409_in_the_api():
    p = make_player()
    m = verified_bank(p)
    pay_deposit(start(p, m, czk(100)), payer=STRANGER)
    api = Client()
    r = api.post(
        "/api/v1/wallet/deposits",
        {"method_id": m.pk, "amount": {"amount": 10000, "currency": "CZK"}},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token_for(p.user)}",
        HTTP_IDEMPOTENCY_KEY="blocked-1",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert r.status_code == 409 and r.json()["error"]["code"] == errors.METHOD_DEPOSITS_BLOCKED.code
    assert r.json()["error"]["message_cs"].startswith("Z tohoto platebního prostředku")
    staff = Client(raise_request_exception=True)
    staff.force_login(make_staff(superuser=True))
    assert staff.get("/admin/wallet/paymentmethod/?deposits_blocked_at__isnull=False").status_code == 200
    r = staff.post("/admin/wallet/paymentmethod/", {"action": "confirm_owner", "_selected_action": [m.pk]})
    assert r.status_code == 302
    m.refresh_from_db()
    assert m.deposits_blocked_at is None
    assert AuditEvent.objects.filter(action="wallet.method_owner_confirmed", actor_type="staff").exists()
