"""Kobushi: 5x3 video slot, 1-30 lines, Wild, Scatter, Kobushi pick bonus, Big Cat free spins with sticky wilds.

Rules as implemented, design choices and how the declared RTP is met: ``docs/games/kobushi.md``.
Modules: ``definition`` (data), ``game`` (the round), ``analysis`` (exact RTP), ``fast_sim`` (numpy), ``texts``.
"""

from __future__ import annotations

from ...registry import register
from .definition import (
    BIG_CAT,
    DEFINITION,
    KOBUSHI,
    LINES,
    NORMAL,
    PAYTABLE,
    PICK_ITEMS,
    SCATTER,
    SCATTER_PAYS,
    SPECIAL,
    TERMINATORS,
    WILD,
)
from .game import Kobushi
from .texts import RULES_CS, RULES_EN, SYMBOL_NAMES

KOBUSHI_GAME = register(Kobushi(DEFINITION))

__all__ = [
    "BIG_CAT",
    "DEFINITION",
    "KOBUSHI",
    "KOBUSHI_GAME",
    "LINES",
    "NORMAL",
    "PAYTABLE",
    "PICK_ITEMS",
    "RULES_CS",
    "RULES_EN",
    "SCATTER",
    "SCATTER_PAYS",
    "SPECIAL",
    "SYMBOL_NAMES",
    "TERMINATORS",
    "WILD",
    "Kobushi",
]
