"""Suspicious-transaction monitoring: the rules of ``aml.rules`` over recent activity; each hit opens a case.

Idempotent per rule, player and anchor (the case key); while a case of the same rule is open for the player no
second one is opened: the open case's details list the later hits instead (``later_hits``, so staff see them and
decide them with the case; a hit listed there never opens a case of its own). A rule case does
not block money movements unless ``AML_RULE_CASES_BLOCK`` (a hit is an alert, not a finding); staff may hold the
win concerned from the case (GP §10(3), ``case_hold_place``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction

from aml import rules
from aml.models import ComplianceCase
from aml.services.cases import case_open
from core import clock
from core.audit import Actor


def _record(hit: rules.Hit, actor: Actor) -> str:
    same_rule = ComplianceCase.objects.filter(
        player_id=hit.player_id, kind=ComplianceCase.Kind.SUSPICIOUS, rule=hit.rule
    )
    if (
        ComplianceCase.objects.filter(key=hit.key).exists()
        or same_rule.filter(details__later_hits__contains=[hit.anchor]).exists()
    ):
        return "known"
    with transaction.atomic():
        open_case = (
            same_rule.select_for_update(no_key=True).filter(status=ComplianceCase.Status.OPEN).order_by("pk").first()
        )
        if open_case is not None:
            later = list(open_case.details.get("later_hits", []))
            if hit.anchor not in later:
                open_case.details = {**open_case.details, "later_hits": [*later, hit.anchor][-50:]}
                open_case.save(update_fields=["details"])
            return "merged"
        _case, created = case_open(
            player_id=hit.player_id,
            kind=ComplianceCase.Kind.SUSPICIOUS,
            rule=hit.rule,
            key=hit.key,
            summary=hit.summary,
            blocking=settings.AML_RULE_CASES_BLOCK,
            actor=actor,
            anchor=hit.anchor,
            window_start=hit.window_start,
            window_end=hit.window_end,
            details=hit.details,
        )
        return "opened" if created else "known"


def rules_evaluate(*, now: datetime | None = None, hours: int | None = None) -> dict[str, Any]:
    """Evaluate every enabled rule for the anchors of the last ``hours`` (default ``AML_RULES_SCAN_HOURS``);
    safe to run twice (the keys)."""
    now = now or clock.now()
    since = now - timedelta(hours=int(settings.AML_RULES_SCAN_HOURS if hours is None else hours))
    actor = Actor.system("aml.rules")
    out: dict[str, Any] = {}
    for hit in rules.hits(since, now):
        result = _record(hit, actor)
        out[f"{hit.rule}.{result}"] = out.get(f"{hit.rule}.{result}", 0) + 1
    return out
