"""Crystal Grid version 2: the Bonus column and the free rounds on another symbol set without a wild (Energoonz's
bonus game), played by the engine and by the fast simulator alike, and the declared RTP."""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from core.rng import SeededRNG
from games.engine import RecordingRNG, ReplayRNG, par
from games.engine.games import crystal_grid as cgm

G = cgm.CRYSTAL_GRID
BET = G.validate_bet({"stake": 100})
B: dict[str, Any] = G.bonus or {}


def free_round_seed(limit: int = 200_000, more: bool = False) -> int:
    for seed in range(limit):
        st = G.start(BET, SeededRNG(seed))
        if "free_rounds" in st["steps"][0]["features"] and (not more or st["free_rounds"] > B["free_rounds"]):
            return seed
    raise AssertionError("no free rounds")


def test_version_2_is_current_with_the_bonus_column_and_version_1_has_none():
    assert G.version == 2 and B["column"] == 0 and cgm.CRYSTAL_GRID_V1.bonus is None
    assert "bonus_game" in G.describe()["features"] and "bonus_game" not in cgm.CRYSTAL_GRID_V1.describe()["features"]
    assert all("WILD" not in strip for strip in B["strips"]) and "WILD" not in B["pays"]


def test_emptying_the_bonus_column_starts_free_rounds_on_the_bonus_symbols_and_5_plus_clusters_add_rounds():
    rec = RecordingRNG(SeededRNG(free_round_seed(more=True)))
    st = G.start(BET, rec)
    first = st["steps"][0]
    assert first["bonus_column"] == {"column": 0, "emptied_rows": [0, 1, 2, 3, 4]}
    starts = [s for s in st["steps"] if s["mode"] == "free_round" and s["type"] == "spin"]
    assert [s["free_round"] for s in starts] == list(range(1, st["free_rounds"] + 1))
    added = sum(s["rounds_added"] for s in starts)
    assert st["free_rounds"] == B["free_rounds"] + added <= B["max_rounds"] and added > 0
    for s, nxt in zip(starts, starts[1:]):
        assert nxt["rounds_left"] == s["rounds_left"] - 1 + nxt["rounds_added"]
    free = [s for s in st["steps"] if s["mode"] == "free_round"]
    assert all(sym in B["symbols"] for s in free for col in s["window"] for sym in col)
    for s in starts:  # the rounds added are the winning clusters of 5 or more of that free round
        chain = st["steps"][st["steps"].index(s):]
        chain = chain[:next((i for i, x in enumerate(chain[1:], 1) if x["type"] == "spin"), len(chain))]
        assert s["rounds_added"] == min(sum(1 for x in chain for c in x["clusters"] if c[1] >= 5),
                                        s["rounds_added"]) or s["rounds_added"] == 0
    assert st["breakdown"]["free_spins"] == sum(s["win"] for s in free) > 0
    assert st["win"] == st["breakdown"]["base"] + st["breakdown"]["free_spins"]
    assert len(rec.draws) == 5 * (1 + st["free_rounds"])
    assert G.replay({"bet": BET.params, "actions": [], "draws": rec.draws, "state": st}) == st


def test_the_fast_simulator_plays_the_same_base_grids_bonus_column_and_free_rounds_as_the_engine():
    seen = 0
    for seed in range(40_000):
        rec = RecordingRNG(SeededRNG(seed))
        st = G.start(BET, rec)
        stops = np.array([[v for _, v in rec.draws[:5]]])
        units, _, emptied, _ = G.win_units(stops, track_column=B["column"])
        rows = st["steps"][0]["bonus_column"]["emptied_rows"]
        assert emptied[0] == sum(1 << r for r in rows)
        assert units[0] * 10 == st["breakdown"]["base"]
        if st.get("free_rounds"):
            seen += 1
            starts = [i for i, s in enumerate(st["steps"]) if s["mode"] == "free_round" and s["type"] == "spin"]
            for k, i in enumerate(starts):
                fstops = np.array([[v for _, v in rec.draws[5 * (k + 1): 5 * (k + 2)]]])
                u, _, _, big = G.win_units(fstops, G._fast_bonus, big_min=B["extra_min_size"],
                                           cap_units=np.array([10 ** 9]))
                end = starts[k + 1] if k + 1 < len(starts) else len(st["steps"])
                assert u[0] * 10 == sum(s["win"] for s in st["steps"][i:end])
                assert min(int(big[0]), st["steps"][i]["rounds_added"] + 99) >= st["steps"][i]["rounds_added"]
        if seen >= 5:
            break
    assert seen >= 5


def test_the_simulated_rtp_holds_the_declared_96_73_percent_within_the_99_percent_ci():
    n = 2_000_000
    stats = G.simulate_fast(BET, n, 4242)
    s = par.summarise(stats, 100)
    assert s["ci99"][0] <= 96.73 <= s["ci99"][1], s
    assert stats["feature_counts"]["feature:free_rounds"] > 0 and stats["breakdown"]["free_spins"] > 0


@pytest.mark.slow
def test_the_fast_and_the_reference_engine_agree_with_the_free_rounds():
    fast = par.summarise(G.simulate_fast(BET, 1_000_000, 5), 100)
    ref = par.summarise(par.simulate_generic(G, BET, 100_000, 5, rng_factory=SeededRNG), 100)
    assert abs(fast["rtp"] - ref["rtp"]) < 4 * math.hypot(fast["standard_error"], ref["standard_error"])


def test_a_round_never_pays_more_than_its_cap_with_the_free_rounds():
    st = G.start(BET, ReplayRNG([[len(s), 0] for s in G.strips]))
    assert st["win"] <= G.max_win_multiplier * 100
