"""Tome of Sands (games/engine/games/tome_of_sands.py): the TOME as wild and scatter, free spins with an expanding
symbol drawn when they start, the exact base game, the exact (uncapped) free-spin design value and the simulated
RTP."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest

from core.rng import SeededRNG
from games.engine import BetError, play, slots
from games.engine.games import tome_of_sands as ts

G = ts.TOME_OF_SANDS
BET = G.validate_bet({"lines": 10, "coins": 1, "coin_value": 10})


def window(*rows):
    return [[rows[r][j] for r in range(3)] for j in range(5)]


def test_the_tome_substitutes_and_pays_as_a_scatter():
    w = window(
        ["A", "Q", "TOME", "J", "K"], ["EXPLORER", "TOME", "EXPLORER", "TEN", "Q"], ["K", "J", "Q", "TOME", "TEN"]
    )
    res = G.spin_result(w, 1, 10, 10, None)
    assert res["line_wins"] == [[1, "EXPLORER", 3, 100 * 10]] and res["scatter"] == {"count": 3, "win": 2 * 10}
    assert res["win"] == 1020 and "expansion" not in res


def test_the_expanding_symbol_covers_its_reels_and_pays_on_every_played_line_even_when_not_adjacent():
    w = window(["PHARAOH", "Q", "K", "J", "PHARAOH"], ["A", "K", "Q", "PHARAOH", "TEN"], ["K", "J", "Q", "A", "J"])
    res = G.spin_result(w, 10, 20, 200, "PHARAOH")
    assert res["expansion"] == {"symbol": "PHARAOH", "reels": [0, 3, 4], "count": 3, "win": 40 * 20 * 10}
    assert res["expanded_window"][3] == ["PHARAOH"] * 3 and res["expanded_window"][1] == w[1]
    low = G.spin_result(w, 10, 20, 200, "A")  # A needs 3 reels: it shows on 2 -> nothing
    assert low["expansion"]["win"] == 0 and low["expansion"]["reels"] == []


def test_three_tomes_draw_one_expanding_symbol_for_all_ten_free_spins():
    for seed in range(50_000):
        st = G.start(BET, SeededRNG(seed))
        if st["status"] == "awaiting_action":
            break
    assert st["pending"]["type"] == "free_spin" and st["pending"]["spins_left"] == 10
    sym = st["free_spins"]["expanding"]
    assert sym in ts.EXPANDING and st["steps"][-1] == {
        "type": "trigger",
        "feature": "free_spins",
        "spins": 10,
        "expanding": sym,
    }
    rec = play(G, BET, SeededRNG(seed), [{"type": "spin"}] * 100)
    final = rec["state"]
    free = [s for s in final["steps"] if s.get("mode") == "free"]
    assert len(free) == final["free_spins"]["awarded"] >= 10 and all(s["expansion"]["symbol"] == sym for s in free)
    assert final["breakdown"]["free_spins"] == sum(s["win"] for s in free) and G.replay(rec) == final


def test_the_declared_96_20_percent_is_the_exact_base_game_and_the_free_spins_design_value_rounded_down():
    """96.2082 % before the 5,200x cap (which takes about 0.002 pp): the declared figure is it rounded down."""
    ex = G.exact_rtp(BET)
    assert set(ex) == {"base_lines", "base_scatter"}
    fs = G.free_spins_value()
    theoretical = 100 * (sum(ex.values()) + fs["free_spins"])
    assert G.declared.rtp == Decimal("96.20") == Decimal(math.floor(theoretical * 100)) / 100
    assert Fraction("96.20") <= theoretical - Fraction(2, 1000) < Fraction("96.21")
    assert fs["trigger"] == sum(p for k, p in slots.count_probabilities(G.strips, 3, "TOME").items() if k >= 3)


def test_the_fast_simulator_agrees_with_the_exact_base_game_and_the_free_spin_value():
    n = 2_000_000
    stats = G.simulate_fast(BET, n, 4)
    ex = G.exact_rtp(BET)
    fs = float(G.free_spins_value()["free_spins"])
    for part, value in (("base", float(sum(ex.values()))), ("free_spins", fs)):
        m = stats["breakdown"][part] / stats["total_stake"]
        sd = math.sqrt(stats["breakdown_sum_sq"][part] / n / 100**2 - m * m)
        assert abs(m - value) < 4 * sd / math.sqrt(n), part


def test_engine_rounds_agree_with_the_exact_base_game():
    rng = SeededRNG(6)
    n, base = 20_000, 0
    for _ in range(n):
        st = G.start(BET, rng)
        while st["status"] == "awaiting_action":
            st = G.act(st, {"type": "spin"}, rng)
        base += st["breakdown"]["base"]
    assert abs(base / (n * 100) - float(sum(G.exact_rtp(BET).values()))) < 0.05


def test_the_base_game_can_never_reach_the_cap():
    top_line = max(max(p.values()) for p in ts.PAYTABLE.values())
    assert top_line == 5000 and max(ts.SCATTER_PAYS.values()) == 200
    assert G.max_win_multiplier == 5200 == top_line + 200  # all lines' top pays = 5,000 stakes, + the TOMEs


def test_the_bet_is_coin_value_x_coins_x_lines_up_to_100_czk():
    assert G.validate_bet({"lines": 10, "coins": 5, "coin_value": 200}).total_stake == 10_000
    assert G.declared.max_bet == 10_000 and G.declared.min_bet == 10
    for bad in ({"lines": 11}, {"coin_value": 5}, {"coins": 0}):
        with pytest.raises(BetError):
            G.validate_bet(bad)


@pytest.mark.slow
def test_the_simulated_rtp_agrees_with_the_declared_96_21_percent():
    n = 2_000_000
    stats = G.simulate_fast(BET, n, 20240601)
    base = float(sum(G.exact_rtp(BET).values()))
    fs = stats["breakdown"]["free_spins"] / stats["total_stake"]
    sd = math.sqrt(stats["breakdown_sum_sq"]["free_spins"] / n / 100**2 - fs * fs)
    assert abs(base + fs - 0.9621) < 2.576 * sd / math.sqrt(n) + 0.00005
