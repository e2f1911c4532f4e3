"""Kobushi's vectorised simulator (numpy): the same rules as the engine, many rounds side by side.

Base spins run in batches through one flat line lookup table, the bonus is drawn from its prize table, free spins
are played as side-by-side sessions. Amounts are summed in line bets (integers) and converted to minor units at the
end. The tests compare it with the engine's own rounds and with ``analysis.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ... import slots
from ...base import Bet, EngineError, JsonDict, Progress
from .definition import BIG_CAT, KOBUSHI, SCATTER, WILD

if TYPE_CHECKING:
    from .game import Kobushi

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class ReelTable:
    """One reel's strip as arrays over its stops (rows x stops for the codes)."""

    len: int
    code: npt.NDArray[np.int32]  # symbol codes, weighted for the flat LUT index
    exp: npt.NDArray[np.int32]  # the same when the reel is expanded (wild)
    midw: npt.NDArray[np.bool_]  # WILD in the middle row
    sc: npt.NDArray[np.int8]  # Scatters in the window
    kb: npt.NDArray[np.int8]  # Kobushi Bonus symbols
    bc: npt.NDArray[np.int8]  # Big Cats


class FastTables:
    """numpy tables of one Kobushi definition for :func:`simulate_fast` (built once per game instance)."""

    def __init__(self, game: Kobushi) -> None:
        a = len(game.ALPHABET)
        self.a5 = a**game.reels
        self.weights = [a ** (game.reels - 1 - j) for j in range(game.reels)]
        self.lut_base = game.luts[None].ravel().astype(np.int32)
        xs = list(game.fs_evals)
        self.x_codes = np.array([game.code_of(x) for x in xs])
        # one flat table: block i (offset i * a**5) = free spins with extra wild xs[i]
        self.lut_fs = np.concatenate([game.luts[x].ravel() for x in xs]).astype(np.int32)
        self.n_x = len(xs)
        self.base = self._reel_tables(game, game.base_strips)
        self.fs = self._reel_tables(game, game.fs_strips)
        self.sc_pay: IntArray = np.zeros(game.reels * game.rows + 1, dtype=np.int64)
        for k, v in game.d["scatter_pays"].items():
            self.sc_pay[k] = v
        pt = game.d["bonus"]["prize_table"]
        self.prize_values: IntArray = np.array([v for v, _ in pt], dtype=np.int64)
        self.prize_cum: IntArray = np.cumsum([w for _, w in pt])
        tt = game.d["bonus"]["terminators"]
        self.term_names: list[str] = [t for t, _ in tt]
        self.term_cum: IntArray = np.cumsum([w for _, w in tt])
        mt = game.d["free_spins"]["multiplier_table"]
        self.mult_values: IntArray = np.array([v for v, _ in mt], dtype=np.int64)
        self.mult_cum: IntArray = np.cumsum([w for _, w in mt])
        self.mult_top = int(self.mult_values.max())

    def _reel_tables(self, game: Kobushi, strips: list[list[str]]) -> list[ReelTable]:
        out = []
        for j, strip in enumerate(strips):
            n = len(strip)
            cols = [slots.column(strip, stop, game.rows) for stop in range(n)]
            code = np.array([[game.code_of(c[r]) for c in cols] for r in range(game.rows)], dtype=np.int32)
            exp = np.array(
                [[game.code_of(game.expand_column(c)[r]) for c in cols] for r in range(game.rows)], dtype=np.int32
            )
            out.append(
                ReelTable(
                    len=n,
                    code=code * self.weights[j],  # (rows, stops), weighted for the flat LUT index
                    exp=exp * self.weights[j],
                    midw=np.array([c[1] == WILD for c in cols]),
                    sc=np.array([c.count(SCATTER) for c in cols], dtype=np.int8),
                    kb=np.array([c.count(KOBUSHI) for c in cols], dtype=np.int8),
                    bc=np.array([c.count(BIG_CAT) for c in cols], dtype=np.int8),
                )
            )
        return out


