"""The back office in a real headless Chromium, signed in as production signs in: password and a
one-time password (TOTP, django-otp; each staff member's device is enrolled in the test).

A finance officer finds a player by a deposit's payment reference (the variable symbol of a bank transfer), approves
the payment-method document and the withdrawal, each on a page that says what it does first; a compliance officer
clears the screening hit; a support agent sees the player's page with the birth and account numbers masked and no
money action; each role's home page shows its queues. Screenshots go to ``BACKOFFICE_SCREENSHOTS`` (default
/tmp/backoffice-screens; the committed ones in docs/screenshots/ come from ``BACKOFFICE_SCREENSHOTS=docs/screenshots``).
Without Chromium the test is skipped on a developer's machine and fails under CI (the harness of
jackpots/tests/test_admin_browser.py)."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest
import time_machine
from django.utils import translation
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from aml.models import ComplianceCase
from core import clock
from jackpots.tests import test_admin_browser as harness
from jackpots.tests.test_admin_browser import browser, visible  # noqa: F401 - browser is a fixture
from tests.kit.accounts import DEFAULT_PASSWORD, make_staff
from tests.kit.backoffice import build_world
from wallet.models import MethodDocument, Withdrawal

pytestmark = [
    pytest.mark.django_db(transaction=True, databases=["default", "refusal_log"]),
    pytest.mark.urls("backoffice.tests.urls_otp_admin"),
]

SCREENS = Path(os.environ.get("BACKOFFICE_SCREENSHOTS", "/tmp/backoffice-screens"))

#: the queues each role's home page shows, and some it must not (by their whole English labels: read in Czech)
QUEUES = {
    "finance": (
        {
            "Payment-method documents to review",
            "Withdrawals to approve",
            "Unmatched bank credits",
            "Complaints asking for money (remedy to decide)",
            "Reconciliation differences with game providers",
        },
        {"Screening hits (sanctions, PEP lists)"},
    ),
    "compliance": (
        {
            "Identifications to review (doubtful)",
            "Screening hits (sanctions, PEP lists)",
            "Personal-data requests to answer",
            "Duplicate accounts to resolve",
        },
        {"Withdrawals to approve"},
    ),
    "support": (
        {"New and unassigned complaints", "Complaints due within 7 days", "Complaints past their 30-day deadline"},
        {
            "Withdrawals to approve",
            "Screening hits (sanctions, PEP lists)",
            "Complaints asking for money (remedy to decide)",
        },
    ),
    "game_manager": (
        {"Rounds past their game's deadline", "Game versions awaiting approval"},
        {"Withdrawals to approve", "Screening hits (sanctions, PEP lists)"},
    ),
    "auditor": ({"Search the audit trail"}, {"Withdrawals to approve", "Screening hits (sanctions, PEP lists)"}),
}


def _shot(driver, name: str) -> None:
    old = harness.SCREENS
    harness.SCREENS = SCREENS
    try:
        harness.shot(driver, name)
    finally:
        harness.SCREENS = old


def staff_with_device(role: str):
    user = make_staff(role=role)
    device = TOTPDevice.objects.create(user=user, name="phone", confirmed=True)
    return user, device


def _cs(text: str) -> str:
    """A queue's label as a Czech staff member reads it."""
    with translation.override("cs"):
        return translation.gettext(text)


def sign_in(driver, live_server, user, device, next_url: str = "/admin/") -> None:
    driver.delete_all_cookies()
    driver.get(f"{live_server.url}/admin/login/?next={next_url}")
    # the staff member's language is Czech (Django's language cookie), so every screen and screenshot is Czech
    driver.add_cookie({"name": "django_language", "value": "cs"})
    driver.get(f"{live_server.url}/admin/login/?next={next_url}")
    driver.find_element(By.NAME, "username").send_keys(user.get_username())
    driver.find_element(By.NAME, "password").send_keys(DEFAULT_PASSWORD)
    # a one-time password is good once (django-otp keeps the last time step used) and a failure throttles the device:
    # a second sign-in of the same person within 30 seconds would wait for the next step, so the test starts afresh
    TOTPDevice.objects.filter(pk=device.pk).update(
        last_t=-1, throttling_failure_count=0, throttling_failure_timestamp=None
    )
    device.refresh_from_db()
    # django-otp's form lists the devices only once it knows the user (after a first attempt): the staff member's
    # own device is chosen here as that list would offer it
    driver.execute_script(
        "const i = document.createElement('input'); i.type = 'hidden'; i.name = 'otp_device'; "
        "i.value = arguments[0]; document.getElementsByName('otp_token')[0].form.appendChild(i);",
        device.persistent_id,
    )
    token = totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits)
    driver.find_element(By.NAME, "otp_token").send_keys(f"{token:06d}")
    driver.find_element(By.CSS_SELECTOR, "input[type=submit]:not([name=otp_challenge])").click()
    # the click returns before the browser has followed the login's redirect (the login page has a #content too):
    # wait for the navigation, then check where it went
    try:
        WebDriverWait(driver, 10).until(lambda d: "/admin/login/" not in d.current_url)
    except TimeoutException:
        pass
    assert "/admin/login/" not in driver.current_url, visible(driver)[:500]
    driver.find_element(By.ID, "content")


