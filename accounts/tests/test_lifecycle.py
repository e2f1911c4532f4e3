"""Account states: the 30-day temporary account, completion, suspension, closure, and what each
state allows (betting_refusal / money_movement_refusal)."""

from datetime import timedelta

import pytest
import time_machine
from django.core import mail

from accounts import errors, selectors, services
from accounts.models import DuplicateCase, LoginSession, Player
from core import clock
from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from tests.kit.accounts import login_session_for, make_excluded, make_player
from tests.kit.clients import client_for
from tests.kit.refusals import refusal_code

pytestmark = pytest.mark.django_db
SYSTEM = Actor.system("test")


def decide_limits(player):
    from limits.models import LimitType
    from limits.services import self_limits_decide

    self_limits_decide(
        player=player, kind="technical", decisions={lt: None for lt in LimitType.values}, actor=Actor.player(player)
    )


def aml_declared_and_screened(player):
    """The PEP declaration ("none") and one screening against the sandbox list that answered, no hit (GP §2,
    §12(1)): the aml step of completion."""
    from aml.services import pep_declare, screening_run

    pep_declare(player=player, relation="none", actor=Actor.player(player))
    screening_run(player=player, actor=SYSTEM)


def verify_payment_method(player):
    from wallet.services import payment_method_register, payment_method_verify

    m = payment_method_register(
        player=player,
        kind="card",
        actor=Actor.player(player),
        data={"card_token": f"tok_test_{player.pk:08d}", "card_masked": "**** **** **** 1234"},
    )
    payment_method_verify(method=m, by="documents", actor=SYSTEM)


# 30-day temporary account (GP §5(2)a) -------------------------------------------------------------
def test_a_temporary_account_is_expired_by_the_job_at_30_days_and_not_a_minute_earlier(commit):
    start = clock.now()
    with time_machine.travel(start, tick=False):
        player = make_player(status="temporary")
    session, _ = login_session_for(player, at=start)
    with time_machine.travel(start + timedelta(days=29, hours=23, minutes=59), tick=False):
        assert services.temporary_expire_due() == 0
        player.refresh_from_db()
        assert player.status == "temporary" and selectors.betting_refusal(player) is None
    with time_machine.travel(start + timedelta(days=30), tick=False):
        assert refusal_code(selectors.betting_refusal(player)) == errors.TEMPORARY_EXPIRED.code  # before the job ran
        with commit():
            assert services.temporary_expire_due() == 1
        assert services.temporary_expire_due() == 0  # safe to run twice
    player.refresh_from_db()
    assert player.status == Player.Status.EXPIRED and player.closed_at == start + timedelta(days=30)
    assert player.balance_handoff == "refund" and player.balance_handoff_at is not None  # wallet refund started
    session.refresh_from_db()
    assert session.end_reason == "forced"
    assert len(mail.outbox) == 1 and "7" in mail.outbox[0].body
    assert AuditEvent.objects.filter(action="accounts.temporary.expired", object_id=str(player.pk)).count() == 1
    assert refusal_code(selectors.betting_refusal(player)) == errors.TEMPORARY_EXPIRED.code
    assert refusal_code(selectors.money_movement_refusal(player)) == errors.CLOSED.code


def test_a_suspended_temporary_account_expires_as_well():
    player = make_player(status="temporary")
    services.player_suspend(player=player, reason="check", actor=SYSTEM)
    with time_machine.travel(player.temporary_expires_at, tick=False):
        assert services.temporary_expire_due() == 1
    player.refresh_from_db()
    assert player.status == Player.Status.EXPIRED


def test_an_active_account_is_never_expired():
    player = make_player(status="active")
    assert player.temporary_expires_at is not None
    with time_machine.travel(player.temporary_expires_at + timedelta(days=1), tick=False):
        assert services.temporary_expire_due() == 0


# Completion (GP §4(8), §5(3), §5(2)d) -------------------------------------------------------------
def test_completion_with_steps_missing_is_refused_listing_them_and_changes_nothing():
    player = make_player(status="temporary")
    r = client_for(player).post("/api/v1/accounts/registration/complete")
    assert r.status_code == 409 and r.json()["error"]["code"] == errors.REGISTRATION_INCOMPLETE.code
    assert r.json()["error"]["details"]["missing"] == ["self_limits", "payment_method", "aml_compliance"]
    player.refresh_from_db()
    assert player.status == "temporary" and player.completed_at is None


