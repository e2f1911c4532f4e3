"""Prism Respin (games/engine/games/prism_respin.py): 10 lines both ways, expanding sticky wilds on reels 2-4 with
re-spins, the exact RTP over the held-reel states and the fast simulator."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest

from core.rng import SeededRNG
from games.engine import BetError, ReplayRNG, play, slots
from games.engine.games import prism_respin as pr

G = pr.PRISM_RESPIN
BET = G.validate_bet({"level": 1, "coin_value": 10})


def stop_where(j, pred):
    s = G.strips[j]
    return next(i for i in range(len(s)) if pred(slots.column(s, i, 3)))


def test_a_line_pays_from_the_left_and_from_the_right_and_five_of_a_kind_once():
    ev = G.evaluator
    w = [["X"] * 3 for _ in range(5)]
    w[0][1], w[1][1], w[2][1] = "BAR", "BAR", "BAR"
    w[4][1], w[3][1] = "GOLD", "GOLD"
    w[2][1] = "WILD"  # BAR BAR WILD GOLD GOLD: 3 BAR from the left, 3 GOLD from the right
    wins = slots.line_wins(w, G.lines[:1], ev, both_ways=True)
    assert wins == [[1, "BAR", 3, 50, "ltr"], [1, "GOLD", 3, 5, "rtl"]]
    full = [["BAR"] * 3 for _ in range(5)]
    assert slots.line_wins(full, G.lines[:1], ev, both_ways=True) == [[1, "BAR", 5, 250, "ltr"]]
    assert G.lut[(1, 1, 0, 7, 7)] == 50 + 5 and G.lut[(1,) * 5] == 250


def test_a_wild_expands_is_held_and_re_spins_the_other_reels_until_no_new_wild_lands():
    wild2 = stop_where(1, lambda c: "WILD" in c)
    wild4 = stop_where(3, lambda c: "WILD" in c)
    no3 = stop_where(2, lambda c: "WILD" not in c)
    draws = [
        [len(G.strips[0]), 0],
        [len(G.strips[1]), wild2],
        [len(G.strips[2]), no3],
        [len(G.strips[3]), stop_where(3, lambda c: "WILD" not in c)],
        [len(G.strips[4]), 0],
        # re-spin 1: reels 1, 3, 4, 5 spin; reel 4 brings a wild
        [len(G.strips[0]), 1],
        [len(G.strips[2]), no3],
        [len(G.strips[3]), wild4],
        [len(G.strips[4]), 1],
        # re-spin 2: reels 1, 3, 5 spin; no new wild -> the round ends
        [len(G.strips[0]), 2],
        [len(G.strips[2]), no3],
        [len(G.strips[4]), 2],
    ]
    rng = ReplayRNG(draws)
    st = G.start(BET, rng)
    assert rng.exhausted and st["status"] == "finished"
    spins = st["steps"]
    assert [s["mode"] for s in spins] == ["base", "respin", "respin"]
    assert [s["sticky_reels"] for s in spins] == [[], [1], [1, 3]]
    assert [s["new_wild_reels"] for s in spins] == [[1], [3], []]
    assert spins[1]["stops"][1] is None and spins[1]["window"][1] == ["WILD"] * 3
    assert spins[2]["window"][3] == ["WILD"] * 3
    assert (
        st["breakdown"]["base"] == spins[0]["win"]
        and st["breakdown"]["free_spins"] == spins[1]["win"] + spins[2]["win"]
    )
    assert st["win"] == sum(s["win"] for s in spins) == sum(w[3] for s in spins for w in s["line_wins"])


def test_the_exact_rtp_is_the_declared_96_10_percent():
    ex = G.exact_rtp(BET)
    assert set(ex) == {"base", "free_spins"} and ex["free_spins"] > 0
    assert G.declared.rtp == Decimal("96.09")  # the exact 96.0998 % rounded down
    assert Fraction("96.09") <= 100 * sum(ex.values()) < Fraction("96.10")


def test_the_exact_spin_value_agrees_with_the_lookup_table_over_every_window():
    # with reels 2-4 held, the spin value is the mean over reels 1 and 5 only: enumerate them
    held = frozenset(pr.WILD_REELS)
    total = 0
    for a in range(len(G.strips[0])):
        for b in range(len(G.strips[4])):
            w = [slots.column(G.strips[0], a, 3)] + [["WILD"] * 3] * 3 + [slots.column(G.strips[4], b, 3)]
            total += sum(x[3] for x in slots.line_wins(w, G.lines, G.evaluator, both_ways=True))
    assert G.spin_value(held) == Fraction(total, len(G.strips[0]) * len(G.strips[4]))


def test_the_fast_simulator_and_the_round_engine_agree_with_the_exact_parts():
    stats = G.simulate_fast(BET, 1_000_000, 3)
    ex = G.exact_rtp(BET)
    for part in ("base", "free_spins"):
        m = stats["breakdown"][part] / stats["total_stake"]
        sd = math.sqrt(stats["breakdown_sum_sq"][part] / stats["rounds"] / BET.total_stake**2 - m * m)
        assert abs(m - float(ex[part])) < 4 * sd / math.sqrt(stats["rounds"]), part
    rng = SeededRNG(5)
    n, tot = 20_000, 0
    for _ in range(n):
        rec = play(G, BET, rng)
        tot += rec["state"]["win"]
    assert abs(tot / (n * BET.total_stake) - float(sum(ex.values()))) < 0.12  # ~4 SE at 20,000 rounds


def test_rounds_replay_and_never_re_spin_more_than_three_times():
    rng = SeededRNG(9)
    for _ in range(300):
        rec = play(G, BET, rng)
        assert len(rec["state"]["steps"]) <= 4 and G.replay(rec) == rec["state"]


def test_the_bet_is_10_coins_x_level_x_coin_value_up_to_1000_czk():
    assert G.validate_bet({"level": 10, "coin_value": 1000}).total_stake == 100_000
    assert G.declared.min_bet == 10 and G.declared.unfinished_deadline_days == 180
    for bad in ({"level": 11}, {"coin_value": 3}, {"level": "1"}):
        with pytest.raises(BetError):
            G.validate_bet(bad)


def test_the_declared_max_win_is_a_bound_of_every_chain_of_re_spins():
    assert G.max_round_multiplier() == G.max_win_multiplier == 1020
    assert G.declared.max_win == 1020 * G.declared.max_bet
