"""Sun Terraces version 2 (games/engine/games/sun_terraces.py): the Avalanche on 720 ways (the symbols of every
winning way fall away, the strips refill) with the multiplier rising every 3 avalanches up to x10, the engine's
rounds against the fast simulator, the round cap, replay, and the simulated RTP."""

from __future__ import annotations

import math
import time
from decimal import Decimal

import numpy as np
import pytest

from core.rng import SeededRNG
from games.engine import ReplayRNG, cascade, get_game, play
from games.engine.games import sun_terraces as stm

G = stm.SUN_TERRACES
BET = G.validate_bet({"level": 1, "coin_value": 10})  # 1 CZK: a line bet of 0.10 CZK
CAP_UNITS = G.max_win_multiplier * stm.COINS_PER_LEVEL


def draws_for(stops) -> list[list[int]]:
    return [[len(s), int(x)] for s, x in zip(G.strips, stops)]


def round_at(stops, game=G, bet=BET) -> dict:
    return game.start(bet, ReplayRNG(draws_for(stops)))


def stops_with(avalanches, pred=lambda a: True, n: int = 200_000, seed: int = 1) -> np.ndarray:
    """The first stops (of ``n`` random ones) whose round has ``avalanches`` avalanches (or ``pred(avalanches)``)."""
    rnd = np.random.default_rng(seed)
    stops = np.stack([rnd.integers(0, len(s), size=n) for s in G.strips], axis=1)
    _, aval = G.sequence_units(stops, CAP_UNITS)
    hits = np.nonzero(aval == avalanches if avalanches is not None else pred(aval))[0]
    assert hits.size, avalanches
    return stops[hits[0]]


def test_version_2_is_the_current_one_and_version_1_stays_as_it_was():
    assert get_game("sun_terraces") is G and G.version == 2 and get_game("sun_terraces", 1) is stm.SUN_TERRACES_V1
    v1 = stm.SUN_TERRACES_V1
    assert v1.paytable is stm.PAYTABLE and v1.strips == stm.DEFINITION["strips"] and v1.exact_rtp(BET) is not None
    assert G.declared.rtp == Decimal("96.48") and G.exact_rtp(BET) is None
    assert G.max_win_multiplier == stm.MAX_WIN_V2 == 1000 and G.declared.max_win == 1000 * 100_000
    f = G.d["follows"]
    assert f["entry"] == "29. Pyramid: Quest for Immortality"
    assert any("Avalanche" in x for x in f["features"]) and any("x10" in x for x in f["features"])
    assert f["not_built"] == ["wild generation on the top positions of reels 2-4"]
    d = G.describe()
    assert d["features"]["avalanche"] == {"multiplier": {"every": 3, "max": 10}}
    assert d["paytable"]["pays"]["K"] == {"3": 2, "4": 6, "5": 12}  # the catalogue's example: 3 K pay 2 line bets


def test_each_symbol_is_rare_on_one_of_reels_1_to_3_and_the_wild_is_on_reels_2_to_4_only():
    assert [stm.WILD in s for s in G.strips] == [False, True, True, True, False]
    for j in range(3):
        rare = {s for s in stm.PAYTABLE if G.strips[j].count(s) == 1}
        assert rare == set(stm.RARE_ON[j])
    assert sorted(s for group in stm.RARE_ON for s in group) == sorted(stm.PAYTABLE)


@pytest.mark.parametrize(
    ("avalanche", "mult"), [(0, 1), (2, 1), (3, 2), (5, 2), (6, 3), (26, 9), (27, 10), (28, 10), (100, 10)]
)
def test_the_multiplier_rises_by_one_every_3_avalanches_and_stays_at_x10(avalanche, mult):
    assert stm.multiplier(avalanche) == mult


def test_a_window_without_a_win_is_the_whole_round():
    st = round_at(stops_with(0, n=100))
    assert st["status"] == "finished" and st["win"] == 0 and len(st["steps"]) == 1
    assert st["steps"][0]["features"] == [] and st["steps"][0]["ways_wins"] == []


def test_a_winning_spin_is_followed_by_an_avalanche_even_when_the_refilled_window_shows_no_win():
    st = round_at(stops_with(1))
    assert [s["type"] for s in st["steps"]] == ["spin", "avalanche"] and st["steps"][1]["win"] == 0
    assert st["steps"][0]["win"] == st["win"] > 0 and "avalanche" in st["steps"][0]["features"]


