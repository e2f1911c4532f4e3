"""The game plan's figures (GP "Defaults for blank figures"): stakes, wins, the hourly loss cap, the temporary account,
breaks. Amounts in haléře. The limits app enforces them (docs/limits.md)."""

from __future__ import annotations

from config.settings.base import env
from core.game_plan_figures import GamePlanFigures

env.area("Game plan figures")
PLATFORM_CURRENCY = "CZK"


GP: GamePlanFigures = {
    "TEMP_ACCOUNT_DEPOSIT_CAP": env.int(
        "GP_TEMP_ACCOUNT_DEPOSIT_CAP", 300_000, "haléře: the most a temporary account may deposit (GP §5(2)b, §5(12))"
    ),
    "TEMP_ACCOUNT_LIFETIME_DAYS": env.int(
        "GP_TEMP_ACCOUNT_LIFETIME_DAYS", 30, "days a temporary account lives (GP §5(2)a)"
    ),  # GP §5(2)a
    "BRANCH_CASH_PER_24H": env.int(
        "GP_BRANCH_CASH_PER_24H", 500_000, "haléře: branch cash per player in 24 hours (GP §5(12))"
    ),  # GP §5(12)
    "MIN_STAKE": env.int("GP_MIN_STAKE", 10, "haléře: the smallest stake (GP §8(1))"),
    "STAKE_STEP": env.int("GP_STAKE_STEP", 10, "haléře: stakes are multiples of this (GP §8(1))"),
    "MAX_STAKE": env.int("GP_MAX_STAKE", 100_000, "haléře: the largest stake (GP §8(2))"),
    "MAX_WIN_PER_ROUND": env.int("GP_MAX_WIN_PER_ROUND", 5_000_000, "haléře: the largest win of one round (GP §8(3))"),
    "MAX_HOURLY_LOSS": env.int(
        "GP_MAX_HOURLY_LOSS",
        5_000_000,
        "haléře: the most a player may lose in any hour "
        "(GP §8(5), ZHH §53: set by the licence, so production requires it)",
        required=True,
    ),  # GP §8(5)
    "MIN_RTP_PERCENT": "84.24",  # GP §8(4)
    "PLAY_BEFORE_BREAK_MINUTES": 120,  # GP §7(4)
    "BREAK_MINUTES": 15,  # GP §7(4)-(5)
    "MIN_ROUND_SECONDS": 2,  # GP §7(9)
}