def weighted(gen: np.random.Generator, cum: IntArray, values: IntArray, size: int) -> IntArray:
    """``size`` draws from a weighted table given as cumulative weights and values."""
    drawn: IntArray = values[np.searchsorted(cum, gen.integers(0, int(cum[-1]), size=size), side="right")]
    return drawn


def line_units(
    tables: FastTables,
    reels_codes: list[npt.NDArray[np.int32]],
    lines: list[list[int]],
    lut: npt.NDArray[np.int32],
    offset: IntArray | None = None,
) -> IntArray:
    """Sum of line multipliers for each column of ``reels_codes`` (list per reel of (rows, n) weighted codes)."""
    n = reels_codes[0].shape[1]
    total: IntArray = np.zeros(n, dtype=np.int64)
    for rows in lines:
        idx: npt.NDArray[Any] = reels_codes[0][rows[0]] + reels_codes[1][rows[1]]
        for j in range(2, len(rows)):
            idx = idx + reels_codes[j][rows[j]]
        if offset is not None:
            idx = idx + offset
        total += lut[idx]
    return total


def free_spin_sessions(
    game: Kobushi,
    tables: FastTables,
    gen: np.random.Generator,
    count: int,
    lines: list[list[int]],
    counts: dict[str, int],
) -> IntArray:
    """Play ``count`` Big Cat sessions side by side; returns each session's win in line bets (before the cap)."""
    cfg = game.d["free_spins"]
    lo, hi = cfg["spins"]
    max_spins = cfg["max_spins"]
    n_lines = len(lines)
    left = gen.integers(lo, hi + 1, size=count)
    mult = weighted(gen, tables.mult_cum, tables.mult_values, count)
    xi = gen.integers(0, tables.n_x, size=count)
    awarded = left.copy()
    last = mult.copy()
    sticky = np.zeros((count, game.reels), dtype=bool)
    total: IntArray = np.zeros(count, dtype=np.int64)
    queue: dict[int, list[tuple[int, int, int]]] = {}
    top = tables.mult_top
    while True:
        act = np.nonzero(left > 0)[0]
        if act.size == 0:
            break
        k = act.size
        counts["free_spins_played"] = counts.get("free_spins_played", 0) + k
        codes = []
        sc = np.zeros(k, dtype=np.int64)
        bc = np.zeros(k, dtype=np.int64)
        for j, rt in enumerate(tables.fs):
            stops = gen.integers(0, rt.len, size=k)
            expand = sticky[act, j] | rt.midw[stops]
            sticky[act, j] = expand
            codes.append(np.where(expand[None, :], rt.exp[:, stops], rt.code[:, stops]))
            sc += rt.sc[stops]
            bc += rt.bc[stops]
        units = line_units(tables, codes, lines, tables.lut_fs, offset=xi[act] * tables.a5)
        units += tables.sc_pay[sc] * n_lines
        total[act] += units * mult[act]
        left[act] -= 1
        for s in act[bc >= 3].tolist():  # retriggers (rare): a new set after the current one
            counts["feature:big_cat_retrigger"] = counts.get("feature:big_cat_retrigger", 0) + 1
            room = max_spins - int(awarded[s])
            if room <= 0:
                continue
            n = min(int(gen.integers(lo, hi + 1)), room)
            lm = int(last[s])
            m = lm + 1 + int(gen.integers(0, top - lm)) if lm < top else top
            queue.setdefault(s, []).append((n, m, int(gen.integers(0, tables.n_x))))
            awarded[s] += n
            last[s] = m
        for s in act[left[act] == 0].tolist():
            q = queue.get(s)
            if q:
                n, m, x = q.pop(0)
                left[s], mult[s], xi[s] = n, m, x
                sticky[s] = False
    return total


def _bonus_jackpots(tables: FastTables, gen: np.random.Generator, triggers: int, counts: dict[str, int]) -> None:
    """At max bet, what closes each of ``triggers`` pick bonuses: count the jackpot symbols (a Cat pays nothing
    more; the bonus prize is the same whichever way it ends)."""
    ends = np.searchsorted(tables.term_cum, gen.integers(0, int(tables.term_cum[-1]), size=triggers), side="right")
    for i, name in enumerate(tables.term_names):
        if name != "cat":
            c = int(np.sum(ends == i))
            if c:
                level = name.split("_", 1)[1]
                counts["jackpot_events"] = counts.get("jackpot_events", 0) + c
                counts[f"jackpot:{level}"] = counts.get(f"jackpot:{level}", 0) + c


