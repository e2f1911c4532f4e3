"""The one clock. All code reads time here, so tests can move it (time-machine).

Storage is UTC; the business calendar ("day", "calendar month") is Europe/Prague
(GP: "Day" and "calendar month" are Europe/Prague local time).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.utils import timezone

PRAGUE = ZoneInfo("Europe/Prague")


def now() -> datetime:
    """Aware UTC now."""
    return timezone.now()


def local(dt: datetime | None = None) -> datetime:
    return (dt or now()).astimezone(PRAGUE)


def business_date(dt: datetime | None = None) -> date:
    return local(dt).date()


#: the first business day any report, search or record may name (the platform holds nothing earlier)
EARLIEST_DAY = date(2000, 1, 1)
#: how far after today a day may be named (a report of tomorrow is empty, of year 9999 a calendar overflow)
LATEST_DAYS_AHEAD = 366


def day_in_range(d: date) -> bool:
    """Whether a day typed by a user is one the calendar arithmetic (``day_bounds``, ``month_bounds``) can take:
    from ``EARLIEST_DAY`` to a year after today. Callers answer a day outside with a 400."""
    return EARLIEST_DAY <= d <= business_date() + timedelta(days=LATEST_DAYS_AHEAD)


def day_bounds(dt: datetime | None = None) -> tuple[datetime, datetime]:
    """[start, end) of the Prague calendar day containing ``dt``, as aware UTC datetimes (23 or 25 h on DST days)."""
    d = business_date(dt)
    start = datetime.combine(d, time.min, tzinfo=PRAGUE)
    end = datetime.combine(d + timedelta(days=1), time.min, tzinfo=PRAGUE)
    # Returned in UTC: arithmetic between two Prague datetimes is wall-clock arithmetic in
    # Python (a DST day would look 24 h long); in UTC it is elapsed time.
    return start.astimezone(UTC), end.astimezone(UTC)


def month_bounds(dt: datetime | None = None) -> tuple[datetime, datetime]:
    """[start, end) of the Prague calendar month containing ``dt``, as aware UTC datetimes."""
    d = business_date(dt)
    first = d.replace(day=1)
    nxt = (first + timedelta(days=32)).replace(day=1)
    return (
        datetime.combine(first, time.min, tzinfo=PRAGUE).astimezone(UTC),
        datetime.combine(nxt, time.min, tzinfo=PRAGUE).astimezone(UTC),
    )


def add_days(dt: datetime, days: int) -> datetime:
    """Exact elapsed days (24 h each), for legal terms counted from an instant."""
    return dt + timedelta(days=days)
