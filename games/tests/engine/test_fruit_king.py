"""Fruit King (games/engine/games/fruit_king.py): KING wild, scatter pays, expanding free games, red/black gamble."""

from __future__ import annotations

import copy
import json
import math
from decimal import Decimal
from typing import Any

import pytest

from core.rng import SeededRNG
from games.engine import ActionError, BetError, RecordingRNG, ReplayMismatch, ReplayRNG, par, play, slots
from games.engine.games import fruit_king

G = fruit_king.FRUIT_KING
BET = G.validate_bet({"lines": 10, "bet_per_line": 10})  # 1 CZK
SPECIAL_TOTAL = sum(w for _, w in G.d["free_games"]["special_symbol_table"])


def find_stop(strip, pred):
    return next(i for i in range(len(strip)) if pred(slots.column(strip, i, 3)))


def scatter_draws(reels_with_bonus):
    return [
        [len(s), find_stop(s, lambda c, j=j: ("BONUS" in c) == (j in reels_with_bonus))] for j, s in enumerate(G.strips)
    ]


def special_value(symbol):
    """The randbelow value that draws ``symbol`` as the free game's special symbol."""
    acc = 0
    for s, w in G.d["free_games"]["special_symbol_table"]:
        if s == symbol:
            return acc
        acc += w
    raise KeyError(symbol)


def base_win_round(seed=1):
    rng = SeededRNG(seed)
    while True:
        rec = RecordingRNG(rng)
        st = G.start(BET, rec)
        if st["status"] == "awaiting_action" and st["pending"]["type"] == "gamble":
            return st, rec.draws


# --- symbols, lines, scatter -----------------------------------------------------------------------------------
def test_the_king_substitutes_every_symbol_except_the_fruit_king_bonus_and_pays_as_itself():
    ev = G.evaluator
    assert ev.evaluate(("SEVEN", "KING", "SEVEN", "KING", "PLUM")) == ("SEVEN", 4, 50)
    assert ev.evaluate(("KING", "KING", "KING", "LEMON", "PLUM")) == ("KING", 3, 100)
    assert ev.evaluate(("KING", "KING", "BONUS", "KING", "KING")) == ("KING", 2, 10)
    assert ev.evaluate(("BONUS", "KING", "KING", "KING", "KING")) is None


def test_lines_pay_left_to_right_on_the_selected_lines_in_bets_per_line():
    w = [
        ["PLUM", "CHERRY", "SEVEN"],
        ["PLUM", "CHERRY", "SEVEN"],
        ["PLUM", "CHERRY", "LEMON"],
        ["ORANGE", "LEMON", "LEMON"],
        ["MELON", "GRAPES", "MELON"],
    ]
    res = G.base_result(w, 10, 20, 200)
    # line 9 = rows 2, 2, 1, 0, 0: two SEVENs as well
    assert [x[:3] for x in res["line_wins"]] == [[1, "CHERRY", 3], [2, "PLUM", 3], [3, "SEVEN", 2], [9, "SEVEN", 2]]
    assert res["line_win"] == (2 + 4 + 2 + 2) * 20
    assert [x[0] for x in G.base_result(w, 1, 20, 20)["line_wins"]] == [1]


@pytest.mark.parametrize("n, mult", [(1, 0), (2, 1), (3, 4), (4, 20), (5, 200)])
def test_fruit_king_bonus_symbols_anywhere_pay_by_the_total_bet(n, mult):
    w = [["LEMON", "CHERRY", "PLUM"] for _ in range(5)]
    for j in range(n):
        w[j][(2 * j) % 3] = "BONUS"
    assert G.base_result(w, 5, 10, 50)["scatter"] == {"count": n, "win": mult * 50}


# --- free games ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reels, lo, hi", [((0, 2, 4), 5, 12), ((0, 1, 2, 3), 7, 15), ((0, 1, 2, 3, 4), 9, 17)])
def test_3_4_5_scatters_award_a_random_number_of_free_games_in_the_rule_ranges(reels, lo, hi):
    for value, expect in ((0, lo), (hi - lo, hi)):
        st = G.start(BET, ReplayRNG(scatter_draws(reels) + [[hi - lo + 1, value]]))
        assert st["free_games"]["awarded"] == expect and st["pending"]["type"] == "free_spin"
        assert st["steps"][-1] == {"type": "trigger", "feature": "free_games", "scatters": len(reels), "games": expect}


