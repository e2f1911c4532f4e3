"""Kobushi's exact RTP parts (base lines, scatter, pick bonus) and the semi-exact free-spin analysis.

The PAR sheet adds the exact parts to the simulated free spins (``docs/games/kobushi.md``, "How the declared RTP is
met"); the free-spin analysis is checked against the simulators in the tests.
"""

from __future__ import annotations

import functools
import itertools
import sys
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

from ... import slots
from ...base import JsonDict
from .definition import BIG_CAT, KOBUSHI, SCATTER, WILD

if TYPE_CHECKING:
    from .game import Kobushi


class ReelDist(TypedDict):
    """Symbol-code counts of one free-spin reel over all its stops."""

    sticky: list[int]  # the reel expanded (sticky): the code shown, the same on every row
    free: list[list[int]]  # the reel not sticky, per row (it expands when its middle row shows WILD)
    len: int
    p_expand: Fraction  # P(WILD in the middle row)


def exact_parts(game: Kobushi) -> dict[str, Fraction]:
    """Base-game line pays, scatter pays and the Kobushi bonus, as exact fractions of the stake."""
    counts = [slots.symbol_counts(s) for s in game.base_strips]
    lines = slots.expected_line_multiplier(game.base_eval, counts)
    sc = slots.count_probabilities(game.base_strips, game.rows, SCATTER)
    scatter = sum((p * game.d["scatter_pays"].get(k, 0) for k, p in sc.items()), Fraction(0))
    kb = slots.count_probabilities(game.base_strips, game.rows, KOBUSHI)
    p_bonus = sum((p for k, p in kb.items() if k >= 3), Fraction(0))
    bonus = p_bonus * slots.weighted_mean(game.d["bonus"]["prize_table"])
    return {"base_lines": lines, "base_scatter": scatter, "bonus": bonus}


def trigger_probabilities(game: Kobushi) -> dict[str, Fraction]:
    """P(3+ KOBUSHI) and P(3+ BIG_CAT) in a base spin, P(3+ BIG_CAT) in a free spin (a retrigger)."""
    out = {}
    for name, strips, sym in (
        ("bonus", game.base_strips, KOBUSHI),
        ("free_spins", game.base_strips, BIG_CAT),
        ("retrigger", game.fs_strips, BIG_CAT),
    ):
        dist = slots.count_probabilities(strips, game.rows, sym)
        out[name] = sum((p for k, p in dist.items() if k >= 3), Fraction(0))
    return out


def jackpot_return(game: Kobushi, coin_value: int, stake: int) -> dict[str, Fraction]:
    """The jackpots' return at an eligible bet (max coins and lines) as exact fractions of the stake, per level:
    ``<level>_seed`` = P(level per round) x seed_per_coin x coin value / stake, with P(level per round) =
    P(3+ KOBUSHI) x terminator weight / total weight (the round cap can never cut base + bonus, so every bonus
    reaches its closing item), and ``<level>_contribution`` = the level's contribution rate (every contribution is
    paid to a winner in the end: in steady state the pools return exactly what they collect)."""
    prog = game.d["progressive"]
    terms = game.d["bonus"]["terminators"]
    total_w = sum(w for _, w in terms)
    p_bonus = trigger_probabilities(game)["bonus"]
    out: dict[str, Fraction] = {}
    for item, w in terms:
        if not item.startswith("jackpot_"):
            continue
        level = item.split("_", 1)[1]
        out[f"{level}_seed"] = p_bonus * Fraction(w, total_w) * prog["seed_per_coin"][level] * coin_value / stake
    for level, ppm in prog["contribution_ppm"].items():
        out[f"{level}_contribution"] = Fraction(ppm, 1_000_000)
    return out


def free_spin_reel_dists(game: Kobushi) -> list[ReelDist]:
    """Per free-spin reel: symbol-code counts over all stops at each row, for a sticky reel and a free one
    (a free reel expands when its middle row shows WILD)."""
    a = len(game.ALPHABET)
    out: list[ReelDist] = []
    for strip in game.fs_strips:
        sticky = [0] * a
        free = [[0] * a for _ in range(game.rows)]
        for stop in range(len(strip)):
            col = slots.column(strip, stop, game.rows)
            sticky[game.code_of(game.expand_column(col)[0])] += 1
            shown = game.expand_column(col) if col[1] == WILD else col
            for r in range(game.rows):
                free[r][game.code_of(shown[r])] += 1
        out.append(
            {"sticky": sticky, "free": free, "len": len(strip), "p_expand": Fraction(strip.count(WILD), len(strip))}
        )
    return out


