"""Payouts outside the account, step by step with their deadlines: GP §5(2)e (cancelled temporary account),
GP §5(13) (misuse), GP §5(15) (closure settlement)."""

from datetime import timedelta
from typing import TypeVar

import pytest
import time_machine

from core import clock
from core.errors import DomainError
from core.money import Money
from tests.kit.accounts import make_player
from tests.kit.money import czk
from tests.kit.wallet import SYSTEM, bank, deposit, fund, ledger_clean, verified_bank
from wallet import errors, selectors
from wallet.ledger import operator_balance
from wallet.models import Payout
from wallet.services import (
    branch_cash_record,
    closure_settlement_start,
    misuse_payout_start,
    payout_collect_cash,
    temporary_refund_start,
)
from wallet.tasks import sweep

pytestmark = pytest.mark.django_db
ValueT = TypeVar("ValueT")


def present(value: ValueT | None) -> ValueT:
    """``value``, which must be there (a payout that was started, a time that was set)."""
    assert value is not None
    return value


def expire(p):
    p.status = "expired"
    p.save(update_fields=["status"])


def test_a_cancelled_temporary_account_is_refunded_to_the_method_the_deposit_came_from(
    django_capture_on_commit_callbacks,
):
    p = make_player(status="temporary")
    m = bank(p)
    deposit(p, m, czk(800))
    expire(p)
    with django_capture_on_commit_callbacks(execute=True):
        refund = temporary_refund_start(player=p, actor=SYSTEM)
        assert refund is not None
    refund.refresh_from_db()
    assert refund.kind == "temporary_refund" and refund.method == m and refund.amount == 80000
    assert refund.due_at == refund.started_at + timedelta(days=7)
    assert refund.status == "completed" and refund.paid == 80000
    assert [h["step"] for h in refund.history] == ["started", "sent", "completed"]
    assert selectors.balance(p) == czk(0) and present(temporary_refund_start(player=p, actor=SYSTEM)).pk == refund.pk
    ledger_clean()


def test_without_a_method_the_person_is_invited_to_a_branch_for_5_days_then_paid_by_post_minus_postage(settings):
    settings.WALLET_POSTAGE = 6000
    p = make_player(status="temporary")
    branch_cash_record(player=p, direction="in", amount=czk(1000), reference="cash-1", branch="Praha", actor=SYSTEM)
    expire(p)
    refund = temporary_refund_start(player=p, actor=SYSTEM)
    assert refund is not None
    assert refund.status == "invited" and refund.channel == "branch"
    collect_by = present(refund.collect_by)
    assert collect_by == present(refund.invited_at) + timedelta(days=5) <= present(refund.due_at)
    with time_machine.travel(collect_by - timedelta(seconds=1), tick=False):
        sweep()
    assert Payout.objects.get(pk=refund.pk).status == "invited"
    with time_machine.travel(collect_by, tick=False):
        sweep()
        sweep()
    refund.refresh_from_db()
    assert refund.status == "completed" and refund.channel == "post"
    assert present(refund.posted_at) <= present(refund.due_at)
    assert (refund.paid, refund.postage, refund.outstanding) == (94000, 6000, 0)
    assert operator_balance("clearing:post") == czk(940) and operator_balance("fees") == czk(60)
    ledger_clean()


def test_a_refund_the_provider_refuses_is_collected_in_cash_at_a_branch(settings, django_capture_on_commit_callbacks):
    settings.WALLET_SANDBOX_PAYOUT_OUTCOME = "refused"
    p = make_player(status="temporary")
    deposit(p, bank(p), czk(700))
    expire(p)
    with django_capture_on_commit_callbacks(execute=True):
        refund = temporary_refund_start(player=p, actor=SYSTEM)
        assert refund is not None
    refund.refresh_from_db()
    assert refund.status == "invited" and [h["step"] for h in refund.history] == ["started", "invited"]
    payout_collect_cash(payout=refund, amount=czk(700), reference="rcpt-1", branch="Ostrava", actor=SYSTEM)
    refund.refresh_from_db()
    assert refund.status == "completed" and refund.paid == 70000
    with pytest.raises(DomainError) as exc:
        payout_collect_cash(payout=refund, amount=czk(1), reference="rcpt-2", branch="Ostrava", actor=SYSTEM)
    assert exc.value.code == errors.PAYOUT_STATE.code
    ledger_clean()


def test_nothing_to_refund_starts_nothing_and_a_full_account_is_settled_by_closure_instead():
    p = make_player(status="temporary")
    expire(p)
    assert temporary_refund_start(player=p, actor=SYSTEM) is None
    q = make_player()
    fund(q, czk(1))
    with pytest.raises(DomainError) as exc:
        temporary_refund_start(player=q, actor=SYSTEM)
    assert exc.value.code == errors.ACCOUNT_STATE.code


def test_misuse_pays_the_last_registered_method_or_invites_for_15_days_then_posts(settings):
    settings.WALLET_SANDBOX_PAYOUT_OUTCOME = "refused"
    p = make_player()
    fund(p, czk(300))
    payout = misuse_payout_start(player=p, actor=SYSTEM)
    assert payout is not None
    assert payout.status == "invited" and payout.collect_by == present(payout.invited_at) + timedelta(days=15)
    assert payout.due_at is None
    assert present(misuse_payout_start(player=p, actor=SYSTEM)).pk == payout.pk
    with time_machine.travel(payout.collect_by, tick=False):
        sweep()
    payout.refresh_from_db()
    assert payout.status == "completed" and payout.channel == "post"
    q = make_player()
    m = verified_bank(q)
    fund(q, czk(300))
    assert present(misuse_payout_start(player=q, actor=SYSTEM)).method == m
    ledger_clean()


