"""The pure rules of the gatekeeper: figures, units and comparisons, no database.

Everything here is a function of its arguments and the settings (``settings.GP``), so tests use it
directly. The stake grid of GP §8(1) is an argument: the published version's in force, which the callers read with
``limits.selectors.stake_grid_in_force``. The services (``limits.services``) and selectors apply these rules to the
stored state.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from django.conf import settings

from core import clock
from core.game_plan_figures import GamePlanNumber
from core.money import Money
from limits import errors
from limits.kinds import KindRules
from limits.models import LimitType

MINUTE = timedelta(minutes=1)
HOURLY_WINDOW_MINUTES = 60  # GP §8(5), ZHH §53: any rolling 60 minutes
PANIC_DURATION = timedelta(hours=48)  # the panic button (2024 amendment)
# Reporting a press to the register of excluded persons: a call claims its report for PANIC_REPORT_CLAIM (longer
# than any gateway timeout); a failure waits 1, 2, 4 ... minutes, at most an hour, before the next attempt.
PANIC_REPORT_CLAIM = timedelta(minutes=5)
PANIC_REPORT_RETRY_FIRST = timedelta(minutes=1)
PANIC_REPORT_RETRY_MAX = timedelta(hours=1)
LOOSENING_DELAY_DAYS = 7  # GP §6(4)
REREGISTRATION_DAYS = 7  # ZHH §14a
BUCKET_RETENTION = timedelta(hours=2)  # minute buckets kept (the hourly check reads the last 61 minutes)

MONEY_LIMITS = (LimitType.DAILY_STAKE, LimitType.MONTHLY_STAKE, LimitType.DAILY_LOSS, LimitType.MONTHLY_LOSS)
LIMIT_UNITS = {
    LimitType.DAILY_STAKE: "CZK_minor",
    LimitType.MONTHLY_STAKE: "CZK_minor",
    LimitType.DAILY_LOSS: "CZK_minor",
    LimitType.MONTHLY_LOSS: "CZK_minor",
    LimitType.MONTHLY_LOGINS: "count",
    LimitType.DAILY_TIME: "minutes",
    LimitType.PAUSE_AFTER_LOGOUT: "minutes",
}


def limit_value_text(limit_type: str, value: int | None) -> str:
    """A limit's value as staff read it: money in Kč with two decimals ("500,00 Kč", never haléře), minutes and
    counts with their unit; "no limit" for none."""
    if value is None:
        return "no limit"
    unit = LIMIT_UNITS.get(LimitType(limit_type), "")
    if unit == "CZK_minor":
        return str(Money(value))
    return f"{value} min" if unit == "minutes" else f"{value}×"


# Allowed values (inclusive); None = no limit is always allowed.
LIMIT_RANGES = {
    LimitType.DAILY_STAKE: (0, 10**12),
    LimitType.MONTHLY_STAKE: (0, 10**12),
    LimitType.DAILY_LOSS: (0, 10**12),
    LimitType.MONTHLY_LOSS: (0, 10**12),
    LimitType.MONTHLY_LOGINS: (1, 100_000),
    LimitType.DAILY_TIME: (1, 24 * 60),
    LimitType.PAUSE_AFTER_LOGOUT: (1, 366 * 24 * 60),
}


def gp(key: GamePlanNumber) -> int:
    """An integer figure of the game plan from ``settings.GP`` (amounts in haléře)."""
    return settings.GP[key]


def play_limit() -> timedelta:
    """GP §7(4): play allowed before the compulsory break (120 minutes)."""
    return timedelta(minutes=gp("PLAY_BEFORE_BREAK_MINUTES"))


def break_length() -> timedelta:
    """GP §7(4)-(5): the compulsory break, and the pause that restarts the play period (15 minutes)."""
    return timedelta(minutes=gp("BREAK_MINUTES"))


def require_money(value: object, name: str) -> Money:
    """``value`` if it is a Money in the platform currency; TypeError/ValueError otherwise."""
    if not isinstance(value, Money):
        raise TypeError(f"{name} must be core.money.Money, got {type(value).__name__}")
    if value.currency != settings.PLATFORM_CURRENCY:
        raise ValueError(f"{name} must be in {settings.PLATFORM_CURRENCY}")
    return value


def minute_of(dt: datetime) -> datetime:
    """The UTC minute containing ``dt`` (the hourly-loss bucket)."""
    return dt.replace(second=0, microsecond=0)


def day_key(dt: datetime) -> date:
    """The Prague business day containing ``dt`` (the day counters' key)."""
    return clock.business_date(dt)


def month_key(dt: datetime) -> date:
    """The first day of the Prague calendar month containing ``dt`` (the month counters' key)."""
    return clock.business_date(dt).replace(day=1)


def panic_report_retry_delay(attempts: int) -> timedelta:
    """How long to wait after the ``attempts``-th failed report of a panic press to the register (exponential
    backoff): 1 minute after the first failure, then 2, 4, 8 ... minutes, never more than an hour."""
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    delay: timedelta = PANIC_REPORT_RETRY_FIRST * 2 ** min(attempts - 1, 10)
    return min(PANIC_REPORT_RETRY_MAX, delay)


def add_years(dt: datetime, years: int) -> datetime:
    """``dt`` moved by whole years (29 February becomes 1 March)."""
    try:
        return dt.replace(year=dt.year + years)
    except ValueError:  # 29 February
        return dt.replace(year=dt.year + years, month=3, day=1)


# ---------------------------------------------------------------------------------------
# Limit values and comparisons (GP §6) ---------------------------------------------------------------------------------
def is_stricter_or_equal(limit_type: str, new: int | None, old: int | None) -> bool:
    """True when ``new`` is at least as strict as ``old`` (None = no limit, the mildest).

    For every limit a smaller number is stricter, except the pause after logout (g) where a longer
    pause is stricter."""
    if new is None:
        return old is None
    if old is None:
        return True
    if limit_type == LimitType.PAUSE_AFTER_LOGOUT:
        return new >= old
    return new <= old


def validate_limit(limit_type: str, value: object) -> int | None:
    """The stored form of a self-limit value (minor units, a count or minutes; None = no limit).

    Refuses an unknown limit type, a Money for a limit that is not about money, a non-integer and a
    value outside :data:`LIMIT_RANGES`."""
    if limit_type not in LimitType.values:
        raise errors.UNKNOWN_LIMIT(limit_type=limit_type, known=list(LimitType.values))
    if value is None:
        return None
    if isinstance(value, Money):
        if limit_type not in MONEY_LIMITS:
            raise errors.INVALID_LIMIT_VALUE(limit_type=limit_type, reason="not a money limit")
        value = value.amount
    if isinstance(value, bool) or not isinstance(value, int):
        raise errors.INVALID_LIMIT_VALUE(limit_type=limit_type, reason="must be an integer or null")
    lo, hi = LIMIT_RANGES[LimitType(limit_type)]
    if not lo <= value <= hi:
        raise errors.INVALID_LIMIT_VALUE(
            limit_type=limit_type, minimum=lo, maximum=hi, value=value, unit=LIMIT_UNITS[LimitType(limit_type)]
        )
    return value


def display_value(limit_type: str, value: int | None) -> Money | int | None:
    """A limit value as details/JSON show it: Money for money limits, the plain number otherwise."""
    if value is None:
        return None
    return Money(value) if limit_type in MONEY_LIMITS else value


# ---------------------------------------------------------------------------------------
# Stake per round (GP §8(1)-(3)) ---------------------------------------------------------------------------------------
StakeGrid = tuple[int, int]  # GP §8(1): (the minimum stake, its step), haléře


def grid_floor(amount: int, rules: KindRules, grid: StakeGrid) -> int:
    """The largest stake <= amount that the stake grid ``grid`` (GP §8(1): minimum, step) allows (0 when none)."""
    if amount <= 0:
        return 0
    if not rules.stake_grid:
        return amount
    (lo, step), hi = grid, gp("MAX_STAKE")
    amount = min(amount, hi)
    if amount < lo:
        return 0
    return lo + ((amount - lo) // step) * step


def check_stake_grid(stake: Money, game_max_bet: Money | None, rules: KindRules, grid: StakeGrid) -> int:
    """GP §8(1)-(2) (``grid``: the minimum stake and step in force, ``limits.selectors.stake_grid_in_force``) and the
    game's own max bet; returns the max stake per round for this game."""
    lo, step = grid if rules.stake_grid else (1, 1)
    if stake.amount <= 0:
        raise errors.STAKE_BELOW_MINIMUM(stake=stake, minimum=Money(lo))
    plan_max = gp("MAX_STAKE") if rules.stake_grid else None
    game_max = game_max_bet.amount if game_max_bet is not None else None
    caps = [c for c in (plan_max, game_max) if c is not None]
    maximum = min(caps) if caps else None
    if rules.stake_grid:
        if stake.amount < lo:
            raise errors.STAKE_BELOW_MINIMUM(stake=stake, minimum=Money(lo))
        if (stake.amount - lo) % step:
            lower = lo + ((stake.amount - lo) // step) * step
            raise errors.STAKE_NOT_IN_STEPS(
                stake=stake, minimum=Money(lo), step=Money(step), nearest_lower=Money(lower)
            )
    if maximum is not None and stake.amount > maximum:
        raise errors.STAKE_ABOVE_MAXIMUM(
            stake=stake,
            maximum=Money(maximum),
            plan_maximum=Money(plan_max) if plan_max is not None else None,
            game_maximum=game_max_bet,
            max_stake_now=Money(grid_floor(maximum, rules, grid)),
        )
    return maximum if maximum is not None else stake.amount


def max_win_per_round() -> Money:
    """GP §8(3): the most one round may pay, its game's win and any jackpot won in it together."""
    return Money(gp("MAX_WIN_PER_ROUND"))
