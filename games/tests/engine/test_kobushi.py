"""Kobushi (games/engine/games/kobushi/): paytable, wilds, scatter, pick bonus, Big Cat free spins, jackpot events,
bets, replay, exact RTP and the fast simulator."""

from __future__ import annotations

import copy
import json
import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from core.rng import SeededRNG
from games.engine import BetError, RecordingRNG, ReplayMismatch, ReplayRNG, par, play, slots
from games.engine.games import kobushi
from games.engine.games.kobushi import fast_sim
from games.errors import INVALID_ACTION

G = kobushi.KOBUSHI_GAME
MAX = {"lines": 30, "coins": 5, "coin_value": 10}  # jackpot-eligible (max coins and lines), stake 15 CZK
MAX_BET = G.validate_bet(MAX)
SMALL = G.validate_bet({"lines": 10, "coins": 2, "coin_value": 10})  # stake 2 CZK, line bet 0.20 CZK


def find_stop(strip, pred):
    return next(i for i in range(len(strip)) if pred(slots.column(strip, i, 3)))


def base_draws(contains: list[str | None]):
    """Base-spin draws whose reel j window contains ``contains[j]`` (None: no special symbol at all)."""
    out = []
    for strip, sym in zip(G.base_strips, contains):
        if sym is None:
            stop = find_stop(strip, lambda c: not set(c) & set(kobushi.SPECIAL))
        else:
            stop = find_stop(strip, lambda c, s=sym: s in c and not (set(c) - {s}) & set(kobushi.SPECIAL))
        out.append([len(strip), stop])
    return out


PRIZE_TOTAL = sum(w for _, w in G.d["bonus"]["prize_table"])
TERM_TOTAL = sum(w for _, w in G.d["bonus"]["terminators"])
MULT_TOTAL = sum(w for _, w in G.d["free_spins"]["multiplier_table"])


def smallest_bonus_draws(terminator_value=None):
    """Prize m = 2 (first table entry): 2 parts of 1 x stake, then the closing item (max bet only)."""
    d = [[PRIZE_TOTAL, 0], [1, 0], [1, 0]]
    return d + ([[TERM_TOTAL, terminator_value]] if terminator_value is not None else [])


def play_to_end(game, bet, rng, actions=None):
    """Like base.play, answering every pending step with default_action (or the given actions first)."""
    rec = RecordingRNG(rng)
    state = game.start(bet, rec)
    done, todo = [], list(actions or [])
    while state["status"] == "awaiting_action":
        a = todo.pop(0) if todo else game.default_action(state)
        state = game.act(state, a, rec)
        done.append(a)
    return {"bet": bet.params, "actions": done, "draws": rec.draws, "state": state}


def first_round_with(pred, seed=1, bet=MAX_BET, limit=200_000):
    rng = SeededRNG(seed)
    for _ in range(limit):
        rec = play_to_end(G, bet, rng)
        if pred(rec["state"]):
            return rec
    raise AssertionError("no such round")


# --- paytable and lines ---------------------------------------------------------------------------------------
def test_the_paytable_is_the_rules_table_divided_by_the_line_bet_of_five_coins_at_one_cent():
    rules_eur = [
        (5, 25, 50),
        (5, 25, 50),
        (2.5, 12.5, 25),
        (2, 5, 15),
        (2, 5, 15),
        (1, 2, 6),
        (1, 2, 6),
        (0.25, 1.25, 5),
        (0.25, 1.25, 5),
        (0.20, 1, 2.50),
        (0.20, 1, 2.50),
    ]
    ours = [tuple(p[k] for k in (3, 4, 5)) for p in kobushi.PAYTABLE.values()]
    assert ours == [tuple(round(x / 0.05) for x in row) for row in rules_eur]
    assert len(kobushi.PAYTABLE) == 11 and len(kobushi.NORMAL) == 10 and kobushi.SCATTER_PAYS == {3: 5, 4: 10, 5: 25}
    assert len(kobushi.LINES) == 30 and len({tuple(x) for x in kobushi.LINES}) == 30 and kobushi.LINES[0] == [1] * 5


def test_a_hand_built_window_pays_its_lines_in_line_bets_and_scatters_in_total_bets():
    w = [
        ["GEISHA", "A", "SCATTER"],
        ["GEISHA", "K", "Q"],
        ["WILD", "A", "J"],
        ["GEISHA", "SCATTER", "J"],
        ["Q", "A", "SCATTER"],
    ]
    ev = G.evaluate(w, G.base_eval, 30, 10, 300)
    line1 = [x for x in ev["line_wins"] if x[0] == 1]  # middle row: A K A ... no win
    assert line1 == []
    line2 = [x for x in ev["line_wins"] if x[0] == 2]  # top row: GEISHA GEISHA WILD GEISHA Q
    assert line2 == [[2, "GEISHA", 4, 500 * 10]]
    assert ev["scatter"] == {"count": 3, "win": 5 * 300}
    assert ev["win"] == ev["line_win"] + 1500