def test_every_symbol_of_a_winning_way_falls_away_and_the_strips_refill_with_no_further_draw():
    stops = stops_with(4)
    rec = play(G, BET, ReplayRNG(draws_for(stops)))
    steps = rec["state"]["steps"]
    assert len(rec["draws"]) == 5 and [s["type"] for s in steps] == ["spin"] + ["avalanche"] * 4
    assert [s["multiplier"] for s in steps] == [1, 1, 1, 2, 2]
    assert steps[0]["features"][-2:] == ["avalanche", "multiplier"]
    pointers = [int(x) for x in stops]
    for prev, nxt in zip(steps, steps[1:]):
        win_reels = {w[0]: w[1] for w in prev["ways_wins"]}
        removed = [
            (j, r)
            for s, k in win_reels.items()
            for j in range(k)
            for r, x in enumerate(prev["window"][j])
            if x in (s, stm.WILD)
        ]
        assert removed and all(j < 5 for j, _ in removed)
        expected, pointers = cascade.refill(G.strips, pointers, prev["window"], removed)
        assert nxt["window"] == expected
        # a cell of no winning way stays (it may fall within its reel): each reel keeps its uninvolved symbols
        for j, col in enumerate(prev["window"]):
            kept = [x for r, x in enumerate(col) if (j, r) not in set(removed)]
            assert nxt["window"][j][len(col) - len(kept) :] == kept
    for s in steps:
        for symbol, reels, ways_, pay, _ in s["ways_wins"]:
            counts = [sum(1 for x in col if x in (symbol, stm.WILD)) for col in s["window"][:reels]]
            assert ways_ == math.prod(counts) and pay == stm.PAYTABLE_V2[symbol][reels] * ways_ * 10 * s["multiplier"]
    assert steps[-1]["ways_wins"] == [] and rec["state"]["win"] == sum(s["win"] for s in steps)


@pytest.mark.parametrize(("avalanches", "last_mult"), [(2, 1), (3, 2), (6, 3)])
def test_forced_rounds_at_the_multiplier_boundaries(avalanches, last_mult):
    stops = stops_with(avalanches)
    st = round_at(stops)
    steps = st["steps"]
    assert len(steps) == avalanches + 1 and steps[-1]["win"] == 0
    # the last winning window is the avalanche before the last (the last window shows no win)
    assert steps[-2]["multiplier"] == stm.multiplier(avalanches - 1) and steps[-1]["multiplier"] == last_mult
    units, aval = G.sequence_units(stops[None, :], CAP_UNITS)
    assert (units[0] * 10, aval[0]) == (st["win"], avalanches)


def test_the_fast_simulator_plays_the_same_rounds_as_the_engine():
    rnd = np.random.default_rng(8)
    stops = np.stack([rnd.integers(0, len(s), size=3000) for s in G.strips], axis=1)
    units, aval = G.sequence_units(stops, CAP_UNITS)
    assert aval.max() >= 6  # chains long enough to reach x3 among them
    for i in range(3000):
        st = round_at(stops[i])
        assert (st["win"], len(st["steps"]) - 1) == (units[i] * 10, aval[i]), stops[i]


def test_the_cap_ends_the_round_in_the_engine_and_in_the_fast_simulator():
    capped = stm.SunTerracesAvalanche({**stm.DEFINITION_V2, "max_win_multiplier": 2})  # not registered
    stops = stops_with(None, lambda a: a >= 5, seed=4)
    full = round_at(stops)
    assert full["win"] > 2 * 100
    st = round_at(stops, game=capped)
    assert st["win"] == 2 * 100 and st["capped"] and st["steps"][-1].get("capped")
    assert len(st["steps"]) < len(full["steps"])
    units, _ = capped.sequence_units(stops[None, :], 2 * stm.COINS_PER_LEVEL)
    assert units[0] * 10 == st["win"]


def test_rounds_replay_from_their_recorded_draws():
    """GP §7(3): the round is decided by its 5 recorded draws alone; it finishes at its start with no action."""
    rng = SeededRNG(11)
    avalanches = 0
    for _ in range(300):
        rec = play(G, BET, rng)
        st = rec["state"]
        assert len(rec["draws"]) == 5 and st["status"] == "finished" and G.replay(rec) == st
        avalanches += len(st["steps"]) - 1
    assert 100 < avalanches < 400  # about 0.65 avalanches a round


def test_the_engines_rounds_agree_with_the_fast_simulators_rtp():
    stats = G.simulate_fast(BET, 1_000_000, 5)
    m = stats["total_win"] / stats["total_stake"]
    sd = math.sqrt(stats["sum_sq"] / stats["rounds"] / 100**2 - m * m)
    assert abs(m - 0.9648) < 4 * sd / math.sqrt(stats["rounds"])
    assert 0.33 < stats["hit_count"] / stats["rounds"] < 0.40
    assert 0.6 < stats["feature_counts"]["avalanches"] / stats["rounds"] < 0.7
    rng = SeededRNG(21)
    wins = np.array([G.start(BET, rng)["win"] for _ in range(20_000)], dtype=np.float64) / 100
    slow_sd = wins.std() / math.sqrt(wins.size)
    assert abs(wins.mean() - m) < 4 * math.hypot(slow_sd, sd / math.sqrt(stats["rounds"]))


@pytest.mark.slow
def test_ten_million_rounds_put_the_declared_rtp_in_the_99_percent_interval_within_a_minute_of_cpu():
    t0 = time.process_time()
    stats = G.simulate_fast(BET, 10_000_000, 20261206)
    cpu = time.process_time() - t0
    m = stats["total_win"] / stats["total_stake"]
    se = math.sqrt(stats["sum_sq"] / stats["rounds"] / 100**2 - m * m) / math.sqrt(stats["rounds"])
    assert m - 2.576 * se - 0.0001 <= 0.9648 <= m + 2.576 * se
    assert stats["max_win"] <= G.max_win_multiplier * 100 and cpu < 60
