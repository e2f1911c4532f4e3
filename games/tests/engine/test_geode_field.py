"""Geode Field (games/engine/games/geode_field.py): Crystal Grid's round on a 7x7 grid with clusters of 5 or more
touching horizontally or vertically, cascades, its own numpy simulator (packed masks, ``BitGrid`` flood fills,
``refill_np``) against the engine, the replay of recorded draws and the simulated RTP."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest

from core.rng import SeededRNG
from games.engine import ReplayRNG, cluster, get_game, mech, play
from games.engine.games import geode_field as gfm

G = gfm.GEODE_FIELD_V1
BET = G.validate_bet({"stake": 100})


def test_the_game_is_registered_with_the_figures_of_the_catalogue_entry_it_follows():
    assert get_game("geode_field", 1) is G
    d = G.declared
    assert d.rtp == Decimal("96.75") and d.max_bet == 10_000 and d.unfinished_deadline_days == 90
    assert d.avg_hourly_loss == 585_000  # 100 CZK x 3.25 % x 1,800 = 5,850 CZK, the catalogue's figure
    assert d.max_win == 500 * 10_000  # 50,000 CZK: the platform's per-round cap, so the max bet is offered whole
    assert (G.cols, G.rows, G.diagonal, G.min_size) == (7, 7, False, 5)


def test_a_group_of_four_pays_nothing_and_five_touching_horizontally_or_vertically_pay():
    w = [["QUARTZ"] * 7 for _ in range(7)]
    for j in range(7):
        for r in range(7):
            w[j][r] = ["RUBY", "TOPAZ", "AMBER", "EMERALD"][(j + 2 * r) % 4]
    assert G.clusters(w) == []  # no two neighbours alike
    for j, r in ((0, 0), (1, 0), (2, 0), (3, 0)):
        w[j][r] = "HEART"
    assert G.clusters(w) == []  # four hearts in a row
    w[3][1] = "PRISM"  # the wild joins them: five
    found = G.clusters(w)
    assert [f[:3] for f in found] == [["HEART", 5, 16]]
    w[3][1], w[2][1], w[1][1] = "HEART", "HEART", "HEART"  # seven hearts: 5 x the bet (the catalogue's example)
    assert ["HEART", 7, 50] in [f[:3] for f in G.clusters(w)]
    diagonal = [["X"] * 7 for _ in range(7)]
    for k in range(5):
        diagonal[k][k] = "DIAMOND"
    assert not cluster.find_clusters(diagonal, gfm.PAYS, gfm.WILD, diagonal=False)


def test_the_numpy_masks_put_cell_j_r_at_bit_j_times_7_plus_r():
    rnd = np.random.default_rng(3)
    grid = rnd.integers(0, len(gfm.SYMBOLS), size=(50, 7, 7)).astype(np.int8)
    masks = G.masks(grid)
    for i, code in enumerate(G._fast["pair_syms"]):
        for k in range(50):
            expect = sum(1 << (j * 7 + r) for j in range(7) for r in range(7) if grid[k, j, r] == code)
            assert int(masks[k, i]) == expect


def test_the_fast_simulator_plays_the_same_rounds_and_cascades_as_the_engine():
    rnd = np.random.default_rng(8)
    stops = np.stack([rnd.integers(0, len(s), size=1500) for s in G.strips], axis=1)
    units, casc, _, _ = G.win_units(stops)
    assert casc.max() >= 2
    for i in range(1500):
        st = G.start(BET, ReplayRNG([[len(s), int(x)] for s, x in zip(G.strips, stops[i])]))
        assert st["win"] == units[i] * 10 and st["cascades"] == casc[i]


def test_rounds_draw_seven_stops_cascade_and_replay_and_the_strips_are_the_declared_shuffles():
    rng = SeededRNG(2)
    cascaded = 0
    for _ in range(200):
        rec = play(G, BET, rng)
        st = rec["state"]
        assert len(rec["draws"]) == 7 and G.replay(rec) == st and st["status"] == "finished"
        assert st["steps"][-1]["clusters"] == [] or st["capped"]
        assert all(len(c) == 7 for c in st["steps"][0]["window"]) and len(st["steps"][0]["window"]) == 7
        cascaded += st["cascades"] > 0
    assert cascaded > 20
    for c, seed, strip in zip(gfm.COLUMN_COUNTS, gfm.STRIP_SEEDS, G.strips):
        assert strip == mech.shuffled_strip(c, seed) and {s: strip.count(s) for s in c} == c


@pytest.mark.slow
def test_the_simulated_rtp_agrees_with_the_declared_96_75_percent():
    n = 2_000_000
    stats = G.simulate_fast(BET, n, 20240601)
    mean = stats["total_win"] / stats["total_stake"]
    se = math.sqrt(stats["sum_sq"] / n / 100**2 - mean**2) / math.sqrt(n)
    assert abs(mean - 0.9675) < 2.576 * se + 0.00005, (mean, se)
    assert stats["max_win"] <= G.declared.max_win // G.declared.max_bet * 100
