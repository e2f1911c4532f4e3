"""The one round path: the same GP §6-§8 boundaries, the login's end and the deadline, run through both adapters (an
engine round through the player's round API, a studio round through the studio's signed seamless-wallet calls on a
game session launched from the player's login). If the studio's and the engine's start sequences ever differ again,
one side of a parametrised case fails. After every test the ledger, the limits' counters and the jackpots reconcile.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from accounts.errors import EXCLUDED_PERSON
from core.audit import Actor
from core.rng import SeededRNG, use_rng
from games.errors import ROUND_IN_PROGRESS, ROUND_TOO_SOON
from games.models import Round
from games.services import rounds_expire_due
from games.services.qa import find_seed
from games.tests.platform.testgames import FixedRNG
from limits.errors import (
    BREAK_REQUIRED,
    DAILY_LOSS_EXCEEDED,
    DAILY_STAKE_EXCEEDED,
    DAILY_TIME_EXCEEDED,
    HOURLY_LOSS_EXCEEDED,
    MONTHLY_LOGINS_EXCEEDED,
    MONTHLY_LOSS_EXCEEDED,
    MONTHLY_STAKE_EXCEEDED,
    PANIC_EXCLUSION,
    PAUSE_AFTER_LOGOUT,
    SELF_LISTED,
    STAKE_ABOVE_MAXIMUM,
)
from limits.selectors import active_session_player_ids
from limits.services import self_limit_set
from providers.errors import LOGIN_ENDED
from tests.kit.accounts import login_session_for
from tests.kit.games import api_bet
from tests.kit.platform import START, balance, funded_player, key
from tests.kit.providers import CODE, SECRET, SignedClient, make_game, make_provider

pytestmark = pytest.mark.django_db

SIDES = ("engine", "studio", "studio_play")  # the studio plays bet + win, or a one-shot round in one call
SEC = timedelta(seconds=1)
WIN, LOSS = FixedRNG(1), FixedRNG(0)  # red wins on pocket 1 of European roulette, loses on 0
_ids = itertools.count(1)


@pytest.fixture(autouse=True)
def reconciled():
    """Every test ends with the ledger, the limits' counters and the jackpots reconciled."""
    yield
    for command in ("ledger_check", "limits_reconcile", "jackpot_check"):
        call_command(command)


@pytest.fixture
def studio(db):
    make_provider()
    make_game()
    return SignedClient(APIClient(raise_request_exception=False), CODE, SECRET)


class Device:
    """A player's device logged in (a login session and its token), playing on one side: the engine's round API, or the
    studio's
    game launched from this login (each studio round a bet and a closing win of the same amount)."""

    def __init__(self, side: str, player: Any, studio: SignedClient) -> None:
        self.side, self.player, self.studio = side, player, studio
        self.api = APIClient(raise_request_exception=False)
        self.api.credentials(HTTP_AUTHORIZATION=f"Token {login_session_for(player)[1]}")
        self.session = ""
        if side.startswith("studio"):
            launch = self.api.post(
                f"/api/v1/providers/{CODE}/launch", {"game": f"{CODE}_wild", "lang": "cs"}, format="json"
            )
            assert launch.status_code == 201, launch.content
            answer = studio.call("session", {"launch_token": launch.json()["launch_token"]})
            assert answer.status_code == 200, answer.content
            self.session = answer.json()["session"]

    def play(self, amount: int = 100, *, closed: bool = True, lost: bool = False) -> tuple[bool, str, Any]:
        """One round of ``amount`` haléře, won back twice over (the studio pays the stake back) or ``lost``: (taken,
        the refusal's code or "", the answer's JSON)."""
        if self.side == "engine":
            with use_rng(LOSS if lost else WIN):
                r = self.api.post(
                    "/api/v1/games/rounds",
                    {"game": "european_roulette", "bet": api_bet({"bets": [{"type": "red", "amount": amount}]})},
                    format="json",
                    HTTP_IDEMPOTENCY_KEY=key(),
                )
            body = r.json()
            return r.status_code == 201, "" if r.status_code == 201 else body["error"]["code"], body
        n = next(_ids)
        if self.side == "studio_play" and closed:
            win = (
                [] if lost else [("win", {"transaction_id": f"w{n}", "amount": {"amount": amount, "currency": "CZK"}})]
            )
            r = self.studio.call(
                "play",
                {
                    "session": self.session,
                    "transaction_id": f"b{n}",
                    "round_id": f"r{n}",
                    "amount": {"amount": amount, "currency": "CZK"},
                    **dict(win),
                    "round_detail": {"outcome": {"round": n}},
                },
            )
            body = r.json()
            return r.status_code == 200, "" if r.status_code == 200 else body["error"]["code"], body
        r = self.studio.call(
            "bet",
            {
                "session": self.session,
                "transaction_id": f"b{n}",
                "round_id": f"r{n}",
                "amount": {"amount": amount, "currency": "CZK"},
                "round_closed": False,
            },
        )
        body = r.json()
        if r.status_code != 200:
            return False, body["error"]["code"], body
        if closed:
            w = self.studio.call(
                "win",
                {
                    "session": self.session,
                    "transaction_id": f"w{n}",
                    "round_id": f"r{n}",
                    "bet_transaction_id": f"b{n}",
                    "amount": {"amount": 0 if lost else amount, "currency": "CZK"},
                    "round_closed": True,
                    "round_detail": {"outcome": {"round": n}},
                },
            )
            assert w.status_code == 200, w.content
        return True, "", body

    def at(self, clock: Any, when: Any, amount: int = 100, *, lost: bool = False) -> tuple[bool, str, Any]:
        clock.move_to(when)
        return self.play(amount, lost=lost)


