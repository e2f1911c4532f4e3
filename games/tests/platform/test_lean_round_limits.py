"""The lean round path (stake_gate + stake_decided_now) keeps the limits exact at their boundary: the daily and monthly
stake and loss limits (GP §6(6)a-d, §6(7)), the hourly-loss cap (GP §8(5)), the login and session time limits
(GP §6(6)e-g): what one statement counted is what the next decision reads, and a refused stake changes nothing.
The parity of the gate with the selectors the player reads is limits/tests/test_gate_parity.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.audit import Actor
from core.rng import use_rng
from core.sql import readable
from games.models import Round
from games.tests.platform.testgames import FixedRNG
from limits.errors import (
    DAILY_LOSS_EXCEEDED,
    DAILY_STAKE_EXCEEDED,
    DAILY_TIME_EXCEEDED,
    HOURLY_LOSS_EXCEEDED,
    MONTHLY_LOGINS_EXCEEDED,
    MONTHLY_LOSS_EXCEEDED,
    MONTHLY_STAKE_EXCEEDED,
    PAUSE_AFTER_LOGOUT,
)
from limits.services import self_limit_set
from tests.kit.clients import client_for
from tests.kit.games import api_bet
from tests.kit.platform import START, balance, funded_player, key

pytestmark = pytest.mark.django_db

RED = {"bets": [{"type": "red", "amount": 100}]}  # 1.00 CZK
LOSS, WIN = FixedRNG(0), FixedRNG(1)


def _player_with(limit_type: str, value: int) -> Any:
    player = funded_player(100_000)
    self_limit_set(player=player, kind="technical", limit_type=limit_type, value=value, actor=Actor.player(player))
    return player


def _spin(c: Any, clock: Any, rng: Any, bet: dict[str, Any] = RED) -> Any:
    clock.shift(3)  # GP §7(9)
    with use_rng(rng):
        return c.post(
            "/api/v1/games/rounds",
            {"game": "european_roulette", "bet": api_bet(bet)},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        )


def test_the_daily_stake_limit_allows_the_stake_that_reaches_it_and_refuses_one_more_step(clock):
    player = _player_with("daily_stake", 300)  # 3.00 CZK a day
    c = client_for(player)
    for _ in range(3):  # 1.00 + 1.00 + 1.00 = exactly the limit
        assert _spin(c, clock, WIN).status_code == 201
    before, rounds = balance(player), Round.objects.filter(player=player).count()
    r = _spin(c, clock, WIN, {"bets": [{"type": "red", "amount": 10}]})  # 0.10 CZK over
    assert r.status_code == 403 and r.json()["error"]["code"] == DAILY_STAKE_EXCEEDED.code
    assert r.json()["error"]["details"]["used"]["amount"] == 300
    assert balance(player) == before and Round.objects.filter(player=player).count() == rounds


def test_the_daily_loss_limit_counts_decided_bets_of_the_lean_path(clock):
    player = _player_with("daily_loss", 200)  # 2.00 CZK net loss a day
    c = client_for(player)
    assert _spin(c, clock, WIN).status_code == 201  # +1.00: net loss -1.00
    for _ in range(3):  # three lost 1.00 stakes: net loss 2.00 = the limit
        assert _spin(c, clock, LOSS).status_code == 201
    r = _spin(c, clock, LOSS, {"bets": [{"type": "red", "amount": 10}]})
    assert r.status_code == 403 and r.json()["error"]["code"] == DAILY_LOSS_EXCEEDED.code
    assert r.json()["error"]["details"]["used"]["amount"] == 200


# The hourly-loss cap (GP §8(5), ZHH §53), the monthly limits (GP §6(6)b, d) and the login and session time limits
# (GP §6(6)e-g), each at its boundary on the lean path: instant rounds through the round API, decided by stake_gate
# and counted by stake_decided_now (no open-bet row is written, which only the general path does).

PRAGUE_APRIL = datetime(2026, 3, 31, 22, 0, 0, tzinfo=UTC)  # 1 April 2026 00:00 in Prague (CEST): a new month
SEC = timedelta(seconds=1)
TEN = {"bets": [{"type": "red", "amount": 10}]}  # 0.10 CZK, one step


def _spin_at(c: Any, clock: Any, at: datetime, rng: Any, bet: dict[str, Any] = RED) -> Any:
    """A round started exactly at ``at`` (the caller keeps GP §7(9)'s 2 seconds between starts)."""
    clock.move_to(at)
    with use_rng(rng), CaptureQueriesContext(connection) as ctx:
        r = c.post(
            "/api/v1/games/rounds",
            {"game": "european_roulette", "bet": api_bet(bet)},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        )
    if r.status_code == 201:
        assert not [q for q in ctx.captured_queries if 'INSERT INTO "limits_openbet"' in readable(q["sql"])], (
            "not the lean path"
        )
    return r


def _refused(r: Any, code: str) -> dict[str, Any]:
    assert r.status_code == 403 and r.json()["error"]["code"] == code, r.content
    return dict(r.json()["error"]["details"])


def _unchanged(player: Any, before: tuple[int, int]) -> None:
    assert (balance(player), Round.objects.filter(player=player).count()) == before


def test_the_hourly_loss_cap_allows_the_stake_that_reaches_it_and_refuses_one_step_more_until_the_minute_frees(
    clock, settings
):
    settings.GP = {**settings.GP, "MAX_HOURLY_LOSS": 300}  # 3.00 CZK over any rolling 60 minutes
    player = funded_player(100_000)
    c = client_for(player)
    t = START
    for i in range(3):  # three lost 1.00 stakes: the loss reaches the cap exactly, the third is allowed
        assert _spin_at(c, clock, t + (3 + 3 * i) * SEC, LOSS).status_code == 201
    before = (balance(player), Round.objects.filter(player=player).count())
    details = _refused(_spin_at(c, clock, t + 12 * SEC, LOSS, TEN), HOURLY_LOSS_EXCEEDED.code)
    assert (details["value"]["amount"], details["used"]["amount"], details["max_stake_now"]["amount"]) == (300, 300, 0)
    assert details["window_minutes"] == 60
    retry_at = datetime.fromisoformat(details["retry_at"].replace("Z", "+00:00"))
    assert retry_at == START.replace(minute=0) + timedelta(minutes=61)  # the losses' minute leaves every window
    _unchanged(player, before)
    _refused(_spin_at(c, clock, retry_at - SEC, LOSS, TEN), HOURLY_LOSS_EXCEEDED.code)
    assert _spin_at(c, clock, retry_at, LOSS, TEN).status_code == 201


def test_the_hourly_loss_cap_lets_exactly_the_room_left_through(clock, settings):
    settings.GP = {**settings.GP, "MAX_HOURLY_LOSS": 300}
    player = funded_player(100_000)
    c = client_for(player)
    assert _spin_at(c, clock, START + 3 * SEC, LOSS, {"bets": [{"type": "red", "amount": 210}]}).status_code == 201
    details = _refused(
        _spin_at(c, clock, START + 6 * SEC, LOSS, {"bets": [{"type": "red", "amount": 100}]}), HOURLY_LOSS_EXCEEDED.code
    )
    assert (details["used"]["amount"], details["max_stake_now"]["amount"]) == (210, 90)
    assert _spin_at(c, clock, START + 9 * SEC, LOSS, {"bets": [{"type": "red", "amount": 90}]}).status_code == 201


def test_the_monthly_stake_limit_refuses_one_step_over_until_the_prague_month_ends(clock):
    player = _player_with("monthly_stake", 300)  # 3.00 CZK a calendar month
    c = client_for(player)
    for i in range(3):  # 1.00 + 1.00 + 1.00 on 31 March: exactly the limit
        assert _spin_at(c, clock, PRAGUE_APRIL - (30 - 3 * i) * SEC, WIN).status_code == 201
    before = (balance(player), Round.objects.filter(player=player).count())
    details = _refused(_spin_at(c, clock, PRAGUE_APRIL - SEC, WIN, TEN), MONTHLY_STAKE_EXCEEDED.code)
    assert (details["value"]["amount"], details["used"]["amount"]) == (300, 300)
    assert details["resets_at"].startswith("2026-03-31T22:00:00")  # midnight in Prague
    _unchanged(player, before)
    assert _spin_at(c, clock, PRAGUE_APRIL, WIN).status_code == 201  # April: a new month's limit


def test_the_monthly_loss_limit_counts_decided_bets_and_resets_with_the_prague_month(clock):
    player = _player_with("monthly_loss", 200)  # 2.00 CZK net loss a calendar month
    c = client_for(player)
    at = PRAGUE_APRIL - 30 * SEC
    assert _spin_at(c, clock, at, WIN).status_code == 201  # +1.00
    for i in range(1, 4):  # three lost 1.00 stakes: net loss 2.00 = the limit
        assert _spin_at(c, clock, at + 3 * i * SEC, LOSS).status_code == 201
    details = _refused(_spin_at(c, clock, PRAGUE_APRIL - SEC, LOSS, TEN), MONTHLY_LOSS_EXCEEDED.code)
    assert (details["value"]["amount"], details["used"]["amount"]) == (200, 200)
    assert _spin_at(c, clock, PRAGUE_APRIL, LOSS, TEN).status_code == 201


def _login(api: Any, player: Any) -> Any:
    """A login through the API, as a device does: a tracked session and its token."""
    from tests.kit.accounts import DEFAULT_PASSWORD

    r = api.post(
        "/api/v1/accounts/auth/login", {"username": player.user.username, "password": DEFAULT_PASSWORD}, format="json"
    )
    assert r.status_code == 200, r.content
    from rest_framework.test import APIClient

    device = APIClient(raise_request_exception=False)
    device.credentials(HTTP_AUTHORIZATION=f"Token {r.json()['token']}")
    return device


def _limit(device: Any, limit_type: str, value: int) -> None:
    r = device.put(f"/api/v1/limits/self-limits/technical/{limit_type}", {"value": value}, format="json")
    assert r.status_code == 200 and r.json()["value"] == value, r.content


@pytest.fixture
def long_sessions(settings: Any) -> None:
    """Sessions that stay open across the jumps of the clock (the idle timeout is not the subject here)."""
    settings.ACCOUNTS_SESSION_IDLE_MINUTES = 48 * 60
    settings.ACCOUNTS_SESSION_MAX_HOURS = 48.0


def test_the_monthly_login_limit_refuses_play_in_a_session_beyond_it_until_the_month_ends(clock, long_sessions):
    from rest_framework.test import APIClient

    player = funded_player(100_000)
    anonymous = APIClient(raise_request_exception=False)
    clock.move_to(PRAGUE_APRIL - timedelta(hours=1))
    devices = [_login(anonymous, player) for _ in range(3)]  # three logins in March
    _limit(devices[2], "monthly_logins", 3)  # the third login is within a limit of 3
    assert _spin_at(devices[2], clock, PRAGUE_APRIL - timedelta(minutes=30), WIN).status_code == 201
    _limit(devices[2], "monthly_logins", 2)  # stricter: at once; this session is the third
    details = _refused(_spin_at(devices[2], clock, PRAGUE_APRIL - SEC, WIN), MONTHLY_LOGINS_EXCEEDED.code)
    assert (details["value"], details["used"]) == (2, 3) and details["resets_at"].startswith("2026-03-31T22:00:00")
    assert _spin_at(devices[2], clock, PRAGUE_APRIL, WIN).status_code == 201  # April: none of them counts


def test_the_daily_time_limit_allows_play_to_the_last_second_and_refuses_from_the_limit(clock, long_sessions):
    """Two players logged in at the same instant with the same 60 minutes a day (GP §7(9) keeps one player's starts
    2 s apart, so the two sides of the boundary are two players): 59:59 after the login is allowed, 60:00 refused
    until midnight in Prague."""
    from rest_framework.test import APIClient

    clock.move_to(START)
    one, other = (_login(APIClient(raise_request_exception=False), funded_player(100_000)) for _ in range(2))
    for device in (one, other):
        _limit(device, "daily_time", 60)  # 60 minutes logged in a Prague day
    assert _spin_at(one, clock, START + timedelta(minutes=59, seconds=59), WIN).status_code == 201
    details = _refused(_spin_at(other, clock, START + timedelta(minutes=60), WIN), DAILY_TIME_EXCEEDED.code)
    assert (details["value_minutes"], details["used_seconds"]) == (60, 3600)
    midnight = datetime(2026, 3, 2, 23, 0, 0, tzinfo=UTC)  # 3 March 00:00 in Prague (CET)
    assert details["resets_at"].startswith("2026-03-02T23:00:00")
    _refused(_spin_at(other, clock, midnight - SEC, WIN), DAILY_TIME_EXCEEDED.code)
    assert _spin_at(other, clock, midnight, WIN).status_code == 201


def test_a_pause_after_logging_out_on_one_device_stops_play_on_another_until_it_ends(clock, long_sessions):
    from rest_framework.test import APIClient

    player = funded_player(100_000)
    anonymous = APIClient(raise_request_exception=False)
    clock.move_to(START)
    phone, tablet = _login(anonymous, player), _login(anonymous, player)
    _limit(tablet, "pause_after_logout", 60)
    assert phone.post("/api/v1/accounts/auth/logout").status_code == 204  # logged out at START
    details = _refused(_spin_at(tablet, clock, START + timedelta(minutes=59, seconds=59), WIN), PAUSE_AFTER_LOGOUT.code)
    assert details["ends_at"].startswith("2026-03-02T10:00:00")
    assert _spin_at(tablet, clock, START + timedelta(minutes=60), WIN).status_code == 201
