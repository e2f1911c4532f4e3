"""A new player's journey through the player web client at /play/, in headless Chromium, against the
live server and real PostgreSQL; the client talks only to the public API.

She registers (a temporary account, its countdown and deposit cap), opens the e-mail link (it points at the client)
from the development mailbox the client shows, logs in with the first password from the SMS (the same mailbox) and
changes it, adds a bank account and deposits through the sandbox
provider's payment page, plays European roulette and Kobushi for money, plays a Kobushi free-spin round to the end
in play money (the QA box's free-spin preset: forced draws the server found), sets a daily stake limit and hits it (the
server's refusal in Czech, then in
English), verifies a round by replay and files a complaint about it, loosens the limit (pending for 7 days) and at last
presses the panic button. Nothing the client does goes outside
/api/v1/ and /static/, no script fails, and the 2-second rule (GP §7(9)) never shows an error in normal play.

Only what is outside a player's reach is done otherwise: the sandbox population register knows her (staff).
"""

from __future__ import annotations

import json
import time

import pytest
from django.core import mail

from accounts.models import SandboxSms
from core.models import SandboxEmail
from games.models import Game, Round
from games.services import qa
from limits import errors as limit_errors
from playclient.tests.harness import PHONE, Client, Screens, found
from tests.kit.accounts import make_register_record, registration_payload

pytestmark = pytest.mark.django_db(transaction=True)

NEW_PASSWORD = "Moje-nove-heslo-2026"
BANK_ACCOUNT = "19-2000145399/0800"