def _limit(player: Any, limit_type: str, value: int) -> None:
    self_limit_set(player=player, kind="technical", limit_type=limit_type, value=value, actor=Actor.player(player))


def _keep_playing(
    devices: Device | list[Device], clock: Any, until: Any, every: timedelta = timedelta(minutes=10)
) -> None:
    """Rounds of each device (3 s apart) every ``every`` from now until ``until`` (each one activity on its login),
    with the idle sweeper run as its beat runs it (a login nobody uses ends after its idle time)."""
    from accounts.services import sessions_timeout_due

    devices = devices if isinstance(devices, list) else [devices]
    t = clock_now(clock) + every
    while t < until:
        for i, device in enumerate(devices):
            taken, code, _ = device.at(clock, t + 3 * i * SEC)
            assert taken, code
        clock.move_to(t + every - SEC)
        sessions_timeout_due()
        t += every


def clock_now(clock: Any) -> Any:
    from core import clock as platform_clock

    return platform_clock.now()


@pytest.fixture
def at_start(clock):
    clock.move_to(START)
    return clock


@pytest.mark.parametrize("side", SIDES)
def test_the_daily_stake_limit_takes_the_stake_that_reaches_it_and_refuses_one_step_more(side, studio, at_start):
    player = funded_player(100_000)
    _limit(player, "daily_stake", 300)
    device = Device(side, player, studio)
    for i in range(3):
        assert device.at(at_start, START + (3 + 3 * i) * SEC)[0]
    before = balance(player)
    taken, code, _ = device.at(at_start, START + 12 * SEC, 10)
    assert (taken, code) == (False, DAILY_STAKE_EXCEEDED.code)
    assert balance(player) == before


@pytest.mark.parametrize("side", SIDES)
def test_the_daily_time_limit_holds_play_to_59_59_after_login_and_refuses_from_60_00(side, studio, at_start):
    """GP §6(6)f on play of one side only (a studio-only player's calls keep the login alive and its time counts):
    two players logged in at the same instant, so that GP §7(9) does not stand between the two boundary seconds."""
    one, other = funded_player(100_000), funded_player(100_000)
    devices = []
    for player in (one, other):
        _limit(player, "daily_time", 60)
        devices.append(Device(side, player, studio))
    _keep_playing(devices, at_start, START + timedelta(minutes=55))
    assert devices[0].at(at_start, START + timedelta(minutes=59, seconds=59))[0]
    taken, code, _ = devices[1].at(at_start, START + timedelta(minutes=60))
    assert (taken, code) == (False, DAILY_TIME_EXCEEDED.code)


