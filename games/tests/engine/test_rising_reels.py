"""Rising Reels (games/engine/games/rising_reels.py): growing ways 45 -> 1,875 with winning re-spins, 8 free spins on
3,125 ways, the exact RTP over the stages and the fast simulator."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np

from core.rng import SeededRNG
from games.engine import ReplayRNG, play, slots, ways
from games.engine.games import rising_reels as rr

G = rr.RISING_REELS
BET = G.validate_bet({"level": 1, "coin_value": 2})  # 1 CZK, line bet 0.02 CZK


def test_the_ways_grow_45_135_405_675_1125_1875_and_3125_in_the_free_spins():
    assert [math.prod(h) for h in rr.STAGES] == [45, 135, 405, 675, 1125, 1875]
    assert math.prod(rr.FREE_SPIN_HEIGHTS) == 3125
    assert all(sum(b) - sum(a) == 2 for a, b in zip(rr.STAGES, rr.STAGES[1:]))  # each re-spin opens 2 positions


def test_a_win_gives_a_re_spin_with_more_positions_and_a_spin_without_a_win_ends_them():
    rng = SeededRNG(3)
    for _ in range(3000):
        rec = play(G, BET, rng, [{"type": "spin"}] * 8)
        st = rec["state"]
        spins = [s for s in st["steps"] if s.get("mode") == "base"]
        for n, s in enumerate(spins):
            assert s["heights"] == rr.STAGES[n] and [len(c) for c in s["window"]] == rr.STAGES[n]
            assert s["ways"] == math.prod(rr.STAGES[n])
        assert all(s["win"] > 0 for s in spins[:-1])
        assert spins[-1]["win"] == 0 or len(spins) == 6
        assert G.replay(rec) == st
        if "free_spins" in st:
            break
    assert "free_spins" in st and len(spins) == 6 and spins[-1]["win"] > 0
    free = [s for s in st["steps"] if s.get("mode") == "free"]
    assert len(free) == 8 and all(s["ways"] == 3125 for s in free)
    assert st["breakdown"]["free_spins"] == sum(s["win"] for s in free)
    assert st["breakdown"]["bonus"] == sum(s["win"] for s in spins[1:])


def test_a_spin_pays_the_ways_of_its_open_positions():
    w = [["SEVEN"], ["SEVEN", "WILD", "A"], ["SEVEN", "B", "SEVEN", "C", "D"], ["X", "Y", "Z"], ["SEVEN"]]
    assert G.evaluator.evaluate(w) == [["SEVEN", 3, 1 * 2 * 2, 10 * 4, "ltr"]]


def test_the_exact_rtp_is_the_declared_97_percent():
    ex = G.exact_rtp(BET)
    assert set(ex) == {"base", "bonus", "free_spins"}
    assert G.declared.rtp == Decimal("97.00")
    assert abs(100 * sum(ex.values()) - Fraction(97)) <= Fraction(5, 1000)


def test_p_win_is_the_enumeration_of_the_first_three_reels():
    heights = rr.STAGES[0]
    hits = total = 0
    for a in range(len(G.strips[0])):
        for b in range(len(G.strips[1])):
            for c in range(len(G.strips[2])):
                w = [slots.column(G.strips[j], s, heights[j]) for j, s in enumerate((a, b, c))]
                w += [["SEVEN"] * heights[3], ["SEVEN"] * heights[4]]
                hits += bool(G.evaluator.evaluate(w))
                total += 1
    assert G.p_win(heights) == Fraction(hits, total)


def test_the_fast_simulator_and_the_engine_agree_with_the_exact_parts():
    n = 2_000_000
    stats = G.simulate_fast(BET, n, 9)
    ex = G.exact_rtp(BET)
    for part in ("base", "bonus", "free_spins"):
        m = stats["breakdown"][part] / stats["total_stake"]
        sd = math.sqrt(stats["breakdown_sum_sq"][part] / n / 100**2 - m * m)
        assert abs(m - float(ex[part])) < 4 * sd / math.sqrt(n), part
    rng = SeededRNG(4)
    base = 0
    for _ in range(20_000):
        base += G.start(BET, rng)["breakdown"]["base"]
    sd_base = math.sqrt(stats["breakdown_sum_sq"]["base"] / n / 100**2 - float(ex["base"]) ** 2)
    assert abs(base / (20_000 * 100) - float(ex["base"])) < 4 * sd_base / math.sqrt(20_000)


def test_the_declared_max_win_is_a_bound_of_a_round():
    assert G.max_win_multiplier == G.max_round_multiplier()
    best = max(
        ways.max_ways(G.evaluator, G.strips, rr.FREE_SPIN_HEIGHTS, s) * max(p.values()) for s, p in rr.PAYTABLE.items()
    )
    assert G.max_win_multiplier >= 8 * best / 50


def test_replays_hold_for_free_spin_rounds():
    rnd = np.random.default_rng(1)
    del rnd
    st = None
    for seed in range(20_000):
        st = G.start(BET, SeededRNG(seed))
        if st["status"] == "awaiting_action":
            break
    assert st is not None and st["pending"]["type"] == "free_spin"
    rec = play(G, BET, SeededRNG(seed), [{"type": "spin"}] * 8)
    assert G.replay(rec) == rec["state"] and rec["state"]["status"] == "finished"
    assert ReplayRNG(rec["draws"]) is not None