def test_completion_converts_the_temporary_account_and_moves_the_balance(commit):
    from wallet.models import Wallet

    player = make_player(status="temporary")
    decide_limits(player)
    verify_payment_method(player)
    steps = client_for(player).get("/api/v1/accounts/registration/steps").json()
    assert steps["missing"] == ["aml_compliance"] and steps["can_complete"] is False
    aml_declared_and_screened(player)
    steps = client_for(player).get("/api/v1/accounts/registration/steps").json()
    assert steps["missing"] == [] and steps["can_complete"] is True
    with commit():
        r = client_for(player).post("/api/v1/accounts/registration/complete")
    assert r.status_code == 200 and r.json()["status"] == "active"
    player.refresh_from_db()
    assert player.status == "active" and player.completed_at
    assert Wallet.objects.get(player=player).mode == Wallet.Mode.FULL
    assert "complete" in mail.outbox[-1].subject.lower()


def test_completion_after_the_deadline_is_refused():
    player = make_player(status="temporary")
    decide_limits(player)
    verify_payment_method(player)
    with time_machine.travel(player.temporary_expires_at, tick=False):
        with pytest.raises(DomainError) as exc:
            services.registration_complete(player=player, actor=SYSTEM)
    assert exc.value.code == errors.TEMPORARY_EXPIRED.code
    player.refresh_from_db()
    assert player.status == "temporary"


def test_the_autocomplete_job_completes_a_registration_whose_last_step_was_done_elsewhere():
    ready, waiting = make_player(status="temporary"), make_player(status="temporary")
    decide_limits(ready)
    verify_payment_method(ready)
    aml_declared_and_screened(ready)
    assert services.registrations_autocomplete_due() == 1
    ready.refresh_from_db()
    waiting.refresh_from_db()
    assert ready.status == "active" and waiting.status == "temporary"


# Suspension ------------------------------------------------------------------------------------------
def test_a_suspended_player_can_neither_bet_nor_move_money_until_reinstated():
    player = make_player()
    services.player_suspend(player=player, reason="investigation", actor=SYSTEM)
    assert refusal_code(selectors.betting_refusal(player)) == errors.SUSPENDED.code
    assert refusal_code(selectors.money_movement_refusal(player)) == errors.SUSPENDED.code
    services.player_reinstate(player=player, reason="cleared", actor=SYSTEM)
    player.refresh_from_db()
    assert player.status == "active" and selectors.betting_refusal(player) is None


def test_an_impossible_transition_is_refused_and_changes_nothing():
    player = make_player()
    with pytest.raises(DomainError) as exc:
        services.player_reinstate(player=player, reason="x", actor=SYSTEM)
    assert exc.value.code == errors.INVALID_TRANSITION.code
    player.refresh_from_db()
    assert player.status == "active" and not AuditEvent.objects.filter(action="accounts.player.reinstated").exists()


# Closure (GP §4(10), §5(15)) ------------------------------------------------------------------------------
def test_a_player_cancels_the_registration_the_balance_is_settled_and_the_account_closes(commit):
    from limits.models import ClosingSnapshot

    player = make_player()
    c = client_for(player)
    with commit():
        r = c.post("/api/v1/accounts/me/closure", {"settlement": "transfer"}, format="json")
    assert r.status_code == 200 and r.json()["status"] == "closing"
    player.refresh_from_db()
    assert player.closure_method == "transfer" and player.balance_handoff == "settlement"
    assert player.balance_handoff_at is not None  # wallet.closure_settlement_start ran
    assert refusal_code(selectors.betting_refusal(player)) == errors.CLOSING.code
    assert refusal_code(selectors.money_movement_refusal(player)) == errors.CLOSING.code
    assert services.closures_finalize_due() == 1  # a zero balance is settled at once
    player.refresh_from_db()
    assert player.status == "closed" and player.closed_at
    assert c.get("/api/v1/accounts/me").status_code == 401
    assert ClosingSnapshot.objects.filter(player=player).exists()  # ZHH §14a floor kept by limits


def test_cancelling_a_temporary_only_account_closes_it_and_starts_the_refund():
    player = make_player(status="temporary")
    services.closure_request(player=player, method="branch_cash", actor=Actor.player(player))
    player.refresh_from_db()
    assert player.status == "closed" and player.balance_handoff == "refund" and player.balance_handoff_at


