"""Retention periods of the personal data (GP §12(5), §12(7)) and the answer term of a data request; pure functions
of the settings and the Prague calendar, no database.

Each legal period is counted in whole years in the Prague calendar and ends, as the civil code counts a period in years
(89/2012 Sb. §605(2)), at the end of the day whose date corresponds to the day it started from; the data may be
anonymised from 00:00 (Prague) of the next day. A 29 February corresponds to 28 February in a common year.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings

from accounts.models import Player
from core import clock

RELATIONSHIP_END = "relationship_end"
ACCOUNTING_PERIOD_END = "accounting_period_end"


@dataclass(frozen=True)
class Period:
    """One legal retention period: the records it covers, its length, where it is counted from and its source."""

    code: str
    years: int
    counted_from: str  # RELATIONSHIP_END | ACCOUNTING_PERIOD_END
    setting: str
    source_cs: str
    source_en: str
    records_cs: str
    records_en: str


def periods() -> list[Period]:
    """The periods in force (settings read at call time)."""
    return [
        Period(
            "gambling",
            settings.ACCOUNTS_RETENTION_GAMBLING_YEARS,
            RELATIONSHIP_END,
            "ACCOUNTS_RETENTION_GAMBLING_YEARS",
            "zákon č. 186/2016 Sb., o hazardních hrách: herní plán lhůtu neuvádí, délka je rozhodnutím provozovatele",
            "Gambling Act 186/2016 Sb.: the game plan names no period; the length is the operator's decision",
            "údaje o registraci, účasti na hře a sázkách",
            "registration, participation and betting records",
        ),
        Period(
            "aml",
            settings.ACCOUNTS_RETENTION_AML_YEARS,
            RELATIONSHIP_END,
            "ACCOUNTS_RETENTION_AML_YEARS",
            "zákon č. 253/2008 Sb. (AML), § 16 odst. 1: od ukončení obchodního vztahu",
            "AML Act 253/2008 Sb. §16(1): from the end of the business relationship",
            "identifikační údaje a doklady o identifikaci a kontrole klienta",
            "identification data and records of identification and customer due diligence",
        ),
        Period(
            "accounting",
            settings.ACCOUNTS_RETENTION_ACCOUNTING_YEARS,
            ACCOUNTING_PERIOD_END,
            "ACCOUNTS_RETENTION_ACCOUNTING_YEARS",
            "zákon č. 563/1991 Sb., o účetnictví, § 31 odst. 2 písm. b): od konce účetního období (kalendářní rok)",
            "Accounting Act 563/1991 Sb. §31(2)b: from the end of the accounting period (the calendar year)",
            "účetní záznamy o vkladech, sázkách, výhrách a výplatách",
            "accounting records of deposits, stakes, wins and payouts",
        ),
    ]


def add_years(d: date, years: int) -> date:
    """The date ``years`` later with the same day and month (29 February -> 28 February in a common year)."""
    try:
        return d.replace(year=d.year + years)
    except ValueError:
        return d.replace(year=d.year + years, day=28)


def add_months(dt: datetime, months: int) -> datetime:
    """The instant ``months`` calendar months later, same Prague wall-clock time; a day the month lacks becomes its
    last day (31 January + 1 month = 28 or 29 February). Returned in UTC."""
    local = clock.local(dt)
    index = local.month - 1 + months
    year, month = local.year + index // 12, index % 12 + 1
    first_next = date(year + (month == 12), month % 12 + 1, 1)
    day = min(local.day, (first_next - timedelta(days=1)).day)
    return datetime.combine(date(year, month, day), local.time(), tzinfo=clock.PRAGUE).astimezone(UTC)


def request_due_at(received_at: datetime) -> datetime:
    """GDPR art. 12(3): a data request is answered within ``ACCOUNTS_DATA_REQUEST_ANSWER_MONTHS`` (1) month."""
    return add_months(received_at, settings.ACCOUNTS_DATA_REQUEST_ANSWER_MONTHS)


def relationship_ended_at(player: Player) -> datetime | None:
    """When the business relationship ended: the account closed or expired (``closed_at``), or the registration was
    refused (the last status change); None while the account is open (any status not closed / expired / rejected)."""
    if player.status not in Player.TERMINAL:
        return None
    return player.closed_at or player.status_changed_at or player.created_at


def period_last_day(period: Period, ended_at: datetime) -> date:
    """The last day (Prague) on which ``period`` still requires the records of a relationship ended at ``ended_at``."""
    start = clock.business_date(ended_at)
    if period.counted_from == ACCOUNTING_PERIOD_END:
        start = date(start.year, 12, 31)
    return add_years(start, period.years)


def codes() -> tuple[str, ...]:
    """The codes of the periods in force, in their order."""
    return tuple(p.code for p in periods())


def _chosen(which: tuple[str, ...] | None) -> list[Period]:
    rows = periods()
    if which is None:
        return rows
    unknown = set(which) - {p.code for p in rows}
    if unknown or not which:
        raise ValueError(f"unknown retention period(s) {sorted(unknown)!r}; known: {[p.code for p in rows]!r}")
    return [p for p in rows if p.code in which]


def retention_last_day(ended_at: datetime, which: tuple[str, ...] | None = None) -> date:
    """The last day on which any of the periods ``which`` (all when None) still requires the data: the longest
    decides (a record several laws cover is kept until the last of them lets it go)."""
    return max(period_last_day(p, ended_at) for p in _chosen(which))


def retention_ends_at(ended_at: datetime, which: tuple[str, ...] | None = None) -> datetime:
    """The first instant at which the data may be anonymised: 00:00 Prague after :func:`retention_last_day`."""
    first_free = retention_last_day(ended_at, which) + timedelta(days=1)
    return datetime.combine(first_free, time.min, tzinfo=clock.PRAGUE).astimezone(UTC)


def prefilter_ended_before(now: datetime, which: tuple[str, ...] | None = None) -> datetime:
    """A bound for the database: every relationship whose retention (of the periods ``which``, all when None) has
    ended by ``now`` ended before this instant (a period lasts at least 365 days a year; one day less covers a change
    of summer time), so the job reads no more than a few days of candidates too many and checks each exactly with
    :func:`retention_ends_at`."""
    return now - timedelta(days=365 * max(p.years for p in _chosen(which)) - 1)
