"""Ismael Beiro through the HTTP API as a new player would play it: rounds that trigger each feature (holds,
nudges, the Confessional, the ladders, the upper game with its vertical lines, the five minigames, the
cumulative's winning spin, mixed sevens, Double-or-Bonuses, auto-play), played to the end with their actions,
resumed, recalled and verified by replay; the demo mode as play money with QA's forced draws.

A feature round is found by playing seeds of ``core.rng.SeededRNG`` with the pure engine and the same choices
the test then makes through the API (``core.rng.use_rng`` gives the platform the same numbers)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.core.management import call_command

from core.rng import SeededRNG, use_rng
from games.carry import carried_state
from games.engine import RecordingRNG, registry
from games.errors import QA_FORCED_REAL_MONEY
from games.models import Round
from tests.kit.clients import client_for
from tests.kit.platform import (
    act,
    balance,
    funded_player,
    ismael_beiro_version_2,  # noqa: F401  (a fixture of these tests)
    play_money,
    start,
)

# version 2 (the player's holds, nudges and upper bet); version 3: test_ismael_beiro_v3_api.py
pytestmark = pytest.mark.usefixtures("ismael_beiro_version_2")

CODE = "ismael_beiro"
Chooser = Callable[[dict], dict]


def game():
    return registry.get_game(CODE)


def chooser(
    minigame: str = "dinner",
    hold: list[int] | None = None,
    nudges: tuple[int, ...] = (0,),
    risks: int = 1,
    doubles: int = 1,
) -> Callable[[], Chooser]:
    """A player's choices, as a factory (each round gets a fresh one): the given hold (else the automatic one),
    the given nudges then AUTO, one PLAY then COLLECT in the ladders and in Double-or-Bonuses, the round's own
    upper bet one game at a time, the given minigame and the first item offered."""

    def make() -> Chooser:
        used = {"nudge": 0, "risk": 0, "double_or_bonuses": 0}

        def choose(p: dict) -> dict:
            t = p["type"]
            if t == "hold":
                return {"type": "respin", "hold": hold if hold is not None else p["auto_hold"]}
            if t == "nudge":
                used["nudge"] += 1
                if used["nudge"] <= len(nudges):
                    return {"type": "nudge", "reel": nudges[used["nudge"] - 1]}
                return {"type": "auto_nudge"}
            if t in ("risk", "double_or_bonuses"):
                used[t] += 1
                return {"type": "risk"} if used[t] <= (risks if t == "risk" else doubles) else {"type": "collect"}
            if t == "upper_game":
                spins = [o for o in p["options"] if o["type"] == "upper_spin"]
                return max(spins, key=lambda o: o.get("level", 0))  # version 3: the machine chooses the bet
            if t == "minigame_select":
                return {"type": "select", "minigame": minigame}
            return p["options"][0]

        return choose

    return make


def carried(player) -> dict | None:
    """The machine state the player's rounds carry (version 2: vertical lines, cumulatives, bonuses)."""
    row = carried_state(player=player, game_code=CODE)
    return row.state if row is not None else None


def engine_record(seed: int, bet: dict, make: Callable[[], Chooser], carry: dict | None = None) -> tuple[dict, list]:
    g = game()
    rng = RecordingRNG(SeededRNG(seed))
    st = g.start_carried(g.validate_bet(bet), rng, carry)
    choose = make()
    while st["status"] == "awaiting_action":
        st = g.act(st, choose(st["pending"]), rng)
    return st, rng.draws


def engine_round(seed: int, bet: dict, make: Callable[[], Chooser], carry: dict | None = None) -> dict:
    return engine_record(seed, bet, make, carry)[0]


def find_seed(
    bet: dict,
    make: Callable[[], Chooser],
    predicate: Callable[[dict], bool],
    limit: int = 60_000,
    carry: dict | None = None,
) -> int:
    for seed in range(limit):
        if predicate(engine_round(seed, bet, make, carry)):
            return seed
    raise AssertionError(f"no seed below {limit} gives the wanted round")


def kinds(state: dict) -> set[str]:
    return {s["type"] for s in state["steps"]}


