"""End to end through the API with the shipped games: Kobushi pick bonus and Big Cat free spins, Fruit King
gamble, roulette bets. Feature rounds are found by searching seeds of core.rng.SeededRNG with the pure engine
(the platform then draws the same numbers through core.rng.use_rng), or replayed as QA forced draws in play
money. A test whose game is not registered yet is skipped."""

from __future__ import annotations

import pytest

from core.rng import SeededRNG, use_rng
from games.engine import registry
from games.errors import QA_FORCED_REAL_MONEY
from games.models import Round
from games.services.qa import find_seed, start_draws
from games.services.qa import start_features as _features
from games.tests.platform.testgames import FixedRNG
from tests.kit.clients import client_for
from tests.kit.platform import act, balance, funded_player, play_money, start


def _registered(code: str) -> bool:
    try:
        registry.get_game(code)
        return True
    except KeyError:
        return False


needs = {
    code: pytest.mark.skipif(not _registered(code), reason=f"{code} is not registered in the engine yet")
    for code in ("kobushi", "fruit_king", "simply_the_best_27")
}


def finish_round(c, rid: int, choose=lambda options: options[0], limit: int = 500) -> dict:
    """Answer the round's pending actions through the API until it ends (a pick chooses with ``choose``)."""
    body = c.get(f"/api/v1/games/rounds/{rid}").json()
    for _ in range(limit):
        if body["status"] != "in_progress":
            return body
        options = body["pending"]["options"]
        r = act(c, rid, choose(options))
        assert r.status_code == 200, r.json()
        body = r.json()
    raise AssertionError("the round did not end")


# --- Kobushi ----------------------------------------------------------------------------------------------------------
KOBUSHI_MAX_BET = {"lines": 30, "coins": 5, "coin_value": 5}  # all lines and coins (rules §9), 7.50 CZK


@needs["kobushi"]
def test_a_kobushi_pick_bonus_is_played_through_picks_resumed_and_paid_whatever_the_player_picks(clock):
    seed = find_seed(
        "kobushi", KOBUSHI_MAX_BET, lambda s: _features(s) == ["kobushi_bonus"] and s["status"] == "awaiting_action"
    )
    results = []
    for choose in (lambda o: o[0], lambda o: o[-1]):  # two players, same draws, different picks (GP §7(3))
        player = funded_player(100_000)
        c = client_for(player)
        with use_rng(SeededRNG(seed)):
            r = start(c, game="kobushi", bet=KOBUSHI_MAX_BET)
            assert r.status_code == 201, r.json()
            body = r.json()
            assert body["status"] == "in_progress" and body["pending"]["type"] == "pick"
            assert "bonus" not in body["state"] and body["draws"] is None  # the drawn prizes stay hidden
            assert balance(player) == 100_000 - 750
            rid = body["id"]
            # One pick, then the player goes away and comes back: the round resumes where it stopped.
            act(c, rid, choose(body["pending"]["options"]))
            c = client_for(player)
            opened = c.get("/api/v1/games/rounds/open").json()["round"]
            assert opened["id"] == rid and len(opened["pending"]["picked"]) == 1
            done = finish_round(c, rid, choose)
        rnd = Round.objects.get(pk=rid)
        bonus = rnd.state["bonus"]
        assert done["status"] == "finished" and not bonus["active"]
        assert rnd.state["breakdown"]["bonus"] == bonus["prize_multiplier"] * 750  # m x stake however it ends
        assert rnd.win == min(rnd.win_engine, 5_000_000) and done["win"]["amount"] == rnd.win
        assert balance(player) == 100_000 - 750 + rnd.win
        assert rnd.jackpot_events == rnd.state["jackpot_events"]
        assert c.get(f"/api/v1/games/rounds/{rid}/verify").json()["outcome"] == "match"
        results.append(
            (
                rnd.win_engine,
                [s.get("reveal") for s in rnd.state["steps"] if s["type"] == "pick"],
                [a["index"] for a in rnd.actions],
            )
        )
    assert results[0][0] == results[1][0] and results[0][1] == results[1][1]  # same prizes in the same order
    assert results[0][2] != results[1][2]  # although other positions were picked


@needs["kobushi"]
def test_kobushi_big_cat_free_spins_are_played_spin_by_spin_and_settled_once(clock):
    bet = {"lines": 30, "coins": 1, "coin_value": 10}
    seed = find_seed("kobushi", bet, lambda s: _features(s) == ["big_cat_free_spins"])
    player = funded_player(100_000)
    c = client_for(player)
    with use_rng(SeededRNG(seed)):
        body = start(c, game="kobushi", bet=bet).json()
        assert body["status"] == "in_progress" and body["pending"]["type"] == "free_spin"
        spins_awarded = body["pending"]["spins_left"]
        assert 5 <= spins_awarded <= 20 and 2 <= body["pending"]["multiplier"] <= 5
        done = finish_round(c, body["id"])
    rnd = Round.objects.get(pk=body["id"])
    free = [s for s in rnd.state["steps"] if s["type"] == "spin" and s.get("mode") == "free"]
    assert len(free) == rnd.state["free_spins"]["played"] >= spins_awarded or rnd.state.get("capped")
    assert rnd.state["breakdown"]["free_spins"] == sum(s["win"] for s in free)
    assert done["status"] == "finished" and done["win"]["amount"] == rnd.win
    assert len(rnd.actions) == len(free) and all(a == {"type": "spin"} for a in rnd.actions)
    assert balance(player) == 100_000 - 300 + rnd.win
    assert c.get(f"/api/v1/games/rounds/{rnd.pk}/verify").json()["outcome"] == "match"


