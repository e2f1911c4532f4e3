"""Every refusal path of stake_gate_and_place: the stable error code, one StakeRefusal row, and nothing else changed."""

from __future__ import annotations

from datetime import timedelta

import pytest

from accounts.services import session_end
from core.audit import Actor
from limits import errors
from limits.models import MinuteBucket, OpenBet, PeriodTotal, PlayerKindState, SettledBet
from limits.services import panic_press, self_listing_request
from tests.kit.accounts import login_session_for
from tests.kit.limits import play_round, refusal_log_db, refusal_rows, set_limits, stake
from tests.kit.money import prague
from tests.kit.refusals import refusal_of

T = prague(2025, 5, 15, 12)
MIN = timedelta(minutes=1)


def snapshot(player):
    return (
        list(PeriodTotal.objects.filter(player=player).order_by("pk").values()),
        list(MinuteBucket.objects.filter(player=player).order_by("pk").values()),
        list(OpenBet.objects.filter(player=player).order_by("pk").values()),
        list(PlayerKindState.objects.filter(player=player).order_by("pk").values()),
        list(SettledBet.objects.filter(player=player).order_by("pk").values()),
    )


def _break(p):
    for k in range(12):  # rounds every 10 minutes from T - 120 min to T - 10 min
        play_round(p, "1", "0", T - 120 * MIN + 10 * k * MIN)
    return dict(amount="1", at=T + MIN)


def _open_round(p):
    stake(p, "1", T - MIN)
    return dict(amount="1", at=T)


def _limit(**values):
    def setup(p):
        set_limits(p, T - timedelta(days=1), **values)
        play_round(p, "100", "0", T - 5 * MIN)
        return dict(amount="1", at=T)

    return setup


def _hourly(p, settings=None):
    play_round(p, "1000", "0", T - 10 * MIN)
    return dict(amount="1", at=T)


def _panic(p):
    panic_press(player=p, actor=Actor.player(p), now=T - MIN)
    return dict(amount="1", at=T)


def _self_listed(p):
    self_listing_request(player=p, actor=Actor.player(p), now=T - MIN)
    return dict(amount="1", at=T)


def _pause(p):
    set_limits(p, T - timedelta(days=1), pause_after_logout=30)
    s, _ = login_session_for(p, at=T - 60 * MIN)
    session_end(session=s, reason="logout", at=T - 10 * MIN)
    return dict(amount="1", at=T)


def _daily_time(p):
    set_limits(p, T - timedelta(days=1), daily_time=30)
    login_session_for(p, at=T - 31 * MIN)
    return dict(amount="1", at=T)


def _logins(p):
    set_limits(p, T - timedelta(days=1), monthly_logins=1)
    login_session_for(p, at=T - 60 * MIN)
    login_session_for(p, at=T - 30 * MIN)  # a login beyond the limit (e.g. allowed for another kind)
    return dict(amount="1", at=T)


CASES = [
    ("grid", lambda p: dict(amount="0.05", at=T), errors.STAKE_BELOW_MINIMUM),
    ("steps", lambda p: dict(amount="0.15", at=T), errors.STAKE_NOT_IN_STEPS),
    ("max", lambda p: dict(amount="1000.10", at=T), errors.STAKE_ABOVE_MAXIMUM),
    ("open_round", _open_round, errors.ROUND_IN_PROGRESS),
    ("break", _break, errors.BREAK_REQUIRED),
    ("daily_stake", _limit(daily_stake=10_000), errors.DAILY_STAKE_EXCEEDED),
    ("monthly_stake", _limit(monthly_stake=10_000), errors.MONTHLY_STAKE_EXCEEDED),
    ("daily_loss", _limit(daily_loss=10_000), errors.DAILY_LOSS_EXCEEDED),
    ("monthly_loss", _limit(monthly_loss=10_000), errors.MONTHLY_LOSS_EXCEEDED),
    ("hourly", _hourly, errors.HOURLY_LOSS_EXCEEDED),
    ("panic", _panic, errors.PANIC_EXCLUSION),
    ("self_listed", _self_listed, errors.SELF_LISTED),
    ("pause", _pause, errors.PAUSE_AFTER_LOGOUT),
    ("daily_time", _daily_time, errors.DAILY_TIME_EXCEEDED),
    ("logins", _logins, errors.MONTHLY_LOGINS_EXCEEDED),
]


@refusal_log_db
@pytest.mark.parametrize("name,setup,expected", CASES, ids=[c[0] for c in CASES])
def test_a_refused_stake_changes_nothing_and_is_recorded(player, settings, name, setup, expected):
    settings.GP = {**settings.GP, "MAX_HOURLY_LOSS": 100_000}  # 1,000 Kč for the hourly case
    call = setup(player)
    before = snapshot(player)
    refusals_before = refusal_rows().filter(player_id=player.pk).count()
    err = refusal_of(stake, player, call["amount"], call["at"])
    assert err.code == expected.code
    assert err.details.get("limit") or name in ("grid", "steps", "max")
    assert snapshot(player) == before
    rows = refusal_rows().filter(player_id=player.pk).order_by("-id")
    assert rows.count() == refusals_before + 1 and rows[0].code == expected.code
