"""GP §6: seven self-limits per kind, each set or individually declined at registration; tightening at once,
loosening or removal no earlier than the 7th day; a full history; ZHH §14a re-registration floor."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.audit import Actor
from core.models import AuditEvent
from limits import errors
from limits.models import LimitType, SelfLimit, SelfLimitChange
from limits.selectors import self_limits, self_limits_decided, undecided_limits
from limits.services import pending_limits_apply, self_limit_set, self_limits_decide
from tests.kit.limits import play_round, stake
from tests.kit.money import czk, prague
from tests.kit.refusals import refusal_of

T = prague(2025, 5, 5, 12)
SEC = timedelta(seconds=1)
ALL_DECLINED = {lt: None for lt in LimitType.values}


def change(player, limit_type, value, at, kind="technical"):
    return self_limit_set(
        player=player, kind=kind, limit_type=limit_type, value=value, actor=Actor.player(player), now=at
    )


def test_registration_needs_each_of_the_seven_limits_set_or_declined(player):
    assert not self_limits_decided(player)
    decisions = dict(ALL_DECLINED, daily_stake=50_000, daily_time=120)
    del decisions["pause_after_logout"]
    self_limits_decide(player=player, kind="technical", decisions=decisions, actor=Actor.player(player), now=T)
    assert not self_limits_decided(player)
    assert undecided_limits(player) == ["pause_after_logout"]
    change(player, "pause_after_logout", None, T)  # declined individually
    assert self_limits_decided(player)
    assert not self_limits_decided(player, kind="odds")  # each kind on its own
    views = {v.limit_type: v for v in self_limits(player, "technical", T)}
    assert views["daily_stake"].value == 50_000 and not views["daily_stake"].declined
    assert views["monthly_loss"].declined and views["monthly_loss"].decided


def test_an_invalid_value_is_refused_and_nothing_is_stored(player):
    for lt, value in [("daily_stake", -1), ("monthly_logins", 0), ("daily_time", 24 * 60 + 1), ("daily_stake", 1.5)]:
        assert refusal_of(change, player, lt, value, T).code == errors.INVALID_LIMIT_VALUE.code
    assert refusal_of(change, player, "weekly_stake", 100, T).code == errors.UNKNOWN_LIMIT.code
    assert refusal_of(change, player, "daily_stake", 100, T, kind="bingo").code == errors.UNKNOWN_KIND.code
    assert not SelfLimit.objects.filter(player=player, decided_at__isnull=False).exists()


def test_tightening_applies_at_once(player):
    change(player, "daily_stake", 50_000, T)
    change(player, "daily_stake", 10_000, T + SEC)
    play_round(player, "100", "0", T + 2 * SEC)
    assert refusal_of(stake, player, "0.10", T + 3 * SEC).code == errors.DAILY_STAKE_EXCEEDED.code
    row = SelfLimit.objects.get(player=player, limit_type="daily_stake")
    assert row.value == 10_000 and not row.has_pending


def test_a_longer_pause_after_logout_is_a_tightening(player):
    change(player, "pause_after_logout", 60, T)
    change(player, "pause_after_logout", 120, T + SEC)
    assert SelfLimit.objects.get(player=player, limit_type="pause_after_logout").value == 120
    change(player, "pause_after_logout", 30, T + 2 * SEC)
    row = SelfLimit.objects.get(player=player, limit_type="pause_after_logout")
    assert (row.value, row.has_pending, row.pending_value) == (120, True, 30)


@pytest.mark.parametrize("offset,in_force", [(timedelta(days=7) - SEC, False), (timedelta(days=7), True)])
def test_a_loosening_takes_effect_on_the_7th_day_after_the_request(player, offset, in_force):
    change(player, "daily_stake", 10_000, T - timedelta(days=30))
    row = change(player, "daily_stake", 50_000, T)
    assert row.pending_effective_at == T + timedelta(days=7)
    at = T + offset
    play_round(player, "100", "0", at - timedelta(minutes=5))
    if in_force:
        assert stake(player, "0.10", at).stake == czk("0.10")
    else:
        assert refusal_of(stake, player, "0.10", at).code == errors.DAILY_STAKE_EXCEEDED.code


def test_a_pending_loosening_is_shown_with_its_date_and_applied_by_the_sweeper(player):
    change(player, "daily_loss", 10_000, T - timedelta(days=30))
    change(player, "daily_loss", None, T)  # removal = loosening
    view = next(v for v in self_limits(player, "technical", T + SEC) if v.limit_type == "daily_loss")
    assert (view.value, view.pending, view.pending_value, view.pending_effective_at) == (
        10_000,
        True,
        None,
        T + timedelta(days=7),
    )
    assert pending_limits_apply(now=T + timedelta(days=7) - SEC) == 0
    assert pending_limits_apply(now=T + timedelta(days=7)) == 1
    assert pending_limits_apply(now=T + timedelta(days=7)) == 0  # safe to run twice
    row = SelfLimit.objects.get(player=player, limit_type="daily_loss")
    assert (row.value, row.has_pending) == (None, False)
    applied = SelfLimitChange.objects.get(player=player, action="loosening_applied")
    assert (applied.old_value, applied.new_value, applied.effective_from) == (10_000, None, T + timedelta(days=7))


def test_a_newer_tightening_replaces_a_pending_loosening(player):
    change(player, "daily_stake", 10_000, T - timedelta(days=30))
    change(player, "daily_stake", 50_000, T)
    change(player, "daily_stake", 8_000, T + timedelta(days=1))
    row = SelfLimit.objects.get(player=player, limit_type="daily_stake")
    assert (row.value, row.has_pending, row.pending_effective_at) == (8_000, False, None)
    assert row.effective_value(T + timedelta(days=8)) == 8_000
    actions = list(
        SelfLimitChange.objects.filter(player=player).order_by("requested_at", "id").values_list("action", flat=True)
    )
    assert actions == ["set", "loosening_requested", "loosening_cancelled", "tightened"]


def test_keeping_the_current_value_cancels_a_pending_loosening(player):
    change(player, "daily_stake", 10_000, T - timedelta(days=30))
    change(player, "daily_stake", 50_000, T)
    change(player, "daily_stake", 10_000, T + SEC)
    row = SelfLimit.objects.get(player=player, limit_type="daily_stake")
    assert (row.value, row.has_pending) == (10_000, False)


def test_a_newer_loosening_replaces_the_pending_one_and_takes_its_own_date(player):
    change(player, "daily_stake", 10_000, T - timedelta(days=30))
    change(player, "daily_stake", 50_000, T)
    row = change(player, "daily_stake", 30_000, T + timedelta(days=2))
    assert (row.pending_value, row.pending_effective_at) == (30_000, T + timedelta(days=9))
    again = change(player, "daily_stake", 30_000, T + timedelta(days=3))  # the same request again: no new date
    assert again.pending_effective_at == T + timedelta(days=9)


def test_declining_then_setting_a_limit_is_a_tightening_in_force_at_once(player):
    change(player, "monthly_stake", None, T)
    row = change(player, "monthly_stake", 100_000, T + SEC)
    assert (row.value, row.has_pending) == (100_000, False)


def test_every_change_is_in_the_history_with_who_when_old_new_and_effective_from(player):
    staff_actor = Actor("staff", "7", "branch.agent")
    change(player, "daily_time", 120, T)
    self_limit_set(player=player, kind="technical", limit_type="daily_time", value=60, actor=staff_actor, now=T + SEC)
    change(player, "daily_time", 180, T + 2 * SEC)
    rows = list(SelfLimitChange.objects.filter(player=player).order_by("requested_at", "id"))
    assert [(r.action, r.old_value, r.new_value, r.effective_from, r.actor_type) for r in rows] == [
        ("set", None, 120, T, "player"),
        ("tightened", 120, 60, T + SEC, "staff"),
        ("loosening_requested", 60, 180, T + 2 * SEC + timedelta(days=7), "player"),
    ]
    assert rows[1].actor_label == "branch.agent"
    assert (
        AuditEvent.objects.filter(action__startswith="limits.self_limit", object_type="limits.selflimit").count() == 3
    )


def test_zhh_14a_reregistration_within_7_days_cannot_be_milder_than_at_closing(db):
    from accounts.models import Player

    from .personas import closed_with_limits, same_person_new_account

    old = closed_with_limits(closed_at=T, daily_stake=20_000, daily_time=60)
    new = same_person_new_account(old)
    at = T + timedelta(days=7) - SEC
    err = refusal_of(change, new, "daily_stake", 20_010, at)
    assert err.code == errors.MILDER_THAN_AT_CLOSING.code
    assert err.details["value_at_closing"] == czk(200)
    assert refusal_of(change, new, "daily_time", None, at).code == errors.MILDER_THAN_AT_CLOSING.code
    assert change(new, "daily_stake", 20_000, at).value == 20_000  # equal is fine
    assert change(new, "monthly_stake", None, at).value is None  # declined at closing too
    # after the 7 days the floor is gone
    assert change(new, "daily_time", None, T + timedelta(days=7) + SEC).value is None
    assert Player.objects.get(pk=old.pk).status == "closed"


def test_zhh_14a_floor_also_refuses_a_loosening_requested_within_the_7_days(db):
    from .personas import closed_with_limits, same_person_new_account

    old = closed_with_limits(closed_at=T, daily_loss=5_000)
    new = same_person_new_account(old)
    change(new, "daily_loss", 4_000, T + timedelta(days=1))
    assert (
        refusal_of(change, new, "daily_loss", 6_000, T + timedelta(days=2)).code == errors.MILDER_THAN_AT_CLOSING.code
    )
    assert change(new, "daily_loss", 5_000, T + timedelta(days=2)).pending_value == 5_000
