"""Each staff role signs in to the admin in a real headless Chromium and sees only what the role allows.

The home page of each role lists only the apps it may read; the support agent opens a player's page and sees the
birth number and the document number masked, and no money or AML action; the finance officer opens the withdrawals
and is offered their approval, which the support agent is not. Screenshots go to ``STAFF_SCREENSHOTS`` (default
/tmp/staff-role-screens; the committed ones in docs/screenshots/ come from a run with
``STAFF_SCREENSHOTS=docs/screenshots``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from jackpots.tests import test_admin_browser as harness
from jackpots.tests.test_admin_browser import browser, visible  # noqa: F401 - browser is a fixture
from tests.kit.accounts import DEFAULT_PASSWORD, make_staff

pytestmark = pytest.mark.django_db(transaction=True)

SCREENS = Path(os.environ.get("STAFF_SCREENSHOTS", "/tmp/staff-role-screens"))

# the apps each role's home page lists (by the admin's CSS class app-<label>), and some it must not
SEES = {
    "support": ({"accounts", "complaints", "wallet", "games"}, {"aml", "core"}),
    "compliance": ({"accounts", "aml", "limits", "wallet", "core"}, set()),
    "finance": ({"wallet", "accounts", "complaints"}, {"aml", "jackpots", "core"}),  # complaints: money remedies
    "game_manager": ({"games", "jackpots"}, {"aml", "wallet", "complaints"}),
    "auditor": ({"accounts", "aml", "wallet", "games", "jackpots", "complaints", "core", "limits"}, set()),
}


def _shot(driver, name: str) -> None:
    old = harness.SCREENS
    harness.SCREENS = SCREENS
    try:
        print("screenshot:", harness.shot(driver, name))
    finally:
        harness.SCREENS = old


def _sign_in(driver, live_server, user, next_url: str = "/admin/", language: str = "cs") -> None:
    driver.delete_all_cookies()
    driver.get(f"{live_server.url}/admin/login/?next={next_url}")
    # the staff member's language is Czech (Django's language cookie), so every screen and screenshot is Czech;
    # a test that reads the English texts asks for English
    driver.add_cookie({"name": "django_language", "value": language})
    driver.get(f"{live_server.url}/admin/login/?next={next_url}")
    driver.find_element(By.NAME, "username").send_keys(user.get_username())
    driver.find_element(By.NAME, "password").send_keys(DEFAULT_PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "input[type=submit], button[type=submit]").click()
    # the click returns before the browser has followed the login's redirect, and the login page has a #content
    # too (reading it then meets a stale element): wait for the navigation, then for the page it led to
    WebDriverWait(driver, 10).until(lambda d: "/admin/login/" not in d.current_url)
    driver.find_element(By.ID, "content")


def _apps(driver) -> set[str]:
    classes = [e.get_attribute("class") for e in driver.find_elements(By.CSS_SELECTOR, "#content-main .module")]
    return {c.split("app-", 1)[1].split()[0] for c in classes if c and "app-" in c}


def test_each_role_signs_in_and_sees_only_what_it_may_in_chromium(live_server, browser):  # noqa: F811
    from tests.kit.money import czk
    from tests.kit.platform import funded_player
    from tests.kit.wallet import fund, verified_bank
    from wallet.models import Withdrawal

    player = funded_player(2_000_000)
    method = verified_bank(player)
    fund(player, czk(20000))
    from rest_framework.test import APIClient

    from tests.kit.accounts import token_for

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token_for(player.user)}")
    r = api.post(
        "/api/v1/wallet/withdrawals",
        {"method_id": method.pk, "amount": {"amount": 1500000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="browser-wd",
    )
    assert r.status_code == 201, r.content
    Withdrawal.objects.filter(pk=r.json()["id"]).update(needs_approval=True)
    birth_number = player.personal.birth_number

    for role, (shown, hidden) in SEES.items():
        user = make_staff(role=role)
        _sign_in(browser, live_server, user)
        apps = _apps(browser)
        assert shown <= apps and not hidden & apps, (role, sorted(apps))
        _shot(browser, f"staff-{role}-home")

    support = make_staff(role="support")
    _sign_in(browser, live_server, support, f"/admin/accounts/player/{player.pk}/change/")
    text = visible(browser)
    assert player.user.username in text
    assert birth_number not in text and birth_number[-3:] in text and "(maskováno)" in text
    assert player.personal.document_number not in text
    tools = browser.find_element(By.CSS_SELECTOR, ".object-tools").text.lower().splitlines()  # shown in capitals
    assert "vynutit odhlášení" in tools and not {"pozastavit", "uzavřít (zrušit registraci)", "obnovit"} & set(tools), (
        tools
    )
    _shot(browser, "staff-support-player")
    browser.get(f"{live_server.url}/admin/wallet/withdrawal/")
    assert not [
        o.get_attribute("value")
        for o in browser.find_elements(By.CSS_SELECTOR, "select[name=action] option")
        if o.get_attribute("value") in ("approve", "reject")
    ]
    browser.get(f"{live_server.url}/admin/aml/compliancecase/")
    assert "403" in browser.title or "Forbidden" in visible(browser) or "403" in visible(browser)

    finance = make_staff(role="finance")
    _sign_in(browser, live_server, finance, "/admin/wallet/withdrawal/")
    options = [o.get_attribute("value") for o in browser.find_elements(By.CSS_SELECTOR, "select[name=action] option")]
    assert {"approve", "reject"} <= set(options), options
    _shot(browser, "staff-finance-withdrawals")
    browser.find_element(By.CSS_SELECTOR, "input.action-select").click()
    Select(browser.find_element(By.NAME, "action")).select_by_value("reject")
    browser.find_element(By.NAME, "index").click()
    # money moves: a confirmation page repeats the amount and the player first
    assert "15 000,00 Kč" in browser.find_element(By.CSS_SELECTOR, ".confirm-money").text.replace("\xa0", " ")
    _shot(browser, "staff-finance-withdrawal-confirm")
    browser.find_element(By.CSS_SELECTOR, ".confirm-money input[type=submit]").click()
    assert "zamítnuto: 1" in browser.find_element(By.CSS_SELECTOR, ".messagelist").text.lower()
    assert Withdrawal.objects.get(pk=r.json()["id"]).status == Withdrawal.Status.REJECTED
    browser.get(f"{live_server.url}/admin/wallet/paymentmethod/{method.pk}/change/")
    assert method.identifier in browser.page_source  # finance pays out: it reads the account number
    _shot(browser, "staff-finance-payment-method")
