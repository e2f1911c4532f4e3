"""A hold placed on a win already credited (GP §10(3), ``win_hold_place``) and the notices the operator can prove
(GP §7(7), §10(4)): a win deducted, a debt, a win held, a payment method refused or cancelled."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from rest_framework.test import APIClient

from accounts.models import Delivery, Message
from core import clock
from core.errors import DomainError
from core.models import AuditEvent
from core.money import Money
from tests.kit.accounts import make_player, token_for
from tests.kit.money import czk
from tests.kit.wallet import SYSTEM, fund, ledger_clean, ref, verified_bank
from wallet import errors, selectors
from wallet.ledger import operator_balance
from wallet.models import Debt, Entry, LedgerTransaction, WinHold, Withdrawal
from wallet.services import (
    payment_method_cancel,
    payment_method_refuse,
    stake_debit,
    win_credit,
    win_deduct,
    win_hold_extend,
    win_hold_forfeit,
    win_hold_place,
    win_hold_release,
    withdrawal_request,
)

pytestmark = pytest.mark.django_db
INBOX = "/api/v1/accounts/me/messages"


def at(t):
    return time_machine.travel(t, tick=False)


@pytest.fixture
def t0():
    return clock.now().replace(microsecond=0) - timedelta(days=90)


@pytest.fixture
def commit(django_capture_on_commit_callbacks):
    """Run the after-commit work (the notices' e-mails) of what happens inside ``with commit():``."""

    def run():
        return django_capture_on_commit_callbacks(execute=True)

    return run


def credited(player, amount: Money, when, **kw) -> str:
    reference = ref("win")
    with at(when):
        win_credit(player=player, amount=amount, reference=reference, actor=SYSTEM, **kw)
    return reference


def place(player, reference, when, reason="regularity", note="doubt about the bet"):
    with at(when):
        return win_hold_place(player=player, win_reference=reference, reason=reason, note=note, actor=SYSTEM)


def messages(player, kind=None):
    qs = Message.objects.filter(player=player)
    return list(qs.filter(kind=kind) if kind else qs)


def inbox(player, lang="cs") -> dict:
    c = APIClient(raise_request_exception=False)
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(player.user)}")
    r = c.get(INBOX, HTTP_ACCEPT_LANGUAGE=lang)
    assert r.status_code == 200, r.content
    body: dict = r.json()
    return body


# win_hold_place: GP §10(3) on a credited win -------------------------------------------------------------------------


def test_a_credited_win_moves_live_to_held_in_one_balanced_posting_audited_and_the_player_told(t0, commit):
    p = make_player()
    fund(p, czk(100))
    reference = credited(p, czk(500), t0)
    with commit():
        hold = place(p, reference, t0 + timedelta(days=3))
    assert (hold.amount, hold.reason, hold.status, hold.reference) == (
        50_000,
        "regularity",
        "held",
        f"hold:{reference}",
    )
    win = LedgerTransaction.objects.get(kind="win", reference=reference)
    assert hold.win_transaction_id == win.pk and hold.note == "doubt about the bet"
    assert hold.held_at == t0 + timedelta(days=3)
    assert hold.release_due_at == win.created_at + timedelta(days=60) == t0 + timedelta(days=60)  # GP §10(3)
    assert selectors.balance(p) == czk(100) and selectors.held_balance(p) == czk(500)
    legs = {(e.account.kind, e.amount) for e in Entry.objects.filter(transaction=hold.transaction)}
    assert hold.transaction.kind == "win_hold" and legs == {("player_main", -50_000), ("player_held", 50_000)}
    event = AuditEvent.objects.get(action="wallet.win_hold_placed", object_id=str(hold.pk))
    assert event.details["win_reference"] == reference and event.details["reason"] == "regularity"
    (msg,) = messages(p, "hold")
    assert msg.reference == f"wallet.hold:{hold.pk}"
    due = clock.local(t0 + timedelta(days=60))
    assert "500,00\xa0Kč" in msg.body_cs and "HP §10 odst. 3" in msg.body_cs
    # no term in the notice: it would tell an AML hold from a regularity hold (tipping-off)
    assert f"{due.day}. {due.month}. {due.year}" not in msg.body_cs and f"{due:%Y-%m-%d}" not in msg.body_en
    assert "500.00 CZK" in msg.body_en and "GP §10(3)" in msg.body_en
    assert msg.deliveries.get(channel="email").status == "sent" and len(mail.outbox) == 1
    body = inbox(p)
    assert body["results"][0]["kind"] == "hold" and body["results"][0]["reference"] == f"wallet.hold:{hold.pk}"
    ledger_clean()