def test_the_wild_substitutes_everything_but_scatter_kobushi_and_big_cat_and_pays_as_itself():
    ev = G.base_eval
    assert ev.evaluate(("WILD", "WILD", "WILD", "A", "K")) == ("WILD", 3, 100)
    assert ev.evaluate(("WILD", "SAMURAI", "WILD", "SAMURAI", "WILD")) == ("SAMURAI", 5, 500)
    for special in kobushi.SPECIAL:
        assert ev.evaluate((special, "WILD", "WILD", "WILD", "WILD")) is None
        assert ev.evaluate(("A", "WILD", special, "A", "A")) is None


def test_three_or_more_scatters_anywhere_pay_five_ten_and_twenty_five_times_the_total_bet():
    for n, mult in ((2, 0), (3, 5), (4, 10), (5, 25)):
        w = [["A", "K", "Q"] for _ in range(5)]
        for j in range(n):
            w[j][j % 3] = "SCATTER"
        assert G.evaluate(w, G.base_eval, 1, 10, 10)["scatter"] == {"count": n, "win": mult * 10}


def test_the_extra_wild_replaces_all_but_wild_scatter_and_big_cat_and_pays_as_itself():
    ev = G.fs_evals["KOI"]
    assert ev.evaluate(("GEISHA", "KOI", "KOI", "GEISHA", "A")) == ("GEISHA", 4, 500)
    assert ev.evaluate(("KOI", "KOI", "KOI", "SCATTER", "A")) == ("KOI", 3, 20)
    assert ev.evaluate(("WILD", "KOI", "WILD", "J", "J")) == ("J", 5, 50)  # both wilds replace J
    best = ev.evaluate(("WILD", "WILD", "KOI", "SCATTER", "A"))
    assert best is not None and best[0] == "KOI"  # W W KOI: 3 KOI beats 2 WILD
    assert ev.evaluate(("KOI", "BIG_CAT", "KOI", "KOI", "KOI")) is None


def test_a_middle_row_wild_expands_over_its_reel_but_not_over_scatter_or_big_cat():
    raw = [["A", "K", "Q"], ["J", "WILD", "SCATTER"], ["WILD", "A", "K"], ["Q", "Q", "J"], ["A", "WILD", "A"]]
    window, expanded = G.free_spin_window(raw, [])
    assert expanded == [1, 4]
    assert window[1] == ["WILD", "WILD", "SCATTER"] and window[4] == ["WILD"] * 3
    assert window[2] == ["WILD", "A", "K"]  # a wild in the top row does not expand
    sticky, new = G.free_spin_window([["A"] * 3, ["BIG_CAT", "K", "Q"], ["A"] * 3, ["A"] * 3, ["A"] * 3], [1, 4])
    assert new == [] and sticky[1] == ["BIG_CAT", "WILD", "WILD"] and sticky[4] == ["WILD"] * 3


def test_on_free_spin_strips_every_wild_sits_between_a_scatter_and_a_big_cat():
    for strip in G.fs_strips:
        assert "KOBUSHI" not in strip  # rules §8: no Kobushi Bonus symbols in free spins
        n = len(strip)
        for i, s in enumerate(strip):
            if s == "WILD":
                assert {strip[i - 1], strip[(i + 1) % n]} == {"SCATTER", "BIG_CAT"}


def test_the_free_spin_value_is_the_same_for_every_number_of_lines():
    a30 = G.free_spins_analysis(30)
    for n in (1, 7, 15):
        assert G.free_spins_analysis(n)["per_trigger"] == pytest.approx(a30["per_trigger"], rel=1e-12)


# --- Big Cat free spins through the round -------------------------------------------------------------------------
def fs_spin_draws(middle_wild_reels=(), specials=False):
    """One free spin: reel j shows WILD in the middle row if j is listed, else a column without wilds/specials."""
    out = []
    for j, strip in enumerate(G.fs_strips):
        if j in middle_wild_reels:
            stop = find_stop(strip, lambda c: c[1] == "WILD")
        else:
            stop = find_stop(strip, lambda c: "WILD" not in c and (specials or not set(c) & set(kobushi.SPECIAL)))
        out.append([len(strip), stop])
    return out


def start_free_spins(spins_value=0, mult_value=0, extra_value=0):
    draws = base_draws(["BIG_CAT", "BIG_CAT", "BIG_CAT", None, None])
    draws += [[16, spins_value], [MULT_TOTAL, mult_value], [10, extra_value]]
    rng = ReplayRNG(draws)
    return G.start(MAX_BET, rng)


