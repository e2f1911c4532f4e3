"""GP §7(4)-(5): 120 minutes of play, then at least 15 minutes without play; a voluntary pause of 15 minutes or
more restarts the 120. Play = from a stake to the end of its round, gaps shorter than 15 minutes included."""

from __future__ import annotations

from datetime import timedelta

import pytest

from limits import errors
from limits.selectors import play_status
from tests.kit.limits import play_round, stake
from tests.kit.money import czk, prague
from tests.kit.refusals import refusal_of

T0 = prague(2025, 5, 5, 18)
MIN = timedelta(minutes=1)
SEC = timedelta(seconds=1)


def play_110_minutes(player):
    """Rounds of 2 s every 10 minutes from T0 to T0 + 110 min: the gaps (< 15 min) count as play."""
    for k in range(12):
        play_round(player, "1", "0", T0 + 10 * k * MIN)
    return T0 + 110 * MIN + 2 * SEC  # end of the last round


def test_a_stake_at_119_59_of_play_is_allowed(player):
    play_110_minutes(player)
    assert stake(player, "1", T0 + 119 * MIN + 59 * SEC).play_seconds_left == 1


def test_a_stake_at_120_00_of_play_is_refused_naming_the_break_end(player):
    last_end = play_110_minutes(player)
    err = refusal_of(stake, player, "1", T0 + 120 * MIN)
    assert err.code == errors.BREAK_REQUIRED.code
    assert err.details["value_minutes"] == 120
    assert err.details["used_seconds"] == 120 * 60
    assert err.details["break_ends_at"] == last_end + 15 * MIN
    assert err.details["play_started_at"] == T0


def test_a_round_started_before_120_minutes_finishes_and_then_the_break_is_due(player):
    play_110_minutes(player)
    play_round(player, "1", "0", T0 + 119 * MIN + 59 * SEC, seconds=3)
    err = refusal_of(stake, player, "1", T0 + 120 * MIN + 5 * SEC)
    assert err.code == errors.BREAK_REQUIRED.code
    assert err.details["break_ends_at"] == T0 + 120 * MIN + 2 * SEC + 15 * MIN


@pytest.mark.parametrize("pause,allowed", [(14 * MIN + 59 * SEC, False), (15 * MIN, True)])
def test_the_break_ends_after_15_minutes_without_play(player, pause, allowed):
    last_end = play_110_minutes(player)
    refusal_of(stake, player, "1", T0 + 120 * MIN)
    at = last_end + pause
    if allowed:
        assert stake(player, "1", at).play_seconds_left == 120 * 60  # a new period: the full 120 minutes
    else:
        assert refusal_of(stake, player, "1", at).code == errors.BREAK_REQUIRED.code


@pytest.mark.parametrize("pause,new_period", [(14 * MIN + 59 * SEC, False), (15 * MIN, True)])
def test_a_voluntary_pause_of_15_minutes_restarts_the_120_and_a_shorter_one_counts_as_play(player, pause, new_period):
    play_round(player, "1", "0", T0)
    end = T0 + 2 * SEC
    allowed = stake(player, "1", end + pause)
    if new_period:
        assert allowed.play_seconds_left == 120 * 60
    else:
        assert allowed.play_seconds_left == 120 * 60 - int((end + pause - T0).total_seconds())


def test_a_long_pause_after_100_minutes_gives_another_full_120(player):
    for k in range(11):
        play_round(player, "1", "0", T0 + 10 * k * MIN)  # until T0 + 100 min
    restart = T0 + 100 * MIN + 2 * SEC + 15 * MIN
    assert stake(player, "1", restart).play_seconds_left == 120 * 60


def test_refused_attempts_during_the_break_are_not_play(player):
    last_end = play_110_minutes(player)
    for s in range(0, 5 * 60, 30):  # every 30 s from 120:00 until just before the break ends (125:02)
        refusal_of(stake, player, "1", T0 + 120 * MIN + s * SEC)
    assert stake(player, "1", last_end + 15 * MIN).stake == czk(1)


def test_play_status_shows_play_left_and_then_the_break_end(player):
    assert play_status(player, T0)["play_seconds_left"] == 120 * 60
    last_end = play_110_minutes(player)
    st = play_status(player, T0 + 115 * MIN)
    assert st["play_seconds_used"] == 115 * 60
    assert st["play_seconds_left"] == 5 * 60
    assert st["break_required"] is False
    assert st["pause_resets_at"] == last_end + 15 * MIN
    st = play_status(player, T0 + 121 * MIN)
    assert st["break_required"] is True and st["play_seconds_left"] == 0
    assert st["break_ends_at"] == last_end + 15 * MIN
    st = play_status(player, last_end + 15 * MIN)
    assert st["break_required"] is False and st["play_seconds_left"] == 120 * 60 and st["play_seconds_used"] == 0


def test_play_status_during_an_open_round_counts_the_round_as_play(player):
    stake(player, "1", T0)
    st = play_status(player, T0 + 30 * MIN)
    assert st["round_open"] is True and st["play_seconds_used"] == 30 * 60 and st["break_ends_at"] is None
