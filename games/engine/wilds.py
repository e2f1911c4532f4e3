"""Wild behaviours of the catalogue: wild multipliers per wild in a combination, wilds that expand over
their reel, sticky (held) expanded wilds with re-spins. Pure Python; the games' exact tables use the same functions.

* **Wild multiplier** (the catalogue's 3-reel example): a line combination that a wild completes is multiplied by
  ``factors[number of wilds in it]`` (x5 for one, x25 for two); a combination made only of wilds pays the wild's
  own paytable entry, unmultiplied. The line pays its highest combination *after* the multiplier.
* **Expanding wild**: a reel showing the wild anywhere becomes wild in every row (``expand_reels``).
* **Sticky re-spins**: expanded wild reels are held, the other reels re-spin; each new wild expands and is held too;
  the re-spins end when a re-spin brings no new wild (``respin_sequence`` in the games).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from .slots import LineEvaluator


def multiplied_line_win(
    seq: Sequence[str], evaluator: LineEvaluator, wild: str, factors: dict[int, int]
) -> tuple[str, int, int, int] | None:
    """(symbol, count, multiplier after the wild factor, wilds in the combination) of the best combination."""
    best: tuple[str, int, int, int] | None = None
    for c in evaluator.candidates(seq):
        n = evaluator.run_length(seq, c)
        base = evaluator.paytable[c].get(n, 0)
        if not base:
            continue
        wilds = 0 if c == wild else sum(1 for p in seq[:n] if p == wild)
        m = base * factors.get(wilds, 1)
        if best is None or (m, n) > (best[2], best[1]):
            best = (c, n, m, wilds)
    return best


def multiplied_line_lut(
    evaluator: LineEvaluator, wild: str, factors: dict[int, int], alphabet: Sequence[str], reels: int
) -> list[int]:
    """Flat table (row-major over ``alphabet ** reels``) of :func:`multiplied_line_win`'s multiplier."""
    out = []
    for idx in itertools.product(range(len(alphabet)), repeat=reels):
        w = multiplied_line_win([alphabet[i] for i in idx], evaluator, wild, factors)
        out.append(w[2] if w else 0)
    return out


def expand_reels(window: list[list[str]], wild: str, reels: Iterable[int]) -> list[list[str]]:
    """The window with every reel in ``reels`` showing ``wild`` in all its rows."""
    keep = set(reels)
    return [[wild] * len(col) if j in keep else list(col) for j, col in enumerate(window)]


def wild_reels(window: Sequence[Sequence[str]], wild: str, allowed: Iterable[int] | None = None) -> list[int]:
    """The reels (within ``allowed``) showing ``wild`` in at least one row."""
    ok = set(range(len(window))) if allowed is None else set(allowed)
    return [j for j, col in enumerate(window) if j in ok and wild in col]