def test_three_big_cats_award_5_to_20_free_spins_with_a_multiplier_and_an_extra_wild():
    st = start_free_spins(spins_value=15, mult_value=MULT_TOTAL - 1, extra_value=4)
    assert st["status"] == "awaiting_action" and st["pending"]["type"] == "free_spin"
    assert st["pending"]["options"] == [{"type": "spin"}]
    fs = st["free_spins"]["sets"][0]
    assert fs == {"spins": 20, "played": 0, "multiplier": 5, "extra_wild": "KOI", "sticky": []}
    assert [s["feature"] for s in st["steps"] if s["type"] == "trigger"] == ["big_cat_free_spins"]
    st2 = start_free_spins(spins_value=0, mult_value=0)
    assert st2["free_spins"]["sets"][0]["spins"] == 5 and st2["free_spins"]["sets"][0]["multiplier"] == 2


def test_an_expanded_wild_sticks_for_the_rest_of_the_set_and_free_spin_wins_are_multiplied():
    st = start_free_spins(spins_value=2, mult_value=MULT_TOTAL - 1)  # 7 spins at x5
    st = G.act(st, {"type": "spin"}, ReplayRNG(fs_spin_draws(middle_wild_reels=[1])))
    assert st["steps"][-1]["expanded_reels"] == [1] and st["free_spins"]["sets"][0]["sticky"] == [1]
    st = G.act(st, {"type": "spin"}, ReplayRNG(fs_spin_draws()))
    step = st["steps"][-1]
    assert step["sticky_reels"] == [1] and step["window"][1] == ["WILD"] * 3 and step["raw_window"][1] != ["WILD"] * 3
    assert all(w[3] % (5 * 50) == 0 for w in step["line_wins"])  # line bet 50 x multiplier 5
    ev = G.evaluate(step["window"], G.fs_evals[step["extra_wild"]], 30, 50, 1500, 5)
    assert step["win"] == ev["win"]
    assert st["pending"]["sticky_reels"] == [1] and st["pending"]["spins_left"] == 5


def test_a_retrigger_plays_after_the_current_set_with_a_higher_multiplier_new_extra_wild_and_no_sticky_wilds():
    st = start_free_spins(spins_value=0, mult_value=0, extra_value=0)  # 5 spins at x2, extra wild GEISHA
    retrigger = []
    for j, strip in enumerate(G.fs_strips):
        if j in (0, 2, 4):
            stop = find_stop(strip, lambda c: "BIG_CAT" in c and "WILD" not in c)
        else:
            stop = find_stop(strip, lambda c: not set(c) & {"WILD", "BIG_CAT"})
        retrigger.append([len(strip), stop])
    st = G.act(st, {"type": "spin"}, ReplayRNG(fs_spin_draws(middle_wild_reels=[3])))
    assert st["free_spins"]["sets"][0]["sticky"] == [3]
    # spins 5..20 -> 9; multiplier above 2: 3 + randbelow(3) -> 4; extra wild index 9 -> J
    st = G.act(st, {"type": "spin"}, ReplayRNG(retrigger + [[16, 4], [3, 1], [10, 9]]))
    sets = st["free_spins"]["sets"]
    assert sets[1] == {"spins": 9, "played": 0, "multiplier": 4, "extra_wild": "J", "sticky": []}
    assert st["free_spins"]["awarded"] == 14 and st["steps"][-1]["feature"] == "big_cat_retrigger"
    for _ in range(3):
        st = G.act(st, {"type": "spin"}, ReplayRNG(fs_spin_draws()))
    assert st["free_spins"]["current"] == 1 and st["pending"]["multiplier"] == 4 and st["pending"]["sticky_reels"] == []
    st = G.act(st, {"type": "spin"}, ReplayRNG(fs_spin_draws()))
    assert st["steps"][-1]["set"] == 2 and st["steps"][-1]["sticky_reels"] == [] and st["steps"][-1]["multiplier"] == 4


def fs_state(awarded, played, last_multiplier):
    st = slots.new_state(G, MAX_BET)
    st.update(line_bet=50, cap=G.d["max_win_multiplier"] * MAX_BET.total_stake, capped=False)
    st["free_spins"] = {
        "awarded": awarded,
        "played": played,
        "max": 100,
        "current": 0,
        "last_multiplier": last_multiplier,
        "sets": [
            {"spins": awarded, "played": played, "multiplier": last_multiplier, "extra_wild": "KOI", "sticky": []}
        ],
    }
    return st


