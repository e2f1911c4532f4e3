"""A Kobushi free-spin round played through: the start, then ONE ``{"type": "play_through"}`` action that plays
every free spin (each offers one option, ``{"type": "spin"}``) under one round lock, one round write and the one
settlement. The whole round costs at most ``MAX_PLAY_THROUGH_ROUND_STATEMENTS`` (40) statements, where spinning one
by one costs the start plus up to 8 per spin (``test_action_cost.py``).

Playing through changes nothing but the number of requests: with the same random numbers a round played through
and a round played spin by spin draw the same numbers in the same order and end in the same state, win and
settlement (so the game's return cannot depend on how it is played); the request is idempotent; a step with a real
choice pending (a pick) is refused, its refusal worded in Czech and English."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.idempotency import KEY_CONFLICT
from core.rng import SeededRNG, use_rng
from core.sql import readable
from games.errors import PLAY_THROUGH_CHOICE
from games.models import Round, RoundAction
from games.selectors import round_replay_check
from games.services import rounds as rounds_service
from games.tests.platform.test_action_cost import (
    FREE_SPINS_SEED,
    MAX_ACTION_STATEMENTS,
    PICK_SEED,
    _kobushi_round,
)
from games.tests.platform.test_round_cost import (  # noqa: F401 - the jackpot snapshot fixture
    KOBUSHI_BET,
    MAX_STATEMENTS,
    _jackpot_snapshot,
    _limited_player,
    _round,
)
from tests.kit.clients import client_for
from tests.kit.platform import balance, key

pytestmark = pytest.mark.django_db(transaction=True)

MAX_PLAY_THROUGH_ROUND_STATEMENTS = 40  # a whole free-spin round: its start and one play-through
PLAY_THROUGH = {"type": "play_through"}


def _post(
    c: Any, clock: Any, round_id: int, action: dict[str, Any], rng: Any, idem: str | None = None
) -> tuple[Any, list[str]]:
    clock.shift(1)
    with use_rng(rng), CaptureQueriesContext(connection) as ctx:
        r = c.post(
            f"/api/v1/games/rounds/{round_id}/actions",
            {"action": action},
            format="json",
            HTTP_IDEMPOTENCY_KEY=idem or key(),
        )
    return r, [readable(q["sql"]) for q in ctx.captured_queries]


def test_a_whole_kobushi_free_spin_round_played_through_costs_at_most_40_statements(clock):
    c, body, start = _kobushi_round(clock, FREE_SPINS_SEED)
    assert body["pending"]["type"] == "free_spin" and body["pending"]["options"] == [{"type": "spin"}]
    r, sql = _post(c, clock, body["id"], PLAY_THROUGH, SeededRNG(FREE_SPINS_SEED))
    assert r.status_code == 200, r.content
    done = r.json()
    assert done["status"] == "finished" and done["pending"] is None
    rnd = Round.objects.get(pk=body["id"])
    spins = len(rnd.actions)
    assert spins >= 10 and all(a == {"type": "spin"} for a in rnd.actions), rnd.actions
    # every spin's result is in the answer, in order, for the client to show one by one
    free = [s for s in done["steps"] if s.get("type") == "spin" and s.get("mode") == "free"]
    assert len(free) == spins
    assert [a["seq"] for a in done["actions"]] == list(range(spins)) and all(a["at"] for a in done["actions"])
    assert len(start) <= MAX_STATEMENTS, "\n".join(start)
    # the lock prelude, the steps before the last in one insert, then the settling action's statements
    assert len(sql) <= MAX_ACTION_STATEMENTS + 1, "\n".join(sql)
    total = len(start) + len(sql)
    assert total <= MAX_PLAY_THROUGH_ROUND_STATEMENTS, total
    print(
        f"Kobushi free-spin round played through: {spins} spins, {total} statements "
        f"(start {len(start)}, play-through {len(sql)})"
    )


def test_a_round_played_through_draws_and_ends_exactly_as_one_played_spin_by_spin(clock):
    # spin by spin: one random source for every request, so both ways are offered the same numbers
    c1, body1, _ = _kobushi_round(clock, FREE_SPINS_SEED)
    rng = SeededRNG(FREE_SPINS_SEED * 7)
    answer = body1
    while answer["status"] == "in_progress":
        r, sql = _post(c1, clock, body1["id"], answer["pending"]["options"][0], rng)
        assert r.status_code == 200, r.content
        assert len(sql) <= MAX_ACTION_STATEMENTS, "\n".join(sql)
        answer = r.json()
    # played through: another player, the same start and the same numbers
    c2 = client_for(_limited_player())
    body2, _ = _round(c2, clock, "kobushi", KOBUSHI_BET, SeededRNG(FREE_SPINS_SEED))
    assert body2["pending"] == body1["pending"]
    r, _ = _post(c2, clock, body2["id"], PLAY_THROUGH, SeededRNG(FREE_SPINS_SEED * 7))
    assert r.status_code == 200, r.content
    one, through = Round.objects.get(pk=body1["id"]), Round.objects.get(pk=body2["id"])
    assert one.status == through.status == Round.Status.FINISHED
    assert through.draws == one.draws and through.actions == one.actions and through.state == one.state
    assert (through.win_engine, through.win, through.win_capped) == (one.win_engine, one.win, one.win_capped)
    assert through.win > 0  # the seed's free spins pay: the comparison is about a real settlement
    assert None not in (through.balance_before, through.balance_after, one.balance_before, one.balance_after)
    moved = [(r.balance_after or 0) - (r.balance_before or 0) for r in (one, through)]
    assert moved[0] == moved[1] == through.win - through.stake
    assert balance(through.player) - (through.balance_before or 0) == balance(one.player) - (one.balance_before or 0)
    assert round_replay_check(through)["outcome"] == "match"
    # the action log: one row per spin with the draws it made, marked as played through
    log = list(RoundAction.objects.filter(round=through).order_by("seq"))
    assert [row.seq for row in log] == list(range(len(through.actions)))
    assert all(row.action == {"type": "spin", "play_through": True} for row in log)
    assert log[0].draws_before == len(through.draws) - sum(row.draws_after - row.draws_before for row in log)
    assert all(a.draws_after == b.draws_before for a, b in zip(log, log[1:], strict=False))
    assert log[-1].draws_after == len(through.draws)
    ones = list(RoundAction.objects.filter(round=one).order_by("seq"))
    assert [(a.draws_before, a.draws_after) for a in ones] == [(a.draws_before, a.draws_after) for a in log]


def test_a_repeated_play_through_is_a_replay_and_another_action_under_its_key_a_conflict(clock):
    c, body, _ = _kobushi_round(clock, FREE_SPINS_SEED)
    first, _ = _post(c, clock, body["id"], PLAY_THROUGH, SeededRNG(1), idem="through-once")
    assert first.status_code == 200 and first.json()["status"] == "finished"
    again, sql = _post(c, clock, body["id"], PLAY_THROUGH, SeededRNG(2), idem="through-once")
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert len(sql) <= MAX_ACTION_STATEMENTS
    other, _ = _post(c, clock, body["id"], {"type": "spin"}, SeededRNG(3), idem="through-once")
    assert other.status_code == 409 and other.json()["error"]["code"] == KEY_CONFLICT.code
    log = list(RoundAction.objects.filter(round_id=body["id"]).order_by("seq"))
    assert log[0].idempotency_key == "through-once"
    assert [row.idempotency_key for row in log[1:]] == [f"through-once\t{row.seq}" for row in log[1:]]


def test_a_single_spin_under_a_key_then_play_through_under_it_is_a_conflict(clock):
    c, body, _ = _kobushi_round(clock, FREE_SPINS_SEED)
    one, _ = _post(c, clock, body["id"], {"type": "spin"}, SeededRNG(1), idem="one-spin")
    assert one.status_code == 200 and one.json()["status"] == "in_progress"
    through, _ = _post(c, clock, body["id"], PLAY_THROUGH, SeededRNG(1), idem="one-spin")
    assert through.status_code == 409 and through.json()["error"]["code"] == KEY_CONFLICT.code
    assert len(Round.objects.get(pk=body["id"]).actions) == 1


def test_play_through_with_a_choice_pending_is_refused_and_moves_nothing(clock):
    c, body, _ = _kobushi_round(clock, PICK_SEED)
    assert body["pending"]["type"] == "pick" and len(body["pending"]["options"]) > 1
    before = Round.objects.get(pk=body["id"])
    r, _ = _post(c, clock, body["id"], PLAY_THROUGH, SeededRNG(1))
    assert r.status_code == 409, r.content
    error = r.json()["error"]
    assert error["code"] == PLAY_THROUGH_CHOICE.code and error["message_cs"] and error["message_en"]
    assert error["details"]["pending"] == "pick" and error["details"]["options"] == len(body["pending"]["options"])
    after = Round.objects.get(pk=body["id"])
    assert (after.actions, after.draws, after.state) == (before.actions, before.draws, before.state)
    assert not RoundAction.objects.filter(round=after).exists()


def test_play_through_stops_at_its_most_steps_and_the_next_one_finishes_the_round(clock, monkeypatch):
    monkeypatch.setattr(rounds_service, "PLAY_THROUGH_STEPS_MAX", 3)
    c, body, _ = _kobushi_round(clock, FREE_SPINS_SEED)
    r, _ = _post(c, clock, body["id"], PLAY_THROUGH, SeededRNG(5))
    assert r.status_code == 200 and r.json()["status"] == "in_progress", r.content
    assert r.json()["pending"]["options"] == [{"type": "spin"}]
    assert len(Round.objects.get(pk=body["id"]).actions) == 3  # the boundary: exactly 3, the round still open
    r, _ = _post(c, clock, body["id"], PLAY_THROUGH, SeededRNG(6))
    assert r.status_code == 200, r.content
    rnd = Round.objects.get(pk=body["id"])
    assert len(rnd.actions) == 6 and rnd.status == Round.Status.IN_PROGRESS
    while rnd.status == Round.Status.IN_PROGRESS:
        r, _ = _post(c, clock, body["id"], PLAY_THROUGH, SeededRNG(7))
        assert r.status_code == 200, r.content
        rnd = Round.objects.get(pk=body["id"])
    assert rnd.status == Round.Status.FINISHED and round_replay_check(rnd)["outcome"] == "match"


def test_play_through_after_the_deadline_ends_the_round_by_the_deadline_path(clock):
    c, body, _ = _kobushi_round(clock, FREE_SPINS_SEED)
    rnd = Round.objects.get(pk=body["id"])
    clock.move_to(rnd.deadline)
    r, _ = _post(c, clock, body["id"], PLAY_THROUGH, SeededRNG(1))
    assert r.status_code == 200, r.content
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.VOIDED and rnd.void_reason == Round.VoidReason.DEADLINE
    assert rnd.actions == []  # GP §7(8)b: a spin would draw a new result, so the stake is returned instead


def test_an_engine_failure_mid_way_keeps_the_steps_played_voids_the_round_and_returns_the_stake(clock, monkeypatch):
    from games.engine import registry

    c, body, _ = _kobushi_round(clock, FREE_SPINS_SEED)
    engine = registry.get_game("kobushi", body["game"]["version"])
    real_act, calls = type(engine).act, {"n": 0}

    def act_failing_at_the_4th(self: Any, state: Any, action: Any, rng: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 4:
            rng.randbelow(10)  # the failing step drew before it failed: its draw stays on the record
            raise ZeroDivisionError("reel motor on fire")
        return real_act(self, state, action, rng)

    monkeypatch.setattr(type(engine), "act", act_failing_at_the_4th)
    rnd = Round.objects.get(pk=body["id"])
    paid_before = balance(rnd.player)
    r, _ = _post(c, clock, body["id"], PLAY_THROUGH, SeededRNG(3))
    assert r.status_code == 200 and r.json()["status"] == "voided", r.content
    rnd.refresh_from_db()
    assert rnd.void_reason == Round.VoidReason.MALFUNCTION and "reel motor on fire" in rnd.void_detail
    assert balance(rnd.player) == paid_before + rnd.stake  # the stake returned, no win paid
    log = list(RoundAction.objects.filter(round=rnd).order_by("seq"))
    assert [row.seq for row in log] == [0, 1, 2, 3] and len(rnd.actions) == 4
    assert log[-1].draws_after == len(rnd.draws) and log[-1].draws_after - log[-1].draws_before == 1


def test_a_play_money_round_plays_through_the_same_way(clock):
    from tests.kit.platform import funded_player, play_money

    c = client_for(funded_player(10_000))
    with use_rng(SeededRNG(FREE_SPINS_SEED)):
        r = play_money(c, game="kobushi", bet=KOBUSHI_BET)
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["status"] == "in_progress" and body["pending"]["options"] == [{"type": "spin"}], body["pending"]
    r, sql = _post(c, clock, body["id"], PLAY_THROUGH, SeededRNG(4))
    assert r.status_code == 200 and r.json()["status"] == "finished", r.content
    rnd = Round.objects.get(pk=body["id"])
    assert rnd.play_money and len(rnd.actions) >= 10 and round_replay_check(rnd)["outcome"] == "match"
    assert RoundAction.objects.filter(round=rnd).count() == len(rnd.actions)
    assert balance(rnd.player) == 10_000  # play money moves nothing
