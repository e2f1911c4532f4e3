"""The simulator's web server over real HTTP: the launch URL's page (strict CSP, a static script), a spin through the
wallet, the platform's refusal shown in the player's language, and the two endpoints the platform calls, which
check its signature."""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request

import pytest

from provider_simulator.server import Running, SimulatorApp
from provider_simulator.signing import signed_headers
from provider_simulator.slot import Slot
from tests.kit.simulator import SECRET


@pytest.fixture
def sim(wallet, journal):
    running = Running(
        SimulatorApp(
            platform=wallet.url, provider="simstudio", secret=SECRET, journal=journal, slot=Slot(random.Random(5))
        )
    )
    yield running
    running.stop()


def _get(url: str) -> tuple[int, dict[str, str], str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def _post(url: str, body: dict, headers: dict[str, str] | None = None, raw: bytes | None = None) -> tuple[int, dict]:
    data = raw if raw is not None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method="POST", headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def _sid(page: str) -> str:
    return page.split("data-sid='")[1].split("'")[0]


def test_the_launch_url_exchanges_the_token_once_and_serves_a_page_a_strict_csp_allows(wallet, sim):
    token = wallet.launch_token()
    status, headers, page = _get(f"{sim.url}/play?token={token}&game=sim_fruits&lang=en")
    assert status == 200
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert "<script type='module' src='/static/sim.js'></script>" in page
    # the one address of another origin is the way back: a link to the platform's lobby (a navigation, no resource)
    back = f"<a id='lobby' href='{wallet.url}/play#/games'>Back to the casino</a>"
    assert back in page
    page_without_link = page.replace(back, "")
    assert "<script>" not in page and "style=" not in page and "onclick" not in page
    assert "http" not in page_without_link
    assert "Balance: <output id='balance'>1 000.00 CZK</output>" in page
    assert "<option value='10'>" in page and "Spin" in page
    js_status, js_headers, js = _get(f"{sim.url}/static/sim.js")
    assert js_status == 200 and js_headers["Content-Type"].startswith("text/javascript") and "/spin" in js
    again, _, refused = _get(f"{sim.url}/play?token={token}&game=sim_fruits&lang=cs")
    assert again == 401 and "providers.invalid_token (cs)" in refused
    assert f"<a id='lobby' href='{wallet.url}/play#/games'>Zpět do kasina</a>" in refused  # and a way back
    assert _get(f"{sim.url}/static/../server.py")[0] == 404


def test_a_spin_bets_draws_and_wins_through_the_wallet_and_answers_the_page(wallet, sim):
    _, _, page = _get(f"{sim.url}/play?token={wallet.launch_token()}&game=sim_fruits&lang=cs")
    status, result = _post(f"{sim.url}/spin", {"stake": 200}, {"X-Sim-Session": _sid(page)})
    assert status == 200 and result["settled"] and result["refused"] is None
    assert result["balance"] == wallet.balance == 100_000 - 200 + result["spin"]["win"]
    assert [c["op"] for c in result["calls"]] == ["bet", "win"]
    assert _post(f"{sim.url}/spin", {"stake": 15}, {"X-Sim-Session": _sid(page)})[0] == 400
    assert _post(f"{sim.url}/spin", {"stake": 100}, {"X-Sim-Session": "nope"})[0] == 401


@pytest.mark.parametrize("lang", ["cs", "en"])
def test_the_platforms_refusal_reaches_the_player_in_the_players_language(wallet, sim, lang):
    _, _, page = _get(f"{sim.url}/play?token={wallet.launch_token()}&game=sim_fruits&lang={lang}")
    wallet.refusal = (409, wallet._error("RS_ERROR_LIMIT_REACHED", "limit.daily_stake_exceeded"))
    status, result = _post(f"{sim.url}/spin", {"stake": 100}, {"X-Sim-Session": _sid(page)})
    assert status == 200 and result["spin"] is None
    assert result["refused"]["message"] == f"limit.daily_stake_exceeded ({lang})"
    assert result["refused"]["status"] == "RS_ERROR_LIMIT_REACHED"


def test_a_session_launched_with_a_mode_misbehaves_that_way(wallet, sim):
    _, _, page = _get(f"{sim.url}/play?token={wallet.launch_token()}&game=sim_fruits&lang=en&mode=duplicate")
    _post(f"{sim.url}/spin", {"stake": 100}, {"X-Sim-Session": _sid(page)})
    assert wallet.ops() == ["session", "bet", "bet", "win", "win"]
    assert _get(f"{sim.url}/play?token=x&mode=chaos")[0] == 400


def test_round_cancelled_is_recorded_when_signed_by_the_platform_and_refused_otherwise(sim):
    body = {"round_id": "sim-round-1", "reason": "deadline", "refunded": {"amount": 100, "currency": "CZK"}}
    raw = json.dumps(body).encode()
    assert _post(f"{sim.url}/api/round-cancelled", {}, signed_headers(SECRET, int(time.time()), raw), raw) == (
        200,
        {"status": "RS_OK"},
    )
    assert _post(f"{sim.url}/api/round-cancelled", {}, signed_headers("forged", int(time.time()), raw), raw)[0] == 401
    assert (
        _post(f"{sim.url}/api/round-cancelled", {}, signed_headers(SECRET, int(time.time()) - 301, raw), raw)[0] == 401
    )
    assert _post(f"{sim.url}/api/round-cancelled", body)[0] == 401  # unsigned
    assert [(c["round_id"], c["reason"], c["refunded"]) for c in sim.app.journal.cancelled()] == [
        ("sim-round-1", "deadline", 100)
    ]


def test_round_report_answers_the_days_transactions_from_the_journal(wallet, sim):
    _, _, page = _get(f"{sim.url}/play?token={wallet.launch_token()}&game=sim_fruits&lang=en")
    _, result = _post(f"{sim.url}/spin", {"stake": 100}, {"X-Sim-Session": _sid(page)})
    day = sim.app.journal.calls()[-1].day
    raw = json.dumps({"day": day}).encode()
    status, report = _post(f"{sim.url}/api/round-report", {}, signed_headers(SECRET, int(time.time()), raw), raw)
    assert status == 200 and report["day"] == day
    assert [(t["type"], t["round_id"], t["amount"]["amount"]) for t in report["transactions"]] == [
        ("bet", result["round_id"], 100),
        ("win", result["round_id"], result["spin"]["win"]),
    ]
    assert _post(f"{sim.url}/api/round-report", {"day": day})[0] == 401