def test_a_repeat_returns_the_same_hold_moves_nothing_and_tells_nobody_again(t0, commit):
    p = make_player()
    reference = credited(p, czk(80), t0)
    with commit():
        first = place(p, reference, t0 + timedelta(hours=1))
    with commit():
        again = place(p, reference, t0 + timedelta(hours=2))
    assert again.pk == first.pk and WinHold.objects.filter(player=p).count() == 1
    assert LedgerTransaction.objects.filter(kind="win_hold", player=p).count() == 1
    assert selectors.held_balance(p) == czk(80) and selectors.balance(p) == czk(0)
    assert len(messages(p, "hold")) == 1 and Delivery.objects.filter(message__player=p).count() == 2
    assert len(mail.outbox) == 1
    with pytest.raises(DomainError) as e:  # the same win for the other reason: decide the first hold instead
        place(p, reference, t0 + timedelta(hours=3), reason="aml")
    assert e.value.code == errors.HOLD_EXISTS.code
    ledger_clean()


def test_only_a_credited_win_of_this_player_with_a_reason_and_a_note_can_be_held(t0):
    p, other = make_player(), make_player()
    fund(p, czk(100))
    mine = credited(p, czk(50), t0)
    theirs = credited(other, czk(50), t0)
    stake_debit(player=p, amount=czk(10), reference="a-stake", actor=SYSTEM)
    held_at_credit = credited(p, czk(20), t0, hold_reason="aml")
    for win_reference, reason, note, expected in (
        (theirs, "regularity", "x", errors.WIN_NOT_FOUND),
        ("no-such-win", "regularity", "x", errors.WIN_NOT_FOUND),
        ("a-stake", "regularity", "x", errors.WIN_NOT_FOUND),
        (held_at_credit, "regularity", "x", errors.WIN_NOT_FOUND),  # held already, not a credited win
        (mine, "later", "x", errors.HOLD_INVALID),
        (mine, "aml", "  ", errors.HOLD_INVALID),
    ):
        with pytest.raises(DomainError) as e:
            place(p, win_reference, t0 + timedelta(hours=1), reason=reason, note=note)
        assert e.value.code == expected.code, (win_reference, reason)
    assert WinHold.objects.filter(player=p).count() == 1 and selectors.balance(p) == czk(140)
    ledger_clean()


@pytest.mark.parametrize(
    ("after", "allowed"), [(timedelta(days=60) - timedelta(seconds=1), True), (timedelta(days=60), False)]
)
def test_a_regularity_hold_is_placed_only_within_the_60_days_from_the_crediting(t0, after, allowed):
    """GP §10(3): a doubt about regularity holds the payout at most until the 60-day payout term ends."""
    p = make_player()
    reference = credited(p, czk(300), t0)
    if allowed:
        hold = place(p, reference, t0 + after)
        assert hold.release_due_at == t0 + timedelta(days=60) and selectors.held_balance(p) == czk(300)
    else:
        with pytest.raises(DomainError) as e:
            place(p, reference, t0 + after)
        assert e.value.code == errors.HOLD_TOO_LATE.code
        assert selectors.balance(p) == czk(300) and not WinHold.objects.exists() and not messages(p)
    ledger_clean()


def test_an_aml_hold_runs_the_aml_period_from_its_placing_even_after_the_60_days(t0, settings):
    """GP §10(3): a suspicious transaction is held for the period the AML law sets (WALLET_AML_HOLD_DAYS)."""
    settings.WALLET_AML_HOLD_DAYS = 12
    p = make_player()
    reference = credited(p, czk(300), t0)
    hold = place(p, reference, t0 + timedelta(days=61), reason="aml", note="STR filed")
    assert hold.release_due_at == t0 + timedelta(days=61 + 12)
    (msg,) = messages(p, "hold")
    for text in (msg.body_cs + msg.subject_cs, msg.body_en + msg.subject_en):  # no tipping-off (AML law §38)
        assert "AML" not in text and "podezř" not in text.lower() and "suspic" not in text.lower()
    assert "HP §10 odst. 3" in msg.body_cs and "GP §10(3)" in msg.body_en