def test_each_free_game_fills_two_or_three_reels_with_its_special_symbol_and_always_wins():
    rng = SeededRNG(4)
    seen = set()
    for _ in range(400):
        st = G.start(BET, ReplayRNG(scatter_draws((0, 2, 4)) + [[8, 0]]))
        st = G.act(st, {"type": "spin"}, rng)
        step = st["steps"][-1]
        sym, k = step["special_symbol"], G.min_count(step["special_symbol"])
        seen.add((sym, k))
        assert step["expanded_reels"] == list(range(k)) and all(step["window"][j] == [sym] * 3 for j in range(k))
        assert step["stops"][:k] == [None] * k and all(isinstance(x, int) for x in step["stops"][k:])
        assert step["line_win"] >= G.d["paytable"][sym][k] * 10 * 10 > 0
        assert len(step["line_wins"]) == 10 and len({tuple(x[1:]) for x in step["line_wins"]}) == 1
    assert {k for _, k in seen} == {2, 3} and len(seen) == 7


def test_the_special_symbol_extends_left_to_right_without_gaps_and_counts_kings():
    w = [["PLUM"] * 3] * 3 + [["KING", "A", "B"], ["C", "D", "E"]]
    assert G.expansion_count(w, "PLUM") == (4, [0, 1, 2, 3])
    gap = [["SEVEN"] * 3] * 2 + [["A", "B", "C"], ["SEVEN", "A", "B"], ["SEVEN", "A", "B"]]
    assert G.expansion_count(gap, "SEVEN") == (2, [0, 1])


def test_the_expanding_win_pays_on_every_selected_line_at_the_bet_per_line():
    bet = G.validate_bet({"lines": 3, "bet_per_line": 50})
    st = G.start(bet, ReplayRNG(scatter_draws((1, 2, 3)) + [[8, 0]]))
    k_stops = [[len(s), find_stop(s, lambda c: "CHERRY" not in c and "KING" not in c)] for s in G.strips[3:]]
    st = G.act(st, {"type": "spin"}, ReplayRNG([[SPECIAL_TOTAL, special_value("CHERRY")]] + k_stops))
    step = st["steps"][-1]
    assert step["expansion"] == {"symbol": "CHERRY", "count": 3, "reels": [0, 1, 2], "win": 3 * 2 * 50}
    assert step["line_wins"] == [[i, "CHERRY", 3, 100] for i in (1, 2, 3)]


def test_free_games_retrigger_and_stop_at_100():
    st = slots.new_state(G, BET)
    st.update(cap=10**9, capped=False)
    st["free_games"] = {"awarded": 98, "played": 90, "max": 100}
    G._award(st, ReplayRNG([[8, 7]]), 3, retrigger=True)
    assert st["free_games"]["awarded"] == 100 and st["steps"][-1]["games"] == 2
    G._award(st, ReplayRNG([]), 3, retrigger=True)
    assert st["free_games"]["awarded"] == 100 and st["steps"][-1]["reason"] == "max_free_games_reached"


def test_a_round_of_free_games_finishes_without_a_gamble_offer():
    rng = SeededRNG(2)
    st = G.start(BET, ReplayRNG(scatter_draws((0, 2, 4)) + [[8, 0]]))
    while st["status"] == "awaiting_action":
        assert st["pending"]["type"] == "free_spin"
        st = G.act(st, {"type": "spin"}, rng)
    assert st["win"] > 0 and "gamble" not in st and st["breakdown"]["free_spins"] > 0


