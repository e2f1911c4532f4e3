"""The jackpots admin in a real headless Chromium (Debian's chromium + chromium-driver, ``make browser-deps``).

A superuser signs in through the real login form of the live server, opens the level list, a running must-hit level
and an award; the test reads what is visible (the live value, the commitment, the revealed WIN_AT of the award) and
checks that the running level's WIN_AT is nowhere in its page. Screenshots go to ``JACKPOTS_SCREENSHOTS`` (default
/tmp/jackpots-admin-screens) and their paths are printed.

Without Chromium the test is skipped on a developer's machine and FAILS under CI (``CI`` set).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import time_machine
from django.conf import settings
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from core.rng import use_rng
from jackpots.models import Award, Jackpot
from jackpots.services import jackpots_fold_all
from jackpots.tests.test_admin import (
    LEVEL,
    NEXT_WIN_AT,
    WIN_AT,
    WinAtDraws,
    assert_win_at_hidden,
    hit,
    spin,
    started_level,
)
from tests.kit.accounts import DEFAULT_PASSWORD, make_staff
from tests.kit.clients import client_for
from tests.kit.jackpots import START
from tests.kit.money import kc
from tests.kit.platform import funded_player

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SCREENS = Path(os.environ.get("JACKPOTS_SCREENSHOTS", "/tmp/jackpots-admin-screens"))

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        why = f"headless Chromium is not installed ({', '.join(missing)}); run `make browser-deps`"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1600,1000",
        "--lang=cs-CZ",
        "--hide-scrollbars",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    driver.implicitly_wait(5)
    try:
        yield driver
    finally:
        driver.quit()


def shot(driver: WebDriver, name: str) -> Path:
    """A screenshot of the whole page: the viewport is made as tall as the page (the admin's side bar is as tall as
    the viewport), captured, and put back (Chromium's DevTools protocol)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": int(size["width"]), "height": int(size["height"]), "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        png = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})["data"]
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    path = SCREENS / f"{name}.png"
    path.write_bytes(base64.b64decode(png))
    print(f"screenshot: {path}")
    return path


def visible(driver: WebDriver) -> str:
    """The text a person sees (no-break spaces as spaces)."""
    return driver.find_element(By.TAG_NAME, "body").text.replace("\xa0", " ")


def plain(text: str) -> str:
    return text.replace("\xa0", " ")


def test_staff_sign_in_and_see_the_levels_a_running_level_and_an_award_in_chromium(live_server, browser):
    assert not settings.ADMIN_REQUIRE_2FA  # the plain login form (2FA is on in production only)
    staff = make_staff(superuser=True)
    # history: the level is won once through the round API (WIN_AT 23.47 CZK), then runs on with a new WIN_AT
    with time_machine.travel(START, tick=False) as clock, use_rng(WinAtDraws(NEXT_WIN_AT)):
        jp = started_level()
        c = client_for(funded_player(1_000_000))
        award = hit(c, clock.shift, jp)
        spin(c, clock.shift)
        jackpots_fold_all()
        spin(c, clock.shift)  # pending
    assert award.win_at == WIN_AT and award.status == Award.Status.PAID
    jp = Jackpot.objects.get(pk=jp.pk)
    live = 1_000 + 2 * 250  # RESET_VALUE again after the win + two spins of 2.50 CZK

    browser.get(f"{live_server.url}/admin/login/?next=/admin/jackpots/jackpot/")
    browser.find_element(By.NAME, "username").send_keys(staff.get_username())
    browser.find_element(By.NAME, "password").send_keys(DEFAULT_PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit], button[type=submit]").click()
    browser.find_element(By.ID, "result_list")  # waits for the list after the redirect
    assert browser.current_url.endswith("/admin/jackpots/jackpot/")
    text = visible(browser)
    assert LEVEL in text and plain(kc(live)) in text
    assert_win_at_hidden(browser.page_source, jp, NEXT_WIN_AT)
    shot(browser, "1-levels")

    browser.find_element(By.LINK_TEXT, LEVEL).click()
    browser.find_element(By.CSS_SELECTOR, ".field-books")
    text = visible(browser)
    assert plain(kc(live)) in text  # the live value (folded + pending)
    assert jp.win_at_commitment in text and f"{plain(kc(2_000))} - {plain(kc(3_000))}" in text
    assert award.win_at_commitment not in text  # the last run's commitment belongs to the award
    assert_win_at_hidden(browser.page_source, jp, NEXT_WIN_AT)
    assert not browser.find_elements(By.CSS_SELECTOR, "form input[name=rate_ppm], input[name=_save]")
    shot(browser, "2-running-level")

    browser.get(f"{live_server.url}/admin/jackpots/award/")
    assert plain(kc(award.amount)) in visible(browser)
    shot(browser, "3-awards")
    browser.find_element(By.LINK_TEXT, str(award.pk)).click()
    browser.find_element(By.CSS_SELECTOR, ".field-must_hit")
    text = visible(browser)
    assert plain(kc(WIN_AT)) in text and award.win_at_nonce in text and award.win_at_commitment in text
    assert "matches the commitment" in text
    shot(browser, "4-award")

    browser.get(f"{live_server.url}/admin/jackpots/jackpot/add/")  # a new level is a draft, amounts typed in CZK
    assert browser.find_element(By.NAME, "win_to").get_attribute("value") == kc(0)
    shot(browser, "5-new-draft")