def test_retriggers_stop_at_100_free_spins_in_all():
    st = fs_state(95, 94, 3)
    G._award_free_spins(st, ReplayRNG([[16, 15], [2, 0], [10, 0]]), 3, retrigger=True)  # 20 drawn, 5 left
    assert st["free_spins"]["awarded"] == 100 and st["free_spins"]["sets"][-1]["spins"] == 5
    G._award_free_spins(st, ReplayRNG([]), 4, retrigger=True)  # nothing drawn, nothing awarded
    assert st["free_spins"]["awarded"] == 100 and len(st["free_spins"]["sets"]) == 2
    assert st["steps"][-1] == {
        "type": "trigger",
        "feature": "big_cat_retrigger",
        "symbols": 4,
        "spins": 0,
        "reason": "max_free_spins_reached",
    }


def test_the_retrigger_multiplier_is_above_the_previous_one_and_x5_stays_x5():
    for last, draw, expect in ((2, [3, 0], 3), (2, [3, 2], 5), (4, [1, 0], 5)):
        st = fs_state(10, 1, last)
        G._award_free_spins(st, ReplayRNG([[16, 0], draw, [10, 0]]), 3, retrigger=True)
        assert st["free_spins"]["sets"][-1]["multiplier"] == expect
    st = fs_state(10, 1, 5)
    G._award_free_spins(st, ReplayRNG([[16, 0], [10, 0]]), 3, retrigger=True)  # no multiplier draw at x5
    assert st["free_spins"]["sets"][-1]["multiplier"] == 5


def test_a_whole_round_never_plays_more_than_100_free_spins():
    rng = SeededRNG(4)
    with_free_spins = 0
    for _ in range(3000):
        st = G.start(MAX_BET, rng)
        if st.get("free_spins"):
            with_free_spins += 1
            while st["status"] == "awaiting_action":
                st = G.act(st, G.default_action(st), rng)
            assert st["free_spins"]["played"] == st["free_spins"]["awarded"] <= 100
    assert with_free_spins >= 5  # the seeded rounds do reach the free spins (the loop above checks something)


# --- Kobushi pick bonus ----------------------------------------------------------------------------------------
def test_three_kobushi_symbols_start_a_pick_bonus_over_15_items():
    st = G.start(MAX_BET, ReplayRNG(base_draws(["KOBUSHI"] * 3 + [None, None]) + smallest_bonus_draws(0)))
    assert st["pending"]["type"] == "pick" and len(st["pending"]["options"]) == 15
    assert st["pending"]["options"][3] == {"type": "pick", "index": 3}
    assert st["bonus"]["sequence"] == [1500, 1500, "cat"]


def test_the_first_two_picks_always_win_and_the_sequence_ends_with_one_closing_item():
    rng = SeededRNG(7)
    for _ in range(3000):
        st = slots.new_state(G, MAX_BET)
        G._start_bonus(st, rng, MAX_BET, 3)
        seq, m = st["bonus"]["sequence"], st["bonus"]["prize_multiplier"]
        prizes = seq[:-1]
        assert 2 <= len(prizes) <= G.d["bonus"]["max_parts"] and all(isinstance(p, int) and p > 0 for p in prizes)
        assert sum(prizes) == m * MAX_BET.total_stake and 2 <= m <= 500
        assert seq[-1] in kobushi.TERMINATORS


def test_the_pick_choice_does_not_change_the_prizes_or_the_round_win():
    rec = first_round_with(lambda s: s.get("bonus") and len(s["bonus"]["sequence"]) > 3, seed=11)
    n_picks = len(rec["state"]["bonus"]["picked"])
    wins = set()
    for order in (list(range(15)), list(range(14, -1, -1)), [7, 3, 11, 0, 14, 1, 9, 2, 5, 4, 6, 8, 10, 12, 13]):
        state = G.start(G.validate_bet(rec["bet"]), ReplayRNG(rec["draws"]))
        rng = ReplayRNG(rec["draws"])
        G.start(G.validate_bet(rec["bet"]), rng)
        for i in order[:n_picks]:
            state = G.act(state, {"type": "pick", "index": i}, rng)
        while state["status"] == "awaiting_action":
            state = G.act(state, G.default_action(state), rng)
        revealed = [s.get("win") for s in state["steps"] if s["type"] == "pick"]
        assert [s["index"] for s in state["steps"] if s["type"] == "pick"] == order[:n_picks]
        wins.add((state["win"], tuple(revealed)))
    assert len(wins) == 1


def test_a_picked_item_cannot_be_picked_again_and_only_offered_actions_are_accepted():
    st = G.start(MAX_BET, ReplayRNG(base_draws(["KOBUSHI"] * 3 + [None, None]) + smallest_bonus_draws(0)))
    st = G.act(st, {"type": "pick", "index": 4}, ReplayRNG([]))
    assert {"type": "pick", "index": 4} not in st["pending"]["options"] and len(st["pending"]["options"]) == 14
    refused: list[Any] = [
        {"type": "pick", "index": 4},
        {"type": "pick", "index": 15},
        {"type": "spin"},
        {"type": "collect"},
        {"type": "pick", "index": "1"},
        {"type": "pick", "index": True},
        {"type": "pick", "index": 1.0},
        {"type": "pick", "index": 1, "x": 0},
        "pick",
        None,
    ]
    for bad in refused:
        with pytest.raises(Exception) as e:
            G.act(st, bad, ReplayRNG([]))
        assert getattr(e.value, "code", "") == INVALID_ACTION.code


