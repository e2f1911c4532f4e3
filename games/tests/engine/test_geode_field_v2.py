"""Geode Field version 2 (games/engine/games/geode_field.py, ``GeodeFieldV2``): the Crystal Charge and its four
effects, the Super Charge, the worlds' patterns carried from round to round, the numpy simulator against the
engine's rounds (the same draws give the same win), replay, the cap and the simulated RTP."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

from core.rng import SeededRNG
from games.engine import ActionError, RecordingRNG, ReplayRNG, get_game
from games.engine.games import geode_field as gfm

G = gfm.GEODE_FIELD
V1 = gfm.GEODE_FIELD_V1
BET = G.validate_bet({"stake": 100})


def _draws(stops: np.ndarray, d: np.ndarray, fired: bool) -> list[list[int]]:
    """The engine's draws of a round from the fast simulator's stops and effect draws (``effect_draws``)."""
    out = [[len(s), int(x)] for s, x in zip(G.strips, stops)]
    if fired:
        e = int(d[0])
        out.append([len(gfm.EFFECTS), e])
        name = gfm.EFFECTS[e]
        if name == "chain_lightning":
            out.append([len(gfm.CORNERS), int(d[1])])
        elif name == "crystal_transformation":
            out += [[len(G.paying), int(d[3])], [len(G.paying) - 1, int(d[4])]]
        else:
            out.append([G.cols * G.rows, int(d[2])])
    return out


@pytest.fixture(scope="module")
def sample():
    """200,000 rounds of the fast simulator: stops, effect draws and their results."""
    gen = np.random.Generator(np.random.PCG64(31))
    n = 200_000
    stops = np.stack([gen.integers(0, len(s), size=n) for s in G.strips], axis=1)
    draws = G.effect_draws(gen, n)
    return stops, draws, G.win_units_v2(stops, draws)


def test_version_2_is_current_and_version_1_keeps_its_rules_and_figures():
    assert get_game("geode_field") is G and get_game("geode_field", 1) is V1
    assert G.version == 2 and G.carry_over and not V1.carry_over
    assert G.declared.rtp == V1.declared.rtp == Decimal("96.75") and G.declared.max_win == 500 * 10_000
    assert V1.pays is gfm.PAYS and V1.pays["HEART"][2] == [7, 50]
    assert G.pays["HEART"][2] == [7, 50]  # the catalogue's example: 7 hearts pay 5 x the total bet
    f = G.catalogue_entry().follows
    assert f is not None
    assert not any("Crystal Charge" in x for x in f.not_built) and any("Crystal Charge" in x for x in f.features)


def _grid() -> list[list[str]]:
    syms = ["RUBY", "TOPAZ", "AMBER", "EMERALD"]
    return [[syms[(j + 2 * r) % 4] for r in range(7)] for j in range(7)]


def test_chain_lightning_turns_the_diagonal_between_two_opposite_corners_into_the_corners_symbol():
    for c, (j0, r0) in enumerate(gfm.CORNERS):
        w = _grid()
        w[j0][r0] = "DIAMOND"
        out, rec = G.charge_effect(w, ReplayRNG([[4, 0], [4, c]]))
        main = (j0 == 0) == (r0 == 0)
        diag = {(k, k if main else 6 - k) for k in range(7)}
        assert rec["effect"] == "chain_lightning" and rec["symbol"] == "DIAMOND" and len(rec["cells"]) == 7
        for j in range(7):
            for r in range(7):
                assert out[j][r] == ("DIAMOND" if (j, r) in diag else w[j][r])


def test_light_beam_fills_the_row_and_column_of_the_cell_and_a_nova_its_neighbours_within_the_grid():
    w = _grid()
    for q, beam_cells, nova_cells in ((0, 13, 4), (24, 13, 9), (48, 13, 4), (3, 13, 6)):
        j0, r0 = divmod(q, 7)
        out, rec = G.charge_effect(w, ReplayRNG([[4, 1], [49, q]]))
        assert rec["effect"] == "light_beam" and len(rec["cells"]) == beam_cells
        assert all(out[j][r] == w[j0][r0] for j in range(7) for r in range(7) if j == j0 or r == r0)
        assert sum(out[j][r] != w[j][r] for j in range(7) for r in range(7)) < 13
        out, rec = G.charge_effect(w, ReplayRNG([[4, 3], [49, q]]))
        assert rec["effect"] == "nova_explosion" and len(rec["cells"]) == nova_cells
        assert all(
            out[j][r] == (w[j0][r0] if abs(j - j0) <= 1 and abs(r - r0) <= 1 else w[j][r])
            for j in range(7)
            for r in range(7)
        )


def test_crystal_transformation_changes_every_instance_of_one_symbol_into_another():
    w = _grid()
    for a, b, src, tgt in (
        (0, 0, "DIAMOND", "RUBY"),
        (1, 0, "RUBY", "DIAMOND"),
        (2, 6, "EMERALD", "QUARTZ"),
        (7, 6, "QUARTZ", "AMBER"),
        (6, 0, "AMBER", "DIAMOND"),
    ):
        out, rec = G.charge_effect(w, ReplayRNG([[4, 2], [8, a], [7, b]]))
        assert (rec["effect"], rec["symbol"]) == ("crystal_transformation", tgt)
        assert all(out[j][r] == (tgt if w[j][r] == src else w[j][r]) for j in range(7) for r in range(7))
    out, rec = G.charge_effect(w, ReplayRNG([[4, 2], [8, 0], [7, 3]]))  # no diamond on the grid: nothing changes
    assert out == w and rec["cells"] == []


def test_the_numpy_effects_equal_the_engines_for_every_draw():
    rnd = np.random.default_rng(5)
    combos = (
        [[0, c, 0, 0, 0] for c in range(4)]
        + [[e, 0, q, 0, 0] for e in (1, 3) for q in range(49)]
        + [[2, 0, 0, a, b] for a in range(8) for b in range(7)]
    )
    d = np.array(combos, dtype=np.int64)
    g = rnd.integers(0, len(G.symbols), size=(len(combos), 7, 7)).astype(np.int8)
    out = G.effects_np(g, d)
    for i, row in enumerate(combos):
        w = [[G.symbols[int(x)] for x in col] for col in g[i]]
        rng = ReplayRNG(_draws(np.zeros(7, dtype=np.int64), np.array(row), True)[7:])
        expect, _ = G.charge_effect(w, rng)
        assert [[G.symbols[int(x)] for x in col] for col in out[i]] == expect, row


def test_the_fast_simulator_plays_the_same_rounds_as_the_engine_from_the_same_draws(sample):
    stops, draws, (units, casc, fired, sup, won) = sample
    picked = np.concatenate([np.arange(1500), np.nonzero(fired)[0][:600], np.nonzero(sup)[0][:100]])
    assert fired[picked].sum() >= 500 and sup[picked].sum() >= 20
    for i in picked:
        rng = ReplayRNG(_draws(stops[i], draws[i], bool(fired[i])))
        st = G.start(BET, rng)
        assert rng.exhausted and st["win"] == units[i] * 10 and st["cascades"] == casc[i], i
        assert ("crystal_charge" in st["steps"][0]["features"]) == fired[i]
        assert ("super_charge" in st["steps"][0]["features"]) == sup[i]
        assert st["steps"][-1]["symbols_won"] == won[i]


def test_the_charge_fires_once_at_twenty_symbols_won_and_not_at_nineteen(sample):
    stops, draws, (units, _, fired, _, won) = sample
    assert not fired[won < 20].any() and fired[(won >= 20) & (units < 5000)].all()  # a capped round may end first
    i = int(np.nonzero(won == 19)[0][0])
    st = G.start(BET, ReplayRNG(_draws(stops[i], draws[i], False)))
    assert st["steps"][-1]["charge"] == 19 and not any(s["type"] == "crystal_charge" for s in st["steps"])
    seen = 0
    for i in np.nonzero(fired)[0][:300]:
        st = G.start(BET, ReplayRNG(_draws(stops[i], draws[i], True)))
        k = [n for n, s in enumerate(st["steps"]) if s["type"] == "crystal_charge"]
        assert len(k) == 1 and st["steps"][k[0] - 1]["clusters"] == [] and st["steps"][k[0] - 1]["charge"] == 20
        seen += st["steps"][k[0] - 1]["symbols_won"] == 20
    assert seen > 0  # a round whose charge filled at exactly 20 symbols


def test_the_super_charge_triples_every_later_win_of_the_round(sample):
    stops, draws, (_, _, fired, sup, _) = sample
    for i in np.nonzero(sup)[0][:40]:
        st = G.start(BET, ReplayRNG(_draws(stops[i], draws[i], bool(fired[i]))))
        wins = [s for s in st["steps"] if s["type"] != "crystal_charge"]
        k = next(n for n, s in enumerate(wins) if s.get("super_charge"))
        assert wins[k]["symbols_won"] >= 40 and wins[k]["charge"] == 20 and wins[k - 1]["symbols_won"] < 40
        for n, s in enumerate(wins):
            assert s["multiplier"] == (3 if n > k else 1)
            for sym, size, pay, _ in s["clusters"]:
                base = next(v for t, v in reversed(G.pays[sym]) if size >= t) * 10
                assert pay == base * s["multiplier"]


def test_the_round_cap_holds(sample):
    stops, draws, (units, _, fired, _, _) = sample
    capped = np.nonzero(units >= 5000)[0]
    assert capped.size and units.max() == 5000
    i = int(capped[0])
    st = G.start(BET, ReplayRNG(_draws(stops[i], draws[i], bool(fired[i]))))
    assert st["win"] == 500 * 100 and st["capped"]


def test_patterns_light_complete_and_move_through_the_worlds():
    pr = G.fresh_progress()
    first = G.pattern_cells(0, 0)
    some = set(list(first)[:2])
    assert G.advance(pr, some | {(0, 0)}) is None and {tuple(c) for c in pr["lit"]} == some
    assert G.advance(pr, first - some) == {"world": 0, "pattern": 0, "stars": 1}
    assert (pr["world"], pr["pattern"], pr["lit"]) == (0, 1, [])
    for w in range(3):
        for p in range(3):
            if (w, p) == (0, 0):
                continue
            assert G.advance(pr, G.pattern_cells(w, p)) == {"world": w, "pattern": p, "stars": p + 1}
            assert (pr["world"], pr["pattern"]) == ((w + (p == 2)) % 3, (p + 1) % 3)
    assert pr == G.fresh_progress()  # after the last world the first again
    assert G.valid_progress(None) == G.fresh_progress()
    bads: list[Any] = [
        {},
        [],
        {"world": 3, "pattern": 0, "lit": []},
        {"world": 0, "pattern": 0, "lit": [[6, 6]]},
        {"world": 0, "pattern": 0, "lit": [list(c) for c in first]},
        {"world": "x", "pattern": 0, "lit": []},
        {"world": 0, "pattern": 0, "lit": [[3, 3], [3, 3]]},
        {"world": 0, "pattern": 0, "lit": [], "x": 1},
    ]
    for bad in bads:
        with pytest.raises(ActionError) as exc:
            G.valid_progress(bad)
        assert exc.value.code == "game.geode_field.bad_carry"
        with pytest.raises(ActionError):
            G.start_carried(BET, SeededRNG(1), bad)
    assert G.valid_progress({"world": 2, "pattern": 1, "lit": [[4, 4], [3, 3]]}) == {
        "world": 2,
        "pattern": 1,
        "lit": [[3, 3], [4, 4]],
    }


def test_the_progress_is_carried_replays_and_never_changes_a_win():
    rng = SeededRNG(9)
    carry: Any = None
    completed = 0
    for _ in range(300):
        rec_rng = RecordingRNG(rng)
        st = G.start_carried(BET, rec_rng, carry)
        record = {"bet": BET.params, "actions": [], "draws": rec_rng.draws, "state": st}
        assert G.replay(record) == st and st["carry_in"] == G.valid_progress(carry)
        fresh = G.start_carried(BET, ReplayRNG(rec_rng.draws), None)  # the same draws from no progress
        assert fresh["win"] == st["win"] and [s["window"] for s in fresh["steps"]] == [s["window"] for s in st["steps"]]
        completed += sum(1 for s in st["steps"] if "pattern_completed" in s)
        carry = st["carry_out"]
    assert completed >= 2 and (carry["world"], carry["pattern"]) != (0, 0)


@pytest.mark.slow
def test_the_simulated_rtp_agrees_with_the_declared_96_75_percent():
    n = 2_000_000
    stats = G.simulate_fast(BET, n, 20241206)
    mean = stats["total_win"] / stats["total_stake"]
    se = math.sqrt(stats["sum_sq"] / n / 100**2 - mean**2) / math.sqrt(n)
    assert abs(mean - 0.9675) < 2.576 * se + 0.00005, (mean, se)
    assert stats["max_win"] <= G.declared.max_win // G.declared.max_bet * 100
    assert stats["feature_counts"]["feature:crystal_charge"] > 0 and stats["feature_counts"]["feature:super_charge"] > 0