def play_api(c, seed: int, bet: dict, make: Callable[[], Chooser], resume_at: str | None = None) -> dict:
    """Start the round and answer every pending offer through the API; at the first ``resume_at`` offer the
    player goes away and comes back (GET /rounds/open) before answering."""
    choose = make()
    with use_rng(SeededRNG(seed)):
        r = start(c, game=CODE, bet=bet)
        assert r.status_code == 201, r.json()
        body = r.json()
        for _ in range(5_000):
            if body["status"] != "in_progress":
                break
            assert body["draws"] is None and "lower" not in body["state"]  # open: no draws, no pre-drawn state
            if resume_at and body["pending"]["type"] == resume_at:
                opened = c.get("/api/v1/games/rounds/open").json()["round"]
                assert opened["id"] == body["id"] and opened["pending"] == body["pending"]
                assert opened["pending"]["restore"]["then"]
                resume_at = None
            r = act(c, body["id"], choose(body["pending"]))
            assert r.status_code == 200, r.json()
            body = r.json()
    assert body["status"] == "finished", body
    return body


def recall_and_verify(c, body: dict) -> Round:
    rid = body["id"]
    recall = c.get(f"/api/v1/games/rounds/{rid}").json()
    assert recall["steps"] == body["steps"] and recall["draws"] and recall["win"] == body["win"]
    v = c.get(f"/api/v1/games/rounds/{rid}/verify").json()
    assert v["verified"] is True and v["outcome"] == "match", v
    return Round.objects.get(pk=rid)


def test_the_lower_game_hold_nudges_confessional_and_ladders_are_played_recalled_and_verified(clock):
    bet = {"stake": 500}
    cases = [
        ("hold", chooser(hold=[1]), lambda s: "hold" in kinds(s) and s["steps"][1].get("reels") == [1]),
        ("nudge", chooser(nudges=(2, 0)), lambda s: len([x for x in s["steps"] if x["type"] == "nudge"]) >= 2),
        ("confessional", chooser(), lambda s: "confessional" in kinds(s)),
        ("ladder", chooser(risks=2), lambda s: len([x for x in s["steps"] if x["type"] == "risk"]) == 2),
        ("raise_nothing", chooser(risks=1), lambda s: any(x.get("ladder") == "raise_nothing" for x in s["steps"])),
        ("seesaw", chooser(risks=4), lambda s: any(x.get("ladder") == "seesaw" for x in s["steps"])),
    ]
    player = funded_player(1_000_000)
    c = client_for(player)
    rounds = []
    for name, make, pred in cases:
        carry = carried(player)  # the machine as the player's previous round left it
        seed = find_seed(bet, make, pred, carry=carry)
        resume = {"nudge": "nudge", "hold": "hold", "confessional": "confessional"}.get(name, "risk")
        body = play_api(c, seed, bet, make, resume_at=resume)
        rnd = recall_and_verify(c, body)
        assert rnd.state == engine_round(seed, bet, make, carry)  # the same draws and choices: the same round
        assert pred(rnd.state)
        rounds.append(rnd)
        clock.shift(2)
    ladder = rounds[3].state
    assert [s for s in ladder["steps"] if s["type"] == "ladder_end"][0]["how"] in (
        "collect",
        "bonuses",
        "nothing",
        "max_prize",
    )
    assert balance(player) == 1_000_000 - sum(r.stake for r in rounds) + sum(r.win for r in rounds)
    call_command("ledger_check")


@pytest.mark.parametrize("minigame", ["desert_expedition", "dinner", "confessional", "island", "monologue"])
def test_the_upper_game_minigame_selector_and_double_or_bonuses_are_played_through_the_api(minigame, clock):
    """The same seed for each minigame: the selector's prize, drawn before the choice, is the same whichever of
    the five the player takes (and the round's win too)."""
    bet = {"stake": 100}
    pick_dinner = chooser(minigame="dinner")
    seed = find_seed(bet, pick_dinner, lambda s: "minigame" in kinds(s) and "double_or_bonuses" in kinds(s))
    make = chooser(minigame=minigame)
    player = funded_player(100_000)
    c = client_for(player)
    body = play_api(c, seed, bet, make, resume_at="minigame")
    rnd = recall_and_verify(c, body)
    st = rnd.state
    result = [s for s in st["steps"] if s["type"] == "minigame"][0]
    assert result["minigame"] == minigame and 15 * 100 <= result["prize"] <= 1000 * 100
    reference, reference_draws = engine_record(seed, bet, pick_dinner)
    assert result["prize"] == [s for s in reference["steps"] if s["type"] == "minigame"][0]["prize"]
    assert rnd.win == reference["win"] and rnd.draws == reference_draws  # the choice changed no draw
    assert [s for s in st["steps"] if s["type"] == "change_game"] and "upper_prize" in kinds(st)
    assert balance(player) == 100_000 - 100 + rnd.win and rnd.win == body["win"]["amount"]