@needs["kobushi"]
def test_a_kobushi_bonus_can_be_forced_for_qa_in_play_money_only(clock, settings):
    settings.GAMES_QA_FORCED_OUTCOMES = True
    seed = find_seed("kobushi", KOBUSHI_MAX_BET, lambda s: "kobushi_bonus" in _features(s))
    draws = start_draws("kobushi", KOBUSHI_MAX_BET, seed)
    player = funded_player(100_000)
    c = client_for(player)
    refused = start(c, game="kobushi", bet=KOBUSHI_MAX_BET, forced_draws=draws)
    assert refused.json()["error"]["code"] == QA_FORCED_REAL_MONEY.code and balance(player) == 100_000
    body = play_money(c, game="kobushi", bet=KOBUSHI_MAX_BET, forced_draws=draws).json()
    assert body["forced_outcome"] is True and body["pending"]["type"] == "pick"
    done = finish_round(c, body["id"])
    assert done["status"] == "finished" and balance(player) == 100_000
    assert c.get(f"/api/v1/games/rounds/{body['id']}/verify").json()["outcome"] == "match"


# --- Fruit King -------------------------------------------------------------------------------------------------------
FRUIT_KING_BET = {"lines": 10, "bet_per_line": 10}  # 1 CZK


def _gamble_offered(state) -> bool:
    pending = state.get("pending") or {}
    return pending.get("type") == "gamble" and {"type": "gamble", "colour": "red"} in pending["options"]


def _chooser(*decisions):
    """Answer the pending offers with ``decisions`` in turn, then collect."""
    queue = list(decisions)

    def choose(options):
        wanted = queue.pop(0) if queue else {"type": "collect"}
        assert wanted in options, (wanted, options)
        return wanted

    return choose


@needs["fruit_king"]
def test_a_fruit_king_base_win_is_collected_or_gambled_and_the_guess_never_changes_the_result(clock):
    seed = find_seed("fruit_king", FRUIT_KING_BET, _gamble_offered)
    outcomes = {}
    for name, chooser in (
        ("collect", _chooser()),
        ("red", _chooser({"type": "gamble", "colour": "red"})),
        ("black", _chooser({"type": "gamble", "colour": "black"})),
    ):
        player = funded_player(100_000)
        c = client_for(player)
        with use_rng(SeededRNG(seed)):
            body = start(c, game="fruit_king", bet=FRUIT_KING_BET).json()
            assert body["status"] == "in_progress" and body["pending"]["type"] == "gamble"
            base_win = body["win_engine"]["amount"]
            assert base_win > 0 and body["win"]["amount"] == 0 and balance(player) == 100_000 - 100
            done = finish_round(c, body["id"], chooser)
        rnd = Round.objects.get(pk=body["id"])
        assert done["status"] == "finished" and balance(player) == 100_000 - 100 + rnd.win
        assert c.get(f"/api/v1/games/rounds/{rnd.pk}/verify").json()["outcome"] == "match"
        gambles = [s for s in rnd.state["steps"] if s["type"] == "gamble"]
        outcomes[name] = (rnd.win, [g["won"] for g in gambles], base_win)
    assert outcomes["collect"][0] == outcomes["collect"][2] and outcomes["collect"][1] == []
    assert outcomes["red"][0] == outcomes["black"][0] and outcomes["red"][1] == outcomes["black"][1]  # GP §7(3)
    won = outcomes["red"][1] == [True]
    assert outcomes["red"][0] == (2 * outcomes["red"][2] if won else 0)


@needs["fruit_king"]
def test_fruit_king_free_games_are_played_through_the_api(clock):
    seed = find_seed("fruit_king", FRUIT_KING_BET, lambda s: (s.get("pending") or {}).get("type") == "free_spin")
    player = funded_player(100_000)
    c = client_for(player)
    with use_rng(SeededRNG(seed)):
        body = start(c, game="fruit_king", bet=FRUIT_KING_BET).json()
        done = finish_round(c, body["id"])
    rnd = Round.objects.get(pk=body["id"])
    free = [s for s in rnd.state["steps"] if s.get("mode") == "free"]
    assert free and all(s["win"] > 0 for s in free)  # every free game wins (the expanding symbol)
    assert done["status"] == "finished" and balance(player) == 100_000 - 100 + rnd.win
    assert c.get(f"/api/v1/games/rounds/{rnd.pk}/verify").json()["outcome"] == "match"