def simulate_fast(game: Kobushi, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
    """Vectorised simulation (numpy PCG64 seeded with ``seed``); the canonical statistics of ``par.py``."""
    if rounds <= 0:
        raise EngineError("game.simulation_rounds", "rounds must be positive")
    tables = game.__dict__.get("_fast_tables")
    if tables is None:
        tables = game.__dict__["_fast_tables"] = FastTables(game)
    gen = np.random.Generator(np.random.PCG64(seed))
    p = bet.params
    n_lines = p["lines"]
    lines = game.lines[:n_lines]
    lb = p["coins"] * p["coin_value"]
    cap_units = game.d["max_win_multiplier"] * n_lines
    max_bet = game.is_max_bet(p)
    counts: dict[str, int] = {}
    tot = {"base": 0, "bonus": 0, "free_spins": 0}
    sq = {"base": 0, "bonus": 0, "free_spins": 0}
    total_win = sum_sq = hits = max_units = 0
    done, batch = 0, 250_000
    while done < rounds:
        n = min(batch, rounds - done)
        codes = []
        sc, kb, bc = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        for rt in tables.base:
            stops = gen.integers(0, rt.len, size=n)
            codes.append(rt.code[:, stops])
            sc += rt.sc[stops]
            kb += rt.kb[stops]
            bc += rt.bc[stops]
        base = line_units(tables, codes, lines, tables.lut_base) + tables.sc_pay[sc] * n_lines
        bonus = np.zeros(n, dtype=np.int64)
        b_idx = np.nonzero(kb >= 3)[0]
        if b_idx.size:
            counts["feature:kobushi_bonus"] = counts.get("feature:kobushi_bonus", 0) + int(b_idx.size)
            bonus[b_idx] = weighted(gen, tables.prize_cum, tables.prize_values, b_idx.size) * n_lines
            if max_bet:
                _bonus_jackpots(tables, gen, b_idx.size, counts)
        fs = np.zeros(n, dtype=np.int64)
        f_idx = np.nonzero(bc >= 3)[0]
        if f_idx.size:
            counts["feature:big_cat_free_spins"] = counts.get("feature:big_cat_free_spins", 0) + int(f_idx.size)
            fs[f_idx] = free_spin_sessions(game, tables, gen, int(f_idx.size), lines, counts)
        win = base + bonus + fs
        over = win > cap_units
        if over.any():
            counts["capped"] = counts.get("capped", 0) + int(over.sum())
            fs = np.where(over, fs - (win - cap_units), fs)
            win = np.minimum(win, cap_units)
        for key, arr in (("base", base), ("bonus", bonus), ("free_spins", fs)):
            tot[key] += int(arr.sum())
            sq[key] += int(np.dot(arr, arr))
        total_win += int(win.sum())
        sum_sq += int(np.dot(win, win))
        hits += int(np.count_nonzero(win))
        max_units = max(max_units, int(win.max()))
        done += n
        if progress:
            progress(done, rounds)
    stake = bet.total_stake
    return {
        "rounds": rounds,
        "total_stake": rounds * stake,
        "total_win": total_win * lb,
        "rtp": total_win * lb / (rounds * stake),
        "breakdown": {
            "base": tot["base"] * lb,
            "free_spins": tot["free_spins"] * lb,
            "bonus": tot["bonus"] * lb,
            "gamble": 0,
            "jackpot": 0,
        },
        "breakdown_sum_sq": {k: v * lb * lb for k, v in sq.items()},
        "remainder_sum_sq": sq["free_spins"] * lb * lb,
        "remainder_parts": ["base", "bonus"],
        "hit_count": hits,
        "hit_frequency": hits / rounds,
        "sum_sq": sum_sq * lb * lb,
        "max_win": max_units * lb,
        "feature_counts": dict(sorted(counts.items())),
    }