def test_a_new_player_registers_deposits_plays_both_games_hits_her_limit_and_complains_in_chromium(
    live_server, play_browser, settings
):
    settings.PUBLIC_BASE_URL = live_server.url
    settings.ACCOUNTS_EMAIL_CONFIRM_URL = "/play#/confirm?token={token}"  # the operator's app is the link target
    settings.GAMES_QA_FORCED_OUTCOMES = True
    settings.EMAIL_BACKEND = "core.mail.SandboxEmailBackend"  # as `make run`: kept for the development mailbox
    settings.DEV_MAILBOX_ENABLED = True
    c, screens = Client(play_browser, live_server.url), Screens(play_browser)
    person = registration_payload(username="nova.hracka")
    make_register_record(person)

    # 1. registration: a temporary account
    c.open("register")
    screens.shot("register")
    fields = {
        k: v
        for k, v in person.items()
        if k not in ("consents", "birth_surname", "correspondence_address", "data_box_id") and v != ""
    }
    c.fill("#register-form", **fields)
    for kind in ("terms", "data_processing", "game_plan"):
        c.click(f"#register-form [name='consent_{kind}']")
    c.click("#register-submit")
    c.el("#register-result .ok")
    assert "nova.hracka" in c.text("#register-result")
    assert "Dočasný účet platí do" in c.text("#register-result")

    # 2. the e-mail link (to the client: ACCOUNTS_EMAIL_CONFIRM_URL) from the development mailbox the client shows;
    #    confirming it sends the first password by SMS, which the mailbox shows too
    assert mail.outbox == []  # the sandbox backend keeps it for the mailbox instead
    c.el("#mailbox .confirm-link")
    assert f"{live_server.url}/play#/confirm?token=" in SandboxEmail.objects.get().body
    screens.shot("register-done", sizes=(PHONE,))
    c.click("#mailbox .confirm-link")
    c.ready("confirm")
    c.el("#confirm-result .ok")
    assert "První heslo jsme poslali SMS" in c.text("#confirm-result")
    c.el("#mailbox .sms")
    first_password = found(r"first password: (\S+) -", c.text("#mailbox .sms"))
    assert first_password in SandboxSms.objects.get(to=person["phone"]).text
    screens.shot("confirm")

    # 3. log in with it; the client asks for a new one at once (GP §4(7))
    c.open("login")
    screens.shot("login")
    c.fill("#login-form", username="nova.hracka", password=first_password)
    c.click("#login-submit")
    c.ready("password")
    screens.shot("password")
    c.fill("#password-form", new_password=NEW_PASSWORD)
    c.click("#password-submit")
    c.ready("home")
    c.el("#countdown")
    home = c.text()
    assert "Dočasný účet platí do" in home and "Na dočasný účet lze vložit nejvýše 3 000,00 Kč" in home
    screens.shot("home")

    # 4. a bank account and a deposit through the sandbox provider's payment page
    c.open("wallet")
    c.fill("#method-form", account_number=BANK_ACCOUNT)
    c.click("#method-form button")
    c.notice("Účet je přidán")
    c.el("#deposit-form button:not([disabled])")
    c.fill("#deposit-form", amount="2000")
    c.click("#deposit-form button")
    c.el("#pay-succeeded")
    assert "2 000,00 Kč" in c.text()
    screens.shot("sandbox-pay")
    c.click("#pay-succeeded")
    c.wait(lambda d: c.text("#deposit-status") == "připsáno")
    c.open("wallet")
    assert c.text("#wallet-balance") == "2 000,00 Kč"
    assert "1 000,00 Kč" in c.text("#wallet-cap")  # the temporary account's cap (GP §5(2)b)
    screens.shot("wallet")

    # 5. the lobby: each game's declared RTP and maximum hourly loss (GP §7(2))
    c.open("games")
    kobushi = c.text("[data-game='kobushi']")
    assert "96,89 %" in kobushi and "Max. prohra za hodinu" in kobushi
    screens.shot("lobby")

    # 6. European roulette for money: two rounds, the second waits for the spin button (GP §7(9)), no error
    c.open("game/european_roulette")
    c.fill("#bet-form", type="red", amount="5")
    c.click("#add-chip")
    for n in (1, 2):
        c.click("#spin")
        c.wait(
            lambda d, n=n: (
                len(d.find_elements("css selector", "#result [data-status='finished']")) == 1
                and Round.objects.filter(play_money=False).count() == n
            )
        )
        assert not play_browser.find_element("id", "notice").is_displayed()
        if n == 1:  # GP §7(9): the spin button waits 2.2 s after the start; the second spin is not refused
            assert not play_browser.find_element("id", "spin").is_enabled()
    screens.shot("roulette")

    # 7. Kobushi for money (0.30 CZK) and a free-spin round in play money, played to the end
    c.open("game/kobushi")
    c.fill("#bet-form", lines="30", coins="1", coin_value="1")
    c.click("#spin")
    c.wait(lambda d: Round.objects.filter(play_money=False, game_code="kobushi").count() == 1)
    c.el("#result [data-round]")
    #    the QA box offers the server's presets (GAMES_QA_FORCED_OUTCOMES): the free-spin one fills the forced draws,
    #    the preset's bet and ticks play money, as a newcomer does it
    c.el("#qa[open] #qa-presets button[data-feature='big_cat_free_spins']")
    assert not play_browser.find_element("id", "play-money").is_selected()
    c.click("#qa-presets button[data-feature='big_cat_free_spins']")
    assert play_browser.find_element("id", "play-money").is_selected()
    assert "Velká kočka" in c.text("#qa-chosen")
    preset = next(
        p
        for p in qa.game_presets("kobushi", Game.objects.get(code="kobushi", current=True).version)["presets"]
        if p["feature"] == "big_cat_free_spins"
    )
    assert json.loads(c.d.find_element("id", "forced-draws").get_attribute("value") or "null") == preset["forced_draws"]
    assert c.text("#total-bet") == "Celkem: 7,50 Kč"  # the preset's bet (15 lines x 5 coins x 0.10)
    c.click("#spin")
    c.el("#pending [data-action='spin']")
    assert "Volné otáčky" in c.text("#pending")
    time.sleep(2.5)  # past the 2-second spacing: a round waiting for the player still allows no new one (GP §7(6))
    assert not play_browser.find_element("id", "spin").is_enabled()
    screens.shot("kobushi-free-spins")
    #    one spin by itself, then "play all": the rest in one request, its spins shown one by one
    c.click("#pending [data-action='spin']")
    c.wait(lambda d: not d.find_elements("css selector", "#pending button[disabled]"))
    assert Round.objects.get(play_money=True).actions == [{"type": "spin"}]
    assert "Dohrát všechny otáčky" in c.text("#pending [data-action='play_through']")
    c.click("#pending [data-action='play_through']")
    c.wait(
        lambda d: (
            d.execute_script("return document.querySelector('#result [data-status]')?.dataset.status") == "finished"
        ),
        timeout=60,
    )
    free = Round.objects.get(play_money=True)
    assert free.status == "finished" and free.forced_outcome and len(free.actions) >= 5
    assert {k: free.bet_params[k] for k in preset["bet"]} == preset["bet"]
    assert free.draws[: len(preset["forced_draws"])] == preset["forced_draws"]
    assert c.d.find_element("id", "forced-draws").get_attribute("value") == ""  # a preset plays one round
    assert all(a == {"type": "spin"} for a in free.actions)
    screens.shot("kobushi")

    # 8. a daily stake limit of 15 CZK (10.30 staked today); the next 10 CZK stake is refused, in Czech and English
    c.open("limits")
    form = "form[data-limit='daily_stake']"
    c.fill(form, value="15")
    c.click(f"{form} button[name='set']")
    c.notice("Limit je uložen")
    c.ready("limits")
    c.wait(lambda d: c.text("[data-value='daily_stake']") == "15,00 Kč")
    c.open("game/european_roulette")
    c.click("#chips button")  # the last bet (5 CZK on red) comes back; it is taken off
    c.fill("#bet-form", type="red", amount="10")
    c.click("#add-chip")
    assert c.text("#chips") == "Červená: 10,00 Kč ✕"
    c.click("#spin")
    assert c.notice(limit_errors.DAILY_STAKE_EXCEEDED.message_cs) == limit_errors.DAILY_STAKE_EXCEEDED.message_cs
    screens.shot("limit-refused-cs")
    c.language("en")
    c.click("#chips button")
    c.fill("#bet-form", type="red", amount="10")
    c.click("#add-chip")
    assert c.text("#chips") == "Red: 10,00 Kč ✕"
    c.click("#spin")
    assert c.notice(limit_errors.DAILY_STAKE_EXCEEDED.message_en) == limit_errors.DAILY_STAKE_EXCEEDED.message_en
    screens.shot("limit-refused-en")
    assert Round.objects.filter(play_money=False).count() == 3  # the refused stakes moved nothing
    c.language("cs")

    # 9. loosening it to 50 CZK waits 7 days (GP §6(4)): the 15 CZK limit stays, the new one is shown as pending
    c.open("limits")
    c.fill(form, value="50")
    c.click(f"{form} button[name='set']")
    c.notice("Zmírnění začne platit")
    c.ready("limits")  # the screen's ready flag may still be the one before the answer: wait for what it shows
    c.wait(lambda d: "50,00 Kč od" in c.text("[data-limit-card='daily_stake']"))
    assert c.text("[data-value='daily_stake']") == "15,00 Kč"
    assert "zmírnění" in c.text("#limit-history")
    screens.shot("limits")

    # 10. the round history: a round verified by replay, then a complaint about it (GP §11)
    c.open("rounds")
    first = Round.objects.filter(play_money=False).earliest("id")
    c.click(f".verify-button[data-round='{first.pk}']")
    c.wait(lambda d: "odpovídá" in c.text(f".verify[data-round='{first.pk}']"))
    screens.shot("rounds")
    c.click(f"a[href='#/complaints?round={first.pk}']")
    c.ready("complaints")
    c.fill("#complaint-form", description="Kulička podle mě padla na jiné číslo, prosím o prověření.")
    c.click("#complaint-submit")
    filed = c.notice("je přijata")
    reference = found(r"RK-\d{4}-\d+", filed)
    c.el("#complaint-detail")
    assert reference in c.text()
    screens.shot("complaints")
    from complaints.models import Complaint

    complaint = Complaint.objects.get(reference=reference)
    assert [i.object_id for i in complaint.items.all()] == [str(first.pk)]

    # 11. the rest of the screens, then: no foreign request, no script error
    for route in ("responsible", "inbox", "legal", "account"):
        c.open(route)
        screens.shot(route)

    # 12. the panic button: logged out at once, play blocked for 48 hours
    c.open("limits")
    c.click("#panic")
    c.click("#panic-confirm")
    c.ready("login")
    assert "Hraní je zablokováno do" in c.notice("zablokováno")
    assert c.d.execute_script("return sessionStorage.getItem('play.token')") is None

    assert c.foreign_requests() == []
    assert c.script_errors() == []