def free_spins_analysis(game: Kobushi, lines: int | None = None) -> JsonDict:
    """Expected free-spin win per trigger, in stakes, without the round cap (floats; exact line tables).

    Per spin, E[pay | sticky reels S before the spin, extra wild X] is exact (lookup tables contracted with the
    reels' symbol counts, the spin's own expansions included). The sticky state of a set after t spins is a
    product over the wild reels of 1 - (1 - w_j)^t (w_j = P(WILD in the middle row)), so a set of n spins is
    worth G(n) = sum_{t<n} E_S[v(S)] (X uniform). Retriggers (3+ BIG_CAT, probability r per spin, independent
    of sticky wilds and extra wild, since expansions never cover Big Cats) form a Markov chain over (spins
    awarded, spins played, last multiplier); each award (n, m) adds m x G(n). Only the 5,000 x stake cap is
    left out (the simulation includes it)."""
    n_lines = lines or game.bet_model.max_lines
    dists = free_spin_reel_dists(game)
    wild_reels = [j for j, dd in enumerate(dists) if dd["p_expand"] > 0]
    sc = slots.count_probabilities(game.fs_strips, game.rows, SCATTER)
    scatter_ev = float(sum(p * game.d["scatter_pays"].get(k, 0) for k, p in sc.items()))
    v = _spin_values(game, dists, wild_reels, n_lines, scatter_ev)
    w = {j: float(dists[j]["p_expand"]) for j in wild_reels}
    cfg = game.d["free_spins"]
    g = _set_values(v, w, wild_reels, cfg["max_spins"])
    triggers = trigger_probabilities(game)
    r = float(triggers["retrigger"])
    per_trigger = _value_per_trigger(cfg, g, r)
    p_fs = float(triggers["free_spins"])
    return {
        "lines": n_lines,
        "spin_value_by_sticky": {",".join(map(str, sorted(k))): val for k, val in v.items()},
        "scatter_per_spin": scatter_ev,
        "retrigger_probability": r,
        "per_trigger": per_trigger,
        "trigger_probability": p_fs,
        "rtp": p_fs * per_trigger,
        "set_value": g,
    }


def _spin_values(
    game: Kobushi, dists: list[ReelDist], wild_reels: list[int], n_lines: int, scatter_ev: float
) -> dict[frozenset[int], float]:
    """v(S): the expected win of one free spin in stakes (before the multiplier) for each set S of sticky reels,
    the extra wild uniform over its symbols."""
    denom = 1
    for dd in dists:
        denom *= dd["len"]
    xs = list(game.fs_evals)
    cache: dict[tuple[str, tuple[Any, ...]], float] = {}

    def line_value(x: str, key: tuple[Any, ...]) -> float:
        k = (x, key)
        if k not in cache:
            vecs = [
                np.array(dists[j]["sticky"] if kind == "s" else dists[j]["free"][kind]) for j, kind in enumerate(key)
            ]
            cache[k] = slots.lut_expectation(game.luts[x], vecs) / denom
        return cache[k]

    v: dict[frozenset[int], float] = {}
    for size in range(len(wild_reels) + 1):
        for sticky in itertools.combinations(wild_reels, size):
            st = frozenset(sticky)
            tot = 0.0
            for x in xs:
                for rows in game.lines[:n_lines]:
                    key = tuple("s" if j in st else rows[j] for j in range(game.reels))
                    tot += line_value(x, key)
            v[st] = tot / len(xs) / n_lines + scatter_ev  # in stakes, before the multiplier
    return v


def _set_values(
    v: dict[frozenset[int], float], w: dict[int, float], wild_reels: list[int], max_spins: int
) -> list[float]:
    """G(n) for n = 0..max_spins: the expected win of a set of n free spins (multiplier 1), sticky wilds growing."""
    per_t = []
    for t in range(max_spins):
        e = 0.0
        for st, val in v.items():
            pr = 1.0
            for j in wild_reels:
                q = 1 - (1 - w[j]) ** t
                pr *= q if j in st else 1 - q
            e += pr * val
        per_t.append(e)
    g = [0.0]
    for t in range(max_spins):
        g.append(g[-1] + per_t[t])
    return g


def _value_per_trigger(cfg: dict[str, Any], g: list[float], r: float) -> float:
    """The expected free-spin win of one trigger: the first set (n, m) plus the retrigger chain."""
    lo, hi = cfg["spins"]
    max_spins = cfg["max_spins"]
    top = max(m for m, _ in cfg["multiplier_table"])
    awards = range(lo, hi + 1)

    @functools.cache
    def further(awarded: int, played: int, last: int) -> float:
        """The expected win of the retriggers still to come (state: spins awarded, played, last multiplier)."""
        if played >= awarded:
            return 0.0
        stay = further(awarded, played + 1, last)
        room = max_spins - awarded
        if room <= 0:
            return stay  # a retrigger awards nothing any more
        nxt = [last + 1 + i for i in range(top - last)] if last < top else [top]
        acc = 0.0
        for n in awards:
            n2 = min(n, room)
            for m in nxt:
                acc += m * g[n2] + further(awarded + n2, played + 1, m)
        acc /= len(awards) * len(nxt)
        return r * acc + (1 - r) * stay

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10_000))
    try:
        tw = sum(w_ for _, w_ in cfg["multiplier_table"])
        per_trigger = 0.0
        for n in awards:
            for m, wm in cfg["multiplier_table"]:
                per_trigger += wm / tw / len(awards) * (m * g[n] + further(n, 0, m))
    finally:
        sys.setrecursionlimit(old)
    return per_trigger
