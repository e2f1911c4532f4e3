"""The legal terms of complaints, computed in one place (pure functions of datetimes).

Definitions (documented in docs/complaints.md, "Terms"):

* **Filing window** (GP §11(1): 6 months from the event; GP §10(2): 1 year from the bet's settlement for a win
  claim) is counted in *calendar months of the Europe/Prague calendar*, the way the Czech Civil Code counts a
  term in months (§ 605(2) OZ): take the Prague calendar date of the event, move it by 6 (or 12) months; the
  term ends at the end of that Prague day. If the month has no such day (31 August + 6 months), the term ends on
  the last day of that month (28/29 February). A complaint received at any time on that last day is in time; one
  received on the next Prague day is late. The term is not moved to the next working day when it ends on a
  weekend or a public holiday (stricter than § 607 OZ would be; see docs for the reason and the switch).
* **Answer due** (GP §11(1): the result is announced within 30 days of filing) is counted in Prague calendar
  days from the day the complaint was received, that day not counted (§ 605(1) OZ): received on 1 November ->
  due by the end of 1 December (Prague). ``respond_by`` is the instant the complaint becomes overdue, i.e. the
  start (00:00 Prague) of day 31; ``respond_by_date`` is day 30, the date told to the player.
* **Reminders**: at the start (00:00 Prague) of day 20 and day 27 after the day of receipt.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from core.clock import PRAGUE, business_date

COMPLAINT_WINDOW_MONTHS = 6  # GP §11(1)
WIN_CLAIM_WINDOW_MONTHS = 12  # GP §10(2)
RESPONSE_DAYS = 30  # GP §11(1)
FIRST_REMINDER_DAY = 20
SECOND_REMINDER_DAY = 27


def add_months(d: date, months: int) -> date:
    """``d`` moved by ``months`` calendar months; a day the target month lacks becomes its last day."""
    index = d.year * 12 + (d.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    last = calendar.monthrange(year, month)[1]
    return date(year, month, min(d.day, last))


def prague_day_start(d: date) -> datetime:
    """00:00 Prague of the calendar day ``d``, as an aware UTC datetime."""
    return datetime.combine(d, time.min, tzinfo=PRAGUE).astimezone(UTC)


def window_months(kind: str) -> int:
    return WIN_CLAIM_WINDOW_MONTHS if kind == "win_claim" else COMPLAINT_WINDOW_MONTHS


def filing_deadline(event_at: datetime, kind: str) -> date:
    """The last Prague calendar day on which a complaint about ``event_at`` is in time."""
    return add_months(business_date(event_at), window_months(kind))


def is_late(event_at: datetime, kind: str, received_at: datetime) -> bool:
    """True when ``received_at`` falls after the last day of the filing window (GP §11(1), §10(2), §11(3))."""
    return business_date(received_at) > filing_deadline(event_at, kind)


@dataclass(frozen=True)
class ResponseTerms:
    respond_by_date: date  # day 30: the date the player is told
    respond_by: datetime  # 00:00 Prague of day 31 (UTC): overdue from this instant
    remind_first_at: datetime  # 00:00 Prague of day 20
    remind_second_at: datetime  # 00:00 Prague of day 27


def response_terms(received_at: datetime) -> ResponseTerms:
    day0 = business_date(received_at)
    return ResponseTerms(
        respond_by_date=day0 + timedelta(days=RESPONSE_DAYS),
        respond_by=prague_day_start(day0 + timedelta(days=RESPONSE_DAYS + 1)),
        remind_first_at=prague_day_start(day0 + timedelta(days=FIRST_REMINDER_DAY)),
        remind_second_at=prague_day_start(day0 + timedelta(days=SECOND_REMINDER_DAY)),
    )
