"""The authority's read-only access (the auditor role): the staff API (days, figures as JSON and CSV, the sealed
record) and the admin pages; every method but GET is refused and changes nothing."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from core.errors import METHOD_NOT_ALLOWED, STAFF_PERMISSION_REQUIRED
from core.models import AuditEvent
from reports import figures, seal, selectors
from reports.errors import BAD_PERIOD
from reports.models import DayReport, GameDayReport
from reports.services import reports_compute_day
from reports.tests.seal_ca import make_seal
from tests.kit.accounts import make_staff, token_for
from tests.kit.clients import client_for
from tests.kit.platform import funded_player, start

pytestmark = pytest.mark.django_db
DAY = date(2026, 11, 20)
API = [
    "/api/v1/reports/staff/days",
    f"/api/v1/reports/staff/figures?period={DAY}",
    "/api/v1/reports/staff/figures.csv?period=2026-11",
    f"/api/v1/reports/staff/regulator-record?day={DAY}",
]
ADMIN = [
    "/admin/reports/dayreport/daily/",
    "/admin/reports/dayreport/period/?period=2026-Q4",
    "/admin/reports/dayreport/csv/?period=2026-11",
    f"/admin/reports/dayreport/regulator-record/?day={DAY}",
    f"/admin/reports/dayreport/regulator-record/verify/?day={DAY}",
]


@pytest.fixture
def computed(settings, tmp_path):
    key, cert, _ = make_seal(tmp_path)
    settings.REPORTS_SEAL_KEY_FILE, settings.REPORTS_SEAL_CERT_FILE = str(key), str(cert)
    player = funded_player(50_000)
    with time_machine.travel(datetime(2026, 11, 20, 9, tzinfo=UTC), tick=False) as t:
        for _ in range(4):
            assert start(client_for(player)).status_code == 201
            t.shift(3)
        reports_compute_day(day=DAY)
    return DAY


def _api(role: str) -> APIClient:
    c = APIClient(raise_request_exception=False)
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(make_staff(role=role))}")
    return c


def _state() -> tuple[int, int, int]:
    return DayReport.objects.count(), GameDayReport.objects.count(), AuditEvent.objects.count()


def test_the_auditor_reads_days_figures_csv_and_the_sealed_record(computed, tmp_path):
    c = _api("auditor")
    days = c.get("/api/v1/reports/staff/days").json()
    assert days["results"][0]["day"] == "2026-11-20" and days["results"][0]["rounds"] == 4
    body = c.get(f"/api/v1/reports/staff/figures?period={DAY}").json()
    expected = selectors.period_report(figures.day(DAY))
    assert body["totals"]["ggr"] == expected["totals"]["ggr"] and body["totals"]["stakes"] == 400
    assert body["games"][0]["game"] == "european_roulette"
    q = c.get("/api/v1/reports/staff/figures?period=2026-Q4").json()
    assert (q["period"], q["first"], q["last"], q["totals"]["ggr"]) == (
        "quarter",
        "2026-10-01",
        "2026-12-31",
        body["totals"]["ggr"],
    )
    csv = c.get("/api/v1/reports/staff/figures.csv?period=2026-11")
    assert csv["Content-Type"].startswith("text/csv") and b"european_roulette" in csv.content
    r = c.get(f"/api/v1/reports/staff/regulator-record?day={DAY}")
    assert r.status_code == 200 and r["Content-Type"] == "application/xml"
    path = tmp_path / "downloaded.xml"
    path.write_bytes(b"".join(r.streaming_content))  # type: ignore[attr-defined]
    result = seal.verify(path)
    assert result.ok and result.summary["roundCount"] == "4"


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_every_method_but_get_is_refused_and_changes_nothing(computed, method):
    c = _api("auditor")
    for url in API:
        before = _state()
        r = getattr(c, method)(url, {"day": "2026-11-20", "rounds": 0}, format="json", HTTP_IDEMPOTENCY_KEY="x")
        assert r.status_code == 405, (method, url, r.status_code)
        assert r.json()["error"]["code"] == METHOD_NOT_ALLOWED.code, r.json()
        assert _state() == before
    admin = Client()
    admin.force_login(make_staff(role="auditor"))
    for url in ADMIN:
        before = _state()
        assert getattr(admin, method)(url).status_code == 405, (method, url)
        assert _state() == before


def test_a_role_without_the_reports_permissions_is_refused(computed):
    for role in ("support", "finance"):
        c = _api(role)
        for url in API:
            r = c.get(url)
            assert r.status_code == 403 and r.json()["error"]["code"] == STAFF_PERMISSION_REQUIRED.code, url
    admin = Client()
    admin.force_login(make_staff(role="support"))
    assert all(admin.get(u).status_code == 403 for u in ADMIN)


def test_a_bad_period_or_day_is_a_400_in_the_error_shape(computed):
    c = _api("auditor")
    for url in (
        "/api/v1/reports/staff/figures?period=2026-13",
        "/api/v1/reports/staff/figures?period=x",
        "/api/v1/reports/staff/regulator-record?day=20.11.2026",
        "/api/v1/reports/staff/regulator-record",
    ):
        r = c.get(url)
        assert r.status_code == 400 and r.json()["error"]["code"] == BAD_PERIOD.code, url


def test_the_auditor_s_admin_pages_show_the_report_its_charts_and_the_verification(computed):
    admin = Client(headers={"accept-language": "en"})  # the English texts
    admin.force_login(make_staff(role="auditor"))
    page = admin.get(f"/admin/reports/dayreport/daily/?day={DAY}").content.decode()
    charts = page.split('<div class="charts">')[1]
    assert "Daily report 2026-11-20" in page and charts.count('<svg xmlns="http://www.w3.org/2000/svg" role="img"') == 5
    assert "european_roulette v" in page and "<script" not in charts
    assert "Regulator&#x27;s record (sealed XML)" in page or "Regulator's record (sealed XML)" in page
    assert "<form" not in page.split('id="daily-report"')[1]  # nothing to submit
    period = admin.get("/admin/reports/dayreport/period/?period=2026-Q4").content.decode()
    assert "Tax period (calendar quarter) 2026-Q4" in period
    verify = admin.get(f"/admin/reports/dayreport/regulator-record/verify/?day={DAY}")
    assert verify.status_code == 200 and "The record verifies" in verify.content.decode()
    assert admin.get("/admin/reports/dayreport/").status_code == 302