def test_jackpot_symbols_close_the_bonus_and_emit_an_event_only_at_max_coins_and_lines():
    sushi_at = G.d["bonus"]["terminators"][0][1]  # first value after the Cat's weight
    st = G.start(MAX_BET, ReplayRNG(base_draws(["KOBUSHI"] * 3 + [None, None]) + smallest_bonus_draws(sushi_at)))
    for i in (0, 1):
        st = G.act(st, {"type": "pick", "index": i}, ReplayRNG([]))
        assert st["steps"][-1]["reveal"] == "prize" and st["jackpot_events"] == []
    st = G.act(st, {"type": "pick", "index": 9}, ReplayRNG([]))
    assert st["status"] == "finished" and st["steps"][-1]["reveal"] == "jackpot_sushi"
    ev = st["jackpot_events"]
    assert len(ev) == 1 and ev[0]["type"] == "kobushi_progressive" and ev[0]["level"] == "sushi"
    assert ev[0]["coin_value"] == 10 and ev[0]["pick"] == 3 and ev[0]["seed_per_coin"] == 5000
    assert st["win"] == st["breakdown"]["bonus"] == 2 * MAX_BET.total_stake  # the prize is paid anyway
    # below max coins or lines the bonus always ends with a Cat and never draws a closing item
    for params in ({"lines": 29, "coins": 5, "coin_value": 10}, {"lines": 30, "coins": 4, "coin_value": 10}):
        bet = G.validate_bet(params)
        st = G.start(bet, ReplayRNG(base_draws(["KOBUSHI"] * 3 + [None, None]) + smallest_bonus_draws()))
        assert st["bonus"]["sequence"][-1] == "cat"


def test_the_progressive_spec_for_the_jackpots_app_matches_the_rules_and_the_jackpot_events():
    spec = G.progressive()
    json.dumps(spec)
    assert spec == {
        "contribution_ppm": {"sushi": 2500, "kobushi": 2500},  # 0.5 % of every stake in total
        "seed_per_coin": {"sushi": 5000, "kobushi": 25000},  # rules §9 table
        "reference_coin": 500,
        "eligible": {"lines": 30, "coins": 5},
        "names": {"sushi": "Sushi Jackpot", "kobushi": "Kobushi Jackpot"},
    }
    assert spec["reference_coin"] == max(G.d["bet"]["coin_values"])
    assert spec["seed_per_coin"] == G.d["bonus"]["jackpot_seed_per_coin"]  # what the events carry
    assert {t.split("_", 1)[1] for t, _ in G.d["bonus"]["terminators"] if t != "cat"} == set(spec["names"])
    for params in (MAX, {"lines": 29, "coins": 5, "coin_value": 10}, {"lines": 30, "coins": 4, "coin_value": 500}):
        eligible = all(params[k] == v for k, v in spec["eligible"].items())
        assert eligible == G.is_max_bet(params) == (G.jackpot_return(G.validate_bet(params)) is not None)


def test_the_bonus_pays_the_drawn_prize_times_the_stake_however_it_ends():
    rng = SeededRNG(3)
    for _ in range(40):
        st = slots.new_state(G, MAX_BET)
        st.update(line_bet=50, cap=10**12, capped=False)
        G._start_bonus(st, rng, MAX_BET, 3)
        st = G._next(st)
        while st["status"] == "awaiting_action":
            st = G.act(st, G.default_action(st), rng)
        assert st["win"] == st["bonus"]["prize_multiplier"] * MAX_BET.total_stake


# --- whole rounds: JSON, replay, cap -----------------------------------------------------------------------------
def test_states_survive_a_json_round_trip_and_act_works_on_the_round_tripped_state():
    bonus = base_draws(["KOBUSHI"] * 3 + [None, None]) + smallest_bonus_draws(0)
    free = base_draws(["BIG_CAT"] * 3 + [None, None]) + [[16, 3], [MULT_TOTAL, 70], [10, 2]]
    rng = SeededRNG(12)
    free += [[len(s), rng.randbelow(len(s))] for _ in range(8) for s in G.fs_strips]
    for draws, actions in ((bonus, [{"type": "pick", "index": i} for i in (5, 2, 9)]), (free, [{"type": "spin"}] * 8)):
        rng_a, rng_b = ReplayRNG(draws), ReplayRNG(draws)
        a = G.start(MAX_BET, rng_a)
        b = G.start(MAX_BET, rng_b)
        for action in actions:
            b = json.loads(json.dumps(b))
            assert b == a and a["status"] == "awaiting_action"
            a, b = G.act(a, action, rng_a), G.act(b, json.loads(json.dumps(action)), rng_b)
        assert a == b and a["status"] == "finished" and json.loads(json.dumps(a)) == a
        assert rng_a.exhausted and sum(a["breakdown"].values()) == a["win"]


