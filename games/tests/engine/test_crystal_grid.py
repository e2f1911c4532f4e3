"""Crystal Grid (games/engine/games/crystal_grid.py) and the cluster / cascade feature modules: clusters on 5x5 with
and without diagonals and on 7x7 with 5+, the pure engine against the numpy bitmask code, refills from the strips,
the engine's rounds against the fast simulator, and the simulated RTP."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from core.rng import SeededRNG
from games.engine import ReplayRNG, cascade, cluster, mech, play, slots
from games.engine.games import crystal_grid as cgm

G = cgm.CRYSTAL_GRID_V1  # version 1 (no bonus game); version 2: test_crystal_grid_bonus.py
BET = G.validate_bet({"stake": 100})
SYMS = ["W", "A", "B", "C", "D"]
PAYS = {"A": [[3, 1], [5, 4]], "B": [[3, 2]], "C": [[3, 1], [4, 3]], "D": [[3, 1]], "W": [[3, 7]]}


def test_a_cluster_is_a_connected_group_of_one_symbol_and_wilds_and_a_wild_serves_every_symbol():
    w = [["A", "A", "B"], ["W", "C", "B"], ["B", "C", "C"]]  # window[col][row]
    found = cluster.find_clusters(w, PAYS, "W", diagonal=False)
    # rows: A W B / A C C / B B C -- the W joins the A group and the C group; B B is only two
    assert [f[:3] for f in found] == [["A", 3, 1], ["C", 4, 3]]
    assert [1, 0] in found[0][3] and [1, 0] in found[1][3]
    diag = cluster.find_clusters([["A", "B", "B"], ["B", "A", "B"], ["B", "B", "A"]], PAYS, "W", diagonal=True)
    assert ["A", 3, 1] in [f[:3] for f in diag]  # the A diagonal joins only with diagonal neighbours
    assert "A" not in [
        f[0]
        for f in cluster.find_clusters([["A", "B", "B"], ["B", "A", "B"], ["B", "B", "A"]], PAYS, "W", diagonal=False)
    ]
    assert (
        cluster.pay_for(PAYS["A"], 4) == 1 and cluster.pay_for(PAYS["A"], 7) == 4 and cluster.pay_for(PAYS["A"], 2) == 0
    )


@pytest.mark.parametrize("layout", list(cgm.GRIDS))
def test_the_numpy_bitmask_clusters_equal_the_pure_engine_on_every_layout(layout):
    g = cgm.GRIDS[layout]
    cols, rows, diag, min_size = g["cols"], g["rows"], g["diagonal"], g["min_size"]
    pays = {s: [[t, v] for t, v in p if t >= min_size] or [[min_size, 1]] for s, p in PAYS.items()}
    bg = cluster.BitGrid(cols, rows, bool(diag))
    codes = [SYMS.index(s) for s in pays if s != "W"] + [0]
    tables = np.array([[cluster.pay_for(pays[SYMS[c]], k) for k in range(cols * rows + 1)] for c in codes])
    rnd = random.Random(3)
    grids = [[[rnd.choice(SYMS[1:] * 3 + ["W"]) for _ in range(rows)] for _ in range(cols)] for _ in range(400)]
    arr = np.array([[[SYMS.index(x) for x in col] for col in gr] for gr in grids], dtype=np.int8)
    sym = bg.masks(arr, codes)
    pay, won = bg.clusters(sym, sym | sym[:, -1:], tables, min_size)
    cells = bg.to_cells(won)
    for i, gr in enumerate(grids):
        found = cluster.find_clusters(gr, pays, "W", bool(diag))
        assert pay[i] == sum(f[2] for f in found)
        assert {tuple(c) for f in found for c in f[3]} == {
            (j, r) for j in range(cols) for r in range(rows) if cells[i, j, r]
        }
    if rows * len(codes) <= 64:  # the packed form: every symbol in one word per column
        ct = cascade.ColumnTables([["A"]] * cols, SYMS, rows)
        col_ints = (arr.astype(np.int64) * ct.powers[None, None, :]).sum(axis=2)
        p2, w2 = cluster.PackedGrid(bg, len(SYMS), codes).grid_clusters(col_ints, tables, min_size)
        assert (p2 == pay).all() and (w2 == won).all()


def test_removed_symbols_fall_and_new_ones_come_from_the_strip_above_without_a_draw():
    strips = [["A", "B", "C", "D", "E", "F"], ["G", "H", "I", "J"]]
    window = [slots.column(strips[0], 3, 3), slots.column(strips[1], 1, 3)]  # D E F / H I J
    out, ptrs = cascade.refill(strips, [3, 1], window, [[0, 1], [1, 0], [1, 2]])
    assert out == [["C", "D", "F"], ["J", "G", "I"]] and ptrs == [2, 3]  # C falls in; G, J from above (wrapping)


def test_the_numpy_refills_equal_the_pure_one():
    rnd = np.random.default_rng(2)
    strips = G.strips
    sc = cascade.StripCodes(strips, cgm.SYMBOLS)
    ct = cascade.ColumnTables(strips, cgm.SYMBOLS, 5)
    n = 300
    stops = np.stack([rnd.integers(0, len(s), size=n) for s in strips], axis=1)
    grid, cols = sc.window(stops, 5), ct.start(stops)
    assert (ct.decode(cols) == grid).all()
    removed = rnd.random((n, 5, 5)) < 0.3
    g2, p2 = cascade.refill_np(sc, grid, stops, removed)
    bits = (removed * (1 << np.arange(5))[None, None, :]).sum(axis=2)
    c3, p3 = ct.refill(cols, stops, bits)
    assert (ct.decode(c3) == g2).all() and (p3 == p2).all()
    for i in range(40):
        w = [[cgm.SYMBOLS[c] for c in col] for col in grid[i]]
        out, ptrs = cascade.refill(
            strips, list(stops[i]), w, [[j, r] for j in range(5) for r in range(5) if removed[i, j, r]]
        )
        assert out == [[cgm.SYMBOLS[c] for c in col] for col in g2[i]] and ptrs == list(p2[i])


def test_a_round_cascades_until_no_cluster_is_left_and_replays():
    seen = 0
    rng = SeededRNG(4)
    for _ in range(300):
        rec = play(G, BET, rng)
        st = rec["state"]
        assert len(rec["draws"]) == 5 and G.replay(rec) == st
        steps = st["steps"]
        assert steps[-1]["clusters"] == [] or st["capped"]
        for prev, nxt in zip(steps, steps[1:]):
            assert prev["clusters"] and nxt["type"] == "cascade"
        assert st["win"] == sum(c[2] for s in steps for c in s["clusters"])
        seen += len(steps) > 2
    assert seen > 10  # chains of two or more cascades happen


def test_the_fast_simulator_plays_the_same_rounds_as_the_engine():
    rnd = np.random.default_rng(8)
    stops = np.stack([rnd.integers(0, len(s), size=3000) for s in G.strips], axis=1)
    units, casc, _, _ = G.win_units(stops)
    for i in range(3000):
        st = G.start(BET, ReplayRNG([[len(s), int(x)] for s, x in zip(G.strips, stops[i])]))
        assert st["win"] == units[i] * 10 and st["cascades"] == casc[i]


def test_the_packed_and_the_per_symbol_cluster_search_agree():
    rnd = np.random.default_rng(9)
    t = G._fast
    stops = np.stack([rnd.integers(0, len(s), size=5000) for s in G.strips], axis=1)
    cols = t["ct"].start(stops)
    a, b = G.grid_pay(cols), G.grid_pay_unpacked(cols)
    assert (a[0] == b[0]).all() and (a[1] == b[1]).all()


def test_the_strips_are_the_fixed_shuffles_of_the_declared_counts():
    for c, seed, strip in zip(cgm.COLUMN_COUNTS, cgm.STRIP_SEEDS, G.strips):
        assert strip == mech.shuffled_strip(c, seed) and {s: strip.count(s) for s in c} == c


@pytest.mark.slow
def test_the_simulated_rtp_agrees_with_the_declared_96_73_percent():
    n = 2_000_000
    stats = G.simulate_fast(BET, n, 20240601)
    mean = stats["total_win"] / stats["total_stake"]
    se = math.sqrt(stats["sum_sq"] / n / 100**2 - mean**2) / math.sqrt(n)
    assert abs(mean - 0.9673) < 2.576 * se + 0.00005, (mean, se)
    assert stats["max_win"] <= G.declared.max_win // G.declared.max_bet * 100
