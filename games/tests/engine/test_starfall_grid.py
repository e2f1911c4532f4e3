"""Starfall Grid (games/engine/games/starfall_grid.py): Crystal Grid's round with diagonal neighbours, its own
paytable and strips; the engine's rounds against the fast simulator, and the simulated RTP."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.rng import SeededRNG
from games.engine import ReplayRNG, cluster, mech, play
from games.engine.games import starfall_grid as sgm

G = sgm.STARFALL_GRID_V1
BET = G.validate_bet({"stake": 100})


def test_diagonal_neighbours_join_a_cluster():
    # rows: MAGE CLUB HEART / CLUB MAGE HEART / SPADE CLUB MAGE -- three MAGEs on the diagonal
    w = [["MAGE", "CLUB", "SPADE"], ["CLUB", "MAGE", "CLUB"], ["HEART", "HEART", "MAGE"]]
    found = G.clusters(w)
    assert ["MAGE", 3, 4] in [f[:3] for f in found] and ["CLUB", 3, 1] in [f[:3] for f in found]
    assert not cluster.find_clusters(w, {"MAGE": [[3, 1]]}, "SHIELD", diagonal=False)


def test_the_fast_simulator_plays_the_same_rounds_as_the_engine():
    rnd = np.random.default_rng(8)
    stops = np.stack([rnd.integers(0, len(s), size=2000) for s in G.strips], axis=1)
    units, casc, _, _ = G.win_units(stops)
    for i in range(2000):
        st = G.start(BET, ReplayRNG([[len(s), int(x)] for s, x in zip(G.strips, stops[i])]))
        assert st["win"] == units[i] * 10 and st["cascades"] == casc[i]


def test_rounds_cascade_and_replay_and_the_strips_are_the_declared_shuffles():
    rng = SeededRNG(2)
    for _ in range(200):
        rec = play(G, BET, rng)
        assert G.replay(rec) == rec["state"] and rec["state"]["status"] == "finished"
    for c, seed, strip in zip(sgm.COLUMN_COUNTS, sgm.STRIP_SEEDS, G.strips):
        assert strip == mech.shuffled_strip(c, seed)
    assert G.diagonal and G.declared.max_bet == 20_000 and G.declared.max_win == 250 * 20_000


@pytest.mark.slow
def test_the_simulated_rtp_agrees_with_the_declared_96_52_percent():
    n = 2_000_000
    stats = G.simulate_fast(BET, n, 20240601)
    mean = stats["total_win"] / stats["total_stake"]
    se = math.sqrt(stats["sum_sq"] / n / 100**2 - mean**2) / math.sqrt(n)
    assert abs(mean - 0.9652) < 2.576 * se + 0.00005, (mean, se)
