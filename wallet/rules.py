"""The wallet's figures from the game plan: fixed terms as constants, the plan's blanks from ``settings.GP``.

Pure: no database. The blanks are read at call time (``settings.GP[...]``, ``config/settings/``), so a test
that changes a setting is seen at once. The wallet's other settings are plain ``settings.WALLET_*`` names read
where they are used (docs/wallet.md lists them). Amounts are minor units (haléře).
"""

from __future__ import annotations

from django.conf import settings

from core.game_plan_figures import GamePlanNumber

VERIFY_METHOD_DAYS = 30  # GP §5(9): verify the method within 30 days from the start of registration
NEW_METHOD_DAYS = 30  # GP §5(11): 30 days to register another method (a full account: then no deposits)
TEMPORARY_REFUND_DAYS = 7  # GP §5(2)e: return within 7 days of the cancellation
TEMPORARY_COLLECT_DAYS = 5  # GP §5(2)e: collect at a branch within 5 days
MISUSE_COLLECT_DAYS = 15  # GP §5(13): collect at a branch within 15 days
CLOSE_AFTER_SETTLEMENT_DAYS = 10  # GP §5(15): the account is closed within 10 days of settling the balance
DEBT_DAYS = 10  # GP §7(7): a negative balance is a debt payable within 10 days
REGULARITY_HOLD_DAYS = 60  # GP §10(3): a doubtful win is held at most 60 days


def gp(name: GamePlanNumber) -> int:
    """A figure of ``settings.GP`` (the plan's blanks, overridable by ``GP_<NAME>``)."""
    return settings.GP[name]


def temp_deposit_cap() -> int:
    """GP §5(2)b, §5(12): the temporary account's lifetime deposit cap (``GP_TEMP_ACCOUNT_DEPOSIT_CAP``)."""
    return gp("TEMP_ACCOUNT_DEPOSIT_CAP")


def branch_cash_per_24h() -> int:
    """GP §5(12): cash at a branch in any rolling 24 hours (``GP_BRANCH_CASH_PER_24H``)."""
    return gp("BRANCH_CASH_PER_24H")