def test_only_what_is_left_of_the_win_is_held_and_nothing_left_is_refused(t0):
    p = make_player()
    reference = credited(p, czk(100), t0)
    stake_debit(player=p, amount=czk(70), reference=ref("stake"), actor=SYSTEM)
    hold = place(p, reference, t0 + timedelta(hours=1))
    assert hold.amount == 3_000 and selectors.balance(p) == czk(0) and selectors.held_balance(p) == czk(30)
    msg = messages(p, "hold")[0]
    assert "zadržujeme 30,00\xa0Kč" in msg.body_cs and "we hold 30.00 CZK" in msg.body_en
    spent = credited(p, czk(40), t0)
    stake_debit(player=p, amount=czk(40), reference=ref("stake"), actor=SYSTEM)
    with pytest.raises(DomainError) as e:
        place(p, spent, t0 + timedelta(hours=1))
    assert e.value.code == errors.NOTHING_TO_HOLD.code
    ledger_clean()


def test_withdrawals_not_yet_sent_are_stopped_newest_first_as_far_as_the_win_needs(t0, commit):
    """A payout not yet made is what GP §10(3) holds: the win's money in an unsent withdrawal comes back first."""
    p = make_player()
    method = verified_bank(p)
    fund(p, czk(500))
    reference = credited(p, czk(1000), t0)
    with at(t0 + timedelta(minutes=1)):
        older = withdrawal_request(player=p, method=method, amount=czk(300), reference=ref("wd"), actor=SYSTEM)
    with at(t0 + timedelta(minutes=2)):
        newer = withdrawal_request(player=p, method=method, amount=czk(900), reference=ref("wd"), actor=SYSTEM)
    assert selectors.balance(p) == czk(300) and (older.status, newer.status) == ("approved", "approved")
    hold = place(p, reference, t0 + timedelta(hours=1))
    older.refresh_from_db()
    newer.refresh_from_db()
    assert newer.status == "rejected" and "GP §10(3)" in newer.status_reason  # 300 + 900 covers the 1,000
    assert older.status == "approved"
    assert hold.amount == 100_000 and selectors.balance(p) == czk(200)
    assert selectors.held_balance(p) == czk(1300)  # the older withdrawal and the held win
    assert AuditEvent.objects.get(action="wallet.win_hold_placed").details["withdrawals_stopped"] == [newer.pk]
    msg = messages(p, "hold")[0]
    assert f"č. {newer.pk} (900,00\xa0Kč)" in msg.body_cs and f"no. {newer.pk} (900.00 CZK)" in msg.body_en
    ledger_clean()


def test_when_no_withdrawal_is_needed_none_is_stopped(t0):
    p = make_player()
    method = verified_bank(p)
    fund(p, czk(500))
    reference = credited(p, czk(100), t0)
    w = withdrawal_request(player=p, method=method, amount=czk(400), reference=ref("wd"), actor=SYSTEM)
    hold = place(p, reference, t0 + timedelta(hours=1))
    w.refresh_from_db()
    assert w.status == "approved" and hold.amount == 10_000 and selectors.balance(p) == czk(100)


def test_a_withdrawal_already_with_the_provider_is_not_stopped_and_the_rest_is_held(t0):
    p = make_player()
    method = verified_bank(p)
    reference = credited(p, czk(1000), t0)
    with at(t0 + timedelta(minutes=1)):
        w = withdrawal_request(player=p, method=method, amount=czk(800), reference=ref("wd"), actor=SYSTEM)
    Withdrawal.objects.filter(pk=w.pk).update(status=Withdrawal.Status.SENDING, sending_since=t0)
    hold = place(p, reference, t0 + timedelta(hours=1))
    w.refresh_from_db()
    assert w.status == "sending" and hold.amount == 20_000
    assert selectors.held_balance(p) == czk(1000)  # 800 on its way out + 200 held


