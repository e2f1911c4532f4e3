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
    provider = provider_save(
        provider=Provider(
            code="simstudio", name="SimStudio", launch_url="https://sim.example/play", api_url="https://sim.example/api"
        ),
        new_secret="s" * 40,
        actor=Actor.system("tests"),
    )
    ProviderTransaction.objects.create(
        provider=provider,
        transaction_id="T-1",
        kind="win",
        amount=12_345,
        credited=550,
        player=player,
        request_sha256="0" * 64,
        response_status=200,
        created_at=clock.now(),
    )

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


def test_values_help_texts_and_the_reports_page_read_in_czech_in_chromium(live_server, browser):  # noqa: F811
    """A status in the withdrawals' list and filter, the help texts and choices of the jackpot form, and the
    reports' day page (navigation, tables, chart titles), as Czech staff see them."""
    from core import clock
    from core.audit import Actor
    from core.money import Money
    from tests.kit.platform import funded_player
    from tests.kit.wallet import verified_bank
    from wallet.services import withdrawal_request

    player = funded_player(500_000)
    withdrawal_request(
        player=player,
        method=verified_bank(player),
        amount=Money(150_000),
        reference="cs-wd-1",
        actor=Actor.player(player),
    )

    text = _czech(browser, live_server, "finance", "/admin/wallet/withdrawal/")
    assert "Dle: stav" in text and "1 500,00 Kč" in text
    assert "požádáno (čeká na schválení pracovníkem)" in text or "schváleno (k odeslání)" in text, text[:800]
    assert "waiting for staff approval" not in text and "approved (to be sent)" not in text
    _shot(browser, "backoffice-cs-withdrawals")

    text = _czech(browser, live_server, "game_manager", "/admin/jackpots/jackpot/add/")
    assert "Nastavení (koncept: zmrazí je akce spuštění)" in text and "hodnota, od které začíná nový běh" in text
    assert "the value a new run starts at" not in text
    _shot(browser, "backoffice-cs-jackpot-form")

    text = _czech(browser, live_server, "compliance", f"/admin/reports/dayreport/daily/?day={clock.business_date()}")
    assert "Po hrách" in text and "Grafy" in text and "Spočtené dny" in text and "Zdaňovací období" in text
    assert "Per game" not in text and "Charts" not in text
    _shot(browser, "backoffice-cs-daily-report")
