"""Logins: the login check (GP §6(6)e-g, panic button, self-listing) and the automatic logout of GP §6(6)f."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction

from accounts.models import Player
from accounts.services import player_force_logout
from core import clock
from core.audit import Actor
from core.errors import DomainError
from limits import errors
from limits.kinds import offered_kinds
from limits.models import LimitType, SelfLimit
from limits.selectors import (
    active_panic,
    active_self_listing,
    active_session_player_ids,
    effective_limits,
    last_logout,
    logged_in_seconds,
    logins_started,
)
from limits.services.gate import check_exclusions


def _login_blocker(player: Player, kind: str, now: datetime) -> DomainError | None:
    limits = effective_limits(player, kind, now)
    pause = limits.get(LimitType.PAUSE_AFTER_LOGOUT)
    if pause:
        last = last_logout(player, now - timedelta(minutes=pause), now)
        if last is not None and last + timedelta(minutes=pause) > now:
            return errors.PAUSE_AFTER_LOGOUT(
                limit=LimitType.PAUSE_AFTER_LOGOUT.value,
                kind=kind,
                value_minutes=pause,
                logged_out_at=last,
                ends_at=last + timedelta(minutes=pause),
            )
    logins = limits.get(LimitType.MONTHLY_LOGINS)
    if logins is not None:
        start, end = clock.month_bounds(now)
        used = logins_started(player, start, now)
        if used >= logins:
            return errors.MONTHLY_LOGINS_EXCEEDED(
                limit=LimitType.MONTHLY_LOGINS.value, kind=kind, value=logins, used=used, resets_at=end
            )
    minutes = limits.get(LimitType.DAILY_TIME)
    if minutes is not None:
        start, end = clock.day_bounds(now)
        used = logged_in_seconds(player, start, now)
        if used >= minutes * 60:
            return errors.DAILY_TIME_EXCEEDED(
                limit=LimitType.DAILY_TIME.value, kind=kind, value_minutes=minutes, used_seconds=used, resets_at=end
            )
    return None


def login_check(*, player: Player, now: datetime) -> datetime | None:
    """Raise when a login is not allowed now: a self-listing request, or the self-limits (e) logins per month,
    (f) logged-in time today, (g) pause after logout.

    The panic button excludes the person from gambling for 48 hours (2024 amendment), not from their account: a
    login while it runs is allowed and this returns the exclusion's end, for a session that serves the account only
    (the balance, withdrawals): every stake is refused by the stake gate and every deposit by ``deposit_refusal``
    (``limits.panic_exclusion``). Otherwise it returns None.

    The account is shared by all kinds (GP §5(3)) while the limits are per kind: a login is refused when
    every kind the operator offers is blocked (today: technical games only); stake_gate_and_place enforces each
    kind's own limits during play. The register of excluded persons is checked by accounts at login.
    accounts calls this through its ``login_check`` hook (registered in ``limits/apps.py``)."""
    panic = active_panic(player, now)
    if panic is None:
        check_exclusions(player, now)
    else:
        listing = active_self_listing(player, now)
        if listing is not None:
            raise errors.SELF_LISTED(
                limit="self_listing", requested_at=listing.requested_at, listed_until=listing.listed_until
            )
    blockers = [_login_blocker(player, kind, now) for kind in offered_kinds()]
    first = blockers[0] if blockers else None
    if first is not None and all(b is not None for b in blockers):
        raise first
    return panic.ends_at if panic is not None else None


def deposit_refusal(player: Player) -> DomainError | None:
    """While the panic button's 48 hours run, no deposit (the money would only wait for play the person chose to
    stop): ``limits.panic_exclusion`` with its end. Withdrawals stay allowed. accounts asks through its
    ``deposit_refusal`` hook (``accounts.selectors.money_movement_refusal``)."""
    panic = active_panic(player, clock.now())
    if panic is None:
        return None
    return errors.PANIC_EXCLUSION(limit="panic_button", started_at=panic.started_at, ends_at=panic.ends_at)


def daily_time_logout_sweep(*, now: datetime | None = None) -> int:
    """GP §6(6)f "then automatic logout": log out every logged-in player whose daily logged-in time limit is
    used up in every offered kind. Returns how many were logged out. Safe to run twice."""
    now = now or clock.now()
    player_ids = active_session_player_ids()
    if not player_ids:
        return 0
    candidates = set(
        SelfLimit.objects.filter(player_id__in=player_ids, limit_type=LimitType.DAILY_TIME, kind__in=offered_kinds())
        .exclude(value__isnull=True, has_pending=False)
        .values_list("player_id", flat=True)
    )
    done = 0
    start, _ = clock.day_bounds(now)
    for player in Player.objects.filter(pk__in=candidates):
        used = logged_in_seconds(player, start, now)
        blocked = []
        for kind in offered_kinds():
            minutes = effective_limits(player, kind, now).get(LimitType.DAILY_TIME)
            blocked.append(minutes is not None and used >= minutes * 60)
        if blocked and all(blocked):
            with transaction.atomic():
                player_force_logout(
                    player=player, reason="daily_time_limit", actor=Actor.system("limits.daily_time_logout")
                )
                done += 1
    return done
