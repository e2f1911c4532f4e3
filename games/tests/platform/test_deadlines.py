"""GP §7(8)b: a round needing the player is ended past the game's deadline and its stake returned."""

from __future__ import annotations

from datetime import timedelta

from core.audit import Actor
from core.models import AuditEvent
from core.rng import use_rng
from games.errors import ROUND_NOT_REFUNDABLE
from games.models import Round
from games.services import round_refund, rounds_expire_due
from games.tests.platform.testgames import FixedRNG
from tests.kit.clients import client_for
from tests.kit.games import api_bet
from tests.kit.platform import act, balance, funded_player, start

PICK = "test_pick"


def _open_round(clock, player, stake=100):
    c = client_for(player)
    with use_rng(FixedRNG(3, 3)):
        rid = start(c, game=PICK, bet={"stake": stake}).json()["id"]
        act(c, rid, {"pick": 0})  # x5 accrued: a win that is not paid when the deadline ends the round
    return c, Round.objects.get(pk=rid)


def test_a_round_left_past_its_deadline_is_voided_by_the_sweeper_with_the_stake_returned(clock):
    player = funded_player(10_000)
    c, rnd = _open_round(clock, player)
    assert rnd.deadline == rnd.started_at + timedelta(days=90) and balance(player) == 9_900
    clock.move_to(rnd.deadline - timedelta(seconds=1))
    assert rounds_expire_due() == {"due": 0, "ended": 0, "failed": 0}
    assert Round.objects.get(pk=rnd.pk).status == "in_progress"
    clock.move_to(rnd.deadline)
    assert rounds_expire_due() == {"due": 1, "ended": 1, "failed": 0}
    rnd.refresh_from_db()
    assert rnd.status == "voided" and rnd.void_reason == "deadline" and rnd.win == 0 and rnd.win_engine == 500
    assert rnd.settled_at == rnd.deadline and rnd.balance_after == 10_000
    assert balance(player) == 10_000  # the stake is back, the accrued x5 is not paid (GP §7(8)b)
    assert AuditEvent.objects.filter(action="games.round_voided", object_id=str(rnd.pk)).count() == 1
    # Safe to run twice: nothing more happens.
    assert rounds_expire_due() == {"due": 0, "ended": 0, "failed": 0}
    assert balance(player) == 10_000
    # The player sees it in the history and can play again.
    assert c.get("/api/v1/games/rounds/open").json()["round"] is None
    assert c.get(f"/api/v1/games/rounds/{rnd.pk}").json()["status"] == "voided"
    assert start(c).status_code == 201


def test_the_sweeper_task_is_scheduled_and_calls_the_sweeper(clock):
    from games.schedules import BEAT_SCHEDULE
    from games.tasks import expire_unfinished_rounds

    assert BEAT_SCHEDULE["games.expire_unfinished_rounds"]["task"] == expire_unfinished_rounds.name
    player = funded_player(10_000)
    _, rnd = _open_round(clock, player)
    clock.move_to(rnd.deadline + timedelta(hours=1))
    assert expire_unfinished_rounds.apply().get() == {"due": 1, "ended": 1, "failed": 0}
    assert balance(player) == 10_000


def test_an_action_after_the_deadline_ends_the_round_with_the_stake_returned(clock):
    player = funded_player(10_000)
    c, rnd = _open_round(clock, player)
    clock.move_to(rnd.deadline)
    assert c.get("/api/v1/games/rounds/open").json()["round"] is None
    r = act(c, rnd.pk, {"pick": 1})
    assert r.status_code == 200 and r.json()["status"] == "voided" and r.json()["void_reason"] == "deadline"
    assert balance(player) == 10_000
    assert rounds_expire_due()["due"] == 0


def test_a_new_start_after_the_deadline_ends_the_old_round_first(clock):
    player = funded_player(10_000)
    c, rnd = _open_round(clock, player)
    clock.move_to(rnd.deadline + timedelta(days=1))
    with use_rng(FixedRNG(0)):
        r = start(c)
    assert r.status_code == 201
    rnd.refresh_from_db()
    assert rnd.status == "voided" and rnd.void_reason == "deadline"
    assert balance(player) == 10_000 - 100  # old stake back, the new roulette stake lost on zero


def test_the_deadline_sweeper_skips_rounds_already_ended_and_play_money_rounds_are_ended_without_money(clock):
    player = funded_player(10_000)
    c = client_for(player)
    pm = c.post(
        "/api/v1/games/play-money/rounds",
        {"game": PICK, "bet": api_bet({"stake": 100})},
        format="json",
        HTTP_IDEMPOTENCY_KEY="pm-deadline",
    ).json()
    clock.shift(91 * 24 * 3600)
    assert rounds_expire_due()["ended"] == 1
    assert Round.objects.get(pk=pm["id"]).status == "voided" and balance(player) == 10_000


def test_staff_can_end_a_round_in_progress_and_refund_its_stake(clock):
    from core.errors import DomainError
    from tests.kit.accounts import make_staff

    player = funded_player(10_000)
    c, rnd = _open_round(clock, player)
    staff = make_staff()
    round_refund(round_id=rnd.pk, reason="stuck round, complaint 17", actor=Actor.staff(staff))
    rnd.refresh_from_db()
    assert rnd.status == "refunded" and rnd.void_reason == "staff" and balance(player) == 10_000
    ev = AuditEvent.objects.get(action="games.round_refunded", object_id=str(rnd.pk))
    assert ev.actor_type == "staff"
    try:
        round_refund(round_id=rnd.pk, reason="again", actor=Actor.staff(staff))
        raise AssertionError("refunded twice")
    except DomainError as exc:
        assert exc.code == ROUND_NOT_REFUNDABLE.code
    assert balance(player) == 10_000
