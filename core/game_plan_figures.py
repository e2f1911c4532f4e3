"""The shape of ``settings.GP``, the game plan's figures (config/settings/limits.py reads them from the environment):
a typed dictionary, so ``settings.GP["MAX_STAKE"]`` is an ``int`` where it is read, and ``GamePlanNumber`` names the
whole-number figures a helper may look up by name."""

from __future__ import annotations

from typing import Literal, TypedDict


class GamePlanFigures(TypedDict):
    TEMP_ACCOUNT_DEPOSIT_CAP: int  # haléře, GP §5(2)b, §5(12)
    TEMP_ACCOUNT_LIFETIME_DAYS: int  # GP §5(2)a
    BRANCH_CASH_PER_24H: int  # haléře, GP §5(12)
    MIN_STAKE: int  # haléře, GP §8(1)
    STAKE_STEP: int  # haléře, GP §8(1)
    MAX_STAKE: int  # haléře, GP §8(2)
    MAX_WIN_PER_ROUND: int  # haléře, GP §8(3)
    MAX_HOURLY_LOSS: int  # haléře, GP §8(5)
    MIN_RTP_PERCENT: str  # a decimal, GP §8(4)
    PLAY_BEFORE_BREAK_MINUTES: int  # GP §7(4)
    BREAK_MINUTES: int  # GP §7(4)-(5)
    MIN_ROUND_SECONDS: int  # GP §7(9)


GamePlanNumber = Literal[
    "TEMP_ACCOUNT_DEPOSIT_CAP",
    "TEMP_ACCOUNT_LIFETIME_DAYS",
    "BRANCH_CASH_PER_24H",
    "MIN_STAKE",
    "STAKE_STEP",
    "MAX_STAKE",
    "MAX_WIN_PER_ROUND",
    "MAX_HOURLY_LOSS",
    "PLAY_BEFORE_BREAK_MINUTES",
    "BREAK_MINUTES",
    "MIN_ROUND_SECONDS",
]
