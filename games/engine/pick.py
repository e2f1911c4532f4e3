"""Pick bonuses whose choices never change the result (GP §7(3)): "second chance" boards hiding scatters or
multipliers.

When the bonus triggers, **everything behind every choice is drawn at once, in a fixed order** before the pick is
offered: the prizes (one weighted draw each, in item order), then the order in which picks reveal the items (a
Fisher-Yates shuffle, ``randbelow(n)``, ``randbelow(n - 1)``, ...). The k-th pick, whichever option the player
touches, reveals the k-th item of that order; once the bonus ends the options not picked show the remaining items
in the order of their positions. So the same draws give the same result for any choice; every draw is in the
round's record and the round replays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .base import RNG


def draw_reveal_order(rng: RNG, items: Sequence[Any]) -> list[Any]:
    """A uniformly random order of ``items`` (Fisher-Yates from the front: ``randbelow(n - i)`` for i = 0..n-2)."""
    pool = list(items)
    out = []
    while len(pool) > 1:
        out.append(pool.pop(rng.randbelow(len(pool))))
    out.extend(pool)
    return out


def board(order: Sequence[Any], picked: Sequence[int], size: int) -> list[Any]:
    """What each option hides, for showing the board once the bonus ended: the picked options hold the first
    ``len(picked)`` items in pick order, the others the rest in position order."""
    out: list[Any] = [None] * size
    for k, pos in enumerate(picked):
        out[pos] = order[k]
    rest = iter(order[len(picked) :])
    for pos in range(size):
        if pos not in picked:
            out[pos] = next(rest)
    return out