@pytest.mark.parametrize(
    "side,code",
    [("engine", "auth.session_expired"), ("studio", "providers.login_ended"), ("studio_play", "providers.login_ended")],
)
def test_the_idle_timeout_ends_the_login_and_the_studios_game_session_with_it(side, code, studio, at_start, settings):
    settings.ACCOUNTS_SESSION_IDLE_MINUTES = 30
    player = funded_player(100_000)
    device = Device(side, player, studio)
    _keep_playing(device, at_start, START + timedelta(minutes=45))  # 45 minutes of play: the login stays
    assert player.pk in active_session_player_ids()  # and the register re-check keeps checking the player
    last = clock_now(at_start)
    taken, refusal, _ = device.at(at_start, last + timedelta(minutes=30))
    assert (taken, refusal) == (False, code)
    assert player.pk not in active_session_player_ids()


@pytest.mark.parametrize(
    "side,code",
    [("engine", "auth.token_invalid"), ("studio", "providers.login_ended"), ("studio_play", "providers.login_ended")],
)
def test_a_logout_ends_the_studios_game_session_at_once(side, code, studio, at_start):
    player = funded_player(100_000)
    device = Device(side, player, studio)
    assert device.at(at_start, START + 3 * SEC)[0]
    assert device.api.post("/api/v1/accounts/auth/logout").status_code == 204
    taken, refusal, _ = device.at(at_start, START + 6 * SEC)
    assert (taken, refusal) == (False, code)


@pytest.mark.parametrize("side", SIDES)
def test_the_panic_button_stops_play_at_once(side, studio, at_start):
    player = funded_player(100_000)
    device = Device(side, player, studio)
    assert device.at(at_start, START + 3 * SEC)[0]
    assert device.api.post("/api/v1/limits/panic").status_code in (200, 201)
    taken, refusal, _ = device.at(at_start, START + 6 * SEC)
    assert not taken and refusal in ("auth.token_invalid", LOGIN_ENDED.code, PANIC_EXCLUSION.code)


@pytest.mark.parametrize("side", SIDES)
def test_after_120_minutes_of_play_the_15_minute_break_is_required(side, studio, at_start, settings):
    settings.ACCOUNTS_SESSION_MAX_HOURS = 48.0
    player = funded_player(1_000_000)
    device = Device(side, player, studio)
    assert device.at(at_start, START)[0]
    _keep_playing(device, at_start, START + timedelta(minutes=120))
    taken, code, _ = device.at(at_start, START + timedelta(minutes=120))
    assert (taken, code) == (False, BREAK_REQUIRED.code)


@pytest.mark.parametrize("side", SIDES)
def test_two_starts_keep_2_seconds_apart(side, studio, at_start):
    player = funded_player(100_000)
    device = Device(side, player, studio)
    assert device.at(at_start, START + 3 * SEC)[0]
    taken, code, _ = device.at(at_start, START + 3 * SEC + timedelta(milliseconds=1990))
    assert (taken, code) == (False, ROUND_TOO_SOON.code)
    assert device.at(at_start, START + 5 * SEC)[0]


@pytest.mark.parametrize("side", SIDES)
def test_a_stake_above_the_plans_maximum_is_refused(side, studio, at_start):
    player = funded_player(1_000_000)
    device = Device(side, player, studio)
    taken, code, _ = device.at(at_start, START + 3 * SEC, 100_010)
    assert not taken and code in (STAKE_ABOVE_MAXIMUM.code, "game.roulette.bet_above_max")


@pytest.mark.parametrize("side", SIDES)
def test_one_open_round_across_both_sides(side, studio, at_start):
    """GP §7(6): a studio round left open refuses a start on either side."""
    player = funded_player(100_000)
    engine, other = Device("studio", player, studio), Device(side, player, studio)
    assert engine.at(at_start, START + 3 * SEC)[0]
    at_start.move_to(START + 6 * SEC)
    assert engine.play(closed=False)[0]
    taken, code, _ = other.at(at_start, START + 9 * SEC)
    assert (taken, code) == (False, ROUND_IN_PROGRESS.code)


