"""Tried as a new user would, against a running `make run` (an external URL), the client at
/play/ takes a new player from registration to a finished Kobushi free-spin round with no admin access.

Run it against a server started from a fresh clone (it reads nothing from the database: only the browser and what
`make run` printed)::

    PORT=8200 make run > /tmp/make-run.log &
    PLAY_TRIAL_URL=http://127.0.0.1:8200 PLAY_TRIAL_PRINTOUT=/tmp/make-run.log \\
        .venv/bin/python -m pytest -q -p no:cacheprovider playclient/tests/test_newcomer_trial_browser.py

``PLAY_TRIAL_PRINTOUT`` is make run's printout, for the free sandbox identity it prints (a newcomer copies it from
there); screenshots go to ``PLAY_TRIAL_SHOTS`` (default /tmp/trial). Without ``PLAY_TRIAL_URL`` the test is skipped:
the same journey runs against the test server in test_journey_browser.py. The free identity registers once per
database: a second trial needs a fresh `make run` data folder (``.data``).
"""

from __future__ import annotations

import os
import re
import time
import uuid
from pathlib import Path

import pytest

from playclient.tests.harness import PHONE, Client, Screens, found

URL = os.environ.get("PLAY_TRIAL_URL", "").rstrip("/")
pytestmark = pytest.mark.skipif(not URL, reason="PLAY_TRIAL_URL (a running `make run`) is not set")

NEW_PASSWORD = "Moje-nove-heslo-2026"
BANK_ACCOUNT = "19-2000145399/0800"


def free_identity() -> dict[str, str]:
    """The sandbox identity `make run` prints for online registration (birth number, name, date of birth)."""
    printout = Path(os.environ.get("PLAY_TRIAL_PRINTOUT", "")).read_text()
    m = re.search(r"birth number (\d{9,10}) \(([^,]+), (\d{4}-\d{2}-\d{2})\)", printout)
    assert m, "make run's printout names no free sandbox identity"
    birth_number, name, born = m.groups()
    given, surname = name.split(" ", 1)
    return {
        "birth_number": birth_number,
        "given_names": given,
        "surname": surname,
        "date_of_birth": born,
        "sex": "F" if int(birth_number[2:4]) > 50 else "M",
    }  # a woman's birth number has month + 50


def test_a_newcomer_goes_from_registration_to_a_finished_kobushi_free_spin_round_on_a_running_server(play_browser):
    shots = Screens(play_browser, Path(os.environ.get("PLAY_TRIAL_SHOTS", "/tmp/trial")))
    c = Client(play_browser, URL)
    who = free_identity()
    n = uuid.uuid4().int % 1_000_000
    username = f"novacek{n}"

    # 1. /play/ as typed, then the registration form, filled in as a newcomer would (the identity make run printed)
    play_browser.get(f"{URL}/play/")
    c.wait(lambda d: d.execute_script("return document.getElementById('view')?.dataset.ready") == "home")
    shots.shot("01-start")
    c.open("register")
    c.fill(
        "#register-form",
        username=username,
        **{k: v for k, v in who.items()},
        place_of_birth="Praha",
        residence_street="Vodičkova 12",
        residence_city="Praha",
        residence_postal_code="110 00",
        phone=f"+420731{n:06d}",
        email=f"novacek{n}@example.cz",
        document_number=f"{200000000 + n}",
        document_issuing_authority="MěÚ Praha 1",
        document_valid_until="2034-01-31",
    )
    for kind in ("terms", "data_processing", "game_plan"):
        c.click(f"#register-form [name='consent_{kind}']")
    shots.shot("02-register", sizes=(PHONE,))
    c.click("#register-submit")
    c.el("#register-result .ok")
    assert username in c.text("#register-result")

    # 2. the e-mail and its link in the client's development mailbox; the link confirms it and the SMS follows
    c.el("#mailbox .confirm-link")
    shots.shot("03-registered-mailbox")
    c.click("#mailbox .confirm-link")
    c.ready("confirm")
    c.el("#confirm-result .ok")
    c.el("#mailbox .sms")
    first_password = found(r"first password: (\S+) -", c.text("#mailbox .sms"))
    shots.shot("04-confirmed-sms")

    # 3. log in with the first password; the client asks for a new one
    c.open("login")
    c.fill("#login-form", username=username, password=first_password)
    c.click("#login-submit")
    c.ready("password")
    c.fill("#password-form", new_password=NEW_PASSWORD)
    shots.shot("05-password-change", sizes=(PHONE,))
    c.click("#password-submit")
    c.ready("home")
    c.el("#countdown")
    shots.shot("06-home")

    # 4. a bank account and a sandbox deposit (the provider's callback credits it)
    c.open("wallet")
    c.fill("#method-form", account_number=BANK_ACCOUNT)
    c.click("#method-form button")
    c.el("#deposit-form button:not([disabled])")
    c.fill("#deposit-form", amount="500")
    c.click("#deposit-form button")
    c.el("#pay-succeeded")
    shots.shot("07-sandbox-pay")
    c.click("#pay-succeeded")
    c.wait(lambda d: c.text("#deposit-status") == "připsáno", timeout=60)
    c.open("wallet")
    assert c.text("#wallet-balance") == "500,00 Kč"
    shots.shot("08-wallet")

    # 5. Kobushi from the lobby; the QA box offers the free-spin preset, which plays one round in play money
    c.open("games")
    c.click("[data-game='kobushi'] a.button")
    c.ready("game")
    c.el("#qa[open] #qa-presets button[data-feature='big_cat_free_spins']", timeout=60)
    shots.shot("09-kobushi-presets")
    c.click("#qa-presets button[data-feature='big_cat_free_spins']")
    assert play_browser.find_element("id", "play-money").is_selected()
    assert (c.d.find_element("id", "forced-draws").get_attribute("value") or "").startswith("[[")
    shots.shot("10-preset-chosen", sizes=(PHONE,))
    c.click("#spin")
    c.el("#pending [data-action='spin']")
    assert "Volné otáčky" in c.text("#pending") and "Hra o body" in c.text("#result")
    shots.shot("11-free-spins")

    # 6. every free spin to the end
    spins = 0
    for _ in range(200):
        status = play_browser.execute_script("return document.querySelector('#result [data-status]')?.dataset.status")
        if status == "finished":
            break
        c.click("#pending [data-action]")
        spins += 1
        c.wait(lambda d: not d.find_elements("css selector", "#pending button[disabled]"))
    assert status == "finished" and spins >= 5, (status, spins)
    time.sleep(0.3)
    shots.shot("12-finished")
    c.open("rounds?play_money=true")
    shots.shot("13-rounds", sizes=(PHONE,))
    c.open("wallet")
    assert c.text("#wallet-balance") == "500,00 Kč"  # play money moved nothing

    assert c.foreign_requests() == []
    assert c.script_errors() == []
