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
        chain = st["steps"][st["steps"].index(s) :]
        chain = chain[: next((i for i, x in enumerate(chain[1:], 1) if x["type"] == "spin"), len(chain))]
        assert (
            s["rounds_added"] == min(sum(1 for x in chain for c in x["clusters"] if c[1] >= 5), s["rounds_added"])
            or s["rounds_added"] == 0
        )
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
                fstops = np.array([[v for _, v in rec.draws[5 * (k + 1) : 5 * (k + 2)]]])
                u, _, _, big = G.win_units(
                    fstops, G._fast_bonus, big_min=B["extra_min_size"], cap_units=np.array([10**9])
                )
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


def test_four_emptied_rows_of_the_bonus_column_start_no_free_rounds_and_five_do():
    """The boundary of the trigger: every one of the column's 5 cells removed by a win at least once."""
    by_rows: dict[int, dict[str, Any]] = {}
    for seed in range(20_000):
        st = G.start(BET, SeededRNG(seed))
        by_rows.setdefault(len(st["steps"][0]["bonus_column"]["emptied_rows"]), st)
        if 4 in by_rows and 5 in by_rows:
            break
    four, five = by_rows[4], by_rows[5]
    assert "free_rounds" not in four["steps"][0]["features"] and "free_rounds" not in four
    assert all(s["mode"] == "base" for s in four["steps"]) and four["breakdown"]["free_spins"] == 0
    assert "free_rounds" in five["steps"][0]["features"] and five["free_rounds"] >= B["free_rounds"]


def test_the_free_rounds_stop_at_20_when_clusters_of_5_plus_would_add_more():
    """Seed 6567 (1 CZK): a bonus game that reaches the 20 rounds; its last round's 3 clusters of 5+ add none."""
    st = G.start(BET, SeededRNG(6567))
    starts = [i for i, s in enumerate(st["steps"]) if s["mode"] == "free_round" and s["type"] == "spin"]
    big = [
        sum(1 for x in st["steps"][a:b] for c in x["clusters"] if c[1] >= B["extra_min_size"])
        for a, b in zip(starts, [*starts[1:], len(st["steps"])])
    ]
    added = [st["steps"][i]["rounds_added"] for i in starts]
    assert st["free_rounds"] == len(starts) == B["max_rounds"] and sum(big) > B["max_rounds"] - B["free_rounds"]
    awarded = B["free_rounds"]
    for b, a in zip(big, added):  # each round adds its clusters of 5+ while the 20 rounds allow
        assert a == min(b, B["max_rounds"] - awarded)
        awarded += a
    assert awarded == B["max_rounds"] and added[-1] == 0 < big[-1]


def test_the_cap_ends_a_round_inside_its_free_rounds_in_the_engine_and_in_the_fast_simulator():
    """The same definition with a cap of 5 x the stake: seed 138's round (base 2 x, free rounds 12 x uncapped) pays
    exactly the cap, its free rounds end at the cascade that reaches it, and it replays; the fast simulator plays
    the same draws to the same capped win and never pays a round more than the cap."""
    low = cgm.CrystalGrid({**cgm.DEFINITION_V2, "max_win_multiplier": 5})
    full = G.start(BET, SeededRNG(138))
    assert full["breakdown"]["base"] < 500 < full["win"]  # the round would pass the cap in its free rounds
    rec = RecordingRNG(SeededRNG(138))
    st = low.start(BET, rec)
    assert st["win"] == 500 and st["capped"] and st["breakdown"]["base"] == full["breakdown"]["base"]
    assert st["free_rounds"] < full["free_rounds"] and len(rec.draws) == 5 * (1 + st["free_rounds"])
    wins = [s["win"] for s in st["steps"]]
    assert sum(wins[:-1]) < 500 == sum(wins) and st["steps"][-1]["mode"] == "free_round"
    assert low.replay({"bet": BET.params, "actions": [], "draws": rec.draws, "state": st}) == st
    stops = np.array([[v for _, v in rec.draws[:5]]])
    base, _, emptied, _ = low.win_units(stops, track_column=B["column"])
    assert base[0] * 10 == st["breakdown"]["base"] and emptied[0] == (1 << G.rows) - 1
    left = 50 - int(base[0])
    for k in range(st["free_rounds"]):
        fstops = np.array([[v for _, v in rec.draws[5 * (k + 1) : 5 * (k + 2)]]])
        u, _, _, _ = low.win_units(fstops, low._fast_bonus, cap_units=np.array([left]), big_min=B["extra_min_size"])
        left -= int(u[0])
    assert left == 0
    stats = low.simulate_fast(BET, 100_000, 1)
    assert stats["max_win"] == 500 and stats["feature_counts"]["capped"] > 0
