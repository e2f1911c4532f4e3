"""The daily report in Kč, with the day's deposits, withdrawals and adjustments read from the ledger, and its
"recompute now": a POST by a role holding ``reports.change_dayreport`` (compliance), audited with the staff member as
actor, refused (403) to other roles and for a day whose records are archived (``reports.day_archived``)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest
import time_machine
from django.test import Client

from core.models import AuditEvent
from reports.errors import DAY_ARCHIVED
from reports.models import DayReport
from reports.services import reports_compute_day
from reports.tests.test_compute import _archive_month
from tests.kit.accounts import make_staff
from tests.kit.platform import funded_player

pytestmark = pytest.mark.django_db

DAY = date(2026, 3, 10)
DAILY = "/admin/reports/dayreport/daily/"
RECOMPUTE = "/admin/reports/dayreport/recompute/"


def _client(role: str) -> Client:
    c = Client(headers={"accept-language": "cs"})
    c.force_login(make_staff(role=role))
    return c


def _text(html: bytes) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.decode())).replace("\xa0", " ")


@pytest.fixture
def day_with_money():
    with time_machine.travel(datetime(2026, 3, 10, 10, 0, tzinfo=UTC), tick=False):
        funded_player(550)  # an adjustment credit of 5,50 Kč
        funded_player(123_456)
    return DAY


def test_the_daily_report_lists_the_days_adjustments_in_czk(day_with_money):
    with time_machine.travel(datetime(2026, 3, 11, 10, 0, tzinfo=UTC), tick=False):
        reports_compute_day(day=DAY)
        page = _text(_client("compliance").get(f"{DAILY}?day={DAY}").content)
    assert "Vklady, výběry a úpravy" in page
    row = re.search(r"Úpravy \(opravy, nápravy reklamací\) (\d+) ([\d ]+,\d\d Kč)", page)
    assert row is not None and row.groups() == ("2", "1 240,06 Kč"), page[:2000]
    assert re.search(r"Připsané vklady 0 0,00 Kč", page)
    assert "CZK" not in page.replace("(CZK)", "")  # money in Kč; the chart titles name the unit


def test_recompute_now_by_compliance_is_audited_and_redirects_to_the_day(day_with_money):
    with time_machine.travel(datetime(2026, 3, 11, 10, 0, tzinfo=UTC), tick=False):
        assert not DayReport.objects.filter(day=DAY).exists()
        c = _client("compliance")
        r = c.post(RECOMPUTE, {"day": DAY.isoformat()})
        assert r.status_code == 302 and r["Location"].endswith(f"{DAILY}?day={DAY}")
        assert DayReport.objects.filter(day=DAY).exists()
        event = AuditEvent.objects.filter(action="reports.day_computed").latest("id")
        assert event.actor_type == "staff" and event.actor_role == "compliance"
        page = _text(c.get(r["Location"]).content)
        assert "Výkaz dne 2026-03-10 byl přepočítán" in page
        assert c.get(f"{RECOMPUTE}?day={DAY}").status_code == 405


@pytest.mark.parametrize("role", ["support", "finance", "auditor", "game_manager"])
def test_recompute_now_is_refused_to_a_role_without_it(day_with_money, role):
    before = AuditEvent.objects.count()
    r = _client(role).post(RECOMPUTE, {"day": DAY.isoformat()})
    assert r.status_code == 403
    assert not DayReport.objects.filter(day=DAY).exists() and AuditEvent.objects.count() == before


def test_recompute_now_of_an_archived_day_is_refused_and_the_stored_figures_stand(day_with_money):
    with time_machine.travel(datetime(2026, 3, 11, 10, 0, tzinfo=UTC), tick=False):
        stored = reports_compute_day(day=DAY)
        _archive_month("wallet_ledgertransaction", 2026, 3)
        c = _client("compliance")
        r = c.post(RECOMPUTE, {"day": DAY.isoformat()}, follow=True)
    assert r.status_code == 200
    page = _text(r.content)
    assert DAY_ARCHIVED.code in page and "nelze přepočítat" in page
    assert DayReport.objects.get(day=DAY).computed_at == stored.computed_at


def test_a_recompute_of_an_impossible_day_is_a_400(day_with_money):
    assert _client("compliance").post(RECOMPUTE, {"day": "9999-12-31"}).status_code == 400
