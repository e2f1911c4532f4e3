"""Arithmetic of the figures that are not plain sums: the RTP and its interval, periods of days (docs/reports.md).

RTP here is the game's own return, jackpots excluded (the declared RTP of a game excludes the house-funded jackpots,
docs/jackpots.md): R = sum(base win) / sum(stake) over the rounds decided in the period. Its interval around the
declared RTP p0 is p0 +- z * sqrt(sum((w_i - p0 * s_i)^2)) / sum(s_i), the normal approximation of the ratio
estimator with the per-round variance observed in the period, computed from the additive moments
sum(s^2), sum(w^2), sum(s*w) of the day rows, so a month's or a quarter's interval is recomputed, not averaged.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from core import clock

#: two-sided 99 % normal quantile: a game whose actual RTP falls outside is flagged
Z = Decimal("2.5758")
#: below this many decided rounds no interval is stated and nothing is flagged
MIN_ROUNDS = 30


@dataclass(frozen=True)
class Rtp:
    actual: Decimal | None  # %
    declared: Decimal  # %
    low: Decimal | None  # %
    high: Decimal | None  # %
    rounds: int

    @property
    def outside(self) -> bool:
        if self.actual is None or self.low is None or self.high is None:
            return False
        return not (self.low <= self.actual <= self.high)


def rtp(*, declared: Decimal, rounds: int, stakes: int, base_wins: int, s2: Decimal, w2: Decimal, sw: Decimal) -> Rtp:
    """The actual RTP against the declared one with the interval the round count allows (all in %)."""
    if stakes <= 0:
        return Rtp(None, declared, None, None, rounds)
    actual = (Decimal(base_wins) * 100 / Decimal(stakes)).quantize(Decimal("0.01"))
    if rounds < MIN_ROUNDS:
        return Rtp(actual, declared, None, None, rounds)
    p0 = declared / 100
    ss = w2 - 2 * p0 * sw + p0 * p0 * s2  # sum((w - p0 s)^2) >= 0
    half = Z * max(ss, Decimal(0)).sqrt() / Decimal(stakes) * 100
    return Rtp(
        actual,
        declared,
        (declared - half).quantize(Decimal("0.01")),
        (declared + half).quantize(Decimal("0.01")),
        rounds,
    )


# --- periods ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Period:
    kind: str  # day, month, quarter
    label: str  # 2026-12-03, 2026-12, 2026-Q4
    first: date
    last: date  # inclusive

    def days(self) -> list[date]:
        return [self.first + timedelta(days=i) for i in range((self.last - self.first).days + 1)]


def month(year: int, mon: int) -> Period:
    return Period(
        "month", f"{year:04d}-{mon:02d}", date(year, mon, 1), date(year, mon, calendar.monthrange(year, mon)[1])
    )


def quarter(year: int, q: int) -> Period:
    """The tax period of the gambling tax: a calendar quarter (act 187/2016 Sb., docs/reports.md)."""
    first = date(year, 3 * q - 2, 1)
    last_month = 3 * q
    return Period(
        "quarter", f"{year:04d}-Q{q}", first, date(year, last_month, calendar.monthrange(year, last_month)[1])
    )


def day(d: date) -> Period:
    return Period("day", d.isoformat(), d, d)


def parse_period(text: str) -> Period:
    """``YYYY-MM-DD``, ``YYYY-MM`` or ``YYYY-Qn`` from 2000 to a year ahead (``clock.day_in_range``); ValueError
    otherwise."""
    period = _parse_period(text)
    if not (clock.day_in_range(period.first) and clock.day_in_range(period.last)):
        raise ValueError(text)
    return period


def _parse_period(text: str) -> Period:
    text = (text or "").strip()
    if len(text) == 10:
        return day(date.fromisoformat(text))
    if len(text) == 7 and text[4] == "-" and text[5] in "Qq":
        q = int(text[6])
        if not 1 <= q <= 4:
            raise ValueError(text)
        return quarter(int(text[:4]), q)
    if len(text) == 7 and text[4] == "-":
        return month(int(text[:4]), int(text[5:7]))
    raise ValueError(text)
