"""Self-limits (GP §6): set, decline, tighten at once, loosen after 7 days; the ZHH §14a floor at closing."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime, timedelta

from django.db import transaction

from accounts.models import Player
from accounts.selectors import person_key
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from limits import errors
from limits.kinds import kind_rules
from limits.models import ClosingSnapshot, SelfLimit, SelfLimitChange
from limits.rules import LOOSENING_DELAY_DAYS, REREGISTRATION_DAYS, display_value, is_stricter_or_equal, validate_limit
from limits.selectors import closed_accounts_of_person

logger = logging.getLogger("platform.limits")

Action = SelfLimitChange.Action


def _history(
    *,
    row: SelfLimit,
    action: str,
    old: int | None,
    new: int | None,
    at: datetime,
    effective_from: datetime,
    actor: Actor,
    note: str = "",
) -> SelfLimitChange:
    return SelfLimitChange.objects.create(
        player_id=row.player_id,
        kind=row.kind,
        limit_type=row.limit_type,
        action=action,
        old_value=old,
        new_value=new,
        requested_at=at,
        effective_from=effective_from,
        actor_type=actor.type,
        actor_id=actor.id,
        actor_label=actor.label[:150],
        note=note[:200],
    )


def _materialise_due(row: SelfLimit, at: datetime, actor: Actor) -> bool:
    """Write a due pending loosening into ``value`` (with its history line). The row must be locked."""
    if row.has_pending and row.pending_effective_at is not None and at >= row.pending_effective_at:
        old = row.value
        row.value = row.pending_value
        effective = row.pending_effective_at
        row.has_pending = False
        row.pending_value = row.pending_requested_at = row.pending_effective_at = None
        row.updated_at = at
        row.save()
        _history(
            row=row,
            action=Action.LOOSENING_APPLIED,
            old=old,
            new=row.value,
            at=at,
            effective_from=effective,
            actor=actor,
        )
        audit_record(
            actor=actor,
            action="limits.self_limit_loosening_applied",
            obj=row,
            old={"value": old},
            new={"value": row.value},
            kind=row.kind,
            limit_type=row.limit_type,
        )
        return True
    return False


def _closing_floor(player: Player, kind: str, limit_type: str, at: datetime) -> tuple[int | None, datetime] | None:
    """ZHH §14a: the strictest value of this limit in force when an earlier account of the same person was
    closed within the last 7 days, with that closing instant (None when there is no such closing).

    Earlier accounts are found by the person key (accounts.selectors.person_key): the snapshots taken by
    :func:`limits_account_closed`, and closed accounts found through accounts' personal data, whose limit
    rows give the value in force at ``closed_at``."""
    since = at - timedelta(days=REREGISTRATION_DAYS)
    found: list[tuple[int | None, datetime]] = []
    key = person_key(player)
    for snap in ClosingSnapshot.objects.filter(person_key=key, closed_at__gte=since, closed_at__lte=at).exclude(
        player=player
    ):
        if kind in snap.limits:
            found.append((snap.limits[kind].get(limit_type), snap.closed_at))
    for other_id, closed_at in closed_accounts_of_person(player, key, since, at):
        row = SelfLimit.objects.filter(
            player_id=other_id, kind=kind, limit_type=limit_type, decided_at__isnull=False
        ).first()
        if row is not None:
            found.append((row.effective_value(closed_at), closed_at))
    best: tuple[int | None, datetime] | None = None
    for value, closed_at in found:
        if best is None or is_stricter_or_equal(limit_type, value, best[0]):
            best = (value, closed_at)
    return best


def _check_closing_floor(player: Player, kind: str, limit_type: str, value: int | None, at: datetime) -> None:
    floor = _closing_floor(player, kind, limit_type, at)
    if floor is not None and not is_stricter_or_equal(limit_type, value, floor[0]):
        raise errors.MILDER_THAN_AT_CLOSING(
            limit=limit_type,
            kind=kind,
            value=display_value(limit_type, value),
            value_at_closing=display_value(limit_type, floor[0]),
            closed_at=floor[1],
        )


def _clear_pending(row: SelfLimit) -> None:
    row.has_pending = False
    row.pending_value = row.pending_requested_at = row.pending_effective_at = None


def self_limit_set(
    *, player: Player, kind: str, limit_type: str, value: int | Money | None, actor: Actor, now: datetime | None = None
) -> SelfLimit:
    """Set, decline, tighten, loosen or remove one self-limit (GP §6). ``value`` None = no limit.

    * First decision (registration, GP §4(4)e, §6(2)): in force at once, set or declined.
    * ZHH §14a: within 7 days of closing an earlier account of the same person, neither a first decision
      nor a loosening may be milder than the limit in force at that closing.
    * Tightening (or keeping the value): in force at once (GP §6(5)) and cancels a pending loosening.
    * Loosening or removal: pending, in force 7 x 24 h after the request (GP §6(4)); a newer loosening
      replaces a pending one and takes its own date.
    """
    now = now or clock.now()
    kind_rules(kind)
    new = validate_limit(limit_type, value)
    with transaction.atomic():
        SelfLimit.objects.bulk_create(
            [SelfLimit(player=player, kind=kind, limit_type=limit_type, updated_at=now)], ignore_conflicts=True
        )
        # FOR NO KEY UPDATE: the row's values change, never its key
        row = SelfLimit.objects.select_for_update(no_key=True).get(player=player, kind=kind, limit_type=limit_type)
        _materialise_due(row, now, Actor.system("limits.loosening_due"))
        current = row.value
        if row.decided_at is None or not is_stricter_or_equal(limit_type, new, current):
            _check_closing_floor(player, kind, limit_type, new, now)
        if row.decided_at is None:
            row.value = new
            row.decided_at = now
            row.updated_at = now
            row.save()
            _history(
                row=row,
                action=Action.DECLINED if new is None else Action.SET,
                old=None,
                new=new,
                at=now,
                effective_from=now,
                actor=actor,
            )
            action = "limits.self_limit_declined" if new is None else "limits.self_limit_set"
        elif is_stricter_or_equal(limit_type, new, current):
            if row.has_pending:
                _history(
                    row=row,
                    action=Action.LOOSENING_CANCELLED,
                    old=row.pending_value,
                    new=current,
                    at=now,
                    effective_from=now,
                    actor=actor,
                    note="replaced by a newer tightening or keeping",
                )
                _clear_pending(row)
            elif new == current:
                return row  # nothing to change
            if new != current:
                _history(
                    row=row, action=Action.TIGHTENED, old=current, new=new, at=now, effective_from=now, actor=actor
                )
            row.value = new
            row.updated_at = now
            row.save()
            action = "limits.self_limit_tightened"
        else:
            if row.has_pending and row.pending_value == new:
                return row  # the same loosening is already pending
            effective = clock.add_days(now, LOOSENING_DELAY_DAYS)
            if row.has_pending:
                _history(
                    row=row,
                    action=Action.LOOSENING_CANCELLED,
                    old=row.pending_value,
                    new=current,
                    at=now,
                    effective_from=now,
                    actor=actor,
                    note="replaced by a newer loosening",
                )
            row.has_pending = True
            row.pending_value = new
            row.pending_requested_at = now
            row.pending_effective_at = effective
            row.updated_at = now
            row.save()
            _history(
                row=row,
                action=Action.LOOSENING_REQUESTED,
                old=current,
                new=new,
                at=now,
                effective_from=effective,
                actor=actor,
            )
            action = "limits.self_limit_loosening_requested"
        audit_record(
            actor=actor,
            action=action,
            obj=row,
            old={"value": current},
            new={"value": new, "pending_effective_at": row.pending_effective_at},
            kind=kind,
            limit_type=limit_type,
        )
        return row


def self_limits_decide(
    *, player: Player, kind: str, decisions: Mapping[str, int | Money | None], actor: Actor, now: datetime | None = None
) -> list[SelfLimit]:
    """Several limits at once (the registration step): ``{limit_type: value or None (declined)}``; all or none."""
    now = now or clock.now()
    with transaction.atomic():
        return [
            self_limit_set(player=player, kind=kind, limit_type=lt, value=v, actor=actor, now=now)
            for lt, v in decisions.items()
        ]


def pending_limits_apply(
    *, now: datetime | None = None, batch: int = 200, ids: list[int] | None = None, actor: Actor | None = None
) -> int:
    """Sweeper: write due loosenings into ``value`` (readers already treat them as in force at their instant).
    Claims rows with SKIP LOCKED, each in its own transaction; safe to run twice or on two workers."""
    now = now or clock.now()
    done = 0
    actor = actor or Actor.system("limits.pending_limits_apply")
    while True:
        with transaction.atomic():
            qs = SelfLimit.objects.select_for_update(skip_locked=True, no_key=True).filter(
                has_pending=True, pending_effective_at__lte=now
            )
            if ids is not None:
                qs = qs.filter(pk__in=ids)
            row = qs.order_by("pending_effective_at", "pk").first()
            if row is None:
                return done
            _materialise_due(row, now, actor)
            done += 1
        if done >= batch:
            return done


def limits_account_closed(*, player: Player, actor: Actor, closed_at: datetime | None = None) -> ClosingSnapshot:
    """Keep the self-limits in force at closing for ZHH §14a (accounts calls it, through its ``account_closed``
    hook, when an account closes). Keyed by ``accounts.selectors.person_key``. Idempotent (one snapshot per
    player)."""
    closed_at = closed_at or clock.now()
    key = person_key(player)
    with transaction.atomic():
        existing = ClosingSnapshot.objects.filter(player=player).first()
        if existing is not None:
            return existing
        limits: dict[str, dict[str, int | None]] = {}
        for row in SelfLimit.objects.filter(player=player, decided_at__isnull=False):
            limits.setdefault(row.kind, {})[row.limit_type] = row.effective_value(closed_at)
        snap = ClosingSnapshot.objects.create(player=player, person_key=key, closed_at=closed_at, limits=limits)
        audit_record(actor=actor, action="limits.closing_snapshot", obj=snap, new={"limits": limits})
        return snap