# --- the deadline, whoever notices first -----------------------------------------------------------------------
def _studio_round_with_a_credited_win(player: Any, studio: SignedClient, clock: Any) -> Round:
    device = Device("studio", player, studio)
    clock.move_to(START + 3 * SEC)
    assert device.play(1_000, closed=False)[0]  # 10.00 CZK
    n = next(_ids)
    rnd = Round.objects.get(player=player, status=Round.Status.IN_PROGRESS)
    w = studio.call(
        "win",
        {
            "session": device.session,
            "transaction_id": f"w{n}",
            "round_id": rnd.provider_round_id,
            "bet_transaction_id": rnd.bet_request["transaction_id"],
            "amount": {"amount": 1_500, "currency": "CZK"},
            "round_closed": False,
        },
    )
    assert w.status_code == 200, w.content
    return rnd


@pytest.mark.parametrize("noticed_by", ("sweeper", "next_start"))
def test_a_studio_round_with_a_credited_win_is_settled_at_its_deadline_never_refunded_on_top(
    noticed_by, studio, at_start, settings
):
    settings.ACCOUNTS_SESSION_MAX_HOURS = 48.0 * 100
    settings.ACCOUNTS_SESSION_IDLE_MINUTES = 200 * 24 * 60
    player = funded_player(100_000)
    rnd = _studio_round_with_a_credited_win(player, studio, at_start)
    assert balance(player) == 100_000 - 1_000 + 1_500
    at_start.move_to(rnd.deadline)
    if noticed_by == "sweeper":
        rounds_expire_due()
    else:  # the player's next engine round notices first
        assert Device("engine", player, studio).play()[0]
    rnd.refresh_from_db()
    assert (rnd.status, rnd.win, rnd.void_reason) == ("finished", 1_500, "")
    expected = 100_000 - 1_000 + 1_500 + (100 if noticed_by == "next_start" else 0)  # + the next round's win
    assert balance(player) == expected  # 10.00 CZK are never paid twice
    # the round counts as play until its last call, not until the deadline: the next round is no break
    assert Device("engine", player, studio).at(at_start, rnd.deadline + 5 * SEC)[0]


FRUIT_KING_BET = {"lines": 10, "bet_per_line": 10}


def _gamble_offered(state: Any) -> bool:
    pending = state.get("pending") or {}
    return pending.get("type") == "gamble" and {"type": "gamble", "colour": "red"} in pending["options"]


@pytest.mark.parametrize("noticed_by", ("sweeper", "next_start"))
def test_an_engine_gamble_offer_at_its_deadline_is_collected_for_the_player(noticed_by, studio, at_start):
    seed = find_seed("fruit_king", FRUIT_KING_BET, _gamble_offered)
    player = funded_player(100_000)
    device = Device("engine", player, studio)
    at_start.move_to(START + 3 * SEC)
    with use_rng(SeededRNG(seed)):
        r = device.api.post(
            "/api/v1/games/rounds",
            {"game": "fruit_king", "bet": api_bet(FRUIT_KING_BET)},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        )
    assert r.status_code == 201 and r.json()["status"] == "in_progress", r.content
    rnd = Round.objects.get(pk=r.json()["id"])
    won = rnd.win_engine
    assert won > 0
    at_start.move_to(rnd.deadline)
    if noticed_by == "sweeper":
        rounds_expire_due()
        after = 0
    else:
        fresh = Device("engine", player, studio)
        assert fresh.play()[0]
        after = 100
    rnd.refresh_from_db()
    assert rnd.status == "finished" and rnd.win == won and rnd.actions[-1] == {"type": "collect"}
    assert balance(player) == 100_000 - 100 + won + after


PRAGUE_APRIL = datetime(2026, 3, 31, 22, 0, 0, tzinfo=UTC)  # 1 April 2026 00:00 in Prague (CEST)


@pytest.mark.parametrize("side", SIDES)
def test_the_daily_loss_limit_counts_decided_bets_and_refuses_at_it(side, studio, at_start):
    player = funded_player(100_000)
    _limit(player, "daily_loss", 200)  # 2.00 CZK net loss a day
    device = Device(side, player, studio)
    for i in range(2):
        assert device.at(at_start, START + (3 + 3 * i) * SEC, lost=True)[0]
    taken, code, _ = device.at(at_start, START + 9 * SEC, 10, lost=True)
    assert (taken, code) == (False, DAILY_LOSS_EXCEEDED.code)


