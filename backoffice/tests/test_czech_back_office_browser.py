"""The Czech back office in a real headless Chromium: finance reads the withdrawals and the providers' transactions
with Czech model names, columns and filters and money in Kč; compliance opens the daily report (deposits,
withdrawals and adjustments in Kč) and recomputes the day with "Přepočítat nyní". Screenshots go to
``BACKOFFICE_SCREENSHOTS`` (default /tmp/backoffice-cs-screens; the committed ones in docs/screenshots/ come from a
run with ``BACKOFFICE_SCREENSHOTS=docs/screenshots``)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from jackpots.tests import test_admin_browser as harness
from jackpots.tests.test_admin_browser import browser  # noqa: F401 - a fixture
from tests.kit.accounts import make_staff
from tests.test_staff_roles_browser import _sign_in

pytestmark = pytest.mark.django_db(transaction=True)

SCREENS = Path(os.environ.get("BACKOFFICE_SCREENSHOTS", "/tmp/backoffice-cs-screens"))


def _shot(driver, name: str) -> None:
    old = harness.SCREENS
    harness.SCREENS = SCREENS
    try:
        print("screenshot:", harness.shot(driver, name))
    finally:
        harness.SCREENS = old


def _czech(driver, live_server, role: str, url: str) -> str:
    user = make_staff(role=role)
    driver.get(f"{live_server.url}/admin/login/")
    driver.add_cookie({"name": "django_language", "value": "cs"})
    _sign_in(driver, live_server, user, url)
    driver.add_cookie({"name": "django_language", "value": "cs"})
    driver.get(f"{live_server.url}{url}")
    return str(driver.find_element(By.ID, "content").text)


def test_finance_and_compliance_work_in_czech_in_chromium(live_server, browser):  # noqa: F811
    from core import clock
    from core.audit import Actor
    from providers.models import Provider, ProviderTransaction
    from providers.services import provider_save
    from tests.kit.platform import funded_player

    player = funded_player(123_456)
    provider = provider_save(provider=Provider(code="simstudio", name="SimStudio", launch_url="https://sim.example/play",
                                               api_url="https://sim.example/api"),
                             new_secret="s" * 40, actor=Actor.system("tests"))
    ProviderTransaction.objects.create(provider=provider, transaction_id="T-1", kind="win", amount=12_345, credited=550,
                                       player=player, request_sha256="0" * 64, response_status=200,
                                       created_at=clock.now())

    text = _czech(browser, live_server, "finance", "/admin/providers/providertransaction/")
    assert "transakce poskytovatele" in text.lower() and "123,45 Kč" in text and "5,50 Kč" in text
    assert "Dle: druh" in text and "Dle: stav odpovědi" in text  # the filters' titles
    _shot(browser, "backoffice-cs-provider-transactions")

    text = _czech(browser, live_server, "finance", "/admin/wallet/ledgertransaction/")
    assert "účetní transakce" in text.lower() and "1 234,56 Kč" in text
    _shot(browser, "backoffice-cs-ledger-transactions")

    day = clock.business_date()
    text = _czech(browser, live_server, "compliance", f"/admin/reports/dayreport/daily/?day={day}")
    assert "Vklady, výběry a úpravy" in text and "1 234,56 Kč" in text
    browser.find_element(By.CSS_SELECTOR, "#recompute button").click()
    text = str(browser.find_element(By.ID, "content").text)
    page = browser.page_source
    assert f"Výkaz dne {day.isoformat()} byl přepočítán" in page, text[:500]
    _shot(browser, "backoffice-cs-daily-report-recomputed")
