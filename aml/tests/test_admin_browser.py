"""The compliance screens of the admin in a real headless Chromium (Debian's chromium + chromium-driver):

* the AML review queue (GP §4(4)b): a doubtful online identification is opened with its document images and
  approved with a note; the player is then AML-identified;
* the approved game list (GP §13(6)): a version that is not approved is approved through the admin action's form
  with the plan version and the Ministry's reference.

Screenshots go to ``JACKPOTS_SCREENSHOTS`` (the browser fixture's folder) and their paths are printed.
"""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from accounts.models import Player
from aml.models import IdentificationCheck
from aml.services import identification_start
from core.audit import Actor
from games.models import Game
from jackpots.tests.test_admin_browser import browser, shot, visible  # noqa: F401 - browser is a fixture
from tests.kit.accounts import DEFAULT_PASSWORD, make_staff
from tests.kit.aml import applicant, document, images

pytestmark = pytest.mark.django_db(transaction=True)


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A real PNG of one colour (so the reviewer's page shows pictures, not broken images)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _sign_in(browser, live_server, next_url: str) -> None:  # noqa: F811
    staff = make_staff(superuser=True)
    browser.get(f"{live_server.url}/admin/login/?next={next_url}")
    browser.find_element(By.NAME, "username").send_keys(staff.get_username())
    browser.find_element(By.NAME, "password").send_keys(DEFAULT_PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit], button[type=submit]").click()


def test_staff_review_a_doubtful_identification_and_approve_a_game_version_in_chromium(browser, live_server):  # noqa: F811
    player = applicant()
    # the sandbox provider answers "doubtful" for this number (a transactional test: at once)
    check = identification_start(
        player=player,
        document=document("AB7777DBT"),
        actor=Actor.player(player),
        images=images(
            front=png(320, 200, (40, 90, 160)), back=png(320, 200, (60, 140, 90)), selfie=png(160, 200, (200, 160, 120))
        ),
    )
    check.refresh_from_db()
    assert check.status == IdentificationCheck.Status.DOUBTFUL

    _sign_in(browser, live_server, "/admin/aml/identificationcheck/?status__exact=doubtful")
    browser.find_element(By.ID, "result_list")
    assert player.user.username in visible(browser)
    shot(browser, "aml-1-review-queue")
    browser.find_element(By.LINK_TEXT, str(check.pk)).click()
    browser.find_element(By.CSS_SELECTOR, ".inline-group")  # waits for the check's page
    text = visible(browser)
    assert "front" in text and "back" in text and "selfie" in text  # the images the provider checked
    shown = browser.find_elements(By.CSS_SELECTOR, ".inline-group img")
    assert len(shown) == 3
    WebDriverWait(browser, 10).until(  # the three images loaded and decoded (a broken image has no width)
        lambda b: all(b.execute_script("return arguments[0].complete && arguments[0].naturalWidth", i) for i in shown)
    )
    shot(browser, "aml-2-doubtful-check")
    browser.find_element(By.LINK_TEXT, "Review (approve or reject)").click()
    Select(browser.find_element(By.NAME, "approve")).select_by_value("1")
    browser.find_element(By.NAME, "note").send_keys("likeness checked against the document photo")
    shot(browser, "aml-3-review-form")
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    assert "Identification approved." in browser.find_element(By.CSS_SELECTOR, ".messagelist").text  # the new page
    check.refresh_from_db()
    player = Player.objects.get(pk=player.pk)
    assert check.status == IdentificationCheck.Status.APPROVED and player.aml_identified_at is not None

    game = Game.objects.get(code="fruit_king", current=True)
    Game.objects.filter(pk=game.pk).update(
        approval_state=Game.Approval.UNAPPROVED, approval_plan_version="", approval_reference="", approved_at=None
    )
    browser.get(f"{live_server.url}/admin/games/game/")
    browser.find_element(By.CSS_SELECTOR, f"input[name=_selected_action][value='{game.pk}']").click()
    Select(browser.find_element(By.NAME, "action")).select_by_value("approve_games")
    browser.find_element(By.NAME, "index").click()
    browser.find_element(By.NAME, "plan_version").send_keys("2026-01")
    browser.find_element(By.NAME, "reference").send_keys("MF-12345/2026/3403-2")
    shot(browser, "games-1-approval-form")
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    assert "Approvals recorded: 1" in browser.find_element(By.CSS_SELECTOR, ".messagelist").text  # the list again
    shot(browser, "games-2-approved")
    game.refresh_from_db()
    assert game.approval_state == Game.Approval.APPROVED
    assert (game.approval_plan_version, game.approval_reference) == ("2026-01", "MF-12345/2026/3403-2")