# the existing hold services on a hold placed after crediting ----------------------------------------------------------


def test_a_placed_hold_is_released_to_the_live_account(t0):
    p = make_player()
    reference = credited(p, czk(250), t0)
    hold = place(p, reference, t0 + timedelta(days=1))
    with at(t0 + timedelta(days=2)):
        win_hold_release(hold=hold, actor=SYSTEM, note="doubt cleared")
    hold.refresh_from_db()
    assert hold.status == "released" and selectors.balance(p) == czk(250) and selectors.held_balance(p) == czk(0)
    assert LedgerTransaction.objects.get(kind="win_release", reference=f"hold:{reference}").amount == 25_000
    ledger_clean()


@pytest.mark.parametrize("source", ["house", "jackpot:awards"])
def test_a_placed_hold_forfeited_goes_back_to_the_account_that_paid_the_win(t0, source):
    p = make_player()
    before = operator_balance(source)
    reference = credited(p, czk(250), t0, source=source)
    assert operator_balance(source) == before - czk(250)
    hold = place(p, reference, t0 + timedelta(days=1))
    win_hold_forfeit(hold=hold, reason="bet judged irregular (GP §9(2))", actor=SYSTEM)
    hold.refresh_from_db()
    assert hold.status == "forfeited" and operator_balance(source) == before
    assert selectors.balance(p) == czk(0) and selectors.held_balance(p) == czk(0)
    ledger_clean()


def test_a_forfeit_of_a_win_held_when_credited_still_goes_back_to_its_payer(t0):
    p = make_player()
    before = operator_balance("jackpot:awards")
    reference = credited(p, czk(40), t0, hold_reason="regularity", source="jackpot:awards")
    win_hold_forfeit(hold=WinHold.objects.get(reference=reference), reason="irregular", actor=SYSTEM)
    assert operator_balance("jackpot:awards") == before and selectors.held_balance(p) == czk(0)
    ledger_clean()


@pytest.mark.parametrize(("extra", "allowed"), [(timedelta(0), True), (timedelta(seconds=1), False)])
def test_a_placed_regularity_hold_cannot_be_extended_past_60_days_from_the_crediting(t0, extra, allowed):
    """GP §10(3): the 60 days run from the win's crediting, not from the placing of the hold."""
    p = make_player()
    reference = credited(p, czk(10), t0)
    hold = place(p, reference, t0 + timedelta(days=30))
    until = t0 + timedelta(days=60) + extra
    if allowed:
        assert win_hold_extend(hold=hold, until=until, reason="still checking", actor=SYSTEM).release_due_at == until
    else:
        with pytest.raises(DomainError) as e:
            win_hold_extend(hold=hold, until=until, reason="still checking", actor=SYSTEM)
        assert e.value.code == errors.HOLD_STATE.code


def test_an_aml_hold_placed_may_be_extended_by_the_authority(t0, settings):
    settings.WALLET_AML_HOLD_DAYS = 10
    p = make_player()
    reference = credited(p, czk(10), t0)
    hold = place(p, reference, t0 + timedelta(days=59), reason="aml", note="STR")
    until = t0 + timedelta(days=200)
    assert win_hold_extend(hold=hold, until=until, reason="FAU extended", actor=SYSTEM).release_due_at == until


def test_the_sweeper_releases_a_placed_regularity_hold_at_the_60th_day_and_escalates_an_aml_one(t0, settings):
    from wallet.tasks import sweep

    settings.WALLET_AML_HOLD_DAYS = 10
    p = make_player()
    regular = place(p, credited(p, czk(30), t0), t0 + timedelta(days=5))
    aml = place(p, credited(p, czk(70), t0), t0 + timedelta(days=5), reason="aml", note="STR")
    with at(t0 + timedelta(days=15) - timedelta(seconds=1)):
        sweep()
    regular.refresh_from_db()
    aml.refresh_from_db()
    assert (regular.status, aml.status) == ("held", "held")
    with at(t0 + timedelta(days=15)):
        sweep()
    aml.refresh_from_db()
    assert aml.status == "escalated"
    with at(t0 + timedelta(days=60) - timedelta(seconds=1)):
        sweep()
    regular.refresh_from_db()
    assert regular.status == "held"
    with at(t0 + timedelta(days=60)):
        sweep()
    regular.refresh_from_db()
    assert regular.status == "released" and selectors.balance(p) == czk(30) and selectors.held_balance(p) == czk(70)
    ledger_clean()