def test_staff_work_their_queues_and_a_players_page_in_chromium_signed_in_with_a_one_time_password(
    live_server,
    browser,  # noqa: F811
    settings,
):
    from core.audit import Actor
    from tests.kit.money import czk
    from wallet.services import deposit_start

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    # the history is made an hour ago on a frozen clock (the 2-second rule between rounds); the browser runs now
    with time_machine.travel(clock.now() - timedelta(hours=1), tick=False) as traveller:
        world = build_world(rounds=3, clock=traveller, settings=settings)
        deposit = deposit_start(
            player=world.player,
            method=world.method,
            amount=czk(500),
            reference="bo-browser",
            actor=Actor.player(world.player),
        )
    player, bn = world.player, world.player.personal.birth_number

    # the password alone does not open the admin
    finance, device = staff_with_device("finance")
    browser.delete_all_cookies()
    browser.get(f"{live_server.url}/admin/login/?next=/admin/")
    browser.find_element(By.NAME, "username").send_keys(finance.get_username())
    browser.find_element(By.NAME, "password").send_keys(DEFAULT_PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]:not([name=otp_challenge])").click()
    assert "/admin/login/" in browser.current_url

    # each role's home page shows its queues
    devices = {"finance": (finance, device)}
    for role, (shown, hidden) in QUEUES.items():
        user, dev = devices.get(role) or staff_with_device(role)
        devices[role] = (user, dev)
        sign_in(browser, live_server, user, dev)
        panels = browser.find_element(By.ID, "home-panels").text
        assert all(_cs(q) in panels for q in shown) and not any(_cs(q) in panels for q in hidden), (role, panels)
        _shot(browser, f"backoffice-{role}-home")

    # finance: the search by the deposit's payment reference lands on the player's page
    user, dev = devices["finance"]
    sign_in(browser, live_server, user, dev)
    queue = _cs("Withdrawals to approve")
    assert "1" in browser.find_element(By.XPATH, f"//a[text()='{queue}']/../../td[@class='count']").text
    box = browser.find_element(By.CSS_SELECTOR, "#panel-queues input[name=q]")
    box.send_keys(deposit.payment_reference)
    box.submit()
    browser.find_element(By.ID, "player-name")
    assert browser.current_url.endswith(f"/admin/accounts/player/{player.pk}/change/")
    text = visible(browser)
    assert bn in text and world.method.display in text  # finance pays out: it reads the numbers
    _shot(browser, "backoffice-finance-player")
    # the document: the confirmation page says what it does, the button does it
    browser.find_element(By.CSS_SELECTOR, f"a[href$='/confirm/document_approve/{world.document.pk}/']").click()
    assert "Co se stane" in browser.find_element(By.ID, "what-it-does").text
    assert MethodDocument.objects.get(pk=world.document.pk).status == "pending"
    _shot(browser, "backoffice-finance-confirm-document")
    browser.find_element(By.NAME, "confirm").click()
    browser.find_element(By.ID, "player-name")
    assert "schváleno" in browser.find_element(By.CSS_SELECTOR, ".messagelist").text
    assert MethodDocument.objects.get(pk=world.document.pk).status == "approved"
    # the withdrawal
    browser.find_element(By.CSS_SELECTOR, f"a[href$='/confirm/withdrawal_approve/{world.withdrawal.pk}/']").click()
    assert "odešle se na platební metodu" in browser.find_element(By.ID, "what-it-does").text
    browser.find_element(By.NAME, "confirm").click()
    browser.find_element(By.ID, "player-name")
    assert Withdrawal.objects.get(pk=world.withdrawal.pk).status != Withdrawal.Status.REQUESTED

    # finance credits a complaint's 5,50 Kč remedy: the field says Kč and holds the request, a page repeats it first
    from complaints import services as complaints_services
    from complaints.models import Complaint
    from core.money import Money

    complaint = complaints_services.complaint_file(
        player=player,
        reason="other",
        description="the spin froze",
        event_at=clock.now(),
        remedy_amount_requested=Money(550),
        actor=Actor.player(player),
    )
    browser.get(f"{live_server.url}/admin/complaints/complaint/{complaint.pk}/change/")
    assert "5,50 Kč" in visible(browser) and "haléř" not in visible(browser)
    remedy = browser.find_element(By.NAME, "remedy_amount")
    assert remedy.get_attribute("value").replace("\xa0", " ") == "5,50 Kč"
    Select(browser.find_element(By.NAME, "outcome")).select_by_value("upheld")
    browser.find_element(By.NAME, "answer_cs").send_keys("Uznáváme, vracíme sázku.")
    remedy.submit()
    amount = browser.find_element(By.ID, "confirm-amount").text.replace("\xa0", " ")
    assert amount == "5,50 Kč" and player.user.username in browser.find_element(By.ID, "confirm-player").text
    _shot(browser, "backoffice-finance-confirm-remedy")
    browser.find_element(By.CSS_SELECTOR, ".confirm-money input[type=submit]").click()
    browser.find_element(By.CSS_SELECTOR, ".messagelist")
    assert Complaint.objects.get(pk=complaint.pk).remedy_amount == 550

    # compliance clears the screening hit from the player's page
    user, dev = devices["compliance"]
    sign_in(browser, live_server, user, dev, f"/admin/accounts/player/{player.pk}/change/")
    browser.find_element(By.CSS_SELECTOR, f"a[href$='/admin/aml/compliancecase/{world.case.pk}/decide/']").click()
    Select(browser.find_element(By.NAME, "decision")).select_by_value(ComplianceCase.Status.CLEARED)
    browser.find_element(By.NAME, "note").send_keys("a different person: other date of birth")
    browser.find_element(By.CSS_SELECTOR, "form input[type=submit]").click()
    browser.find_element(By.CSS_SELECTOR, ".messagelist")
    assert ComplianceCase.objects.get(pk=world.case.pk).status == ComplianceCase.Status.CLEARED

    # support: masked numbers, no money action
    user, dev = devices["support"]
    sign_in(browser, live_server, user, dev, f"/admin/accounts/player/{player.pk}/change/")
    text = visible(browser)
    assert player.user.username in text and bn not in text and bn[-3:] in text and "(maskováno)" in text
    assert world.method.display not in text and world.method.identifier not in text
    assert not browser.find_elements(By.CSS_SELECTOR, "a[href*='/confirm/']")
    assert not browser.find_elements(By.CSS_SELECTOR, "a.decide")
    _shot(browser, "backoffice-support-player")

    # the auditor searches the audit trail of the player and may export it
    user, dev = devices["auditor"]
    sign_in(browser, live_server, user, dev, f"/admin/core/auditevent/search/?player={player.user.username}")
    table = browser.find_element(By.ID, "audit-results").text
    assert "wallet.method_document_reviewed" in table or "document" in table
    assert "{'" not in table and "→" in table  # readable changes, not dicts
    assert browser.find_element(By.ID, "audit-export")
    _shot(browser, "backoffice-auditor-audit-search")
    # at 1,366 px every column keeps a readable width (the details were one letter wide)
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": 1366, "height": 900, "deviceScaleFactor": 1, "mobile": False}
    )
    try:
        widths = browser.execute_script(
            "return [...document.querySelectorAll('#audit-results thead th')]"
            ".map((th) => th.getBoundingClientRect().width)"
        )
        assert min(widths[5:]) >= 150 and min(widths) >= 40, widths
        right = browser.execute_script("return document.getElementById('audit-results').getBoundingClientRect().right")
        assert right <= 1366, right  # no column off the screen
        png = browser.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})["data"]
        (SCREENS / "backoffice-auditor-audit-search-1366.png").write_bytes(__import__("base64").b64decode(png))
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # the same back office in Czech (the staff member's language): finance's home and a remedy's confirmation
    user, dev = devices["finance"]
    sign_in(browser, live_server, user, dev)
    browser.add_cookie({"name": "django_language", "value": "cs"})
    browser.get(f"{live_server.url}/admin/")
    panels = browser.find_element(By.ID, "home-panels").text
    assert "Výběry ke schválení" in panels and "Reklamace s požadavkem na peníze" in panels
    _shot(browser, "backoffice-finance-home-cs")
    second = complaints_services.complaint_file(
        player=player,
        reason="other",
        description="a second claim",
        event_at=clock.now(),
        remedy_amount_requested=Money(12_345_00),
        actor=Actor.player(player),
    )
    browser.get(f"{live_server.url}/admin/complaints/complaint/{second.pk}/change/")
    Select(browser.find_element(By.NAME, "outcome")).select_by_value("partly_upheld")
    browser.find_element(By.NAME, "answer_cs").send_keys("Uznáváme část nároku.")
    remedy = browser.find_element(By.NAME, "remedy_amount")
    remedy.clear()
    remedy.send_keys("1 000,50")
    remedy.submit()
    assert browser.find_element(By.ID, "confirm-amount").text.replace("\xa0", " ") == "1 000,50 Kč"
    assert "Částka se liší od částky, kterou hráč požadoval." in visible(browser)
    assert "s výsledkem částečně oprávněná" in visible(browser)  # the outcome by its label, in Czech
    _shot(browser, "backoffice-finance-confirm-remedy-cs")