def test_a_bonus_and_free_spins_never_trigger_on_the_same_spin():
    """Scatter, Kobushi and Big Cat are at least 3 apart on every base reel: one of them per reel window."""
    for strip in G.base_strips:
        pos = [i for i, s in enumerate(strip) if s in kobushi.SPECIAL]
        n = len(strip)
        assert all((b - a) % n >= 3 for a, b in zip(pos, pos[1:] + pos[:1]))


def test_recorded_rounds_replay_to_the_same_state_and_a_tampered_record_is_refused():
    rng = SeededRNG(21)
    kinds: set[str] = set()
    for _ in range(400):
        rec = play_to_end(G, SMALL, rng)
        assert G.replay(rec) == rec["state"]
        kinds.update(s["type"] for s in rec["state"]["steps"])
    assert kinds >= {"spin"}
    rec = first_round_with(lambda s: s.get("free_spins") and s["free_spins"]["awarded"] > 8, seed=5)
    assert G.replay(rec) == rec["state"]
    tampered = copy.deepcopy(rec)
    tampered["draws"][0][1] = (tampered["draws"][0][1] + 1) % tampered["draws"][0][0]
    with pytest.raises(ReplayMismatch):
        G.replay(tampered)
    # records made by base.play replay too
    draws = base_draws(["KOBUSHI"] * 3 + [None, None]) + smallest_bonus_draws(0)
    r2 = play(G, MAX_BET, ReplayRNG(draws), actions=[{"type": "pick", "index": i} for i in (6, 0, 13)])
    assert r2["state"]["status"] == "finished" and len(r2["actions"]) == 3 and r2["draws"] == draws
    assert G.replay(r2) == r2["state"]


def test_the_round_win_is_capped_at_the_max_win_and_reaching_it_ends_the_free_spins():
    d = dict(kobushi.DEFINITION, max_win_multiplier=3)
    small_cap = kobushi.Kobushi(d)
    st = small_cap.start(
        MAX_BET, ReplayRNG(base_draws(["BIG_CAT"] * 3 + [None, None]) + [[16, 15], [MULT_TOTAL, 99], [10, 0]])
    )
    rng = SeededRNG(8)
    while st["status"] == "awaiting_action":
        st = small_cap.act(st, {"type": "spin"}, rng)
    assert st["win"] <= 3 * MAX_BET.total_stake
    if st["capped"]:
        assert st["win"] == 3 * MAX_BET.total_stake and st["free_spins"]["played"] < st["free_spins"]["awarded"]
    assert sum(st["breakdown"].values()) == st["win"]


def test_no_simulated_round_exceeds_the_declared_max_win():
    stats = G.simulate_fast(MAX_BET, 200_000, 99)
    assert stats["max_win"] <= G.declared.max_win // G.declared.max_bet * MAX_BET.total_stake
    assert G.declared.max_win == 5000 * G.declared.max_bet


# --- bets, declared figures, catalogue ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params, code",
    [
        ({"lines": 0}, "game.invalid_lines"),
        ({"lines": 31}, "game.invalid_lines"),
        ({"lines": "5"}, "game.invalid_lines"),
        ({"coins": 6}, "game.invalid_coins"),
        ({"coins": True}, "game.invalid_coins"),
        ({"coin_value": 3}, "game.invalid_coin"),
        ({"coin_value": 1000}, "game.invalid_coin"),
        ({"lines": 1, "coins": 1, "coin_value": 5}, "game.stake_below_min"),
        ({"lines": 3, "coins": 5, "coin_value": 1}, "game.stake_step"),
        ({"lines": 7, "coins": 1, "coin_value": 2}, "game.stake_step"),
        ({"lines": 1, "bet": 3}, "game.invalid_bet"),
        ([], "game.invalid_bet"),
    ],
)
def test_bet_validation_refuses_invalid_bets_with_stable_codes_in_english_and_czech(params, code):
    with pytest.raises(BetError) as e:
        G.validate_bet(params)
    assert e.value.code == code and e.value.message_en and e.value.message_cs