@pytest.mark.parametrize("side", SIDES)
def test_the_monthly_stake_limit_refuses_one_step_over_until_the_prague_month_ends(side, studio, at_start, settings):
    settings.ACCOUNTS_SESSION_IDLE_MINUTES = 48 * 60
    player = funded_player(100_000)
    _limit(player, "monthly_stake", 300)
    at_start.move_to(PRAGUE_APRIL - 60 * SEC)
    device = Device(side, player, studio)
    for i in range(3):
        assert device.at(at_start, PRAGUE_APRIL - (30 - 3 * i) * SEC)[0]
    taken, code, _ = device.at(at_start, PRAGUE_APRIL - SEC, 10)
    assert (taken, code) == (False, MONTHLY_STAKE_EXCEEDED.code)
    assert device.at(at_start, PRAGUE_APRIL)[0]  # April: a new month


@pytest.mark.parametrize("side", SIDES)
def test_the_monthly_loss_limit_refuses_at_it_until_the_prague_month_ends(side, studio, at_start, settings):
    settings.ACCOUNTS_SESSION_IDLE_MINUTES = 48 * 60
    player = funded_player(100_000)
    _limit(player, "monthly_loss", 200)
    at_start.move_to(PRAGUE_APRIL - 60 * SEC)
    device = Device(side, player, studio)
    for i in range(2):
        assert device.at(at_start, PRAGUE_APRIL - (30 - 3 * i) * SEC, lost=True)[0]
    taken, code, _ = device.at(at_start, PRAGUE_APRIL - SEC, 10, lost=True)
    assert (taken, code) == (False, MONTHLY_LOSS_EXCEEDED.code)
    assert device.at(at_start, PRAGUE_APRIL, 10, lost=True)[0]


@pytest.mark.parametrize("side", SIDES)
def test_a_pause_after_logout_on_one_device_stops_play_on_another_until_it_ends(side, studio, at_start, settings):
    settings.ACCOUNTS_SESSION_IDLE_MINUTES = 48 * 60
    player = funded_player(100_000)
    _limit(player, "pause_after_logout", 60)
    phone, other = Device("engine", player, studio), Device(side, player, studio)
    assert phone.api.post("/api/v1/accounts/auth/logout").status_code == 204  # logged out at START
    taken, code, _ = other.at(at_start, START + timedelta(minutes=59, seconds=59))
    assert (taken, code) == (False, PAUSE_AFTER_LOGOUT.code)
    assert other.at(at_start, START + timedelta(minutes=60))[0]


@pytest.mark.parametrize("side", SIDES)
def test_the_monthly_login_limit_refuses_play_in_a_login_beyond_it(side, studio, at_start, settings):
    settings.ACCOUNTS_SESSION_IDLE_MINUTES = 48 * 60
    player = funded_player(100_000)
    _limit(player, "monthly_logins", 1)
    first = Device(side, player, studio)
    assert first.at(at_start, START + 3 * SEC)[0]
    second = Device(side, player, studio)  # the second login of the month
    taken, code, _ = second.at(at_start, START + 6 * SEC)
    assert (taken, code) == (False, MONTHLY_LOGINS_EXCEEDED.code)


@pytest.mark.parametrize("side", SIDES)
def test_after_the_15_minute_break_play_goes_on(side, studio, at_start, settings):
    settings.ACCOUNTS_SESSION_MAX_HOURS = 48.0
    settings.ACCOUNTS_SESSION_IDLE_MINUTES = 48 * 60
    player = funded_player(1_000_000)
    device = Device(side, player, studio)
    assert device.at(at_start, START)[0]
    _keep_playing(device, at_start, START + timedelta(minutes=120))
    last = clock_now(at_start)
    last_round = START + timedelta(minutes=110)
    taken, code, _ = device.at(at_start, last_round + timedelta(minutes=15) - SEC)
    assert (taken, code) == (False, BREAK_REQUIRED.code)
    assert device.at(at_start, max(last, last_round + timedelta(minutes=15)))[0]


@pytest.mark.parametrize("side", SIDES)
def test_a_stake_off_the_plans_grid_or_below_its_minimum_is_refused(side, studio, at_start):
    player = funded_player(100_000)
    device = Device(side, player, studio)
    for i, amount in enumerate((15, 5)):
        taken, code, _ = device.at(at_start, START + (3 + 3 * i) * SEC, amount)
        assert not taken and code.startswith(("limits.stake_", "game.")), code
    assert device.at(at_start, START + 9 * SEC, 10)[0]