# notices the operator can prove (GP §7(7), §10(4)) -------------------------------------------------------------------


def test_a_deduction_is_notified_in_the_inbox_and_by_email_once_and_the_deduction_records_it(commit):
    p = make_player()
    fund(p, czk(1000))
    win_credit(player=p, amount=czk(200), reference="err", actor=SYSTEM)
    with at(clock.now()), commit():
        d = win_deduct(
            player=p,
            amount=czk(200),
            reference="deduct-err",
            reason="credited in error",
            notice_text="Výhra 200 Kč byla připsána omylem. / A win of 200 CZK was credited in error.",
            actor=SYSTEM,
        )
    (msg,) = messages(p)
    assert (msg.kind, msg.reference) == ("win_deduction", f"wallet.deduction:{d.pk}")
    assert d.notice_channel == "inbox+email" and d.notice_sent_at == msg.created_at
    assert "200,00\xa0Kč" in msg.body_cs and "1\xa0000,00\xa0Kč" in msg.body_cs and "HP §7 odst. 7" in msg.body_cs
    assert "200.00 CZK" in msg.body_en and "1,000.00 CZK" in msg.body_en and "GP §7(7), §10(4)" in msg.body_en
    assert d.notice_text in msg.body_cs and d.notice_text in msg.body_en
    email = msg.deliveries.get(channel="email")
    assert email.status == "sent" and email.recipient == p.personal.email and len(mail.outbox) == 1
    assert not Debt.objects.filter(player=p).exists() and not messages(p, "debt")
    with commit():  # a retried call (same reference) returns the deduction and notifies nobody again
        again = win_deduct(
            player=p, amount=czk(200), reference="deduct-err", reason="credited in error", notice_text="x", actor=SYSTEM
        )
    assert again.pk == d.pk and len(messages(p)) == 1 and len(mail.outbox) == 1
    assert Delivery.objects.filter(message__player=p).count() == 2
    body = inbox(p, lang="en")
    assert body["count"] == 1 and body["results"][0]["subject"] == "Win deducted"


def test_a_deduction_that_leaves_a_debt_notifies_the_debt_with_its_amount_and_due_date(commit):
    """GP §7(7): the negative balance is a debt payable within 10 days; the player is told so, provably."""
    p = make_player()
    now = clock.now().replace(microsecond=0)
    with at(now):
        win_credit(player=p, amount=czk(100), reference="err-win", actor=SYSTEM)
        stake_debit(player=p, amount=czk(80), reference="spent", actor=SYSTEM)
        with commit():
            d = win_deduct(
                player=p,
                amount=czk(100),
                reference="deduct-1",
                reason="error",
                notice_text="Výhra byla připsána omylem.",
                actor=SYSTEM,
            )
    debt = Debt.objects.get(player=p)
    (msg,) = messages(p, "debt")
    assert msg.reference == f"wallet.debt:{debt.pk}"
    due = clock.local(now + timedelta(days=10))
    assert "80,00\xa0Kč" in msg.body_cs and f"{due.day}. {due.month}. {due.year} {due:%H:%M}" in msg.body_cs
    assert "HP §7 odst. 7" in msg.body_cs and "80.00 CZK" in msg.body_en and "GP §7(7)" in msg.body_en
    assert "-80,00\xa0Kč" in messages(p, "win_deduction")[0].body_cs
    assert {m.deliveries.get(channel="email").status for m in messages(p)} == {"sent"} and len(mail.outbox) == 2
    with commit():
        win_deduct(player=p, amount=czk(100), reference="deduct-1", reason="error", notice_text="x", actor=SYSTEM)
    assert len(messages(p)) == 2 and len(mail.outbox) == 2 and d.pk == debt.deduction_id
    kinds = [r["kind"] for r in inbox(p)["results"]]
    assert sorted(kinds) == ["debt", "win_deduction"]