def test_vertical_lines_the_cumulative_winning_spin_and_mixed_sevens_through_the_api(clock):
    player = funded_player(1_000_000)
    c = client_for(player)
    make = chooser(doubles=0)
    played = []
    vert = find_seed(
        {"stake": 100},
        make,
        lambda s: any(x.get("game") == "upper" and x.get("lines") == 8 for x in s["steps"] if x["type"] == "spin"),
    )
    assert carried(player) is None
    body = play_api(c, vert, {"stake": 100}, make)
    played.append(recall_and_verify(c, body))
    clock.shift(2)
    win_spin = find_seed({"stake": 100}, make, lambda s: "winning_spin" in kinds(s), carry=carried(player))
    body = play_api(c, win_spin, {"stake": 100}, make)
    rnd = recall_and_verify(c, body)
    assert [s for s in rnd.state["steps"] if s["type"] == "winning_spin"]
    played.append(rnd)
    clock.shift(2)
    mixed = find_seed(
        {"stake": 2500},
        make,
        lambda s: any(
            m.get("minigame") == "mixed"
            for x in s["steps"]
            if x.get("game") == "upper"
            for m in x.get("mixed_sevens", [])
        ),
        carry=carried(player),
    )
    body = play_api(c, mixed, {"stake": 2500}, make)
    played.append(recall_and_verify(c, body))
    assert balance(player) == 1_000_000 - sum(r.stake for r in played) + sum(r.win for r in played)
    call_command("ledger_check")


def test_an_auto_play_round_with_auto_risk_finishes_at_once_and_replays(clock):
    bet = {"stake": 1000, "auto_play": True, "auto_risk": True}
    g = game()
    seed = next(s for s in range(20_000) if "change_game" in kinds(g.start(g.validate_bet(bet), SeededRNG(s))))
    player = funded_player(100_000)
    c = client_for(player)
    with use_rng(SeededRNG(seed)):
        body = start(c, game=CODE, bet=bet).json()
    assert body["status"] == "finished" and body["actions"] == [] and "change_game" in kinds(body)
    rnd = recall_and_verify(c, body)
    assert balance(player) == 100_000 - 1000 + rnd.win


def test_the_demo_mode_is_play_money_with_the_prize_chosen_by_qa_forced_draws(clock, settings):
    settings.GAMES_QA_FORCED_OUTCOMES = True
    player = funded_player(10_000)
    c = client_for(player)
    draws = game().demo_draws("upper_camel", 100)
    refused = start(c, game=CODE, bet={"stake": 100}, forced_draws=draws)
    assert refused.json()["error"]["code"] == QA_FORCED_REAL_MONEY.code and balance(player) == 10_000
    body = play_money(c, game=CODE, bet={"stake": 100}, forced_draws=draws).json()
    assert body["forced_outcome"] is True and body["pending"]["type"] == "upper_game"
    body = act(c, body["id"], {"type": "upper_spin", "level": 0}).json()
    assert body["pending"]["type"] == "minigame_select"  # the camels opened the selector, as chosen
    choose = chooser(minigame="island", doubles=0)()
    for _ in range(50):
        if body["status"] != "in_progress":
            break
        body = act(c, body["id"], choose(body["pending"])).json()
    assert body["status"] == "finished" and balance(player) == 10_000
    assert [s for s in body["steps"] if s["type"] == "minigame"][0]["minigame"] == "island"
    assert c.get(f"/api/v1/games/rounds/{body['id']}/verify").json()["outcome"] == "match"


def test_the_catalogue_lists_the_game_with_its_declared_figures_under_the_platform_cap():
    c = client_for(funded_player(0))
    entry = c.get(f"/api/v1/games/catalogue/{CODE}").json()["game"]
    dec = entry["declared"]
    assert dec["rtp"] == str(game().declared.rtp) and dec["unfinished_deadline_days"] == 90
    # 1,000 x the 50 CZK bet = 50,000 CZK: the platform's max win per round, so the max bet is not lowered
    assert dec["max_bet"]["amount"] == 5000 and dec["max_win"]["amount"] == 5_000_000
    assert entry["description"]["platform_limits"]["max_bet_lowered_for_max_win"] is False
    assert entry["description"]["bet_options"]["stakes"][0]["stake"] == 100