def test_closure_by_transfer_is_settled_when_the_provider_confirms(django_capture_on_commit_callbacks):
    p = make_player()
    verified_bank(p)
    fund(p, czk(1234))
    assert selectors.closure_settled_at(p) is None
    with django_capture_on_commit_callbacks(execute=True):
        payout = closure_settlement_start(player=p, method="transfer", actor=SYSTEM)
        assert payout is not None
    payout.refresh_from_db()
    assert payout.status == "completed"
    assert selectors.closure_settled_at(p) == payout.completed_at
    assert selectors.closure_close_by(p) == present(payout.completed_at) + timedelta(days=10)
    ledger_clean()


def test_closure_in_cash_is_collected_within_the_5000_czk_per_24_hours():
    p = make_player()
    fund(p, czk(7000))
    payout = closure_settlement_start(player=p, method="branch_cash", actor=SYSTEM)
    assert payout is not None
    assert payout.status == "invited" and payout.channel == "branch"
    t0 = clock.now()
    payout_collect_cash(payout=payout, amount=czk(5000), reference="cl-1", branch="Praha", actor=SYSTEM)
    with pytest.raises(DomainError) as exc:
        payout_collect_cash(payout=payout, amount=czk(2000), reference="cl-2", branch="Praha", actor=SYSTEM)
    assert exc.value.code == errors.BRANCH_CASH_24H.code
    assert selectors.closure_settled_at(p) is None
    with time_machine.travel(t0 + timedelta(days=1, minutes=1), tick=False):
        payout_collect_cash(payout=payout, amount=czk(2000), reference="cl-2", branch="Praha", actor=SYSTEM)
    assert selectors.closure_settled_at(p) is not None and selectors.balance(p) == Money(0)
    ledger_clean()


def test_a_zero_balance_is_settled_at_once_and_a_temporary_one_follows_the_refund_rules():
    p = make_player()
    payout = closure_settlement_start(player=p, method="transfer", actor=SYSTEM)
    assert payout is not None
    assert payout.status == "completed" and selectors.closure_settled_at(p) == payout.completed_at
    t = make_player(status="temporary")
    branch_cash_record(player=t, direction="in", amount=czk(100), reference="tc", branch="Praha", actor=SYSTEM)
    refund = closure_settlement_start(player=t, method="transfer", actor=SYSTEM)
    assert refund is not None
    assert refund.kind == "temporary_refund" and refund.status == "invited"


def test_the_accounts_expiry_job_hands_the_temporary_balance_to_the_refund(django_capture_on_commit_callbacks):
    from accounts.services import temporary_expire
    from core.audit import Actor

    p = make_player(status="temporary")
    deposit(p, bank(p), czk(250))
    with time_machine.travel(p.temporary_expires_at, tick=False), django_capture_on_commit_callbacks(execute=True):
        temporary_expire(player=p, actor=Actor.system("test"))
    p.refresh_from_db()
    assert p.status == "expired" and p.balance_handoff_at is not None, p.balance_handoff_error
    refund = Payout.objects.get(player=p)
    assert refund.kind == "temporary_refund" and refund.status == "completed" and refund.amount == 25000
    ledger_clean()


def test_the_accounts_closure_request_settles_through_the_wallet_and_the_account_closes(
    django_capture_on_commit_callbacks,
):
    from accounts.services import closure_request, closures_finalize_due
    from core.audit import Actor

    p = make_player()
    verified_bank(p)
    fund(p, czk(900))
    with django_capture_on_commit_callbacks(execute=True):
        closure_request(player=p, method="transfer", actor=Actor.player(p))
    p.refresh_from_db()
    assert p.status == "closing" and p.balance_handoff_at is not None, p.balance_handoff_error
    assert selectors.closure_settled_at(p) is not None
    closures_finalize_due()
    p.refresh_from_db()
    assert p.status == "closed"


def test_the_invitation_to_a_branch_and_the_posting_are_recorded_notices_in_prague_time(
    settings, django_capture_on_commit_callbacks
):
    """The person is told through the one recorded path for player notices (inbox at once, e-mail after commit, each
    delivery recorded), never an e-mail that may fail silently; the term is shown in Prague time (CET in March)."""
    from accounts.models import Message

    settings.WALLET_POSTAGE = 6000
    with time_machine.travel("2026-03-10 10:00:00+00:00", tick=False):
        p = make_player(status="temporary")
        branch_cash_record(player=p, direction="in", amount=czk(1000), reference="cash-1", branch="Praha", actor=SYSTEM)
        expire(p)
        with django_capture_on_commit_callbacks(execute=True):
            refund = present(temporary_refund_start(player=p, actor=SYSTEM))
    invited = Message.objects.get(player=p, reference=f"wallet.payout_invited:{refund.pk}")
    assert invited.kind == Message.Kind.NOTICE
    assert "15. 3. 2026 11:00" in invited.body_cs and "2026-03-15 11:00 (Prague time)" in invited.body_en
    assert Money(100000).format("cs") in invited.body_cs
    assert invited.deliveries.get(channel="email").status == "sent"
    with time_machine.travel(present(refund.collect_by), tick=False), django_capture_on_commit_callbacks(execute=True):
        sweep()
        sweep()
    posted = Message.objects.get(player=p, reference=f"wallet.payout_posted:{refund.pk}")
    assert Money(94000).format("cs") in posted.body_cs and Money(6000).format("en") in posted.body_en
    assert posted.deliveries.get(channel="email").status == "sent"