def test_a_win_held_when_credited_is_notified_once(commit):
    p = make_player()
    with commit():
        win_credit(player=p, amount=czk(75), reference="held-win", actor=SYSTEM, hold_reason="regularity")
    with commit():
        win_credit(player=p, amount=czk(75), reference="held-win", actor=SYSTEM, hold_reason="regularity")
    hold = WinHold.objects.get(reference="held-win")
    (msg,) = messages(p)
    assert (msg.kind, msg.reference) == ("hold", f"wallet.hold:{hold.pk}") and "75,00\xa0Kč" in msg.body_cs
    assert len(mail.outbox) == 1 and msg.deliveries.get(channel="email").status == "sent"


@pytest.mark.parametrize(
    ("refuse", "subject_en", "rule_cs"),
    [
        (payment_method_refuse, "Payment method refused", "nebyly ani po výzvě odstraněny"),
        (payment_method_cancel, "Payment method cancelled", "podezření"),
    ],
)
def test_a_payment_method_refused_or_cancelled_is_notified_with_the_stopped_withdrawals_and_the_30_days(
    commit, refuse, subject_en, rule_cs
):
    """GP §5(11): the method can no longer be used; open withdrawals to it stop; 30 days to register another."""
    p = make_player()
    method = verified_bank(p)
    fund(p, czk(500))
    w = withdrawal_request(player=p, method=method, amount=czk(150), reference=ref("wd"), actor=SYSTEM)
    now = clock.now().replace(microsecond=0)
    with at(now), commit():
        refuse(method=method, reason="holder unknown", actor=SYSTEM)
    (msg,) = messages(p)
    assert (msg.kind, msg.reference, msg.subject_en) == (
        "payment_method_refused",
        f"wallet.method_refused:{method.pk}",
        subject_en,
    )
    due = clock.local(now + timedelta(days=30))
    assert rule_cs in msg.body_cs and "HP §5 odst. 11" in msg.body_cs and "GP §5(11)" in msg.body_en
    assert f"č. {w.pk}, 150,00\xa0Kč" in msg.body_cs and f"no. {w.pk}, 150.00 CZK" in msg.body_en
    assert f"{due.day}. {due.month}. {due.year} {due:%H:%M}" in msg.body_cs and "holder unknown" in msg.body_en
    assert msg.deliveries.get(channel="email").status == "sent" and len(mail.outbox) == 1
    with pytest.raises(DomainError) as e:  # a retried call is refused and notifies nobody again
        refuse(method=method, reason="holder unknown", actor=SYSTEM)
    assert e.value.code == errors.METHOD_NOT_USABLE.code
    assert len(messages(p)) == 1 and len(mail.outbox) == 1


def test_a_refused_method_with_another_registered_one_left_names_no_new_term():
    p = make_player()
    keep = verified_bank(p)
    lost = verified_bank(p)
    payment_method_refuse(method=lost, reason="doubtful", actor=SYSTEM)
    (msg,) = messages(p)
    assert "30 dnů" not in msg.body_cs and "30 days" not in msg.body_en and "Otevřené výběry" not in msg.body_cs
    assert keep.pk != lost.pk


def test_the_player_sees_a_hold_and_its_dates_but_never_why_it_was_placed(t0):
    """AML law §38 (no tipping-off): an AML hold and a regularity hold read alike in the player's API."""
    p = make_player()
    fund(p, czk(100))
    win_credit(player=p, amount=czk(50), reference=ref("aml-win"), actor=SYSTEM, hold_reason="aml")
    win_credit(player=p, amount=czk(20), reference=ref("reg-win"), actor=SYSTEM, hold_reason="regularity")
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(p.user)}")
    holds = c.get("/api/v1/wallet/holds").json()["results"]
    assert sorted(h["amount"]["amount"] for h in holds) == [2000, 5000]
    assert {h["reason"] for h in holds} == {"review"}
    assert all(h["status"] == "held" and "release_due_at" not in h for h in holds)  # the term would tell the reason
    assert len({tuple(sorted(k for k in h)) for h in holds}) == 1
    notices = sorted(
        (m.body_cs.replace("50,00", "X").replace("20,00", "X"), m.subject_en) for m in messages(p) if m.kind == "hold"
    )
    assert len(notices) == 2 and notices[0][1] == notices[1][1]
