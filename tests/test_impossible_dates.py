"""Days a calendar cannot hold (year 1, year 9999) typed into a staff page or endpoint are a clear 400, never a 500:
the regulator's record, the audit search and its export, the daily report and its period pages, the complaints
report."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from complaints.errors import REPORT_MONTH_INVALID
from reports.errors import BAD_PERIOD
from tests.kit.accounts import make_staff, token_for

pytestmark = pytest.mark.django_db

DAYS = ["0001-01-01", "9999-12-31", "1999-12-31"]
PERIODS = [*DAYS, "0001-01", "9999-12", "9999-Q4", "0001-Q1"]


def _admin(role: str) -> Client:
    c = Client(raise_request_exception=False)
    c.force_login(make_staff(role=role))
    return c


def _api(role: str) -> APIClient:
    c = APIClient(raise_request_exception=False)
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(make_staff(role=role))}")
    return c


@pytest.mark.parametrize("day", DAYS)
def test_a_day_out_of_range_is_a_400_on_every_staff_page_that_takes_a_day(day):
    auditor = _admin("auditor")
    for url in (
        f"/admin/core/auditevent/search/?since={day}",
        f"/admin/core/auditevent/search/?until={day}",
        f"/admin/core/auditevent/export/?since={day}",
        f"/admin/core/auditevent/export/?until={day}",
        f"/admin/reports/dayreport/daily/?day={day}",
        f"/admin/reports/dayreport/regulator-record/?day={day}",
        f"/admin/reports/dayreport/regulator-record/verify/?day={day}",
    ):
        r = auditor.get(url)
        assert r.status_code == 400, (url, r.status_code)
    api = _api("auditor").get(f"/api/v1/reports/staff/regulator-record?day={day}")
    assert api.status_code == 400 and api.json()["error"]["code"], api.content[:300]


@pytest.mark.parametrize("period", PERIODS)
def test_a_period_out_of_range_is_a_400(period):
    auditor = _admin("auditor")
    for url in (f"/admin/reports/dayreport/period/?period={period}", f"/admin/reports/dayreport/csv/?period={period}"):
        assert auditor.get(url).status_code == 400, url
    for url in (f"/api/v1/reports/staff/figures?period={period}", f"/api/v1/reports/staff/figures.csv?period={period}"):
        r = _api("auditor").get(url)
        assert r.status_code == 400 and r.json()["error"]["code"] == BAD_PERIOD.code, (url, r.status_code)


@pytest.mark.parametrize("month", ["9999-12", "0001-01", "1999-12"])
def test_a_month_out_of_range_is_a_400_on_the_complaints_report(month):
    r = _api("compliance").get(f"/api/v1/complaints/staff/report?month={month}")
    assert r.status_code == 400, (r.status_code, r.content[:300])
    assert r.json()["error"]["code"] == REPORT_MONTH_INVALID.code
    page = _admin("compliance").get(f"/admin/complaints/complaint/report/?month={month}")
    assert page.status_code in (400, 200) and page.status_code != 500


def test_a_day_in_range_still_answers():
    auditor = _admin("auditor")
    assert auditor.get("/admin/core/auditevent/search/?since=2026-01-01").status_code == 200
    assert auditor.get("/admin/reports/dayreport/period/?period=2026-01").status_code == 200
