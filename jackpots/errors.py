"""Errors of the jackpots app (staff configuration and the lifecycle of a level)."""

from __future__ import annotations

from core.errors import ErrorDef

INVALID_CONFIG = ErrorDef(
    "jackpot.invalid_config", 422, "Neplatné nastavení jackpotu.", "Invalid jackpot configuration."
)
NOT_DRAFT = ErrorDef(
    "jackpot.not_draft",
    409,
    "Spuštěný jackpot nelze znovu spustit ani měnit jeho nastavení.",
    "A running jackpot cannot be started again or reconfigured.",
)
BAD_TRANSITION = ErrorDef(
    "jackpot.bad_transition",
    409,
    "Tuto změnu stavu jackpotu nelze provést.",
    "This jackpot status change is not allowed.",
)
NOT_ELIGIBLE = ErrorDef(
    "jackpot.not_eligible", 409, "Tato sázka nemůže jackpot vyhrát.", "This bet cannot win the jackpot."
)
INVALID_QUERY = ErrorDef("jackpot.invalid_query", 400, "Neplatný dotaz na jackpoty.", "Invalid jackpot query.")
NOT_APPROVED = ErrorDef(
    "jackpot.not_approved",
    409,
    "Centrální jackpot nelze spustit, dokud není zaznamenáno jeho schválení v herním plánu (verze herního plánu a "
    "číslo jednací rozhodnutí Ministerstva financí).",
    "A central jackpot cannot start until its approval in the game plan is recorded (the game plan version and the "
    "Ministry of Finance's reference).",
)