# --- gamble ----------------------------------------------------------------------------------------------------
def test_a_base_game_win_offers_red_black_or_collect_and_default_action_collects():
    st, _ = base_win_round()
    assert st["pending"]["options"] == [
        {"type": "gamble", "colour": "red"},
        {"type": "gamble", "colour": "black"},
        {"type": "collect"},
    ]
    assert G.default_action(st) == {"type": "collect"}
    won = st["win"]
    done = G.act(st, {"type": "collect"}, ReplayRNG([]))
    assert done["status"] == "finished" and done["win"] == won and done["breakdown"]["gamble"] == 0


def test_the_guess_does_not_change_whether_the_gamble_is_won():
    st, _ = base_win_round(3)
    for draws in ([[2, 1], [2, 0]], [[2, 0], [2, 1]]):
        red = G.act(st, {"type": "gamble", "colour": "red"}, ReplayRNG(draws))
        black = G.act(st, {"type": "gamble", "colour": "black"}, ReplayRNG(draws))
        assert red["win"] == black["win"] and red["steps"][-1]["won"] == black["steps"][-1]["won"]
        assert red["steps"][-1]["colour"] != black["steps"][-1]["colour"]


def test_a_won_gamble_doubles_a_lost_one_loses_the_win_and_the_breakdown_adds_up():
    st, _ = base_win_round(5)
    w = st["win"]
    up = G.act(st, {"type": "gamble", "colour": "red"}, ReplayRNG([[2, 1], [2, 0]]))
    assert up["win"] == 2 * w and up["breakdown"]["gamble"] == w and up["pending"]["gambles_left"] == 4
    down = G.act(up, {"type": "gamble", "colour": "black"}, ReplayRNG([[2, 0], [2, 1]]))
    assert down["status"] == "finished" and down["win"] == 0 and down["breakdown"]["gamble"] == -w
    assert sum(down["breakdown"].values()) == 0 and down["steps"][-1]["colour"] == "red"


def test_at_most_five_gambles_then_the_round_finishes_with_the_win():
    st, _ = base_win_round(6)
    w = st["win"]
    for _ in range(5):
        assert st["status"] == "awaiting_action"
        st = G.act(st, {"type": "gamble", "colour": "red"}, ReplayRNG([[2, 1], [2, 0]]))
    assert st["status"] == "finished" and st["win"] == 32 * w and st["gamble"]["history"] == ["red"] * 5
    with pytest.raises(ActionError):
        G.act(st, {"type": "collect"}, ReplayRNG([]))


def test_the_gamble_is_never_offered_beyond_the_max_win():
    small = fruit_king.FruitKing(dict(fruit_king.DEFINITION, max_win_multiplier=4))
    rng = SeededRNG(1)
    seen = {"offered": 0, "withheld": 0}  # both sides of the rule must be seen
    for _ in range(3000):
        st = small.start(BET, rng)
        while st["status"] == "awaiting_action":
            if st["pending"]["type"] == "gamble":
                opts = st["pending"]["options"]
                assert len(opts) == 3 and 2 * st["win"] <= 4 * BET.total_stake
                seen["offered"] += 1
                st = small.act(st, opts[0], rng)
            else:
                st = small.act(st, {"type": "spin"}, rng)
            assert st["win"] <= 4 * BET.total_stake
        g = st.get("gamble")
        if st["win"] > 0 and not st.get("free_games") and not st["capped"] and (g is None or g["played"] < g["max"]):
            assert 2 * st["win"] > 4 * BET.total_stake  # a base-game win left without a gamble: doubling exceeds it
            seen["withheld"] += 1
    assert min(seen.values()) > 0, seen


# --- bets, JSON, replay ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params, code",
    [
        ({"lines": 2}, "game.invalid_lines"),
        ({"lines": 10.0}, "game.invalid_lines"),
        ({"bet_per_line": 5}, "game.invalid_bet_per_line"),
        ({"bet_per_line": 15}, "game.invalid_bet_per_line"),
        ({"lines": 10, "coins": 1}, "game.invalid_bet"),
    ],
)
def test_bet_validation_refuses_invalid_bets_with_stable_codes(params, code):
    with pytest.raises(BetError) as e:
        G.validate_bet(params)
    assert e.value.code == code and e.value.message_cs