def test_valid_bets_are_normalised_and_validate_again_to_the_same_bet():
    bet = G.validate_bet({"lines": 2, "coins": 5, "coin_value": 1})
    assert bet.total_stake == 10 and G.validate_bet(bet.params) == bet
    assert G.validate_bet({}).params == {"lines": 15, "coins": 5, "coin_value": 10}
    top = G.validate_bet({"lines": 30, "coins": 5, "coin_value": 500})
    assert top.total_stake == G.declared.max_bet == 75_000 <= 100_000


def test_declared_figures_follow_the_rules_and_the_game_plan():
    d = G.declared
    assert d.rtp == Decimal("96.89") and d.rtp_with_jackpots == Decimal("98.21")
    assert d.min_bet == 10 and d.max_bet == 75_000 and d.unfinished_deadline_days in (90, 180)
    assert d.avg_hourly_loss == int(Decimal(75_000) * (100 - d.rtp) / 100 * 1800)


def test_describe_is_json_and_gives_rules_paytable_lines_bets_and_declared_figures_in_both_languages():
    desc = G.describe()
    assert json.loads(json.dumps(desc)) == desc
    assert desc["rules_en"] and desc["rules_cs"] and "Kobushi" in desc["rules_cs"]
    assert desc["paytable"]["pays"]["GEISHA"] == {"3": 100, "4": 500, "5": 1000} and len(desc["lines"]) == 30
    assert desc["declared"]["rtp"] == "96.89" and desc["declared"]["avg_hourly_loss"] == G.declared.avg_hourly_loss


def test_default_action_picks_the_lowest_item_and_spins():
    st = G.start(MAX_BET, ReplayRNG(base_draws(["KOBUSHI"] * 3 + [None, None]) + smallest_bonus_draws(0)))
    assert G.default_action(st) == {"type": "pick", "index": 0}
    assert G.default_action(start_free_spins()) == {"type": "spin"}


# --- exact RTP and simulation ----------------------------------------------------------------------------------
def test_the_exact_base_game_matches_an_independent_lookup_table_contraction():
    ex = G.exact_rtp(MAX_BET)
    counts = [slots.symbol_counts(s) for s in G.base_strips]
    vecs = [
        np.array([c.get(a, 0) for a in G.ALPHABET[:-1]] + [sum(c.get(x, 0) for x in kobushi.SPECIAL)]) for c in counts
    ]
    den = math.prod(len(s) for s in G.base_strips)
    assert Fraction(slots.lut_expectation(G.luts[None], vecs), den) == ex["base_lines"]
    tp = G.trigger_probabilities()
    assert ex["bonus"] == tp["bonus"] * slots.weighted_mean(G.d["bonus"]["prize_table"])
    assert set(ex) == {"base_lines", "base_scatter", "bonus"}


def test_exact_parts_plus_the_free_spin_analysis_give_the_declared_96_89_percent():
    total = float(sum(G.exact_rtp(MAX_BET).values())) + G.free_spins_analysis(30)["rtp"]
    assert abs(100 * total - 96.89) < 0.005
    assert G.declared.rtp >= Decimal("84.24")  # GP §8(4)


def test_the_fast_line_tables_equal_the_reference_evaluation_on_random_windows():
    tables = fast_sim.FastTables(G)
    rnd = np.random.default_rng(5)
    for mode in ("base", "free"):
        strips = G.base_strips if mode == "base" else G.fs_strips
        rt = tables.base if mode == "base" else tables.fs
        for _ in range(300):
            stops = [int(rnd.integers(len(s))) for s in strips]
            sticky = [j for j in range(5) if rnd.random() < 0.2] if mode == "free" else []
            x = kobushi.NORMAL[int(rnd.integers(10))]
            raw = slots.window_at(strips, stops, 3)
            if mode == "base":
                window, ev, lut, off = raw, G.base_eval, tables.lut_base, None
            else:
                window, _ = G.free_spin_window(raw, sticky)
                ev, lut = G.fs_evals[x], tables.lut_fs
                off = np.array([kobushi.NORMAL.index(x) * tables.a5])
            codes = []
            for j, r in enumerate(rt):
                expand = mode == "free" and (j in sticky or raw[j][1] == "WILD")
                codes.append((r.exp if expand else r.code)[:, [stops[j]]])
            units = int(fast_sim.line_units(tables, codes, G.lines, lut, offset=off)[0])
            assert units * 10 == G.evaluate(window, ev, 30, 10, 300)["line_win"]


