"""The wire contract end to end: the platform as a real HTTP server (pytest-django's ``live_server``, a thread of
this process on the test database) and the provider simulator (``provider_simulator``: its own WSGI server in
another thread, its signed client, its slot), with nothing mocked between them.

A player launches the simulator's game from the catalogue (``POST /api/v1/providers/simstudio/launch``), opens the
launch URL (the simulator's page exchanges the token for a session) and spins on the simulator, which bets and wins
through the wallet API. The clock is time-machine's (``core.clock`` reads it; the live server's thread and the
simulator's signatures share the patch of this process): rounds are spaced past the 2-second rule, the 120-minute
play period is walked to its edge. At the end of each test the books agree: ``ledger_check`` and
``limits_reconcile`` are clean and the platform's daily reconciliation against the simulator's own round report
finds no difference.
"""

from __future__ import annotations

import io
import json
import random
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core.management import call_command

from core import clock
from core.audit import Actor
from limits.errors import BREAK_REQUIRED, DAILY_STAKE_EXCEEDED
from limits.services import self_limit_set
from provider_simulator.client import WalletClient
from provider_simulator.server import Running, SimulatorApp
from provider_simulator.slot import Slot
from provider_simulator.studio import Studio
from providers.models import Provider
from providers.reconciliation import reconciliation_run
from tests.kit.accounts import login_session_for, make_player
from tests.kit.providers import SECRET, make_game, make_provider
from tests.kit.wallet import fund

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "refusal_log"])

CODE = "simstudio"
START = datetime(2026, 3, 2, 8, 0, 0, tzinfo=UTC)  # 09:00 in Prague, a Monday
GAME = f"{CODE}_sim_fruits"
FUNDS = 100_000  # 1,000 CZK


