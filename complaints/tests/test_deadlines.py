"""The legal terms at their boundaries (pure date arithmetic, Europe/Prague calendar).

GP §11(1): a complaint within 6 months of the event; GP §10(2): a win claim within 1 year of settlement;
GP §11(1): the answer within 30 days of filing. "6 months" = 6 calendar months of the Prague calendar, ending at
the end of the Prague day with the event's day number (or the month's last day), see complaints/deadlines.py.
"""

from datetime import UTC, date, datetime

from complaints.deadlines import add_months, filing_deadline, is_late, response_terms
from tests.kit.money import prague


def test_adding_calendar_months_keeps_the_day_number_or_takes_the_last_day_of_a_shorter_month():
    assert add_months(date(2026, 5, 15), 6) == date(2026, 11, 15)
    assert add_months(date(2026, 8, 31), 6) == date(2027, 2, 28)
    assert add_months(date(2027, 8, 31), 6) == date(2028, 2, 29)
    assert add_months(date(2026, 10, 31), 6) == date(2027, 4, 30)
    assert add_months(date(2028, 2, 29), 12) == date(2029, 2, 28)
    assert add_months(date(2026, 12, 31), 1) == date(2027, 1, 31)


def test_an_event_exactly_six_calendar_months_ago_is_in_time_and_one_day_more_is_late():
    received = prague(2026, 11, 15, 12, 0)
    assert not is_late(prague(2026, 5, 15, 12, 0), "complaint", received)
    assert is_late(prague(2026, 5, 14, 12, 0), "complaint", received)


def test_the_last_day_of_the_six_month_window_counts_until_midnight_in_prague_not_utc():
    event = prague(2026, 5, 15, 8, 0)  # CEST (UTC+2)
    assert filing_deadline(event, "complaint") == date(2026, 11, 15)
    # 2026-11-15 23:59 Prague (CET) is 22:59 UTC: still in time.
    assert not is_late(event, "complaint", prague(2026, 11, 15, 23, 59, 59))
    # 2026-11-16 00:00 Prague is 2026-11-15 23:00 UTC: late, although the UTC date is still the 15th.
    received = prague(2026, 11, 16, 0, 0)
    assert received.astimezone(UTC).date() == date(2026, 11, 15)
    assert is_late(event, "complaint", received)


def test_an_event_late_in_the_prague_evening_counts_by_its_prague_date():
    # 2026-05-31 23:30 Prague is 21:30 UTC on the 31st; 2026-06-01 00:30 Prague is 22:30 UTC on May 31st.
    assert filing_deadline(prague(2026, 5, 31, 23, 30), "complaint") == date(2026, 11, 30)
    assert filing_deadline(prague(2026, 6, 1, 0, 30), "complaint") == date(2026, 12, 1)


def test_an_event_on_the_31st_has_a_window_ending_on_the_last_day_of_a_shorter_month():
    event = prague(2026, 8, 31, 10, 0)
    assert filing_deadline(event, "complaint") == date(2027, 2, 28)
    assert not is_late(event, "complaint", prague(2027, 2, 28, 23, 0))
    assert is_late(event, "complaint", prague(2027, 3, 1, 0, 0))


def test_a_win_claim_is_in_time_exactly_one_year_after_settlement_and_late_one_day_more():
    settled = prague(2025, 11, 15, 20, 0)
    assert not is_late(settled, "win_claim", prague(2026, 11, 15, 23, 59))
    assert is_late(settled, "win_claim", prague(2026, 11, 16, 0, 0))
    # ... where a plain complaint about the same event is long late (6 months).
    assert is_late(settled, "complaint", prague(2026, 11, 15, 23, 59))


def test_a_win_claim_for_a_bet_settled_on_29_february_ends_on_28_february():
    assert filing_deadline(prague(2028, 2, 29, 12, 0), "win_claim") == date(2029, 2, 28)


def test_the_answer_is_due_on_day_30_and_overdue_from_the_first_instant_of_day_31_in_prague():
    t = response_terms(prague(2026, 11, 1, 10, 0))
    assert t.respond_by_date == date(2026, 12, 1)
    assert t.respond_by == prague(2026, 12, 2, 0, 0).astimezone(UTC)
    assert t.remind_first_at == prague(2026, 11, 21, 0, 0).astimezone(UTC)
    assert t.remind_second_at == prague(2026, 11, 28, 0, 0).astimezone(UTC)


def test_the_30_days_run_across_the_dst_change_in_calendar_days():
    t = response_terms(prague(2026, 10, 10, 23, 30))  # CEST; due date in CET
    assert t.respond_by_date == date(2026, 11, 9)
    assert t.respond_by == datetime(2026, 11, 9, 23, 0, tzinfo=UTC)  # 2026-11-10 00:00 CET
