"""Reads of the core records: the audit trail's search and what its retention lets a job touch."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet

from core import clock
from core.models import AuditEvent

#: how ``audit_record`` names a player's row (``<app_label>.<model_name>``); events about a player's other records
#: carry ``player_id`` in their details
PLAYER_OBJECT_TYPE = "accounts.player"
#: the events the AML Act's period covers (253/2008 Sb. §16(1): 10 years)
AML_PREFIX = "aml."


def audit_events(
    *,
    player_id: int | None = None,
    actor: str = "",
    role: str = "",
    action: str = "",
    object_type: str = "",
    object_id: str = "",
    since: datetime | None = None,
    until: datetime | None = None,
) -> QuerySet[AuditEvent]:
    """Audit events matching every filter given, newest first: ``player_id`` (the player's row or any event naming
    the player in its details), ``actor`` (the staff member's username, a player's or system label: exact, case
    insensitive), ``role`` (the role a staff member acted in), ``action`` (a prefix: "wallet." or a whole action),
    ``object_type``/``object_id`` (exact), ``since`` <= occurred_at < ``until``."""
    qs = AuditEvent.objects.all()
    if player_id is not None:
        qs = qs.filter(Q(object_type=PLAYER_OBJECT_TYPE, object_id=str(player_id)) | Q(details__player_id=player_id))
    if actor:
        qs = qs.filter(actor_label__iexact=actor)
    if role:
        qs = qs.filter(actor_role__icontains=role)
    if action:
        qs = qs.filter(action__startswith=action)
    if object_type:
        qs = qs.filter(object_type=object_type)
    if object_id:
        qs = qs.filter(object_id=object_id)
    if since is not None:
        qs = qs.filter(occurred_at__gte=since)
    if until is not None:
        qs = qs.filter(occurred_at__lt=until)
    return qs.order_by("-occurred_at", "-id")


@dataclass(frozen=True)
class Change:
    field: str
    old: str
    new: str


def _shown(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict) and set(value) == {"amount", "currency", "formatted"}:  # core.money's JSON shape
        return str(value["formatted"]).replace("\xa0", " ")
    if isinstance(value, list) and all(isinstance(v, str | int) for v in value):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def readable_changes(old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[Change]:
    """An event's values as staff read them: one line per field, old -> new ("–" where a side has none), in the
    order the fields first appear; a field whose value did not change is left out."""
    old, new = old or {}, new or {}
    fields = list(dict.fromkeys([*old, *new]))
    return [
        Change(f, _shown(old.get(f)), _shown(new.get(f)))
        for f in fields
        if f not in old or f not in new or old[f] != new[f]
    ]


def readable_details(details: dict[str, Any] | None, *, skip: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """An event's details as (name, text) pairs: amounts formatted, lists joined, nested records as JSON."""
    return [(k, _shown(v)) for k, v in (details or {}).items() if k not in skip]


def changes_text(old: dict[str, Any] | None, new: dict[str, Any] | None) -> str:
    """The same on one line ("status: active -> suspended; reason: – -> fraud")."""
    return "; ".join(f"{c.field}: {c.old} -> {c.new}" for c in readable_changes(old, new))


# Retention --------------------------------------------------------------------------------------------------


def _years_before(now: datetime, years: int) -> datetime:
    local = clock.local(now)
    try:
        earlier = local.replace(year=local.year - years)
    except ValueError:  # 29 February -> 28 February
        earlier = local.replace(year=local.year - years, day=28)
    return earlier


def audit_retention_cutoffs(now: datetime | None = None) -> dict[str, datetime]:
    """The instant before which an event is past its retention: "aml" for the AML events (``AML_PREFIX``,
    ``AUDIT_RETENTION_AML_YEARS``), "other" for the rest (``AUDIT_RETENTION_YEARS``). Counted in whole years in the
    Prague calendar from the event."""
    now = now or clock.now()
    return {
        "aml": _years_before(now, settings.AUDIT_RETENTION_AML_YEARS),
        "other": _years_before(now, settings.AUDIT_RETENTION_YEARS),
    }


def audit_events_past_retention(now: datetime | None = None) -> QuerySet[AuditEvent]:
    """The events a retention job may touch now: an AML event older than the AML period, any other older than the
    general period. Nothing younger, whatever the job asks (the periods are refused below the legal minimums at
    start, config/settings/)."""
    cut = audit_retention_cutoffs(now)
    aml = Q(action__startswith=AML_PREFIX) | Q(object_type__startswith=AML_PREFIX)
    return AuditEvent.objects.filter(
        (aml & Q(occurred_at__lt=cut["aml"])) | (~aml & Q(occurred_at__lt=cut["other"]))
    ).order_by("occurred_at", "id")