def http(
    method: str,
    url: str,
    body: Any = None,
    *,
    token: str | None = None,
    headers: dict[str, str] | None = None,
    lang: str = "cs",
) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url,
        data=data,
        method=method,
        headers={
            "Accept": "application/json",
            "Accept-Language": lang,
            **({"Content-Type": "application/json"} if data else {}),
            **({"Authorization": f"Token {token}"} if token else {}),
            **(headers or {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            raw, status = r.read(), r.status
    except urllib.error.HTTPError as e:
        raw, status = e.read(), e.code
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode()


@pytest.fixture
def frozen():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def sim(live_server, frozen):
    app = SimulatorApp(platform=live_server.url, provider=CODE, secret=SECRET, slot=Slot(random.Random(23)))
    running = Running(app)
    make_provider(
        CODE,
        launch_url=f"{running.url}/play",
        api_url=f"{running.url}/api",
        allowed_sources=["127.0.0.1/32", "::1/128"],
    )
    make_game(CODE, "sim_fruits", max_bet=10_000)
    yield running
    running.stop()
    app.client.close()


class Player:
    """A player of the platform at the simulator's page."""

    def __init__(self, live_server, sim, frozen, *, funds: int = FUNDS) -> None:
        self.live, self.sim, self.frozen = live_server.url, sim, frozen
        self.player = make_player()
        fund(self.player, funds)
        self.token = login_session_for(self.player)[1]
        self.sid = self.launch_url = ""

    def launch(self, lang: str = "cs") -> str:
        status, launched = http(
            "POST", f"{self.live}/api/v1/providers/{CODE}/launch", {"game": GAME, "lang": lang}, token=self.token
        )
        assert status == 201, launched
        assert launched["launch_url"].startswith(f"{self.sim.url}/play?token=")
        assert "game=sim_fruits" in launched["launch_url"] and f"lang={lang}" in launched["launch_url"]
        self.launch_url = launched["launch_url"]
        with urllib.request.urlopen(self.launch_url, timeout=30) as r:
            page = r.read().decode()
        self.sid = page.split("data-sid='")[1].split("'")[0]
        return page

    def spin(self, stake: int) -> dict[str, Any]:
        status, result = http("POST", f"{self.sim.url}/spin", {"stake": stake}, headers={"X-Sim-Session": self.sid})
        assert status == 200, result
        self.frozen.shift(timedelta(seconds=3))  # GP §7(9): the next round at least 2 s later
        return result

    def get(self, path: str, lang: str = "cs") -> Any:
        status, body = http("GET", f"{self.live}{path}", token=self.token, lang=lang)
        assert status == 200, body
        return body

    def balance(self) -> int:
        return int(self.get("/api/v1/wallet/overview")["balance"]["amount"])


def books_agree() -> None:
    """The ledger and the limits' counters reconcile, and the simulator's daily report matches the platform's."""
    out = io.StringIO()
    call_command("ledger_check", stdout=out)
    call_command("limits_reconcile", stdout=out)
    provider = Provider.objects.get(code=CODE)
    result = reconciliation_run(provider=provider, day=clock.business_date())
    assert result["differences"] == 0, result
    assert result["platform"] == result["provider"] > 0


def test_a_player_launched_from_the_catalogue_plays_on_the_simulators_page_and_the_round_is_everywhere(
    live_server, sim, frozen
):
    p = Player(live_server, sim, frozen)
    page = p.launch("en")
    assert "Balance: <output id='balance'>1 000.00 CZK</output>" in page
    results = [p.spin(stake) for stake in (100, 200, 100)]
    assert all(r["settled"] and r["refused"] is None for r in results)
    won = sum(r["spin"]["win"] for r in results)
    assert p.balance() == results[-1]["balance"] == FUNDS - 400 + won

    # the round recall (GP §11(5)): the three remote rounds, settled, stake and win as the simulator sent them
    recall = p.get("/api/v1/games/rounds")["results"]
    remote = [r for r in recall if r["game"]["code"] == GAME]
    assert len(remote) == 3 and all(r["status"] == "finished" for r in remote)
    assert sorted(r["stake"]["amount"] for r in remote) == [100, 100, 200]
    assert sum(r["win"]["amount"] for r in remote) == won
    # the statement: a stake line per bet and a win line per win that paid
    lines = p.get("/api/v1/wallet/statement")["results"]
    assert sorted(-line["amount"]["amount"] for line in lines if line["category"] == "stake") == [100, 100, 200]
    assert sum(line["amount"]["amount"] for line in lines if line["category"] == "win") == won
    # a complaint names a remote round as any other
    status, complaint = http(
        "POST",
        f"{p.live}/api/v1/complaints",
        {"reason": "game_result", "description": "The reels stopped oddly.", "rounds": [remote[0]["id"]]},
        token=p.token,
    )
    assert status == 201, complaint
    detail = p.get(f"/api/v1/complaints/{complaint['reference']}")
    assert [(i["kind"], str(i["object_id"])) for i in detail["items"]] == [("round", str(remote[0]["id"]))]
    # the launch token was single-use: the launch URL opened again shows the platform's refusal
    status, again = http("GET", p.launch_url)
    assert status == 401 and "id='refusal'" in again
    books_agree()


def test_the_daily_stake_limit_holds_exactly_at_its_boundary_and_the_player_reads_the_refusal(live_server, sim, frozen):
    p = Player(live_server, sim, frozen)
    self_limit_set(player=p.player, kind="technical", limit_type="daily_stake", value=300, actor=Actor.player(p.player))
    p.launch("cs")
    assert all(p.spin(100)["settled"] for _ in range(3))  # 300 of 300: at the boundary, allowed
    refused = p.spin(10)  # 310 > 300
    assert refused["spin"] is None and not refused["settled"]
    assert refused["refused"]["status"] == "RS_ERROR_LIMIT_REACHED"
    assert refused["refused"]["code"] == DAILY_STAKE_EXCEEDED.code
    assert refused["refused"]["details"]["used"]["amount"] == refused["refused"]["details"]["value"]["amount"] == 300
    assert refused["refused"]["message"] == "Sázka by překročila váš denní limit sázek."  # as the player reads it
    p.launch("en")
    english = p.spin(10)
    assert english["refused"]["message"] != refused["refused"]["message"]  # Czech, then English
    statement = p.get("/api/v1/wallet/statement")["results"]
    assert sum(-line["amount"]["amount"] for line in statement if line["category"] == "stake") == 300
    books_agree()


def test_the_120_minute_break_is_enforced_on_remote_rounds_and_ends_15_minutes_after_the_last_round(
    live_server, sim, frozen
):
    p = Player(live_server, sim, frozen)
    p.launch("cs")
    started = clock.now()
    for minutes in range(0, 113, 14):  # a round every 14 minutes: no pause of 15, one play period
        frozen.move_to(started + timedelta(minutes=minutes))
        assert p.spin(10)["settled"], minutes
    last = started + timedelta(minutes=119, seconds=58)  # 2 s before the edge (GP §7(9) spaces the two stakes)
    frozen.move_to(last)
    assert p.spin(10)["settled"]  # within the 120 minutes: allowed, the round runs to its end
    frozen.move_to(started + timedelta(minutes=120))
    refused = p.spin(10)  # 120:00 of play: refused
    assert refused["refused"]["status"] == "RS_ERROR_LIMIT_REACHED"
    assert refused["refused"]["code"] == BREAK_REQUIRED.code
    frozen.move_to(last + timedelta(minutes=15) - timedelta(seconds=1))
    assert p.spin(10)["refused"]["code"] == BREAK_REQUIRED.code  # 14:59 of break
    frozen.move_to(last + timedelta(minutes=15))
    assert p.spin(10)["settled"]  # the break is over 15 minutes after the end of the last round
    books_agree()


def test_duplicated_out_of_order_and_lost_answers_change_nothing_and_forged_or_stale_calls_are_refused(
    live_server, sim, frozen
):
    p = Player(live_server, sim, frozen)
    client = WalletClient(live_server.url, CODE, SECRET, journal=sim.app.journal)
    studio = Studio(client, Slot(random.Random(5)))

    def session() -> str:
        status, launched = http(
            "POST", f"{p.live}/api/v1/providers/{CODE}/launch", {"game": GAME, "lang": "cs"}, token=p.token
        )
        assert status == 201, launched
        return str(client.session(launched["launch_token"]).body["session"])

    s = session()
    expected = FUNDS

    def play(mode: str):
        nonlocal expected
        result = studio.play_round(s, 100, mode=mode)
        frozen.shift(timedelta(seconds=3))
        if result.settled and result.spin is not None:
            expected += result.spin.win - 100
        assert p.balance() == expected, (mode, result.as_json())
        return result

    duplicated = play("duplicate")  # every call twice: the second is a replay of the first answer
    assert duplicated.settled and [op for op, _ in duplicated.calls] == ["bet", "bet", "win", "win"]
    assert duplicated.calls[0][1].body == duplicated.calls[1][1].body
    assert duplicated.calls[2][1].body == duplicated.calls[3][1].body

    early = play("out_of_order")  # the win before its bet: refused, then the round plays once
    assert early.calls[0][1].provider_status == "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
    assert early.settled

    tombstone = play("rollback_first")  # the rollback of a bet never seen: RS_OK, and the late bet is refused
    assert [(op, r.status, r.provider_status) for op, r in tombstone.calls] == [
        ("rollback", 200, "RS_OK"),
        ("bet", 409, "RS_ERROR_TRANSACTION_ROLLED_BACK"),
    ]

    lost = play("timeout")  # the bet's answer lost, the bet retried (a replay), then rolled back: nothing moved
    assert lost.voided and [op for op, _ in lost.calls] == ["bet", "bet", "rollback"]
    assert lost.calls[1][1].ok

    late = play("late_round_end")  # the win leaves the round open, round-end closes it
    assert late.settled and [op for op, _ in late.calls] == ["bet", "win", "round-end"]

    for mode, code in (
        ("forged_signature", "RS_ERROR_INVALID_SIGNATURE"),
        ("stale_timestamp", "RS_ERROR_INVALID_SIGNATURE"),
    ):
        refused = play(mode)
        assert (refused.refusal.status, refused.refusal.provider_status) == (401, code), mode

    recall = p.get("/api/v1/games/rounds")["results"]
    statuses = sorted(r["status"] for r in recall if r["game"]["code"] == GAME)
    assert statuses == ["finished", "finished", "finished", "voided"]  # the lost bet's round is void
    client.close()
    books_agree()
