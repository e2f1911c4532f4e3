"""Seven Lanterns (games/engine/games/seven_lanterns.py): 243 ways, WILD / DOUBLE WILD, LANTERN free spins x2 and
the Second Chance pick, the exact RTP and the fast simulator."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from core.rng import SeededRNG
from games.engine import BetError, ReplayRNG, play, slots
from games.engine.games import seven_lanterns as sl

G = sl.SEVEN_LANTERNS
BET = G.validate_bet({"stake": 100})


def stops_with(counts):
    """Stops showing ``counts[j]`` LANTERNs on each reel (None: any)."""
    out = []
    for j, s in enumerate(G.strips):
        out.append(next(i for i in range(len(s)) if slots.column(s, i, 3).count("LANTERN") == counts[j]))
    return out


def base_draws(counts):
    return [[len(s), i] for s, i in zip(G.strips, stops_with(counts))]


def test_ways_pay_tenths_of_the_stake_per_way_and_the_double_wild_counts_twice():
    w = [["DRAGON", "A", "K"], ["DOUBLE_WILD", "Q", "J"], ["DRAGON", "WILD", "J"], ["Q", "Q", "J"], ["A"] * 3]
    res = G.spin_result(w, 100, 1)
    assert ["DRAGON", 3, 1 * 2 * 2, 5 * 4 * 10, "ltr"] in res["ways_wins"]
    assert ["A", 3, 1 * 2 * 1, 1 * 2 * 10, "ltr"] in res["ways_wins"]


def test_three_lanterns_pay_twice_the_bet_and_give_seven_doubled_free_spins():
    rng = SeededRNG(1)
    draws = base_draws([1, 0, 1, 0, 1]) + [[len(s), rng.randbelow(len(s))] for _ in range(7) for s in G.strips]
    replay = ReplayRNG(draws)
    st = G.start(BET, replay)
    assert st["steps"][0]["scatter"] == {"count": 3, "win": 200}
    assert st["pending"]["type"] == "free_spin" and st["pending"]["spins_left"] == 7
    while st["status"] == "awaiting_action":
        st = G.act(st, {"type": "spin"}, replay)
    free = [s for s in st["steps"] if s.get("mode") == "free"]
    assert replay.exhausted and len(free) == 7
    for s in free:
        assert s["win"] == 2 * (sum(w[3] for w in s["ways_wins"]) // 2 + (200 if s["scatter"]["count"] >= 3 else 0))
    assert st["breakdown"]["free_spins"] == sum(s["win"] for s in free)


def test_two_lanterns_start_the_second_chance_and_the_pick_never_changes_the_result():
    results = []
    for seed in range(400):
        draws = base_draws([1, 0, 1, 0, 0])
        r = SeededRNG(seed)
        draws += [[1000, r.randbelow(1000)] for _ in range(5)] + [[n, r.randbelow(n)] for n in range(7, 1, -1)]
        st = G.start(BET, ReplayRNG(draws))
        assert st["pending"]["type"] == "pick" and len(st["pending"]["options"]) == 7
        assert "pick" in st and all("order" not in s for s in st["steps"])  # the hidden order is not in the steps
        outs = []
        for index in (0, 3, 6):
            s2 = G.act(st, {"type": "pick", "index": index}, ReplayRNG([]))
            step = next(x for x in s2["steps"] if x["type"] == "pick")
            assert step["board"][index] == step["reveal"] == st["pick"]["order"][0]
            outs.append((step["reveal"], s2["win"], s2["pending"] and s2["pending"]["type"]))
        assert outs[0] == outs[1] == outs[2]
        results.append(outs[0][0])
        if "LANTERN" in results and any(x != "LANTERN" for x in results):
            break
    assert "LANTERN" in results and any(isinstance(x, int) for x in results)


def test_a_lantern_behind_the_pick_gives_the_free_spins_and_a_multiplier_pays_the_bet_times_it():
    found: dict[Any, Any] = {}
    for seed in range(2000):
        rec = play(G, BET, SeededRNG(seed), [{"type": "pick", "index": 2}] + [{"type": "spin"}] * 7)
        st = rec["state"]
        if st["status"] != "finished":
            continue  # a 3-LANTERN round: no pick
        picks = [s for s in st["steps"] if s["type"] == "pick"]
        if not picks:
            continue
        found.setdefault(picks[0]["reveal"] == "LANTERN", st)
        assert G.replay(rec) == st
        if len(found) == 2:
            break
    fs, mult = found[True], found[False]
    assert fs["free_spins"]["played"] == 7 and fs["breakdown"]["bonus"] == 0 and fs["status"] == "finished"
    m = [s for s in mult["steps"] if s["type"] == "pick"][0]["multiplier"]
    assert mult["breakdown"]["bonus"] == m * 100 and "free_spins" not in mult


def test_the_declared_96_27_percent_is_the_exact_rtp_rounded_down():
    ex = G.exact_rtp(BET)
    assert set(ex) == {"base_ways", "base_scatter", "free_spins", "bonus"}
    assert G.declared.rtp == Decimal("96.27")  # the exact 96.2767 % rounded down
    assert Fraction("96.27") <= 100 * sum(ex.values()) < Fraction("96.28")


def test_the_fast_simulator_agrees_with_every_exact_part():
    stats = G.simulate_fast(BET, 2_000_000, 5)
    ex = G.exact_rtp(BET)
    parts = {"base": ex["base_ways"] + ex["base_scatter"], "free_spins": ex["free_spins"], "bonus": ex["bonus"]}
    for part, value in parts.items():
        m = stats["breakdown"][part] / stats["total_stake"]
        sd = math.sqrt(stats["breakdown_sum_sq"][part] / stats["rounds"] / 100**2 - m * m)
        assert abs(m - float(value)) < 4 * sd / math.sqrt(stats["rounds"]), part
    assert stats["max_win"] <= G.declared.max_win // G.declared.max_bet * 100


def test_the_engine_rounds_agree_with_the_exact_base_part():
    rng = SeededRNG(2)
    n = 20_000
    base = 0
    for _ in range(n):
        st = G.start(BET, rng)
        while st["status"] == "awaiting_action":
            st = G.act(st, G.default_action(st), rng)
        base += st["breakdown"]["base"]
    ex = G.exact_rtp(BET)
    assert abs(base / (n * 100) - float(ex["base_ways"] + ex["base_scatter"])) < 0.05


def test_the_max_win_is_a_bound_of_a_round():
    assert G.max_win_multiplier == G.max_round_multiplier() == 1299
    assert G.declared.max_win == 1299 * 30_000 and G.declared.max_bet == 30_000  # 300 CZK


def test_the_total_bet_is_0_10_to_300_czk_in_steps_of_0_10():
    assert G.validate_bet({"stake": 30_000}).total_stake == 30_000
    for bad in ({"stake": 30_010}, {"stake": 15}, {"stake": 0}, {"stake": "100"}, {"lines": 5}):
        with pytest.raises(BetError):
            G.validate_bet(bad)
