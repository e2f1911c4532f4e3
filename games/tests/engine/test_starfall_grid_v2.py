"""Starfall Grid version 2 (games/engine/games/starfall_grid.py): a winning 3-cluster's middle symbol turns wild, the
Power Stone lit by the super-power symbols and its one re-spin with one of four powers; the engine's rounds against
the fast simulator, forced outcomes at the features' boundaries, replay, the cap and the declared RTP."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

from core.rng import SeededRNG
from games.engine import RecordingRNG, ReplayRNG, cascade, par, play
from games.engine.games import starfall_grid as sgm

G = sgm.STARFALL_GRID
V1 = sgm.STARFALL_GRID_V1
BET = G.validate_bet({"stake": 100})
CAP_UNITS = G.max_win_multiplier * G.unit
SHIELD = sgm.WILD


def stops_draws(stops: Any) -> list[list[int]]:
    return [[len(s), int(x)] for s, x in zip(G.strips, stops)]


def lit_round(min_lit: int = 1) -> tuple[list[list[int]], dict[str, Any]]:
    """The base draws (5 stops) of a seeded round whose Power Stone ends with ``min_lit`` or more sections lit."""
    for seed in range(10_000):
        rec = RecordingRNG(SeededRNG(seed))
        st = G.start(BET, rec)
        if st["steps"][0].get("power_stone", {}).get("lit", 0) >= min_lit:
            return rec.draws[:5], st
    raise AssertionError("no lit round")


def forced(
    base: list[list[int]],
    arrow: int,
    power: int | None = None,
    respin: list[int] | None = None,
    cells: tuple[int, int] | None = None,
) -> dict[str, Any]:
    draws = [*base, [4, arrow]]
    if power is not None:
        draws += [[4, power], *stops_draws(respin or [0] * 5)]
        if cells is not None:
            draws += [[25, cells[0]], [24, cells[1]]]
    rng = ReplayRNG(draws)
    st = G.start(BET, rng)
    assert rng.exhausted
    return st


def test_version_2_is_current_and_lists_only_the_3_reel_bonus_game_as_not_built():
    assert G.version == 2 and V1.version == 1 and type(V1).__name__ == "CrystalGrid"
    follows = G.describe()["follows"]
    assert follows["not_built"] == ["the bonus game on a 3-reel machine"]
    assert any("middle symbol" in f for f in follows["features"])
    assert any("Power Stone" in f for f in follows["features"])
    assert len(V1.describe()["follows"]["not_built"]) == 3
    assert (V1.declared.rtp, G.declared.rtp) == (Decimal("96.52"), Decimal("96.70"))
    assert "power_stone" in G.describe()["features"] and "power_stone" not in V1.describe()["features"]
    assert G.declared.max_bet == 20_000 and G.declared.max_win == 250 * 20_000 and G.declared.min_bet == 100


def test_the_middle_cells_are_the_second_of_three_and_in_frequency_those_of_4_and_5_clusters():
    cells = {k: [[j, r] for j in range(5) for r in range(5)][:k] for k in range(3, 7)}
    found = [["MAGE", k, 1, cells[k]] for k in range(3, 7)]
    assert G._middle_cells(found, sgm.MIDDLES) == {(0, 1)}  # only the 3-cluster; 4+ keep no cell
    assert G._middle_cells(found, sgm.MIDDLES_FREQUENCY) == {(0, 1), (0, 2), (0, 0), (0, 4)}
    assert G._middle_cells(found[3:], sgm.MIDDLES_FREQUENCY) == set()  # a 6-cluster turns nothing


def test_a_3_cluster_on_the_first_grid_keeps_its_middle_as_a_shield_and_cascades_turn_nothing():
    seen = 0
    for seed in range(3_000):
        st = G.start(BET, SeededRNG(seed))
        base = [s for s in st["steps"] if s["mode"] == "base"]
        first = base[0]
        threes = [c for c in first["clusters"] if c[1] == 3]
        assert first["turned_wild"] == sorted([c[3][1] for c in threes], key=tuple) or len(threes) > 1
        assert {tuple(c) for c in first["turned_wild"]} == {tuple(c[3][1]) for c in threes}
        assert all(s["turned_wild"] == [] for s in base[1:])
        if threes and len(base) > 1:  # the next grid: middles turned wild, the other winning cells refilled
            window = [list(col) for col in first["window"]]
            for j, r in first["turned_wild"]:
                window[j][r] = SHIELD
            removed = {tuple(c) for cl in first["clusters"] for c in cl[3]} - {tuple(c) for c in first["turned_wild"]}
            nxt, _ = cascade.refill(G.strips, first["stops"], window, removed)
            assert nxt == base[1]["window"]
            seen += 1
    assert seen > 100


def test_the_stone_lights_1_2_or_3_sections_per_super_power_cluster_at_most_3():
    for seed in range(1_500):
        st = G.start(BET, SeededRNG(seed))
        base = [s for s in st["steps"] if s["mode"] == "base"]
        want = min(3, sum(min(c[1] - 2, 3) for s in base for c in s["clusters"] if c[0] in sgm.POWER_SYMBOLS))
        assert base[-1]["stone_lit"] == want
        if want and not st["capped"]:
            stone = st["steps"][0]["power_stone"]
            assert stone["lit"] == want and stone["respin"] == (stone["arrow"] < want)
        else:
            assert "power_stone" not in st["steps"][0] and not any(s["mode"] == "respin" for s in st["steps"])


def test_the_arrow_gives_a_re_spin_only_on_a_lit_section():
    base, st = lit_round(1)
    lit = st["steps"][0]["power_stone"]["lit"]
    on = forced(base, lit - 1, 0)  # the last lit section
    off = forced(base, lit)  # the first dark one
    assert on["steps"][0]["power_stone"] == {"lit": lit, "arrow": lit - 1, "respin": True, "power": "lucky_five"}
    assert off["steps"][0]["power_stone"] == {"lit": lit, "arrow": lit, "respin": False}
    assert not any(s["mode"] == "respin" for s in off["steps"]) and off["breakdown"]["free_spins"] == 0
    assert "respin" in on["steps"][0]["features"] and "respin" not in off["steps"][0]["features"]
    assert off["breakdown"]["base"] == on["breakdown"]["base"] == st["breakdown"]["base"]
    assert all("stone_lit" not in s for s in on["steps"] if s["mode"] == "respin")  # the re-spin lights nothing


def _respin_rounds(power: str) -> list[dict[str, Any]]:
    base, _ = lit_round(1)
    rnd = np.random.default_rng(3)
    out = []
    for _ in range(60):
        respin = [int(rnd.integers(0, len(s))) for s in G.strips]
        cells = (int(rnd.integers(0, 25)), int(rnd.integers(0, 24)))
        out.append(forced(base, 0, sgm.POWERS.index(power), respin, cells if power == "wild_drop" else None))
    return out


def test_lucky_five_pays_the_re_spins_clusters_five_times():
    paid = 0
    for st in _respin_rounds("lucky_five"):
        for s in (s for s in st["steps"] if s["mode"] == "respin"):
            for sym, size, win, _ in s["clusters"]:
                unit_pay = next(v for k, v in reversed(G.pays[sym]) if size >= k)
                assert win == unit_pay * BET.total_stake // G.unit * 5
                paid += win
            assert s["win"] == sum(c[2] for c in s["clusters"]) or st["capped"]
        assert st["breakdown"]["free_spins"] == sum(s["win"] for s in st["steps"] if s["mode"] == "respin")
    assert paid > 0


def test_wild_drop_puts_two_shields_on_two_different_cells_at_the_draws_boundaries():
    base, _ = lit_round(1)
    power = sgm.POWERS.index("wild_drop")
    for cells, want in [
        ((0, 0), [[0, 0], [0, 1]]),
        ((24, 23), [[4, 4], [4, 3]]),
        ((7, 7), [[1, 2], [1, 3]]),
        ((7, 6), [[1, 2], [1, 1]]),
    ]:
        st = forced(base, 0, power, [3, 1, 4, 1, 5], cells)
        first = next(s for s in st["steps"] if s["mode"] == "respin")
        assert first["dropped_wilds"] == want and all(first["window"][j][r] == SHIELD for j, r in want)


def test_frequency_turns_the_middles_of_4_and_5_clusters_and_scatter_pays_counts_on_the_first_grid_only():
    turned = 0
    for st in _respin_rounds("frequency"):
        first = next(s for s in st["steps"] if s["mode"] == "respin")
        want = {tuple(c[3][i]) for c in first["clusters"] for i in sgm.MIDDLES_FREQUENCY.get(c[1], ())}
        assert {tuple(c) for c in first["turned_wild"]} == want
        turned += sum(1 for c in first["clusters"] if c[1] in (4, 5))
    assert turned > 0
    scattered = 0
    for st in _respin_rounds("scatter"):
        respin = [s for s in st["steps"] if s["mode"] == "respin"]
        counts = {s: sum(col.count(s) for col in respin[0]["window"]) for s in G.pays if s != SHIELD}
        paid = [
            [s, n, next(v for k, v in reversed(G.pays[s]) if min(n, 5) >= k) * BET.total_stake // G.unit]
            for s, n in counts.items()
            if n >= 3
        ]
        assert respin[0]["scatter"] == paid and all("scatter" not in s for s in respin[1:])
        scattered += len(paid)
    assert scattered > 0


def test_the_fast_simulator_plays_the_same_rounds_as_the_engine():
    n = 1_500
    rnd = np.random.default_rng(8)
    for force in (None, *sgm.POWERS):
        stops = np.stack([rnd.integers(0, len(s), size=n) for s in G.strips], axis=1)
        arrow = rnd.integers(0, 4, size=n) if force is None else np.zeros(n, dtype=np.int64)
        power = rnd.integers(0, 4, size=n) if force is None else np.full(n, sgm.POWERS.index(force))
        respin = np.stack([rnd.integers(0, len(s), size=n) for s in G.strips], axis=1)
        cells = np.stack([rnd.integers(0, 25, size=n), rnd.integers(0, 24, size=n)], axis=1)
        base, free, casc, lit, played = G.round_units(stops, arrow, power, respin, cells)
        assert (played >= 0).sum() > (n // 10 if force is None else n // 3)
        for i in range(0, n, 1 if force is None else 3):
            draws = stops_draws(stops[i])
            if lit[i] and base[i] < CAP_UNITS:
                draws.append([4, int(arrow[i])])
                if played[i] >= 0:
                    draws += [[4, int(power[i])], *stops_draws(respin[i])]
                    if sgm.POWERS[played[i]] == "wild_drop":
                        draws += [[25, int(cells[i, 0])], [24, int(cells[i, 1])]]
            rng = ReplayRNG(draws)
            st = G.start(BET, rng)
            assert rng.exhausted and st["cascades"] == casc[i], i
            assert (st["breakdown"]["base"], st["breakdown"]["free_spins"]) == (base[i], free[i]), (force, i)


def test_rounds_replay_and_never_pay_more_than_the_cap():
    rng = SeededRNG(2)
    for _ in range(200):
        rec = play(G, BET, rng)
        assert G.replay(rec) == rec["state"] and rec["state"]["status"] == "finished"
        assert rec["state"]["win"] <= 250 * BET.total_stake
    stops = np.stack([np.arange(300) % len(s) for s in G.strips], axis=1)
    for power in (None, *sgm.POWERS):
        cap = np.full(300, 3, dtype=np.int64)
        units, casc, _ = G.grid_units(stops, cap, power, np.zeros((300, 2), dtype=np.int64))
        assert units.max() == 3 and (units <= cap).all()
        full, casc_full, _ = G.grid_units(
            stops, np.full(300, CAP_UNITS, dtype=np.int64), power, np.zeros((300, 2), dtype=np.int64)
        )
        assert (casc <= casc_full).all() and (np.minimum(full, 3) == units).all()


@pytest.mark.slow
def test_the_simulated_rtp_holds_the_declared_figure_within_the_99_percent_ci():
    stats = G.simulate_fast(BET, 2_000_000, 4242)
    s = par.summarise(stats, 100)
    assert s["ci99"][0] <= float(G.declared.rtp) <= s["ci99"][1], s
    fc = stats["feature_counts"]
    assert all(fc[f"respin:{p}"] > 0 for p in sgm.POWERS) and stats["max_win"] <= 250 * BET.total_stake


@pytest.mark.slow
def test_the_fast_and_the_reference_engine_agree():
    fast = par.summarise(G.simulate_fast(BET, 1_000_000, 5), 100)
    ref = par.summarise(par.simulate_generic(G, BET, 50_000, 5, rng_factory=SeededRNG), 100)
    assert abs(fast["rtp"] - ref["rtp"]) < 4 * math.hypot(fast["standard_error"], ref["standard_error"])
