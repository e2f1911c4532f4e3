"""GP §8(5), ZHH §53: net loss (stakes placed - wins credited) over any rolling 60 minutes may not exceed the
max hourly loss; a stake that could break it (if lost entirely) is refused, naming the limit, what is used and
the largest stake allowed now."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.money import Money
from limits import errors
from limits.selectors import hourly_loss
from tests.kit.limits import play_round, settle, stake
from tests.kit.money import czk, prague
from tests.kit.refusals import refusal_of

T = prague(2025, 5, 5, 12)  # 12:00:00 Prague, on a minute boundary
MIN = timedelta(minutes=1)
SEC = timedelta(seconds=1)


@pytest.fixture(autouse=True)
def cap_100_czk(settings):
    settings.GP = {**settings.GP, "MAX_HOURLY_LOSS": 10_000}


def test_losing_the_cap_within_the_hour_refuses_the_next_stake_with_the_details(player):
    play_round(player, "100", "0", T)
    err = refusal_of(stake, player, "0.10", T + 10 * MIN)
    assert err.code == errors.HOURLY_LOSS_EXCEEDED.code
    d = err.details
    assert (d["limit"], d["value"], d["used"], d["max_stake_now"]) == ("hourly_loss", czk(100), czk(100), Money(0))
    assert d["window_minutes"] == 60
    assert d["retry_at"] == T + 61 * MIN


def test_a_stake_that_could_break_the_cap_is_refused_and_a_smaller_one_allowed(player):
    play_round(player, "60", "0", T)
    err = refusal_of(stake, player, "40.10", T + MIN)
    assert err.details["max_stake_now"] == czk(40)
    assert stake(player, "40", T + MIN).stake == czk(40)


def test_the_window_rolls_minute_by_minute(player):
    play_round(player, "50", "0", T)  # 12:00
    play_round(player, "50", "0", T + 30 * MIN)  # 12:30
    err = refusal_of(stake, player, "0.10", T + 59 * MIN + 59 * SEC)
    assert err.details["retry_at"] == T + 61 * MIN
    # 13:00:30: a window starting at 12:00:30 may still hold part of minute 12:00, so it is counted
    assert refusal_of(stake, player, "0.10", T + 60 * MIN + 30 * SEC).code == errors.HOURLY_LOSS_EXCEEDED.code
    err = refusal_of(stake, player, "50.10", T + 61 * MIN)  # minute 12:00 has left every window
    assert err.details["used"] == czk(50)
    assert stake(player, "50", T + 61 * MIN).stake == czk(50)


def test_a_win_lowers_the_loss_of_the_windows_that_contain_it(player):
    play_round(player, "80", "0", T)
    play_round(player, "10", "60", T + 10 * MIN, seconds=2)  # net loss of the hour: 80 + 10 - 60 = 30
    assert hourly_loss(player, "technical", T + 20 * MIN).used == 3_000
    assert refusal_of(stake, player, "70.10", T + 20 * MIN).details["used"] == czk(30)
    assert stake(player, "70", T + 20 * MIN).stake == czk(70)


def test_stake_and_equal_win_in_one_minute_leave_no_loss(player):
    play_round(player, "100", "100", T)
    assert hourly_loss(player, "technical", T + 10 * SEC).used == 0
    assert stake(player, "100", T + 10 * SEC).stake == czk(100)
    settle(player, "100", "0", T + 10 * SEC, T + 12 * SEC)
    assert hourly_loss(player, "technical", T + 20 * SEC).used == 10_000
    assert refusal_of(stake, player, "0.10", T + 20 * SEC).code == errors.HOURLY_LOSS_EXCEEDED.code


def test_a_win_before_the_losses_does_not_hide_them_from_a_later_window(player):
    """Any rolling 60 minutes: 200 won at 12:00, then 60 lost at 12:10 -> the hour from 12:01 has lost 60,
    although the hour from 12:00 is 140 up."""
    play_round(player, "10", "210", T)  # net -200
    play_round(player, "60", "0", T + 10 * MIN)
    err = refusal_of(stake, player, "40.10", T + 20 * MIN)
    assert err.details["used"] == czk(60)
    assert stake(player, "40", T + 20 * MIN).stake == czk(40)


def test_the_hourly_cap_applies_only_to_technical_games(player):
    play_round(player, "100", "0", T)
    assert stake(player, "500", T + MIN, kind="odds", game_max=None).stake == czk(500)


def test_the_default_cap_is_the_documented_setting(player, settings):
    from config import settings as project_settings

    settings.GP = {**settings.GP, "MAX_HOURLY_LOSS": project_settings.GP["MAX_HOURLY_LOSS"]}
    assert hourly_loss(player, "technical", T).cap == 5_000_000
