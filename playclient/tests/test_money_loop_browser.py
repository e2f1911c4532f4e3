"""The reference client closes the money loop, on a phone and on a desktop, in headless Chromium: the player
requests a withdrawal to her verified account, sees its state and cancels one waiting for approval (the amount is
back on her balance); she reads the answer of her complaint and the 5,50 Kč credited on its page; the roulette's
dozen bet is placed with its dozen; a play-money round reads in points; the first (SMS) password is never kept in
sessionStorage."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from complaints import services as complaints_services
from core import clock
from core.audit import Actor
from core.money import Money
from playclient.tests.harness import DESKTOP, PHONE, Client, Screens
from tests.kit.accounts import DEFAULT_PASSWORD, make_staff
from tests.kit.platform import funded_player

pytestmark = pytest.mark.django_db(transaction=True)


def _signed_in(c: Client, player) -> None:
    c.open("login")
    c.fill("#login-form", username=player.user.username, password=DEFAULT_PASSWORD)
    c.click("#login-submit")
    c.ready("home")


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_withdrawal_request_status_cancel_and_the_complaint_answer(live_server, play_browser, settings, size):
    from tests.kit.wallet import verified_bank

    settings.WALLET_WITHDRAWAL_APPROVAL_THRESHOLD = 500_000  # 5 000 Kč: above it staff approve first
    play_browser.set_window_size(*size)
    player = funded_player(2_000_000)  # 20 000 Kč
    verified_bank(player)
    complaint = complaints_services.complaint_file(
        player=player,
        reason="other",
        description="the spin froze",
        event_at=clock.now(),
        remedy_amount_requested=Money(550),
        actor=Actor.player(player),
    )
    staff = make_staff(role="finance")
    complaints_services.complaint_assign(complaint=complaint, assignee=staff, actor=Actor.staff(staff))
    complaints_services.complaint_investigate(complaint=complaint, actor=Actor.staff(staff))
    complaints_services.complaint_resolve(
        complaint=complaint,
        outcome="upheld",
        answer_cs="Uznáváme, vracíme vklad.",
        answer_en="Upheld.",
        remedy_amount=Money(550),
        actor=Actor.staff(staff),
    )
    c, screens = Client(play_browser, live_server.url), Screens(play_browser)
    _signed_in(c, player)

    c.open("wallet")
    c.fill("#withdrawal-form", amount="600")
    c.click("#withdrawal-submit")
    c.notice("600,00 Kč")
    c.ready("wallet")
    c.fill("#withdrawal-form", amount="6 000,50")
    c.click("#withdrawal-submit")
    c.notice("čeká na schválení")
    c.ready("wallet")
    listing = c.text("#withdrawal-list")
    assert "6 000,50 Kč" in listing and "čeká na schválení" in listing and "600,00 Kč" in listing
    screens.shot("withdrawals", sizes=(size,))
    c.click(".withdrawal-cancel")
    c.notice("zrušen")
    c.ready("wallet")
    assert "zrušen" in c.text("#withdrawal-list")
    # the 600 Kč went out, the cancelled 6 000,50 Kč came back
    assert c.text("#wallet-balance").startswith("19 405,50")  # 20 000 + 5,50 remedy - 600

    c.open(f"complaints?ref={complaint.reference}")
    c.el("#complaint-answer")
    assert c.text("#complaint-credited") == "5,50 Kč"
    assert "Uznáváme, vracíme vklad." in c.text("#complaint-answer-text")
    credited = play_browser.find_element(By.CSS_SELECTOR, "#complaint-credited")
    assert credited.size["height"] < 40  # one line: no break inside "5,50 Kč"
    screens.shot("complaint-answer", sizes=(size,))
    c.open("inbox")  # the answer is a notice in the inbox too
    c.wait(lambda d: complaint.reference in c.text("#view"))
    assert play_browser.execute_script("return sessionStorage.getItem('play.first')") is None
    assert c.script_errors() == []


def test_the_first_password_is_not_kept_in_session_storage(live_server, play_browser):
    player = funded_player(0)
    user = player.user
    user.set_password("Prvni-heslo-z-SMS-1")
    user.must_change_password = True
    user.save()
    c = Client(play_browser, live_server.url)
    c.open("login")
    c.fill("#login-form", username=user.username, password="Prvni-heslo-z-SMS-1")
    c.click("#login-submit")
    c.wait(lambda d: d.execute_script("return document.getElementById('view')?.dataset.ready") in ("password", "home"))
    stored = play_browser.execute_script("return JSON.stringify(Object.assign({}, sessionStorage))")
    assert "Prvni-heslo-z-SMS-1" not in stored


def test_the_rounds_history_is_cards_on_a_phone_with_stake_win_and_verify_on_screen(live_server, play_browser):
    from tests.kit.clients import client_for as game_client
    from tests.kit.platform import start

    player = funded_player(50_000)
    body = start(game_client(player), game="kobushi", bet={"lines": 30, "coins": 5, "coin_value": 1}).json()
    assert "id" in body, body
    c, screens = Client(play_browser, live_server.url), Screens(play_browser)
    _signed_in(c, player)
    play_browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True},
    )
    try:
        c.open("rounds")
        button = c.el(".verify-button")
        right = play_browser.execute_script("const r = arguments[0].getBoundingClientRect(); return r.right;", button)
        assert right <= PHONE[0], right  # on the screen, not off to the right
        assert (
            play_browser.execute_script("return getComputedStyle(document.querySelector('.cards tbody tr')).display")
            == "block"
        )  # a card
        labels = play_browser.execute_script(
            "return [...document.querySelectorAll('.cards tbody td')].map((td) => getComputedStyle(td, '::before')"
            ".content)"
        )
        assert '"Sázka"' in labels and '"Výhra"' in labels, labels  # each value under its column's name
    finally:
        play_browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    screens.shot("rounds-cards", sizes=(PHONE,))


def test_a_roulette_dozen_bet_names_its_dozen_and_plays(live_server, play_browser):
    from games.models import Round

    player = funded_player(50_000)
    c = Client(play_browser, live_server.url)
    _signed_in(c, player)
    c.open("game/european_roulette")
    c.fill("#bet-form", type="dozen")
    c.fill("#bet-form", dozen="2", amount="5")  # the dozen's own field appears once the type is chosen
    c.click("#add-chip")
    assert "13.–24." in c.text("#chips")
    c.click("#spin")
    c.wait(lambda d: len(d.find_elements("css selector", "#result [data-status='finished']")) == 1)
    assert not play_browser.find_element("id", "notice").is_displayed()
    bet = Round.objects.get(player=player).bet_request
    assert bet["bets"][0]["type"] == "dozen" and bet["bets"][0]["dozen"] == 2, bet