@pytest.mark.parametrize("side", SIDES)
def test_the_hourly_loss_cap_refuses_one_step_beyond_it(side, studio, at_start, settings):
    settings.GP = {**settings.GP, "MAX_HOURLY_LOSS": 300}
    player = funded_player(100_000)
    device = Device(side, player, studio)
    for i in range(3):
        assert device.at(at_start, START + (3 + 3 * i) * SEC, lost=True)[0]
    taken, code, _ = device.at(at_start, START + 12 * SEC, 10, lost=True)
    assert (taken, code) == (False, HOURLY_LOSS_EXCEEDED.code)


@pytest.mark.parametrize("side", SIDES)
def test_a_player_found_in_the_register_of_excluded_persons_is_refused(side, studio, at_start):
    from accounts.models import Player

    player = funded_player(100_000)
    device = Device(side, player, studio)
    assert device.at(at_start, START + 3 * SEC)[0]
    Player.objects.filter(pk=player.pk).update(exclusion_listed=True)
    taken, code, _ = device.at(at_start, START + 6 * SEC)
    assert not taken and code in (EXCLUDED_PERSON.code, "limits.excluded_person"), code


@pytest.mark.parametrize("side", SIDES)
def test_a_self_listing_request_refuses_play_at_once(side, studio, at_start):
    from limits.services import self_listing_request

    player = funded_player(100_000)
    device = Device(side, player, studio)
    assert device.at(at_start, START + 3 * SEC)[0]
    self_listing_request(player=player, actor=Actor.player(player))
    taken, code, _ = device.at(at_start, START + 6 * SEC)
    assert not taken and code in (SELF_LISTED.code, "auth.token_invalid", LOGIN_ENDED.code), code


@pytest.mark.parametrize("side", SIDES)
def test_a_recorded_debt_refuses_stakes_until_paid(side, studio, at_start):
    """GP §7(7): a negative balance only as a recorded debt, and no stake while it stands."""
    from core.money import Money
    from wallet.services import win_deduct

    player = funded_player(100)
    device = Device(side, player, studio)
    win_deduct(
        player=player,
        amount=Money(200),
        reference="test-debt",
        reason="test: a win declared void",
        notice_text="test",
        actor=Actor.system("tests"),
    )
    taken, code, _ = device.at(at_start, START + 3 * SEC)
    assert not taken and code.startswith("wallet."), code
    assert balance(player) == -100


def test_a_carry_over_games_round_at_its_deadline_is_finished_by_its_automatic_play_never_rewound(studio, at_start):
    """Game-integrity review M-4/M-5: an Ismael Beiro round left waiting (here at a ladder's offer) is settled at
    its deadline exactly as AUTO-PLAY would finish it, draws recorded (it replays), never voided with its carried
    state rewound."""
    from core.rng import SeededRNG
    from games.engine import RecordingRNG, registry

    g = registry.get_game("ismael_beiro")
    seed = next(
        s
        for s in range(20_000)
        if g.start(g.validate_bet({"stake": 100}), RecordingRNG(SeededRNG(s)))["status"] == "awaiting_action"
    )
    player = funded_player(100_000)
    device = Device("engine", player, studio)
    at_start.move_to(START + 3 * SEC)
    with use_rng(SeededRNG(seed)):
        r = device.api.post(
            "/api/v1/games/rounds",
            {"game": "ismael_beiro", "bet": api_bet({"stake": 100})},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        )
    assert r.status_code == 201 and r.json()["status"] == "in_progress", r.content
    rnd = Round.objects.get(pk=r.json()["id"])
    at_start.move_to(rnd.deadline)
    rounds_expire_due()
    rnd.refresh_from_db()
    assert rnd.status == "finished" and rnd.void_reason == ""
    assert balance(player) == 100_000 - 100 + rnd.win
    checked = Device("engine", player, studio).api.get(f"/api/v1/games/rounds/{rnd.pk}/verify")
    assert checked.json().get("outcome") == "match", checked.content
