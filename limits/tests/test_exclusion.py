"""The panic button (48 hours, again and again), the self-listing request (>= 1 year) and the scheduled checks of
the register of excluded persons (logged-in players every <= 15 minutes, active players daily)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine

from accounts.models import LoginSession, Player, RegisterCheck, SandboxExclusionEntry
from core.audit import Actor
from core.models import AuditEvent
from limits import errors
from limits.models import ExclusionSweep, ExclusionWatch, OpenBet, PanicExclusion, SelfListingRequest
from limits.services import (
    exclusion_sweep,
    login_check,
    panic_press,
    self_listing_request,
    self_listing_send,
    self_listing_send_due,
)
from tests.kit.accounts import login_session_for, make_excluded, make_player
from tests.kit.limits import stake
from tests.kit.money import czk, prague
from tests.kit.refusals import refusal_of

T = prague(2025, 5, 15, 10)
MIN = timedelta(minutes=1)
SEC = timedelta(seconds=1)
H48 = timedelta(hours=48)


def press(player, at):
    with time_machine.travel(at, tick=False):
        return panic_press(player=player, actor=Actor.player(player), now=at)


@pytest.mark.parametrize("after,allowed", [(H48 - SEC, False), (H48, True)])
def test_the_panic_button_refuses_stakes_for_48_hours_and_a_login_serves_the_account_only(player, after, allowed):
    session, _ = login_session_for(player, at=T - MIN)
    press(player, T)
    session.refresh_from_db()
    assert session.ended_at == T  # logged out at once
    if allowed:
        login_check(player=player, now=T + after)
        assert stake(player, "1", T + after).stake == czk(1)
    else:
        err = refusal_of(stake, player, "1", T + after)
        assert err.code == errors.PANIC_EXCLUSION.code and err.details["ends_at"] == T + H48
        # a login is allowed, for the account only (balance, withdrawals): it returns the exclusion's end
        assert login_check(player=player, now=T + after) == T + H48
        assert not OpenBet.objects.filter(player=player).exists()


def test_the_panic_button_can_be_pressed_again_and_again(player):
    press(player, T)
    press(player, T + timedelta(hours=47))
    assert refusal_of(stake, player, "1", T + H48 + MIN).details["ends_at"] == T + timedelta(hours=47) + H48
    assert stake(player, "1", T + timedelta(hours=95)).stake == czk(1)
    assert PanicExclusion.objects.filter(player=player).count() == 2
    assert AuditEvent.objects.filter(action="limits.panic_button", details__player_id=player.pk).count() == 2


def test_the_panic_button_works_during_an_open_round(player):
    stake(player, "1", T)
    press(player, T + SEC)  # the round in progress is settled by the game; no new stake
    assert refusal_of(stake, player, "1", T + 2 * SEC).code == errors.PANIC_EXCLUSION.code


def test_a_self_listing_request_refuses_at_once_and_is_passed_to_the_register(player):
    with time_machine.travel(T, tick=False):
        req = self_listing_request(player=player, actor=Actor.player(player), years=1, now=T)
    assert req.listed_until == prague(2026, 5, 15, 10) and req.status == "pending"
    assert refusal_of(stake, player, "1", T + SEC).code == errors.SELF_LISTED.code
    assert refusal_of(login_check, player=player, now=T + SEC).code == errors.SELF_LISTED.code
    with time_machine.travel(T + SEC, tick=False):
        sent = self_listing_send(request_id=req.pk, now=T + SEC)
    assert sent is not None and sent.status == "sent" and sent.attempts == 1
    entry = SandboxExclusionEntry.objects.get(birth_number=player.personal.birth_number)
    assert (entry.source, entry.listed_until) == ("self_request", req.listed_until)
    assert self_listing_send(request_id=req.pk, now=T + MIN) is None  # sent once only


def test_a_self_listing_shorter_than_a_year_is_refused(player):
    err = refusal_of(self_listing_request, player=player, actor=Actor.player(player), years=0, now=T)
    assert err.code == errors.SELF_LISTING_TOO_SHORT.code
    assert not SelfListingRequest.objects.filter(player=player).exists()


def test_a_self_listing_the_register_cannot_take_is_retried_later(player):
    make_excluded(player, outcome="unavailable")
    req = self_listing_request(player=player, actor=Actor.player(player), now=T)
    failed = self_listing_send(request_id=req.pk, now=T)
    assert failed is not None and failed.next_attempt_at is not None
    assert failed.status == "pending" and failed.attempts == 1 and "RegisterUnavailable" in failed.last_error
    assert failed.next_attempt_at > T
    assert self_listing_send_due(now=T + SEC) == 0  # not due yet
    SandboxExclusionEntry.objects.filter(birth_number=player.personal.birth_number).delete()
    assert self_listing_send_due(now=failed.next_attempt_at) == 1
    assert SelfListingRequest.objects.get(pk=req.pk).status == "sent"


def test_the_session_sweep_checks_logged_in_players_and_logs_out_a_listed_one(player, other_player):
    mine, _ = login_session_for(player, at=T - MIN)
    login_session_for(other_player, at=T - MIN)
    make_player(status="active")  # not logged in: not in this sweep
    make_excluded(player)
    with time_machine.travel(T, tick=False):
        sweep = exclusion_sweep(context="session", now=T)
    assert (sweep.checked, sweep.listed, sweep.failed) == (2, 1, 0)
    mine.refresh_from_db()
    assert mine.ended_at is not None and mine.end_reason == LoginSession.EndReason.FORCED
    assert ExclusionWatch.objects.get(player=player).last_listed is True
    assert ExclusionWatch.objects.get(player=other_player).last_listed is False
    assert RegisterCheck.objects.filter(player=player, context="periodic_session", result="listed").exists()
    err = refusal_of(stake, Player.objects.get(pk=player.pk), "1", T + SEC)
    assert err.code.startswith("accounts.")  # accounts' betting_refusal: excluded person


def test_a_logged_in_player_is_rechecked_at_most_15_minutes_apart(player):
    login_session_for(player, at=T - MIN)
    with time_machine.travel(T, tick=False):
        assert exclusion_sweep(context="session", now=T).checked == 1
    # the beat runs every 5 minutes: 5 -> not due, 10 -> due (never more than 15 apart)
    with time_machine.travel(T + 5 * MIN, tick=False):
        assert exclusion_sweep(context="session", now=T + 5 * MIN).checked == 0
    with time_machine.travel(T + 10 * MIN, tick=False):
        assert exclusion_sweep(context="session", now=T + 10 * MIN).checked == 1
    assert RegisterCheck.objects.filter(player=player, context="periodic_session").count() == 2


def test_the_daily_sweep_checks_every_active_player_once_a_day(player):
    closed = make_player(status="closed")
    temporary = make_player(status="temporary")
    with time_machine.travel(T, tick=False):
        sweep = exclusion_sweep(context="daily", now=T)
    checked = set(ExclusionWatch.objects.filter(last_checked_at=T).values_list("player_id", flat=True))
    assert {player.pk, temporary.pk} <= checked and closed.pk not in checked
    assert sweep.checked == len(checked)
    with time_machine.travel(T + timedelta(hours=22), tick=False):
        again = exclusion_sweep(context="daily", now=T + timedelta(hours=22))
    assert not ExclusionWatch.objects.filter(
        player_id__in=[player.pk, temporary.pk], last_checked_at=T + timedelta(hours=22)
    ).exists()
    assert again.checked <= sweep.checked


def test_an_unavailable_register_is_recorded_and_retried(player):
    login_session_for(player, at=T - MIN)
    make_excluded(player, outcome="unavailable")
    with time_machine.travel(T, tick=False):
        sweep = exclusion_sweep(context="session", now=T)
    assert (sweep.checked, sweep.failed) == (0, 1) and "RegisterUnavailable" in sweep.note
    watch = ExclusionWatch.objects.get(player=player)
    assert (watch.failures, watch.last_checked_at, watch.claimed_until) == (1, None, None)
    assert RegisterCheck.objects.filter(player=player, result="unavailable").exists()
    SandboxExclusionEntry.objects.filter(birth_number=player.personal.birth_number).delete()
    with time_machine.travel(T + 5 * MIN, tick=False):
        assert exclusion_sweep(context="session", now=T + 5 * MIN).checked == 1
    assert ExclusionSweep.objects.count() >= 2