# --- Simply the Best 27 -----------------------------------------------------------------------------------------------
@needs["simply_the_best_27"]
def test_simply_the_best_27_free_spins_are_played_through_the_api_and_replay(clock):
    from games.engine import par

    g = registry.get_game("simply_the_best_27")
    bet = par.representative_bet_params(g)
    seed = find_seed("simply_the_best_27", bet, lambda s: (s.get("pending") or {}).get("type") == "free_spin")
    player = funded_player(1_000_000)
    c = client_for(player)
    with use_rng(SeededRNG(seed)):
        body = start(c, game="simply_the_best_27", bet=bet).json()
        assert body["status"] == "in_progress" and body["pending"]["options"] == [{"type": "spin"}]
        done = finish_round(c, body["id"])
    rnd = Round.objects.get(pk=body["id"])
    assert done["status"] == "finished" and len(rnd.actions) in (5, 15) or rnd.state.get("capped")
    assert balance(player) == 1_000_000 - rnd.stake + rnd.win
    assert c.get(f"/api/v1/games/rounds/{rnd.pk}/verify").json()["outcome"] == "match"


# --- Roulette ---------------------------------------------------------------------------------------------------------
def test_roulette_bets_of_every_kind_are_paid_by_their_multipliers(clock):
    bet = {
        "bets": [
            {"type": "straight", "numbers": [17], "amount": 100},  # 36x
            {"type": "split", "numbers": [17, 20], "amount": 100},  # 18x
            {"type": "street", "numbers": [16, 17, 18], "amount": 100},  # 12x
            {"type": "corner", "numbers": [13, 14, 16, 17], "amount": 100},  # 9x
            {"type": "six_line", "numbers": [13, 14, 15, 16, 17, 18], "amount": 100},  # 6x
            {"type": "dozen", "dozen": 2, "amount": 100},  # 3x
            {"type": "column", "column": 2, "amount": 100},  # 3x
            {"type": "black", "amount": 100},
            {"type": "odd", "amount": 100},
            {"type": "low", "amount": 100},  # 2x
            {"type": "red", "amount": 100},
            {"type": "even", "amount": 100},
            {"type": "high", "amount": 100},  # lose
        ]
    }
    player = funded_player(10_000)
    c = client_for(player)
    with use_rng(FixedRNG(17)):
        body = start(c, bet=bet).json()
    expected = (36 + 18 + 12 + 9 + 6 + 3 + 3 + 2 + 2 + 2) * 100
    assert body["stake"]["amount"] == 1_300 and body["win"]["amount"] == expected
    step = body["steps"][0]
    assert step["number"] == 17 and step["colour"] == "black"
    assert {b["type"]: b["win"] for b in step["bets"]}["red"] == 0
    assert balance(player) == 10_000 - 1_300 + expected
    clock.shift(2)
    with use_rng(FixedRNG(0)):
        zero = start(c, bet=bet).json()
    assert zero["win"]["amount"] == 0  # every one of these loses on zero
    assert c.get(f"/api/v1/games/rounds/{zero['id']}/verify").json()["outcome"] == "match"


@needs["fruit_king"]
def test_a_gamble_offer_left_past_the_deadline_is_collected_so_the_player_keeps_the_win(clock):
    """GP §7(8)b with a decided win: a round waiting only for "gamble or collect" is completed by collecting
    (no draw, no change of result) instead of being voided with only the stake back."""
    from datetime import timedelta

    from games.services import rounds_expire_due

    seed = find_seed("fruit_king", FRUIT_KING_BET, _gamble_offered)
    player = funded_player(100_000)
    c = client_for(player)
    with use_rng(SeededRNG(seed)):
        body = start(c, game="fruit_king", bet=FRUIT_KING_BET).json()
    assert body["status"] == "in_progress" and body["pending"]["type"] == "gamble"
    rnd = Round.objects.get(pk=body["id"])
    won = rnd.win_engine
    assert won > 0 and balance(player) == 100_000 - 100
    clock.move_to(rnd.deadline - timedelta(seconds=1))
    assert rounds_expire_due()["due"] == 0
    assert Round.objects.get(pk=rnd.pk).status == "in_progress"
    clock.move_to(rnd.deadline)
    rounds_expire_due()
    rnd.refresh_from_db()
    assert rnd.status == "finished" and rnd.win == won and rnd.actions[-1] == {"type": "collect"}
    assert balance(player) == 100_000 - 100 + won  # the win, not a stake refund
    assert c.get(f"/api/v1/games/rounds/{rnd.pk}/verify").json()["outcome"] == "match"
    rounds_expire_due()  # safe to run twice
    assert balance(player) == 100_000 - 100 + won
