"""Every screen of the player web client, logged out and logged in, in Czech and in English, at phone
and desktop size, in headless Chromium. The page asks nothing of any address but this server's /play, /api/v1/ and
/static/ (Chromium's network log), no script fails (its console), no string is missing from a dictionary, and on the
phone nothing is wider than the screen."""

from __future__ import annotations

import pytest

from playclient.tests.harness import DESKTOP, PHONE, Client
from tests.kit.accounts import DEFAULT_PASSWORD
from tests.kit.platform import funded_player

pytestmark = pytest.mark.django_db(transaction=True)

PUBLIC = ["", "register", "confirm", "login", "games", "legal", "responsible"]
PLAYER = [
    "",
    "account",
    "wallet",
    "limits",
    "responsible",
    "games",
    "game/european_roulette",
    "game/kobushi",
    "rounds",
    "inbox",
    "complaints",
    "legal",
    "password",
]


def visit_each(c: Client, routes: list[str]) -> None:
    for width, height in (PHONE, DESKTOP):
        c.d.set_window_size(width, height)
        for route in routes:
            c.open(route)
            shown = c.text("#view")
            assert "⟦" not in shown, (route, shown)  # a key missing from the dictionary shows itself
            assert not c.d.find_element("id", "notice").is_displayed(), (route, c.text("#notice"))
            if width == PHONE[0]:  # nothing sticks out of a phone's screen (a wide table scrolls inside its card)
                wide = c.d.execute_script("return document.documentElement.scrollWidth")
                assert wide <= c.d.execute_script("return window.innerWidth"), (route, wide)


def test_every_screen_asks_only_our_api_and_static_files_and_runs_without_a_script_error(live_server, play_browser):
    c = Client(play_browser, live_server.url)
    visit_each(c, PUBLIC)
    player = funded_player(50_000)
    c.open("login")
    c.fill("#login-form", username=player.user.username, password=DEFAULT_PASSWORD)
    c.click("#login-submit")
    c.ready("home")
    for language in ("cs", "en"):
        c.language(language)
        visit_each(c, PLAYER)
    assert "Balance: 500,00 Kč" in c.text("#balance")
    assert c.foreign_requests() == []
    assert len([u for u in c.requests if "/api/v1/" in u]) > 40  # the log saw the client's calls
    assert c.script_errors() == []
