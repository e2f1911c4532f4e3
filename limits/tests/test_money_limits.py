"""GP §6(6)a-d and §6(7): stakes per day/month, net loss per day/month of the bets *decided* in it; days and
months are Europe/Prague (DST days are 23 or 25 hours long)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.money import Money
from limits import errors
from limits.models import PeriodTotal
from tests.kit.limits import play_round, set_limits, settle, stake
from tests.kit.money import czk, prague
from tests.kit.refusals import refusal_of

SEC = timedelta(seconds=1)


def test_the_daily_stake_limit_allows_exactly_the_limit_and_refuses_ten_haler_more(player):
    t = prague(2025, 5, 5, 10)
    set_limits(player, t - timedelta(days=1), daily_stake=10_000)  # 100 Kč
    play_round(player, "60", "0", t)
    play_round(player, "40", "0", t + 10 * SEC)
    err = refusal_of(stake, player, "0.10", t + 20 * SEC)
    assert err.code == errors.DAILY_STAKE_EXCEEDED.code
    d = err.details
    assert (d["limit"], d["value"], d["used"], d["max_stake_now"]) == ("daily_stake", czk(100), czk(100), Money(0))
    assert d["resets_at"] == prague(2025, 5, 6)
    assert PeriodTotal.objects.get(player=player, period="day").stakes_placed == 10_000


def test_a_refused_stake_says_how_much_could_still_be_staked(player):
    t = prague(2025, 5, 5, 10)
    set_limits(player, t - timedelta(days=1), daily_stake=10_005)  # 100.05 Kč
    play_round(player, "99.90", "0", t)  # 0.15 Kč left -> a game can stake 0.10
    err = refusal_of(stake, player, "1", t + 10 * SEC)
    assert err.details["max_stake_now"] == czk("0.10")


def test_a_new_limit_counts_what_was_already_staked_today(player):
    t = prague(2025, 5, 5, 10)
    play_round(player, "80", "0", t)
    set_limits(player, t + SEC, daily_stake=10_000)
    assert refusal_of(stake, player, "30", t + 10 * SEC).code == errors.DAILY_STAKE_EXCEEDED.code
    assert stake(player, "20", t + 20 * SEC).stake == czk(20)


@pytest.mark.parametrize(
    "day,last_second,next_midnight",
    [
        # an ordinary day, the 23-hour spring day and the 25-hour autumn day
        ((2025, 5, 5), prague(2025, 5, 5, 23, 59, 59), prague(2025, 5, 6)),
        ((2025, 3, 30), prague(2025, 3, 30, 23, 59, 59), prague(2025, 3, 31)),
        ((2025, 10, 26), prague(2025, 10, 26, 23, 59, 59), prague(2025, 10, 27)),
    ],
)
def test_the_day_is_the_prague_calendar_day_including_dst_days(player, day, last_second, next_midnight):
    first_second = prague(*day)
    set_limits(player, first_second - timedelta(days=1), daily_stake=10_000)
    play_round(player, "100", "0", first_second, seconds=1)  # at 00:00:00 Prague: counts for this day
    err = refusal_of(stake, player, "0.10", last_second)
    assert err.code == errors.DAILY_STAKE_EXCEEDED.code
    assert err.details["resets_at"] == next_midnight
    assert (next_midnight - first_second) == timedelta(hours={(2025, 3, 30): 23, (2025, 10, 26): 25}.get(day, 24))
    assert stake(player, "100", next_midnight).stake == czk(100)


def test_the_autumn_dst_day_counts_both_two_oclock_hours_as_one_day(player):
    set_limits(player, prague(2025, 10, 25), daily_stake=10_000)
    first_2am = prague(2025, 10, 26, 1, 30) + timedelta(hours=1)  # 02:30 CEST (00:30 UTC)
    second_2am = first_2am + timedelta(hours=1)  # 02:30 CET (01:30 UTC), the same Prague day
    play_round(player, "60", "0", first_2am)
    play_round(player, "40", "0", second_2am)
    assert refusal_of(stake, player, "0.10", second_2am + timedelta(minutes=1)).code == errors.DAILY_STAKE_EXCEEDED.code
    day = PeriodTotal.objects.get(player=player, period="day")
    assert day.start.isoformat() == "2025-10-26" and day.stakes_placed == 10_000


@pytest.mark.parametrize(
    "last_second,first_of_next",
    [
        (prague(2025, 3, 31, 23, 59, 59), prague(2025, 4, 1)),  # the month with the spring DST change
        (prague(2025, 10, 31, 23, 59, 59), prague(2025, 11, 1)),  # the month with the autumn DST change
        (prague(2024, 2, 29, 23, 59, 59), prague(2024, 3, 1)),  # leap February
        (prague(2025, 12, 31, 23, 59, 59), prague(2026, 1, 1)),  # year end
    ],
)
def test_the_monthly_stake_limit_resets_at_the_prague_month_end(player, last_second, first_of_next):
    month_start = prague(last_second.astimezone(last_second.tzinfo).year, 1, 1)  # any earlier instant
    set_limits(player, month_start - timedelta(days=40), monthly_stake=10_000)
    play_round(player, "100", "0", last_second - timedelta(hours=2))
    err = refusal_of(stake, player, "0.10", last_second)
    assert err.code == errors.MONTHLY_STAKE_EXCEEDED.code
    assert err.details["resets_at"] == first_of_next
    assert stake(player, "100", first_of_next).stake == czk(100)


def test_net_loss_counts_bets_by_the_day_they_are_decided(player):
    day1_end = prague(2025, 5, 5, 23, 59, 58)
    midnight = prague(2025, 5, 6)
    set_limits(player, day1_end - timedelta(days=1), daily_loss=10_000)
    stake(player, "100", day1_end)  # placed on day 1 ...
    settle(player, "100", "0", day1_end, midnight + SEC)  # ... decided (lost) on day 2
    d1 = PeriodTotal.objects.get(player=player, period="day", start="2025-05-05")
    d2 = PeriodTotal.objects.get(player=player, period="day", start="2025-05-06")
    assert (d1.stakes_placed, d1.net_loss) == (10_000, 0)
    assert (d2.stakes_placed, d2.net_loss) == (0, 10_000)
    err = refusal_of(stake, player, "0.10", midnight + 5 * SEC)
    assert err.code == errors.DAILY_LOSS_EXCEEDED.code
    assert (err.details["value"], err.details["used"]) == (czk(100), czk(100))


def test_open_bets_are_assumed_lost_for_the_loss_limit(player):
    """Odds betting (a kind that may keep several bets open) shows it: the open bets count as lost."""
    t = prague(2025, 5, 5, 10)
    set_limits(player, t - timedelta(days=1), kind="odds", daily_loss=10_000)
    stake(player, "60", t, kind="odds", game_max=None, round_ref="match-1")
    err = refusal_of(stake, player, "50", t + SEC, kind="odds", game_max=None, round_ref="match-2")
    assert err.code == errors.DAILY_LOSS_EXCEEDED.code
    assert (err.details["used"], err.details["max_stake_now"]) == (czk(60), czk(40))
    assert stake(player, "40", t + 2 * SEC, kind="odds", game_max=None, round_ref="match-2").stake == czk(40)
    settle(player, "60", "120", t, t + timedelta(hours=2), kind="odds", round_ref="match-1")  # won: net -60 + 40 open
    assert stake(player, "100", t + timedelta(hours=3), kind="odds", game_max=None, round_ref="match-3")


def test_wins_lower_the_net_loss_so_more_can_be_staked(player):
    t = prague(2025, 5, 5, 10)
    set_limits(player, t - timedelta(days=1), daily_loss=10_000)
    play_round(player, "50", "80", t)  # net loss -30 Kč
    assert stake(player, "100", t + 10 * SEC).stake == czk(100)  # -30 + 100 = 70 <= 100
    settle(player, "100", "0", t + 10 * SEC, t + 12 * SEC)  # net loss 70
    err = refusal_of(stake, player, "30.10", t + 20 * SEC)
    assert err.code == errors.DAILY_LOSS_EXCEEDED.code
    assert err.details["used"] == czk(70) and err.details["max_stake_now"] == czk(30)


def test_the_monthly_loss_limit_counts_the_whole_prague_month(player):
    set_limits(player, prague(2025, 4, 1), monthly_loss=20_000)
    play_round(player, "100", "0", prague(2025, 5, 1, 0, 0, 5))
    play_round(player, "100", "0", prague(2025, 5, 31, 23, 0))
    err = refusal_of(stake, player, "0.10", prague(2025, 5, 31, 23, 59, 59))
    assert err.code == errors.MONTHLY_LOSS_EXCEEDED.code
    assert err.details["resets_at"] == prague(2025, 6, 1)
    assert stake(player, "100", prague(2025, 6, 1)).stake == czk(100)


def test_limits_of_one_kind_do_not_touch_another_kind(player):
    t = prague(2025, 5, 5, 10)
    set_limits(player, t - timedelta(days=1), kind="odds", daily_stake=100)
    assert stake(player, "500", t).stake == czk(500)
    settle(player, "500", "0", t, t + SEC)
    err = refusal_of(stake, player, "2", t + 10 * SEC, kind="odds", game_max=None)
    assert err.code == errors.DAILY_STAKE_EXCEEDED.code
    assert err.details["kind"] == "odds"
