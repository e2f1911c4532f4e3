"""SIMPLY THE BEST 27 (games/engine/games/simply_the_best_27.py): 27 criss-cross lines, JOKER, 9 of a kind x2, free
spins, the 19,400 CZK max win derived from the strips, and the exactly computed 95 % RTP."""

from __future__ import annotations

import copy
import json
import math
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from core.rng import SeededRNG
from games.engine import BetError, RecordingRNG, ReplayMismatch, ReplayRNG, par, slots
from games.engine.games import simply_the_best_27 as stb27

G = stb27.SIMPLY_THE_BEST_27
BET = G.validate_bet({"stake": 1000})


def window(*rows):
    """Build window[reel][row] from three rows written left to right."""
    return [[rows[r][j] for r in range(3)] for j in range(3)]


def find_stop(strip, pred):
    return next(i for i in range(len(strip)) if pred(slots.column(strip, i, 3)))


def test_the_27_lines_are_every_choice_of_one_row_per_reel_with_the_middle_row_first():
    assert len(G.lines) == 27 and len({tuple(x) for x in G.lines}) == 27
    assert G.lines[:3] == [[1, 1, 1], [0, 0, 0], [2, 2, 2]]


def test_three_of_a_kind_on_a_line_pays_the_paytable_multiple_of_the_total_bet():
    assert {s: p[3] for s, p in stb27.PAYTABLE.items()} == {
        "MELON": 16,
        "CHERRY": 2,
        "DOLLAR": 2,
        "ORANGE": 2,
        "PLUM": 2,
        "BELL": 16,
        "STAR": 20,
        "BAR": 40,
        "JOKER": 60,
    }
    w = window(["BAR", "PLUM", "MELON"], ["BAR", "BAR", "BAR"], ["ORANGE", "DOLLAR", "PLUM"])
    wins, full, mult = G.window_multiplier(w)
    assert full is None and mult == 40 + 40  # middle row, and middle-top-middle (BAR on reel 2's top row)
    assert sorted(x[1] for x in wins) == ["BAR", "BAR"]


def test_the_joker_substitutes_any_symbol_and_three_jokers_pay_60():
    w = window(["JOKER", "MELON", "DOLLAR"], ["BELL", "JOKER", "BELL"], ["ORANGE", "PLUM", "JOKER"])
    wins, _, mult = G.window_multiplier(w)
    assert [G.lines.index([0, 1, 2]) + 1, "JOKER", 3, 60] in wins  # top, middle, bottom: the three jokers
    assert {x[1] for x in wins} >= {"JOKER", "BELL"} and mult == sum(x[3] for x in wins)


def test_nine_identical_symbols_jokers_included_double_the_win():
    nine = window(["CHERRY"] * 3, ["CHERRY", "JOKER", "CHERRY"], ["CHERRY"] * 3)
    wins, full, mult = G.window_multiplier(nine)
    assert full == "CHERRY" and len(wins) == 27 and mult == 2 * sum(x[3] for x in wins)
    eight = window(["CHERRY"] * 3, ["CHERRY", "PLUM", "CHERRY"], ["CHERRY"] * 3)
    assert G.window_multiplier(eight)[1] is None


def test_three_cherry_bonus_on_the_middle_line_give_5_free_spins_and_three_stars_15():
    cherries = G.trigger(window(["A"] * 3, ["CHERRY"] * 3, ["B"] * 3))
    stars = G.trigger(window(["A"] * 3, ["STAR"] * 3, ["B"] * 3))
    assert cherries is not None and cherries["spins"] == 5
    assert stars is not None and stars["spins"] == 15
    assert G.trigger(window(["CHERRY"] * 3, ["A"] * 3, ["B"] * 3)) is None  # top row
    assert G.trigger(window(["A"] * 3, ["CHERRY", "JOKER", "CHERRY"], ["B"] * 3)) is None  # a JOKER does not count


def _trigger_draws(symbol):
    return [[len(s), find_stop(s, lambda c: c[1] == symbol)] for s in G.base_strips]


