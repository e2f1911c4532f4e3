"""Tried as a player would in headless Chromium: a game of an outside studio launched from the player
client's lobby (/play), played on the studio's own page (the provider simulator, ``provider_simulator``, its WSGI
server in a thread beside ``live_server``, as providers/tests/test_simulator_contract.py runs it), the daily stake
limit set on the client's limits screen and met on the studio's page with the platform's own message, and the remote
rounds back in the client's round history, each saying it is a studio's round (no replay here).

The demo provider is the one ``make run`` seeds (``providers.demo``: the 41 games of the plan, only 5x Magic
approved), pointed at the simulator's address as ``make run`` points it (``PROVIDERS_DEMO_URL``). Screenshots
(phone and desktop) of the lobby, the studio's page, the refusal and the round history: ``play-studio-*.png`` in
``PLAY_SCREENSHOTS``.
"""

from __future__ import annotations

import io
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth import get_user_model

from core.management.commands.seed_demo import DEMO_ADMIN
from games.models import Round
from limits import errors as limit_errors
from playclient.tests.harness import Client, Screens
from provider_simulator.server import Running, SimulatorApp
from providers import demo
from providers.models import Provider
from tests.kit.accounts import DEFAULT_PASSWORD
from tests.kit.platform import funded_player
from wallet.selectors import balance as wallet_balance

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "refusal_log"])

GAME = demo.DEMO_APPROVED  # simstudio_5x_magic


@pytest.fixture
def sim(live_server, settings):
    """The simulator serving beside the live server, and the demo provider seeded to point at it."""
    app = SimulatorApp(platform=live_server.url, provider=demo.CODE, secret=settings.PROVIDERS_DEV_SECRET)
    running = Running(app)
    settings.PROVIDERS_DEMO_URL = running.url
    get_user_model().objects.create_superuser(username=DEMO_ADMIN[0], password=DEMO_ADMIN[1])
    demo.seed(io.StringIO())
    assert Provider.objects.get(code=demo.CODE).launch_url == f"{running.url}/play"
    yield running
    running.stop()
    app.client.close()


def spin(c: Client) -> str:
    """Press Spin on the studio's page; the result line once the platform answered and the button is back."""
    before = c.d.execute_script("const r = document.getElementById('result'); r.textContent = ''; return 1")
    assert before == 1
    c.click("#spin")
    c.wait(lambda d: c.text("#result") != "")
    c.wait(lambda d: d.find_element("id", "spin").is_enabled())  # the page waits out the 2-second rule itself
    return c.text("#result")


def test_a_player_launches_the_studio_game_from_the_lobby_plays_hits_her_daily_stake_limit_and_finds_the_rounds(
    live_server, sim, play_browser
):
    player = funded_player(50_000)  # 500 CZK
    c, screens = Client(play_browser, live_server.url), Screens(play_browser)
    c.open("login")
    c.fill("#login-form", username=player.user.username, password=DEFAULT_PASSWORD)
    c.click("#login-submit")
    c.ready("home")

    # 1. the lobby lists the one approved game of the studio (not the 40 waiting for approval), with its button
    c.open("games")
    card = c.el(f"[data-game='{GAME}']")
    assert "5x Magic" in card.text and "Max. prohra za hodinu" in card.text
    assert len(c.d.find_elements("css selector", "[data-launch]")) == 1
    assert c.text(f"[data-launch='{GAME}']") == "Hrát (hra studia)"
    c.d.execute_script("arguments[0].scrollIntoView({block: 'center'})", card)
    screens.shot("studio-lobby")

    # 2. its button: a single-use launch token, and the browser goes to the studio's page
    c.click(f"[data-launch='{GAME}']")
    c.wait(lambda d: d.current_url.startswith(f"{sim.url}/play?"))
    query = parse_qs(urlsplit(c.d.current_url).query)
    assert query["game"] == ["5x_magic"] and query["lang"] == ["cs"] and query["token"]
    c.el("#game")
    assert c.text("#balance") == "500.00 CZK"
    assert c.d.title == "Simulátor poskytovatele" and "Hra: 5x_magic" in c.text(".mode")  # the game launched

    # 3. three rounds of 1 CZK: the balance moves with each, exactly as the platform's wallet says
    for n in (1, 2, 3):
        shown = spin(c)
        assert "Platforma odmítla" not in shown, shown  # no refusal in normal play (GP §7(9) paced by the page)
        rounds = Round.objects.filter(player=player, game_code=GAME)
        assert rounds.count() == n and all(r.status == "finished" for r in rounds)
        balance = wallet_balance(player).amount
        assert c.text("#balance") == f"{balance // 100:,}.{balance % 100:02d} CZK".replace(",", " ")
    won = sum(r.win for r in Round.objects.filter(player=player))
    assert wallet_balance(player).amount == 50_000 - 300 + won
    assert c.text("#balance") != "500.00 CZK" or won == 300
    screens.shot("studio-game")

    # 4. back in the casino (the page's link): a daily stake limit of 3 CZK on the limits screen; 3 CZK is staked
    c.click("#lobby")
    c.ready("games")
    c.open("limits")
    form = "form[data-limit='daily_stake']"
    c.fill(form, value="3")
    c.click(f"{form} button[name='set']")
    c.notice("Limit je uložen")
    c.ready("limits")
    c.wait(lambda d: c.text("[data-value='daily_stake']") == "3,00 Kč")

    # 5. launched again from the lobby: the next stake is refused on the studio's page with the platform's message
    c.open("games")
    c.click(f"[data-launch='{GAME}']")
    c.wait(lambda d: d.current_url.startswith(f"{sim.url}/play?"))
    c.el("#game")
    time.sleep(2.3)  # GP §7(9): the last round started more than 2 s ago (only the limit may refuse)
    refused = spin(c)
    assert refused == f"Platforma odmítla: {limit_errors.DAILY_STAKE_EXCEEDED.message_cs}", refused
    assert "refused" in (c.el("#result").get_attribute("class") or "")
    assert Round.objects.filter(player=player).count() == 3  # the refused stake moved nothing
    screens.shot("studio-refused")

    # 6. the round history in /play: the three remote rounds, each a studio's round without a replay here
    c.click("#lobby")
    c.ready("games")
    c.open("rounds")
    history = c.text("#view")
    for r in Round.objects.filter(player=player):
        note = c.text(f".remote[data-round='{r.pk}']")
        assert f"Hra studia simstudio: kolo {r.provider_round_id} losoval jeho server" in note, note
        assert f"#{r.pk}" in history
    assert history.count("5x Magic") == 3
    assert not c.d.find_elements("css selector", ".verify-button")  # nothing of this platform's to replay
    screens.shot("studio-rounds")
    c.language("en")
    first = Round.objects.filter(player=player).earliest("id")
    assert f"A game of the studio simstudio: its server drew round {first.provider_round_id}" in c.text(
        f".remote[data-round='{first.pk}']"
    )

    # the client asked nothing but its own server; the studio's page nothing but the studio's
    c.drain_logs()
    studio = [u for u in c.requests if u.startswith(sim.url)]
    assert studio and all(
        urlsplit(u).path in ("/play", "/spin", "/static/sim.js", "/static/sim.css") for u in studio
    ), studio
    c.requests = [u for u in c.requests if not u.startswith(sim.url)]
    assert c.foreign_requests() == []
    assert c.script_errors() == []
