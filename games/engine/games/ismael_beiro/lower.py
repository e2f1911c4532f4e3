"""The lower game's rules as pure functions of the reel stops: the centre line, its prize, pairs (holds), nudges
(the near miss and the automatic best nudges) and the vertical-line marks.

A reel's stop is the strip index on the centre line; the player is shown the symbol above and below too. A nudge
moves a reel one symbol down: the symbol above the line lands on it (stop - 1). Everything here is deterministic:
the draws are made by the round (``game.py``) in a fixed order, and the analysis and the fast simulator use the same
functions (``analysis.py``, ``fast_sim.py``).
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

from .definition import BONUS, CONFESSIONAL, WILD

Stops = tuple[int, int, int]
# A line's result: {"kind": "cash" | "bonus" | "confessional" | "none", "symbol", "prize" (x stake, cash),
# "credits" (bonus), "pair": the reels of the pair the automatic hold keeps, or None}
Result = dict[str, Any]
HOLD_SETS: list[list[int]] = [[], [0], [1], [2], [0, 1], [0, 2], [1, 2]]


class Lower:
    """The lower game of one definition (``DEFINITION["lower"]``); immutable, results cached per stops."""

    def __init__(self, d: dict[str, Any], confessional_value: float) -> None:
        self.strips: list[list[str]] = d["strips"]
        self.n = len(self.strips[0])
        self.marks = [frozenset(m) for m in d["vl_marks"]]
        self.pays: dict[str, int] = d["pays"]
        self.bonus_pays: dict[int, int] = {int(k): v for k, v in d["bonus_pays"].items()}
        self.wild_reels = frozenset(d["wild_reels"])
        self.max_nudges: int = d["max_nudges"]
        self.bonus_value_stakes = 4  # one upper game is worth 4 stakes of bonuses (its bonus price x 4 CZK)
        self.confessional_value = confessional_value  # its mean value in stakes (for the automatic choices)

    # --- the line ------------------------------------------------------------------------------------------------
    def line(self, stops: Stops) -> list[str]:
        return [self.strips[j][stops[j] % self.n] for j in range(3)]

    def window(self, stops: Stops) -> list[list[str]]:
        """The three symbols shown per reel (above, on and below the line)."""
        return [[self.strips[j][(stops[j] + r) % self.n] for r in (-1, 0, 1)] for j in range(3)]

    def vertical_marks(self, stops: Stops) -> int:
        """How many symbols on the centre line carry the vertical-lines mark."""
        return sum(1 for j in range(3) if stops[j] % self.n in self.marks[j])

    @functools.lru_cache(maxsize=8192)  # noqa: B019 - one Lower per game definition, kept for the process
    def result(self, stops: Stops) -> Result:
        a, b, c = self.line(stops)
        n_bonus = (a, b, c).count(BONUS)
        if n_bonus:
            return {
                "kind": "bonus",
                "symbol": BONUS,
                "count": n_bonus,
                "prize": 0,
                "credits": self.bonus_pays[n_bonus],
                "pair": None,
            }
        if a in (b, WILD) and c in (b, WILD):
            if b == CONFESSIONAL:
                return {"kind": "confessional", "symbol": b, "prize": 0, "credits": 0, "pair": None}
            return {"kind": "cash", "symbol": b, "prize": self.pays[b], "credits": 0, "pair": None}
        pair = self.best_pair((a, b, c))
        return {"kind": "none", "symbol": None, "prize": 0, "credits": 0, "pair": pair}

    def pairs(self, line: tuple[str, str, str]) -> list[tuple[list[int], str]]:
        """The pairs of a line without a prize: (reels, symbol) for two matching reels (a WILD matches any)."""
        a, b, c = line
        out: list[tuple[list[int], str]] = []
        if a in (b, WILD):
            out.append(([0, 1], b))
        if c in (b, WILD):
            out.append(([1, 2], b))
        if a == c and a != WILD:
            out.append(([0, 2], a))
        elif a == WILD and c != WILD:
            out.append(([0, 2], c))
        elif c == WILD and a != WILD:
            out.append(([0, 2], a))
        return out

    def symbol_value(self, symbol: str) -> float:
        """What a three of the symbol is worth to the player, in stakes (the automatic choices compare these)."""
        if symbol == CONFESSIONAL:
            return self.confessional_value
        return float(self.pays.get(symbol, 0))

    def best_pair(self, line: tuple[str, str, str]) -> list[int] | None:
        """The pair the automatic hold keeps: the most valuable symbol; on a tie the first of (0,1), (1,2), (0,2)."""
        best: tuple[float, list[int]] | None = None
        for reels, sym in self.pairs(line):
            v = self.symbol_value(sym)
            if best is None or v > best[0]:
                best = (v, reels)
        return best[1] if best else None

    def value(self, r: Result) -> float:
        """A result's worth to the player in stakes: cash prize, bonuses at 4 stakes an upper game, the
        Confessional at its mean."""
        if r["kind"] == "cash":
            return float(r["prize"])
        if r["kind"] == "bonus":
            return float(r["credits"] * self.bonus_value_stakes)
        if r["kind"] == "confessional":
            return self.confessional_value
        return 0.0

    def is_prize(self, r: Result) -> bool:
        return bool(r["kind"] != "none")

    # --- nudges ----------------------------------------------------------------------------------------------------
    def nudged(self, stops: Stops, alloc: tuple[int, int, int]) -> Stops:
        return ((stops[0] - alloc[0]) % self.n, (stops[1] - alloc[1]) % self.n, (stops[2] - alloc[2]) % self.n)

    @functools.cached_property
    def allocations(self) -> list[list[tuple[int, int, int]]]:
        """By the number of nudges k: every way to spend at most k nudges, fewest first, then in order."""
        out: list[list[tuple[int, int, int]]] = []
        for k in range(self.max_nudges + 1):
            allocs = [(x, y, z) for x, y, z in itertools.product(range(k + 1), repeat=3) if x + y + z <= k]
            out.append(sorted(allocs, key=lambda a: (sum(a), a)))
        return out

    def index(self, stops: Stops) -> int:
        return (stops[0] * self.n + stops[1]) * self.n + stops[2]

    def stops_of(self, idx: int) -> Stops:
        return (idx // (self.n * self.n), (idx // self.n) % self.n, idx % self.n)

    @functools.cached_property
    def _nudge_tables(self) -> dict[str, Any]:
        """numpy tables over every stops index: the nudged index of each allocation, what each line is worth to
        AUTO-ADVANCE (a prize, a pair) and the near miss."""
        import numpy as np

        n = self.n
        idx = np.arange(n**3)
        a, b, c = idx // (n * n), (idx // n) % n, idx % n
        res = [self.result(self.stops_of(i)) for i in range(n**3)]
        prize_v = np.array([1.0 + self.value(r) if self.is_prize(r) else 0.0 for r in res])
        pair_v = np.zeros(n**3)
        for i, r in enumerate(res):
            if not self.is_prize(r) and r["pair"] is not None:
                line = tuple(self.line(self.stops_of(i)))
                pairs = self.pairs(line)  # type: ignore[arg-type]  # a line is 3 symbols
                pair_v[i] = 0.001 * (1.0 + max(self.symbol_value(s) for _, s in pairs))
        moved = {}
        for k in range(self.max_nudges + 1):
            moved[k] = np.stack(
                [((a - x) % n * n + (b - y) % n) * n + (c - z) % n for x, y, z in self.allocations[k]], axis=1
            )
        full = moved[self.max_nudges][:, 1:]
        near = (prize_v[idx] == 0) & ((prize_v[full] > 0) | (pair_v[full] > 0)).any(axis=1)
        best = {}
        for useful in (False, True):
            v = prize_v + (pair_v if useful else 0.0)
            for k in range(self.max_nudges + 1):
                best[(k, useful)] = np.argmax(v[moved[k]], axis=1)  # the first best: fewest nudges, then in order
        return {"near": near, "best": best}

    def near_miss(self, stops: Stops) -> bool:
        """Seed 2.5.3: no prize now, but up to the maximum nudges could give a prize or a pair."""
        return bool(self._nudge_tables["near"][self.index(stops)])

    def best_nudges(self, stops: Stops, k: int, pair_useful: bool) -> tuple[int, int, int]:
        """AUTO-ADVANCE (seed 2.5.3): the nudges (per reel, at most k in all) with the best outcome for the player:
        the most valuable prize; with no prize in reach, the most valuable pair when a hold can still follow;
        else none. Ties: fewer nudges, then the first allocation in order."""
        i = int(self._nudge_tables["best"][(k, pair_useful)][self.index(stops)])
        return self.allocations[k][i]