def test_free_spins_are_played_one_action_each_at_the_triggering_bet():
    rng = SeededRNG(3)
    draws = _trigger_draws("STAR") + [[len(s), rng.randbelow(len(s))] for _ in range(15) for s in G.fs_strips]
    replay = ReplayRNG(draws)
    st = G.start(BET, replay)
    assert st["pending"] == {"type": "free_spin", "options": [{"type": "spin"}], "spins_left": 15, "free_spins_win": 0}
    n = 0
    while st["status"] == "awaiting_action":
        st = G.act(st, G.default_action(st), replay)
        n += 1
        assert json.loads(json.dumps(st)) == st
    assert n == 15 and replay.exhausted and st["free_spins"] == {"awarded": 15, "played": 15, "trigger": "STAR"}
    spins = [s for s in st["steps"] if s.get("mode") == "free"]
    assert all(s["win"] == sum(w[3] for w in s["line_wins"]) * s["full_screen_multiplier"] for s in spins)
    assert st["breakdown"]["free_spins"] == sum(s["win"] for s in spins) and sum(st["breakdown"].values()) == st["win"]


def test_the_max_win_is_194_times_the_bet_from_6_bells_2_plums_and_one_joker():
    assert G.max_window_multiplier() == G.cap_multiplier == 194
    assert G.declared.max_win == 1_940_000 == 194 * G.declared.max_bet  # 19,400 CZK at 100 CZK
    total, _ = G.window_table(G.base_strips)
    best = [slots.window_at(G.base_strips, [int(i) for i in idx], 3) for idx in np.argwhere(total == 194)]
    kinds = [Counter(s for col in w for s in col) for w in best]
    assert {"BELL": 6, "PLUM": 2, "JOKER": 1} in [dict(k) for k in kinds]
    w = best[[dict(k) for k in kinds].index({"BELL": 6, "PLUM": 2, "JOKER": 1})]
    wins, _, mult = G.window_multiplier(w)
    assert mult == 194 and Counter(x[1] for x in wins) == {"BELL": 12, "PLUM": 1}
    fs_total, _ = G.window_table(G.fs_strips)
    assert int(fs_total.max()) <= 194


def test_every_enumerated_window_agrees_with_the_round_engine():
    total, trig = G.window_table(G.base_strips)
    rnd = np.random.default_rng(1)
    for _ in range(300):
        stops = [int(rnd.integers(len(s))) for s in G.base_strips]
        w = slots.window_at(G.base_strips, stops, 3)
        t = G.trigger(w)
        assert G.window_multiplier(w)[2] == total[tuple(stops)]
        assert trig[tuple(stops)] == (-1 if t is None else G.d["free_spin_triggers"].index(t))


def test_a_round_never_pays_more_than_the_max_win_and_reaching_it_ends_the_free_spins():
    st = slots.new_state(G, BET)
    st.update(cap=194 * 1000, capped=False, win=0)
    st["free_spins"] = {"awarded": 15, "played": 3, "trigger": "STAR"}
    st["breakdown"]["base"] = st["win"] = 190 * 1000
    fs_total, _ = G.window_table(G.fs_strips)
    stops = [int(i) for i in np.argwhere(fs_total >= 10)[0]]
    st = G._next(st)
    st = G.act(st, {"type": "spin"}, ReplayRNG([[len(s), i] for s, i in zip(G.fs_strips, stops)]))
    step = st["steps"][-1]
    assert step["capped"] and step["win"] == 4_000 and st["win"] == 194_000 == st["cap"]
    assert st["status"] == "finished" and st["free_spins"]["played"] == 4 < st["free_spins"]["awarded"]
    assert sum(st["breakdown"].values()) == st["win"]


def test_no_simulated_round_exceeds_the_declared_max_win():
    stats = par.simulate_generic(G, G.validate_bet({"stake": 10_000}), 5_000, 3, rng_factory=SeededRNG)
    assert stats["max_win"] <= G.declared.max_win


