"""Ways pays ("243 ways", uneven reel heights such as 3-4-5-4-3 = 720 ways, growing ways), optionally both ways.

Pure Python (numpy only in the simulators' tables). A **ways** win of symbol s is s (or a wild standing in for it)
on each of the first k adjacent reels from the left (k >= the symbol's smallest paying count); it pays
``paytable[s][k] x ways``, ``ways`` = the product over those reels of how many positions show s or a wild (a wild
may count more than one position: ``wilds = {"WILD": 1, "DOUBLE_WILD": 2}``). Every symbol of the paytable is
evaluated on its own and the wins are added. Reels may have different heights (``window[reel]`` is a list of any
length); the number of ways of a window is the product of the heights.

**Both ways** (``both_ways=True``): the same read from the rightmost reel too; a combination over all reels pays
once. Wilds pay nothing by themselves here; a game that lets wilds appear on the first (or, both ways, the last)
reel must say what an all-wild way pays (the games of this engine keep wilds off those reels).

Exact expectations: the reels are independent, so for one symbol
``E[win] = sum_k pay(k) x prod_{j<k} E[c_j] x P(c_k = 0)`` (``c_j`` = the count of s or wild positions on reel j,
``P(c_5 = 0)`` read as 1 for a full line) -> :func:`expected_pay`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from . import slots


class WaysEvaluator:
    def __init__(self, paytable: dict[str, dict[int, int]], wilds: dict[str, int] | None = None) -> None:
        self.paytable = {s: {int(k): int(v) for k, v in p.items()} for s, p in paytable.items()}
        self.wilds = dict(wilds or {})

    def count(self, col: Sequence[str], symbol: str) -> int:
        """Positions of one reel that count for ``symbol`` (a wild counts its weight)."""
        return sum(1 if p == symbol else self.wilds.get(p, 0) for p in col)

    def _one_way(self, window: Sequence[Sequence[str]], symbol: str) -> tuple[int, int]:
        k, ways = 0, 1
        for col in window:
            c = self.count(col, symbol)
            if not c:
                break
            ways *= c
            k += 1
        return k, ways

    def evaluate(self, window: Sequence[Sequence[str]], both_ways: bool = False) -> list[list[Any]]:
        """``[[symbol, reels, ways, multiplier x ways, direction], ...]`` for every paying symbol."""
        out: list[list[Any]] = []
        n = len(window)
        for s, pays in self.paytable.items():
            k, ways = self._one_way(window, s)
            if pays.get(k):
                out.append([s, k, ways, pays[k] * ways, "ltr"])
            if both_ways and k < n:
                k2, ways2 = self._one_way(window[::-1], s)
                if pays.get(k2):
                    out.append([s, k2, ways2, pays[k2] * ways2, "rtl"])
        return out


def reel_count_table(evaluator: WaysEvaluator, strip: Sequence[str], height: int, symbol: str) -> list[int]:
    """``[c(stop) for every stop]``: the positions counting for ``symbol`` in the reel's window at each stop."""
    return [evaluator.count(slots.column(strip, stop, height), symbol) for stop in range(len(strip))]


def reel_moments(evaluator: WaysEvaluator, strip: Sequence[str], height: int, symbol: str) -> tuple[Fraction, Fraction]:
    """(E[c], P(c = 0)) of one reel for ``symbol`` over uniform stops."""
    t = reel_count_table(evaluator, strip, height, symbol)
    return Fraction(sum(t), len(t)), Fraction(t.count(0), len(t))


def expected_pay(
    evaluator: WaysEvaluator, strips: Sequence[Sequence[str]], heights: Sequence[int], both_ways: bool = False
) -> Fraction:
    """E[sum of the ways multipliers of one spin] (in the paytable's unit) over uniform independent stops."""
    n = len(strips)
    total = Fraction(0)
    for s, pays in evaluator.paytable.items():
        mom = [reel_moments(evaluator, strips[j], heights[j], s) for j in range(n)]
        for order in [mom, mom[::-1]] if both_ways else [mom]:
            prod = Fraction(1)
            for k in range(1, n + 1):
                prod *= order[k - 1][0]
                p_stop = order[k][1] if k < n else Fraction(1)
                if pays.get(k):
                    total += pays[k] * prod * p_stop
        if both_ways and pays.get(n):  # a full-length combination was counted from both ends: once only
            prod = Fraction(1)
            for m in mom:
                prod *= m[0]
            total -= pays[n] * prod
    return total


def max_ways(evaluator: WaysEvaluator, strips: Sequence[Sequence[str]], heights: Sequence[int], symbol: str) -> int:
    """The most ways ``symbol`` can reach on these strips (the product of each reel's largest count)."""
    out = 1
    for j, st in enumerate(strips):
        out *= max(reel_count_table(evaluator, st, heights[j], symbol))
    return out
