"""The answers of the Ministry's AISG interface turned into the platform's records: the register checks of both
registers, the stored person id (HID), and the staff queue (``RegisterReview``: manual review of a person the
population register could not identify; an alert when the interface gave no usable answer and the platform failed
closed). The decision table itself is ``accounts.aisg.client.decide`` (docs/aml.md "AISG decision table")."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.db.models import F

from accounts.aisg import client as aisg
from accounts.aisg import types as t
from accounts.models import PersonalData, Player, RegisterCheck, RegisterReview
from core import clock
from core.audit import Actor, audit_record

logger = logging.getLogger("accounts.registers")
Result = RegisterCheck.Result


def answer_details(v: t.Verification) -> dict[str, Any]:
    return {
        "aisg": {
            "HID": v.hid,
            "Plnoleta": v.adult,
            "NalezenaROB": v.rob,
            "NalezenaRVO": v.rvo,
            "IdentifikacePozadavku": v.identification[:200],
        }
    }


def records_of(v: t.Verification) -> list[dict[str, Any]]:
    """The two register checks one AISG answer makes (exclusion first, as the platform always asked)."""
    details = answer_details(v)
    exclusion = {t.RVO_LISTED: Result.LISTED, t.RVO_NOT_LISTED: Result.NOT_LISTED}.get(v.rvo, Result.UNAVAILABLE)
    if v.adult == t.ADULT_NO:
        population = Result.UNDER_18
    elif v.rob == t.ROB_FOUND:
        population = Result.FOUND
    elif v.rob in (t.ROB_NOT_FOUND, t.ROB_DEAD, t.ROB_DUPLICATE):
        population = Result.NOT_FOUND
    else:
        population = Result.UNAVAILABLE
    return [
        {"register": RegisterCheck.Register.EXCLUSION, "result": exclusion, "details": details},
        {"register": RegisterCheck.Register.POPULATION, "result": population, "details": details},
    ]


def failure_records(error: str) -> list[dict[str, Any]]:
    details = {"error": error[:200], "aisg_answer": None}
    return [
        {"register": RegisterCheck.Register.EXCLUSION, "result": Result.UNAVAILABLE, "details": details},
        {"register": RegisterCheck.Register.POPULATION, "result": Result.UNAVAILABLE, "details": details},
    ]


def hid_store(player_id: int, hid: str | None) -> None:
    """Keep the person id the interface answered (the login check asks by it)."""
    if hid:
        PersonalData.objects.filter(player_id=player_id).exclude(aisg_hid=hid).update(aisg_hid=hid)


def review_open(
    *, kind: str, player: Player | int | None, context: str, reason: str, details: dict[str, Any] | None = None
) -> RegisterReview:
    """Put a case in the staff queue (and log it at error level: the alerting reads the log). An open outage of
    the same player and context is counted again rather than repeated."""
    now = clock.now()
    player_id = player.pk if isinstance(player, Player) else player
    logger.error("AISG %s (%s): %s", kind, context, reason, extra={"player": player_id, "alert": "aisg"})
    with transaction.atomic():
        if kind == RegisterReview.Kind.OUTAGE:
            same = RegisterReview.objects.select_for_update(no_key=True).filter(
                kind=kind, context=context, resolved_at__isnull=True
            )
            same = same.filter(player_id=player_id) if player_id is not None else same.filter(player__isnull=True)
            open_row = same.first()
            if open_row is not None:
                RegisterReview.objects.filter(pk=open_row.pk).update(
                    occurrences=F("occurrences") + 1, last_at=now, reason=reason[:200]
                )
                open_row.refresh_from_db()
                return open_row
        return RegisterReview.objects.create(
            kind=kind,
            player_id=player_id,
            context=context,
            reason=reason[:200],
            details=details or {},
            created_at=now,
            last_at=now,
        )


def register_review_resolve(*, review: RegisterReview, actor: Actor, note: str = "") -> RegisterReview:
    """Staff resolved a case of the queue (audited)."""
    with transaction.atomic():
        row = RegisterReview.objects.select_for_update(no_key=True).get(pk=review.pk)
        if row.resolved_at is None:
            row.resolved_at = clock.now()
            row.resolved_by_id = int(actor.id) if actor.type == "staff" and actor.id else None
            row.note = note[:300]
            row.save(update_fields=["resolved_at", "resolved_by", "note"])
            audit_record(
                actor=actor,
                action="accounts.register_review.resolved",
                obj=row,
                player_id=row.player_id,
                kind=row.kind,
                reason=row.reason,
            )
    return row


def outcome_review(
    decision: aisg.Decision, *, player: Player | int | None, context: str, details: dict[str, Any] | None = None
) -> None:
    """The staff case a decision needs, if any (docs/aml.md "AISG decision table", its "staff" column): a manual
    review of a person the population register did not identify or says is not adult (row 2: the person declared
    an adult birth date, so their data need staff's look; at login the player waits on this review), an outage
    alert for no usable answer."""
    if decision.outcome in (aisg.MANUAL_REVIEW, aisg.UNDERAGE):
        review_open(
            kind=RegisterReview.Kind.MANUAL_REVIEW,
            player=player,
            context=context,
            reason=decision.reason,
            details=details,
        )
    elif decision.outcome == aisg.UNAVAILABLE:
        review_open(
            kind=RegisterReview.Kind.OUTAGE, player=player, context=context, reason=decision.reason, details=details
        )