def test_the_exact_rtp_is_the_declared_95_percent_within_its_rounding():
    ex = G.exact_rtp(BET)
    assert set(ex) == {"base", "free_spins"}
    total = sum(ex.values())
    assert abs(total * 100 - Fraction(95)) <= Fraction(5, 1000)  # "95.00": +-0.005 pp
    assert G.declared.rtp == Decimal("95.00") >= Decimal("84.24")  # GP §8(4)


def test_the_exact_free_spin_part_agrees_with_a_monte_carlo_over_the_window_tables():
    base_total, base_trig = G.window_table(G.base_strips)
    fs_total, _ = G.window_table(G.fs_strips)
    rnd = np.random.default_rng(11)
    n = 2_000_000
    flat_b, flat_t, flat_f = base_total.ravel(), base_trig.ravel(), fs_total.ravel()
    pick = rnd.integers(0, flat_b.size, n)
    wb, tr = flat_b[pick], flat_t[pick]
    fs_part = np.zeros(n, dtype=np.int64)
    for ti, t in enumerate(G.d["free_spin_triggers"]):
        idx = np.nonzero(tr == ti)[0]
        sums = flat_f[rnd.integers(0, flat_f.size, (idx.size, t["spins"]))].sum(axis=1)
        fs_part[idx] = np.minimum(wb[idx] + sums, 194) - wb[idx]
    ex = G.exact_rtp(BET)
    assert abs(wb.mean() - float(ex["base"])) < 4 * wb.std() / math.sqrt(n)
    assert abs(fs_part.mean() - float(ex["free_spins"])) < 4 * fs_part.std() / math.sqrt(n)


def test_the_round_engine_agrees_with_the_exact_rtp():
    stats = par.simulate_generic(G, BET, 15_000, 17, rng_factory=SeededRNG)
    s = par.summarise(stats, BET.total_stake)
    assert abs(s["rtp"] - float(sum(G.exact_rtp(BET).values()))) < 4 * s["standard_error"]


@pytest.mark.parametrize(
    "params, code",
    [
        ({"stake": 490}, "game.stake_below_min"),
        ({"stake": 10_010}, "game.stake_above_max"),
        ({"stake": 505}, "game.stake_step"),
        ({"stake": "500"}, "game.invalid_stake"),
        ({"stake": 5.0}, "game.invalid_stake"),
        ({"stake": 500, "lines": 27}, "game.invalid_bet"),
    ],
)
def test_bet_validation_refuses_invalid_stakes_with_stable_codes(params, code):
    with pytest.raises(BetError) as e:
        G.validate_bet(params)
    assert e.value.code == code and e.value.message_cs


def test_bets_run_from_5_to_100_czk_in_steps_of_ten_haler():
    assert G.validate_bet({}).total_stake == 500 and G.validate_bet({"stake": 10_000}).total_stake == 10_000
    assert G.validate_bet({"stake": 5_130}).params == {"stake": 5_130}
    d = G.declared
    assert (d.min_bet, d.max_bet, d.unfinished_deadline_days) == (500, 10_000, 90)
    assert d.avg_hourly_loss == 900_000  # 100 CZK x 5 % x 1,800 = 9,000 CZK, as the catalogue states


def test_recorded_rounds_replay_and_states_are_plain_json():
    rng = SeededRNG(8)
    seen_fs = False
    for _ in range(1500):
        rec_rng = RecordingRNG(rng)
        st = G.start(BET, rec_rng)
        actions = []
        while st["status"] == "awaiting_action":
            actions.append(G.default_action(st))
            st = G.act(json.loads(json.dumps(st)), actions[-1], rec_rng)
        seen_fs |= bool(actions)
        record: dict[str, Any] = {"bet": BET.params, "actions": actions, "draws": rec_rng.draws, "state": st}
        assert G.replay(record) == st and json.loads(json.dumps(st)) == st
    assert seen_fs
    bad = copy.deepcopy(record)
    bad["draws"].append([2, 0])
    with pytest.raises(ReplayMismatch):
        G.replay(bad)


def test_describe_is_json_with_rules_in_both_languages():
    desc = G.describe()
    assert json.loads(json.dumps(desc)) == desc
    assert "19,400" in desc["rules_en"] and "19 400" in desc["rules_cs"] and desc["max_win_multiplier"] == 194
