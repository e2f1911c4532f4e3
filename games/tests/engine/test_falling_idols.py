"""Falling Idols (games/engine/games/falling_idols.py): avalanches on 20 lines with the x1/x2/x3/x5 ladder, Free
Falls with x3/x6/x9/x15, the engine's rounds against the fast simulator, and the simulated RTP."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.rng import SeededRNG
from games.engine import BetError, ReplayRNG, cascade, play, slots
from games.engine.games import falling_idols as fi

G = fi.FALLING_IDOLS
BET = G.validate_bet({"level": 1, "coin_value": 5})  # 1 CZK, line bet 0.05 CZK


def draws_for(stops):
    return [[len(s), int(x)] for s, x in zip(G.strips, stops)]


def test_winning_symbols_fall_away_the_strip_refills_and_each_avalanche_raises_the_multiplier():
    rnd = np.random.default_rng(3)
    for _ in range(2000):
        stops = [int(rnd.integers(len(s))) for s in G.strips]
        steps, win, _ = G.sequence(ReplayRNG(draws_for(stops)), 5, fi.BASE_LADDER)
        if len(steps) >= 3:
            break
    assert len(steps) >= 3
    pointers = list(stops)
    for n, (prev, nxt) in enumerate(zip(steps, steps[1:])):
        assert prev["multiplier"] == fi.BASE_LADDER[min(n, 3)] and prev["line_wins"]
        removed = {(j, fi.LINES[w[0] - 1][j]) for w in prev["line_wins"] for j in range(w[2])}
        expected, pointers = cascade.refill(G.strips, pointers, prev["window"], removed)
        assert nxt["window"] == expected
        for w in prev["line_wins"]:
            assert w[3] == fi.PAYTABLE[w[1]][w[2]] * 5 * prev["multiplier"]
    assert steps[-1]["line_wins"] == [] and win == sum(s["win"] for s in steps)
    assert fi.BASE_LADDER == [1, 2, 3, 5] and max(fi.BASE_LADDER) == 5  # the catalogue's maximum 5x


def test_the_fast_simulator_plays_the_same_sequences_as_the_engine_for_both_ladders():
    rnd = np.random.default_rng(5)
    stops = np.stack([rnd.integers(0, len(s), size=2000) for s in G.strips], axis=1)
    for ladder in (fi.BASE_LADDER, fi.FREE_FALL_LADDER):
        units, trig, aval = G.sequence_units(stops, ladder)
        for i in range(2000):
            steps, win, t = G.sequence(ReplayRNG(draws_for(stops[i])), 1, ladder)
            assert (win, t, len(steps) - 1) == (units[i], trig[i], aval[i])


def test_three_free_fall_symbols_on_a_line_give_10_free_falls_with_the_higher_ladder():
    for seed in range(20_000):
        st = G.start(BET, SeededRNG(seed))
        if st["status"] == "awaiting_action":
            break
    assert st["pending"]["type"] == "free_spin" and st["pending"]["free_falls_left"] == 10
    assert any(s.get("free_fall_line") for s in st["steps"] if s["mode"] == "base")
    rec = play(G, BET, SeededRNG(seed), [{"type": "spin"}] * 60)
    final = rec["state"]
    assert final["status"] == "finished" and G.replay(rec) == final
    ff = final["free_falls"]
    assert ff["played"] == ff["awarded"] >= 10 and ff["awarded"] <= fi.MAX_FREE_FALLS
    free = [s for s in final["steps"] if s.get("mode") == "free"]
    assert all(s["multiplier"] == fi.FREE_FALL_LADDER[min(s["avalanche"], 3)] for s in free)
    assert final["breakdown"]["free_spins"] == sum(s["win"] for s in free)


def test_free_falls_stop_at_50_in_a_game():
    st = slots.new_state(G, BET)
    st.update(cap=2500 * 100, capped=False, free_falls={"awarded": 45, "played": 44})
    G._award(st)
    assert st["free_falls"]["awarded"] == 50 and st["steps"][-1]["free_falls"] == 5


def test_rounds_replay():
    rng = SeededRNG(12)
    for _ in range(200):
        rec = play(G, BET, rng, [{"type": "spin"}] * 60)
        assert G.replay(rec) == rec["state"]


def test_the_bet_is_20_coins_x_level_x_coin_value_up_to_1000_czk():
    assert G.validate_bet({"level": 10, "coin_value": 500}).total_stake == 100_000
    assert G.declared.min_bet == 20 and G.declared.unfinished_deadline_days == 180
    with pytest.raises(BetError):
        G.validate_bet({"level": 0, "coin_value": 5})


@pytest.mark.slow
def test_the_simulated_rtp_agrees_with_the_declared_96_percent():
    n = 2_000_000
    stats = G.simulate_fast(BET, n, 20240601)
    mean = stats["total_win"] / stats["total_stake"]
    se = math.sqrt(stats["sum_sq"] / n / 100**2 - mean**2) / math.sqrt(n)
    assert abs(mean - 0.96) < 2.576 * se + 0.00005, (mean, se)