def test_the_fast_simulator_agrees_with_the_exact_parts_and_the_free_spin_analysis():
    seen = []
    stats = G.simulate_fast(MAX_BET, 400_000, 2024, progress=lambda done, total: seen.append((done, total)))
    par.validate_stats(stats, rounds=400_000, stake=MAX_BET.total_stake)
    assert seen[-1] == (400_000, 400_000)
    n, stake = stats["rounds"], MAX_BET.total_stake
    ex = G.exact_rtp(MAX_BET)

    def z(part, expected):
        mean = stats["breakdown"][part] / (n * stake)
        var = stats["breakdown_sum_sq"][part] / (n * stake * stake) - mean * mean
        return (mean - expected) / math.sqrt(var / n)

    assert abs(z("base", float(ex["base_lines"] + ex["base_scatter"]))) < 4
    assert abs(z("bonus", float(ex["bonus"]))) < 4
    assert abs(z("free_spins", G.free_spins_analysis(30)["rtp"])) < 4
    fc = stats["feature_counts"]
    assert fc["feature:kobushi_bonus"] > 0 and fc["feature:big_cat_free_spins"] > 0 and fc["jackpot_events"] > 0
    assert stats["total_win"] == sum(stats["breakdown"].values())


@pytest.mark.slow
def test_the_fast_simulator_agrees_with_the_reference_engine_on_the_same_bet():
    fast = G.simulate_fast(SMALL, 300_000, 7)
    ref = par.simulate_generic(G, SMALL, 12_000, 7, rng_factory=SeededRNG)
    a, b = par.summarise(fast, SMALL.total_stake), par.summarise(ref, SMALL.total_stake)
    assert abs(a["rtp"] - b["rtp"]) < 4 * math.hypot(a["standard_error"], b["standard_error"])
    # free spins, the high-variance part, session by session: vectorised vs the engine's own act()
    tables = fast_sim.FastTables(G)
    vec = fast_sim.free_spin_sessions(G, tables, np.random.default_rng(3), 60_000, G.lines, {}) / 30
    rng, vals = SeededRNG(3), []
    for _ in range(1_000):
        st = fs_state(0, 0, 0)
        st["free_spins"]["sets"] = []
        st["cap"] = 10**12
        G._award_free_spins(st, rng, 3, retrigger=False)
        st = G._next(st)
        while st["status"] == "awaiting_action":
            st = G._act_spin(st, {"type": "spin"}, rng)
        vals.append(st["win"] / st["stake"])
    expected = G.free_spins_analysis(30)["per_trigger"]
    assert abs(vec.mean() - expected) < 4 * vec.std() / math.sqrt(vec.size)
    assert abs(np.mean(vals) - expected) < 4 * np.std(vals) / math.sqrt(len(vals))


def test_the_kobushi_package_registers_its_game_and_exports_the_names_other_modules_import():
    from games.engine import get_game

    assert get_game("kobushi") is kobushi.KOBUSHI_GAME
    assert isinstance(kobushi.KOBUSHI_GAME, kobushi.Kobushi) and kobushi.KOBUSHI_GAME.d is kobushi.DEFINITION
    assert kobushi.KOBUSHI_GAME.describe()["rules_en"] == kobushi.RULES_EN and kobushi.RULES_CS
    assert set(kobushi.SYMBOL_NAMES) == set(kobushi.PAYTABLE) | set(kobushi.SPECIAL)


def test_without_the_jackpots_offered_the_bonus_closes_on_the_cat_and_the_rules_promise_none():
    """The platform passes ``progressive: false`` while the pools do not run: the same draws give the same bonus
    prize, closed by the Cat instead of a jackpot symbol, and the rules it shows then name no jackpot."""
    game = kobushi.KOBUSHI_GAME
    bet = game.validate_bet({"lines": 30, "coins": 5, "coin_value": 5})
    assert game.with_jackpots_offered(bet, True).params == bet.params == {"lines": 30, "coins": 5, "coin_value": 5}
    off = game.with_jackpots_offered(bet, False)
    assert off.params["progressive"] is False and game.validate_bet(dict(off.params)).params == off.params
    sushi_seed = 1414  # a bonus closed by the Sushi jackpot symbol at this bet (jackpots/tests/test_kobushi.py)
    on, without = game.start(bet, SeededRNG(sushi_seed)), game.start(off, SeededRNG(sushi_seed))
    assert on["bonus"]["sequence"][-1] == "jackpot_sushi" and without["bonus"]["sequence"][-1] == "cat"
    assert on["bonus"]["sequence"][:-1] == without["bonus"]["sequence"][:-1]  # the same prize, the same parts
    with pytest.raises(BetError):
        game.validate_bet({"lines": 30, "coins": 5, "coin_value": 5, "progressive": "no"})
    rules = game.describe()["rules_without_jackpots"]
    assert "jackpot" not in rules["en"].replace("No progressive jackpot is offered or paid at present.", "")
    assert "jackpot" not in rules["cs"].replace("Progresivní jackpoty se nyní nenabízejí ani nevyplácejí.", "")
    assert "the bonus ends when the Cat is found" in rules["en"] and "bonus končí nalezením kočky a" in rules["cs"]
