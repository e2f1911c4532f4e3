"""GP §6(6)e-g: logins per calendar month, daily logged-in time then automatic logout, pause after logout;
enforced at login (login_check, called by accounts) and at every stake."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine

from accounts.models import LoginSession
from accounts.services import session_end
from limits import errors
from limits.services import daily_time_logout_sweep, login_check
from tests.kit.accounts import login_session_for
from tests.kit.limits import set_limits, stake
from tests.kit.money import czk, prague
from tests.kit.refusals import refusal_of

T = prague(2025, 5, 15, 10)
MIN = timedelta(minutes=1)
SEC = timedelta(seconds=1)


def session(player, start, end=None):
    s, _ = login_session_for(player, at=start)
    if end is not None:
        session_end(session=s, reason="logout", at=end)
    return s


def test_the_monthly_login_limit_refuses_the_next_login_until_the_prague_month_ends(player):
    set_limits(player, prague(2025, 4, 1), monthly_logins=3)
    session(player, prague(2025, 4, 30, 23, 59, 59), prague(2025, 5, 1, 0, 30))  # started in April: not counted
    session(player, prague(2025, 5, 1), prague(2025, 5, 1, 1))
    session(player, prague(2025, 5, 2), prague(2025, 5, 2, 1))
    login_check(player=player, now=T)  # the third login of May is allowed
    session(player, T, T + MIN)
    err = refusal_of(login_check, player=player, now=T + 2 * MIN)
    assert err.code == errors.MONTHLY_LOGINS_EXCEEDED.code
    assert (err.details["value"], err.details["used"], err.details["resets_at"]) == (3, 3, prague(2025, 6, 1))
    login_check(player=player, now=prague(2025, 6, 1))


@pytest.mark.parametrize("after,allowed", [(59 * MIN + 59 * SEC, False), (60 * MIN, True)])
def test_the_pause_after_logout_refuses_login_and_play_until_it_ends(player, after, allowed):
    set_limits(player, T - timedelta(days=1), pause_after_logout=60)
    session(player, T - timedelta(hours=1), T)
    other_device = session(player, T - timedelta(hours=1))  # still logged in elsewhere
    assert other_device.ended_at is None
    if allowed:
        login_check(player=player, now=T + after)
        assert stake(player, "1", T + after).stake == czk(1)
    else:
        err = refusal_of(login_check, player=player, now=T + after)
        assert err.code == errors.PAUSE_AFTER_LOGOUT.code and err.details["ends_at"] == T + 60 * MIN
        assert refusal_of(stake, player, "1", T + after).code == errors.PAUSE_AFTER_LOGOUT.code


def test_the_daily_logged_in_time_counts_every_session_of_the_prague_day_once(player):
    set_limits(player, T - timedelta(days=1), daily_time=60)
    day = prague(2025, 5, 15)
    session(player, day - timedelta(minutes=30), day + 10 * MIN)  # 10 minutes fall on this day
    session(player, T, T + 30 * MIN)  # 30 minutes
    session(player, T + 10 * MIN, T + 20 * MIN)  # a second device inside the first: counted once
    session(player, T + 40 * MIN)  # open: 20 minutes left from T + 40
    assert stake(player, "1", T + 59 * MIN + 59 * SEC).stake == czk(1)
    from limits.services import stake_settled
    from tests.kit.limits import caller_lock

    with caller_lock(player):
        stake_settled(
            player=player,
            kind="technical",
            stake=czk(1),
            win=czk(0),
            started_at=T + 59 * MIN + 59 * SEC,
            settled_at=T + 60 * MIN - SEC // 2,
        )
    err = refusal_of(stake, player, "1", T + 60 * MIN)
    assert err.code == errors.DAILY_TIME_EXCEEDED.code
    assert (err.details["value_minutes"], err.details["used_seconds"]) == (60, 3600)
    assert err.details["resets_at"] == prague(2025, 5, 16)
    assert refusal_of(login_check, player=player, now=T + 61 * MIN).code == errors.DAILY_TIME_EXCEEDED.code
    login_check(player=player, now=prague(2025, 5, 16))


def test_players_over_their_daily_time_are_logged_out_automatically(player, other_player):
    set_limits(player, T - timedelta(days=1), daily_time=30)
    set_limits(other_player, T - timedelta(days=1), daily_time=30)
    mine = session(player, T)
    theirs = session(other_player, T + 5 * MIN)
    with time_machine.travel(T + 30 * MIN, tick=False):
        assert daily_time_logout_sweep() == 1
        assert daily_time_logout_sweep() == 0  # safe to run twice
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert mine.ended_at == T + 30 * MIN and mine.end_reason == LoginSession.EndReason.FORCED
    assert "daily_time_limit" in mine.end_detail
    assert theirs.ended_at is None


def test_login_through_accounts_is_refused_by_the_login_check(player):
    from accounts.services import session_start

    set_limits(player, T - timedelta(days=1), monthly_logins=1)
    with time_machine.travel(T, tick=False):
        session_start(player=player)
    with time_machine.travel(T + MIN, tick=False):
        err = refusal_of(session_start, player=player)
    assert err.code == errors.MONTHLY_LOGINS_EXCEEDED.code
    assert LoginSession.objects.filter(player=player).count() == 1
