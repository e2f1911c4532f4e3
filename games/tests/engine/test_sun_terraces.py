"""Sun Terraces version 1 (games/engine/games/sun_terraces.py): 720 ways on reels of 3, 4, 5, 4 and 3 positions,
the wild on reels 2-4, the level x 10 coins bet, the exact RTP, the fast simulator and the replay of recorded draws."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from core.rng import SeededRNG
from games.engine import BetError, ReplayRNG, get_game, play, ways
from games.engine.games import sun_terraces as stm

G = stm.SUN_TERRACES_V1  # version 2 (the avalanche): test_sun_terraces_avalanche.py
BET = G.validate_bet({"level": 1, "coin_value": 10})  # 1 CZK: a line bet of 0.10 CZK


def test_the_game_is_registered_with_the_figures_of_the_catalogue_entry_it_follows():
    assert get_game("sun_terraces", 1) is G
    d = G.declared
    assert d.rtp == Decimal("96.48") and d.max_bet == 100_000 and d.unfinished_deadline_days == 180
    assert d.min_bet == 10 and G.d["follows"]["entry"] == "29. Pyramid: Quest for Immortality"
    assert G.describe()["ways"] == 720 and G.describe()["heights"] == [3, 4, 5, 4, 3]


def test_the_window_has_3_4_5_4_3_positions_and_a_symbol_pays_its_value_times_the_ways():
    w = [["A", "K", "Q"], ["A", "WILD", "J", "10"], ["A", "A", "Q", "J", "10"], ["K", "K", "K", "Q"], ["A", "J", "J"]]
    res = G.spin_result(w, 10)
    # A: 1 x 2 x 2 on reels 1-3 (reel 4 shows none): 3 reels pay 3 line bets a way
    assert ["A", 3, 4, 3 * 4 * 10, "ltr"] in res["ways_wins"]
    # K: reel 1 once, reel 2 the wild, reel 3 none: only two reels, no pay; Q: 1 x 1 x 1 x 1 on 4 reels
    assert not [x for x in res["ways_wins"] if x[0] == "K"]
    assert ["Q", 4, 1, 4 * 10, "ltr"] in res["ways_wins"]
    assert res["win"] == sum(x[3] for x in res["ways_wins"])


def test_the_wild_is_only_on_reels_2_3_and_4():
    assert [stm.WILD in s for s in G.strips] == [False, True, True, True, False]


def test_the_bet_is_10_coins_times_the_level_times_the_coin_value_up_to_1000_czk():
    assert G.validate_bet({"level": 10, "coin_value": 1000}).total_stake == 100_000
    assert G.validate_bet({"level": 3, "coin_value": 5}).total_stake == 150
    assert G.pay_unit({"level": 3, "coin_value": 5}) == 15
    for bad in ({"level": 11, "coin_value": 10}, {"level": 1, "coin_value": 3}, {"stake": 100}):
        with pytest.raises(BetError):
            G.validate_bet(bad)


def test_a_round_is_one_spin_of_five_recorded_draws_and_replays():
    rng = SeededRNG(3)
    wild_wins = 0
    for _ in range(300):
        rec = play(G, BET, rng)
        st = rec["state"]
        assert len(rec["draws"]) == 5 and st["status"] == "finished" and G.replay(rec) == st
        assert [len(c) for c in st["steps"][0]["window"]] == [3, 4, 5, 4, 3]
        assert st["win"] == st["steps"][0]["win"] == sum(x[3] for x in st["steps"][0]["ways_wins"])
        wild_wins += "wild" in st["steps"][0]["features"]
    assert wild_wins > 10


def test_the_exact_rtp_is_the_declared_96_48_percent():
    ex = G.exact_rtp(BET)
    assert ex is not None and set(ex) == {"base"}
    assert abs(100 * ex["base"] - Fraction("96.48")) <= Fraction(5, 1000)
    assert ex == G.exact_rtp(G.validate_bet({"level": 10, "coin_value": 1000}))  # the same at every bet


def test_the_exact_rtp_equals_the_enumeration_of_every_stop_of_reels_1_to_3_with_reels_4_and_5_held():
    # the reel-by-reel formula against a full enumeration of reels 1-3 with reels 4-5 fixed at a few stops
    rnd = np.random.default_rng(1)
    ev = G.evaluator
    for _ in range(3):
        s4, s5 = (int(rnd.integers(0, len(G.strips[j]))) for j in (3, 4))
        strips = [
            G.strips[0],
            G.strips[1],
            G.strips[2],
            [G.strips[3][(s4 + i) % len(G.strips[3])] for i in range(4)],
            [G.strips[4][(s5 + i) % len(G.strips[4])] for i in range(3)],
        ]
        exact = ways.expected_pay(ev, strips, stm.HEIGHTS)
        total = Fraction(0)
        for a in range(len(strips[0])):
            for b in range(len(strips[1])):
                for c in range(len(strips[2])):
                    w = [
                        [st[(x + i) % len(st)] for i in range(h)]
                        for st, x, h in zip(strips, (a, b, c, 0, 0), stm.HEIGHTS)
                    ]
                    total += sum(x[3] for x in ev.evaluate(w))
        # reels 4 and 5 are strips as long as their windows: every stop shows the same symbols
        assert exact == total / (len(strips[0]) * len(strips[1]) * len(strips[2])), (s4, s5)


def test_the_fast_simulator_plays_the_same_spins_as_the_engine_and_agrees_with_the_exact_rtp():
    rnd = np.random.default_rng(8)
    stops = np.stack([rnd.integers(0, len(s), size=2000) for s in G.strips], axis=1)
    units = G.win_units(stops)
    for i in range(2000):
        st = G.start(BET, ReplayRNG([[len(s), int(x)] for s, x in zip(G.strips, stops[i])]))
        assert st["win"] == units[i] * 10
    stats = G.simulate_fast(BET, 1_000_000, 5)
    m = stats["total_win"] / stats["total_stake"]
    sd = math.sqrt(stats["sum_sq"] / stats["rounds"] / 100**2 - m * m)
    exact = G.exact_rtp(BET)
    assert exact is not None
    assert abs(m - float(exact["base"])) < 4 * sd / math.sqrt(stats["rounds"])
    assert stats["max_win"] <= G.max_win_multiplier * 100


def test_the_max_win_is_a_bound_of_a_round():
    assert G.max_win_multiplier == G.max_round_multiplier() == 72
    assert G.declared.max_win == 72 * 100_000
