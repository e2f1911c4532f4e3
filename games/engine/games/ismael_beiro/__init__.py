"""Ismael Beiro: a 3-reel, 16-symbol arcade machine with a lower and an upper game (seed 001).

Rules as implemented, what is designed and how the declared RTP is met: ``docs/games/ismael_beiro.md``.
Modules: ``definition`` (data), ``lower`` / ``upper`` (the reels' rules), ``features`` (ladders, minigames,
Double-or-Bonuses), ``game`` (the round), ``offers`` (the pending offers, restoration hints, automatic choices),
``catalogue`` (``describe()``), ``analysis`` (exact lower game, upper programme), ``fast_sim`` (numpy),
``demo`` (seed 6), ``texts``.
"""

from __future__ import annotations

from ...registry import register
from .definition import (
    BETS,
    DEFINITION,
    DEFINITION_V2,
    DEFINITION_V3,
    LOWER_PAYS,
    LOWER_STRIPS,
    UPPER_PAYS,
    UPPER_STRIPS,
)
from .game import IsmaelBeiro
from .texts import RULES_CS, RULES_EN, SYMBOL_NAMES

ISMAEL_BEIRO_V1 = register(IsmaelBeiro(DEFINITION))
# Version 2: the machine's counters and bonuses carried between rounds, the sixth upper bet.
ISMAEL_BEIRO_V2 = register(IsmaelBeiro(DEFINITION_V2))
# Version 3 (current): no player choice decides the return (the machine's holds, nudges and upper bet; fair
# gambles). Rounds keep the version they started on, so versions 1 and 2 stay registered for replay.
ISMAEL_BEIRO_V3 = ISMAEL_BEIRO = register(IsmaelBeiro(DEFINITION_V3))

__all__ = [
    "BETS",
    "DEFINITION",
    "DEFINITION_V2",
    "DEFINITION_V3",
    "ISMAEL_BEIRO",
    "ISMAEL_BEIRO_V1",
    "ISMAEL_BEIRO_V2",
    "ISMAEL_BEIRO_V3",
    "LOWER_PAYS",
    "LOWER_STRIPS",
    "RULES_CS",
    "RULES_EN",
    "SYMBOL_NAMES",
    "UPPER_PAYS",
    "UPPER_STRIPS",
    "IsmaelBeiro",
]