def test_a_second_cancellation_and_an_unknown_settlement_are_refused():
    player = make_player()
    c = client_for(player)
    r = c.post("/api/v1/accounts/me/closure", {"settlement": "bitcoin"}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.CLOSURE_METHOD_INVALID.code
    assert c.post("/api/v1/accounts/me/closure", {"settlement": "transfer"}, format="json").status_code == 200
    r = c.post("/api/v1/accounts/me/closure", {"settlement": "transfer"}, format="json")
    assert r.status_code == 409 and r.json()["error"]["code"] == errors.INVALID_TRANSITION.code


def test_a_hand_off_the_wallet_refuses_is_kept_and_retried():
    from django.db import transaction

    from wallet.models import Wallet
    from wallet.services import wallet_lock

    player = make_player(status="active")
    with transaction.atomic():
        wallet_lock(player=player)  # a full player-account wallet ...
    Player.objects.filter(pk=player.pk).update(status="temporary")  # ... behind a temporary account
    services.closure_request(player=player, method="transfer", actor=SYSTEM)
    player.refresh_from_db()
    assert player.status == "closed" and player.balance_handoff_at is None
    assert player.balance_handoff_error.startswith("wallet.")
    assert services.balance_handoffs_retry_due() == 0
    Wallet.objects.filter(player=player).update(mode=Wallet.Mode.TEMPORARY)
    assert services.balance_handoffs_retry_due() == 1
    player.refresh_from_db()
    assert player.balance_handoff_at is not None and player.balance_handoff_error == ""


# What each state allows -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "status,code",
    [
        ("applicant", errors.NOT_REGISTERED.code),
        ("temporary", None),
        ("active", None),
        ("suspended", errors.SUSPENDED.code),
        ("closing", errors.CLOSING.code),
        ("closed", errors.CLOSED.code),
        ("expired", errors.TEMPORARY_EXPIRED.code),
        ("rejected", errors.CLOSED.code),
    ],
)
def test_betting_is_allowed_only_on_a_temporary_or_active_account(status, code):
    refusal = selectors.betting_refusal(make_player(status=status))
    assert (refusal.code if refusal else None) == code


def test_a_temporary_account_may_deposit_but_not_withdraw():
    player = make_player(status="temporary")
    assert selectors.money_movement_refusal(player, direction="deposit") is None
    assert (
        refusal_code(selectors.money_movement_refusal(player, direction="withdrawal"))
        == errors.TEMPORARY_NO_WITHDRAWAL.code
    )


def test_an_excluded_player_may_withdraw_but_not_deposit_or_bet():
    player = make_player()
    make_excluded(player)
    assert services.exclusion_check(player=player, actor=SYSTEM, context="periodic") is True
    assert refusal_code(selectors.betting_refusal(player)) == errors.EXCLUDED_PERSON.code
    assert refusal_code(selectors.money_movement_refusal(player, direction="deposit")) == errors.EXCLUDED_PERSON.code
    assert selectors.money_movement_refusal(player, direction="withdrawal") is None


def test_an_exclusion_check_that_comes_back_clear_lifts_the_flag():
    player = make_player()
    entry = make_excluded(player)
    services.exclusion_check(player=player, actor=SYSTEM, context="periodic")
    session, _ = login_session_for(player)
    entry.delete()
    assert services.exclusion_check(player=player, actor=SYSTEM, context="periodic") is False
    player.refresh_from_db()
    assert not player.exclusion_listed and selectors.betting_refusal(player) is None


def test_an_exclusion_check_that_finds_the_player_listed_logs_them_out():
    player = make_player()
    session, _ = login_session_for(player)
    make_excluded(player, until=clock.now() + timedelta(days=365))
    assert services.exclusion_check(player=player, actor=SYSTEM, context="periodic") is True
    assert LoginSession.objects.get(pk=session.pk).end_reason == "forced"


def test_duplicate_accounts_freeze_deposits_and_withdrawals_on_all_of_them():
    a, b = make_player(), make_player()
    case = services.duplicate_case_open(players=[a.pk, b.pk], matched_fields=["phone"], actor=SYSTEM)
    for p in (a, b):
        assert refusal_code(selectors.money_movement_refusal(p)) == errors.DUPLICATE_ACCOUNTS_FROZEN.code
        assert selectors.betting_refusal(p) is None
    assert services.duplicate_case_open(players=[b.pk, a.pk], matched_fields=["phone"], actor=SYSTEM) is None
    assert DuplicateCase.objects.count() == 1 and case is not None and case.state == "open"


def test_a_cancellation_replayed_with_the_same_idempotency_key_returns_the_first_answer():
    player = make_player()
    c = client_for(player)
    r1 = c.post("/api/v1/accounts/me/closure", {"settlement": "transfer"}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    r2 = c.post("/api/v1/accounts/me/closure", {"settlement": "transfer"}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert r1.status_code == r2.status_code == 200 and r2["Idempotent-Replayed"] == "true"
    assert AuditEvent.objects.filter(action="accounts.closure.requested").count() == 1
