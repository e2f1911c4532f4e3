"""The authority's account (the auditor role) in a real headless Chromium: it opens the daily report with
its charts, the month and the tax period, and the regulator's record's verification, and can change nothing: no
form, button or action on the report pages, and a POST is refused. Screenshots go to ``REPORTS_SCREENSHOTS``
(default /tmp/reports-screens; the committed ones in docs/screenshots/ come from a run with
``REPORTS_SCREENSHOTS=docs/screenshots``)."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
import time_machine
from selenium.webdriver.common.by import By

from core.rng import SeededRNG, use_rng
from jackpots.tests import test_admin_browser as harness
from jackpots.tests.test_admin_browser import browser, visible  # noqa: F401 - browser is a fixture
from reports.services import reports_compute_day
from reports.tests.seal_ca import make_seal
from tests.kit.accounts import make_staff
from tests.kit.clients import client_for
from tests.kit.platform import act, funded_player, start
from tests.test_staff_roles_browser import _sign_in

pytestmark = pytest.mark.django_db(transaction=True)
SCREENS = Path(os.environ.get("REPORTS_SCREENSHOTS", "/tmp/reports-screens"))
LAST = date(2026, 11, 30)


def _shot(driver, name: str) -> None:
    old = harness.SCREENS
    harness.SCREENS = SCREENS
    try:
        harness.shot(driver, name)
    finally:
        harness.SCREENS = old


def _play_days(days: int) -> None:
    """A fortnight of play, more towards the end (roulette, now and then the test pick game), and registrations."""
    from tests.kit.accounts import make_player

    players = [funded_player(5_000_000) for _ in range(3)]
    with use_rng(SeededRNG(24)), time_machine.travel(datetime(2026, 11, 1, 9, tzinfo=UTC), tick=False) as t:
        for i in range(days):
            d = LAST - timedelta(days=days - 1 - i)
            t.move_to(datetime(d.year, d.month, d.day, 9, tzinfo=UTC))
            for n in range(30 + 2 * i):
                c = client_for(players[n % 3])
                if n % 15 == 14:
                    rid = start(c, game="test_pick", bet={"stake": 200}).json()["id"]
                    act(c, rid, {"pick": 0})
                    act(c, rid, {"pick": 1})
                else:
                    bet = [
                        {"type": "red", "amount": 300},
                        {"type": "dozen", "dozen": 2, "amount": 200},
                        {"type": "straight", "numbers": [17], "amount": 100},
                    ][n % 3]
                    assert start(c, bet={"bets": [bet]}).status_code == 201, bet
                t.shift(3)
            for k in range(2 + i % 4):  # temporary accounts opened, some completed (GP §5(1)-(2))
                make_player(status="temporary" if k % 2 == 0 else "active")
            reports_compute_day(day=d)


def test_the_auditor_opens_the_daily_report_its_charts_and_the_record_verification_and_changes_nothing(
    live_server,
    browser,  # noqa: F811
    settings,
    tmp_path,
):
    key, cert, _ = make_seal(tmp_path, cn="Hraj s.r.o. seal (test)")
    settings.REPORTS_SEAL_KEY_FILE, settings.REPORTS_SEAL_CERT_FILE = str(key), str(cert)
    _play_days(14)
    auditor = make_staff(role="auditor")
    _sign_in(browser, live_server, auditor, next_url="/admin/", language="en")  # reads the English texts
    home = visible(browser)
    assert "Reports" in home or "REPORTS" in home.upper()
    browser.get(f"{live_server.url}/admin/reports/dayreport/")  # the app's entry leads to the daily report
    browser.get(f"{live_server.url}/admin/reports/dayreport/daily/?day={LAST}")
    text = visible(browser)
    assert "Daily report 2026-11-30" in text and "Gross gaming revenue" in text
    charts = browser.find_elements(By.CSS_SELECTOR, "#daily-report .charts svg[role=img]")
    assert len(charts) == 5 and all(c.size["height"] > 50 for c in charts)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#daily-report .charts svg rect")) >= 28  # 2 x 14 days
    content = browser.find_element(By.ID, "content")
    assert not content.find_elements(By.CSS_SELECTOR, "form, button, input[type=submit], select")
    _shot(browser, "reports-daily-auditor")
    # a POST from the auditor's own signed-in browser (with its CSRF token) is refused
    status = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const token = (document.cookie.match(/csrftoken=([^;]+)/) || [])[1] || "";
        fetch(window.location.href, {method: "POST", headers: {"X-CSRFToken": token},
              credentials: "same-origin"}).then(r => done(r.status)).catch(e => done(String(e)));""")
    assert status == 405
    browser.get(f"{live_server.url}/admin/reports/dayreport/period/?period=2026-Q4")
    assert "Tax period (calendar quarter) 2026-Q4" in visible(browser)
    browser.find_element(By.LINK_TEXT, "Daily report").click()
    browser.get(f"{live_server.url}/admin/reports/dayreport/daily/?day={LAST}")
    browser.find_element(By.LINK_TEXT, "Verify the record").click()
    text = visible(browser)
    assert "The record verifies" in text and "Hraj s.r.o. seal (test)" in text
    assert "roundCount" in text and "Seal (XAdES, enveloped signature) valid" in text
    _shot(browser, "reports-record-verification-auditor")
    # the auditor downloads the sealed record itself (the link on the page, with the auditor's session)
    href = browser.find_element(By.LINK_TEXT, "Download the sealed record").get_attribute("href")
    xml = browser.execute_async_script(
        """const done = arguments[arguments.length - 1];
        fetch(arguments[0], {credentials: "same-origin"}).then(r => r.text().then(t => done([r.status, t])))
            .catch(e => done([0, String(e)]));""",
        href,
    )
    assert xml[0] == 200, xml[1][:300]
    assert xml[1].startswith("<?xml") and f'operatingDay="{LAST}"' in xml[1][:2000], xml[1][:300]
    assert "SignatureValue" in xml[1] and "xades" in xml[1].lower()
    # a role without the reports' permissions gets a 403 page
    _sign_in(browser, live_server, make_staff(role="support"), next_url="/admin/", language="en")
    browser.get(f"{live_server.url}/admin/reports/dayreport/daily/")
    assert "Daily report" not in visible(browser)