def test_every_allowed_bet_respects_the_game_plan_limits():
    for lines in G.d["bet"]["lines"]:
        for bpl in G.d["bet"]["bet_per_line"]:
            bet = G.validate_bet({"lines": lines, "bet_per_line": bpl})
            assert 10 <= bet.total_stake <= 100_000 and bet.total_stake % 10 == 0
            assert G.validate_bet(bet.params) == bet
    d = G.declared
    assert d.rtp == Decimal("96.00") and (d.min_bet, d.max_bet) == (10, 100_000)
    assert d.max_win == 5000 * d.max_bet


def test_recorded_rounds_with_gambles_replay_and_json_round_trips_keep_acting():
    rng = SeededRNG(13)
    policy = [{"type": "gamble", "colour": "red"}, {"type": "gamble", "colour": "black"}, {"type": "collect"}]
    for i in range(400):
        rec = RecordingRNG(rng)
        st = G.start(BET, rec)
        actions = []
        while st["status"] == "awaiting_action":
            opts = st["pending"]["options"]
            a = policy[i % 3] if st["pending"]["type"] == "gamble" and policy[i % 3] in opts else opts[-1]
            actions.append(a)
            st = G.act(json.loads(json.dumps(st)), a, rec)
        record: dict[str, Any] = {"bet": BET.params, "actions": actions, "draws": rec.draws, "state": st}
        assert G.replay(record) == st and json.loads(json.dumps(st)) == st
        assert sum(st["breakdown"].values()) == st["win"] >= 0
    bad = copy.deepcopy(record)
    bad["state"]["win"] += 1
    with pytest.raises(ReplayMismatch):
        G.replay(bad)


def test_records_made_by_base_play_with_a_gamble_replay():
    _, draws = base_win_round(9)
    rec = play(
        G,
        BET,
        ReplayRNG(draws + [[2, 1], [2, 0], [2, 0], [2, 1]]),
        actions=[{"type": "gamble", "colour": "black"}, {"type": "gamble", "colour": "red"}],
    )
    assert rec["state"]["status"] == "finished" and rec["state"]["win"] == 0 and len(rec["actions"]) == 2
    assert G.replay(rec) == rec["state"]


def test_describe_is_json_with_rules_in_both_languages():
    desc = G.describe()
    assert json.loads(json.dumps(desc)) == desc and desc["rules_en"] and desc["rules_cs"]
    assert desc["bet_options"]["lines"] == [1, 3, 5, 8, 10] and desc["features"]["gamble"]["max_gambles"] == 5


# --- RTP -------------------------------------------------------------------------------------------------------
def test_the_exact_base_game_plus_the_free_game_analysis_give_the_declared_96_percent():
    ex = G.exact_rtp(BET)
    assert set(ex) == {"base_lines", "base_scatter"}
    total = float(sum(ex.values())) + G.free_games_analysis()["rtp"]
    assert abs(100 * total - 96.00) < 0.005 and G.declared.rtp >= Decimal("84.24")


def test_the_free_game_value_agrees_with_the_engine():
    rng = SeededRNG(21)
    vals = []
    st = G.start(BET, ReplayRNG(scatter_draws((0, 2, 4)) + [[8, 0]]))
    st["free_games"]["awarded"] = 10**6  # keep playing (no cap reached at 1 CZK)
    st["cap"] = 10**12
    for _ in range(8000):
        before = st["win"]
        st = G._act_spin(st, {"type": "spin"}, rng)
        vals.append((st["win"] - before) / BET.total_stake)
    mean = sum(vals) / len(vals)
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
    assert abs(mean - float(G.free_game_value()["value"])) < 4 * sd / math.sqrt(len(vals))


def test_the_round_engine_agrees_with_the_declared_rtp():
    stats = par.simulate_generic(G, BET, 20_000, 31, rng_factory=SeededRNG)
    s = par.summarise(stats, BET.total_stake)
    assert abs(s["rtp_percent"] - 96.00) < 4 * 100 * s["standard_error"]
    ex = float(sum(G.exact_rtp(BET).values()))
    base = stats["breakdown"]["base"] / stats["total_stake"]
    assert abs(base - ex) < 0.05
