"""Compliance cases: opened (idempotently) by a PEP declaration, a screening hit or a suspicious-transaction rule;
decided by compliance staff (audited); a case may hold a win through the wallet (GP §10(3))."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction

from accounts.models import Player
from accounts.services import player_lock
from aml import activity, errors
from aml.models import AmlProfile, CaseHold, ComplianceCase
from aml.services.seams import player_aml_restriction_record, win_hold_place
from core import clock
from core.audit import Actor, audit_record
from core.money import Money

CaseStatus = ComplianceCase.Status
Restriction = Player.AmlRestriction
DECISIONS = (CaseStatus.CLEARED, CaseStatus.CONFIRMED)
HOLD_REASONS = ("regularity", "aml")
PAYOUT_TERM_DAYS = 60  # GP §10(2)-(3): a win is paid within 60 days; a regularity hold cannot outlast that term


def restriction_of(player_id: int) -> str:
    """What the player's blocking cases refuse now (``accounts.Player.AmlRestriction``, docs/aml.md): ``refused``
    when one is confirmed, ``review`` when one is open, ``""`` when none is (cleared cases and cases that do not
    block refuse nothing)."""
    statuses = set(
        ComplianceCase.objects.filter(player_id=player_id, blocking=True)
        .exclude(status=CaseStatus.CLEARED)
        .values_list("status", flat=True)
    )
    if CaseStatus.CONFIRMED in statuses:
        return Restriction.REFUSED
    return Restriction.REVIEW if statuses else Restriction.NONE


def _restriction_sync(player: Player, *, actor: Actor, reason: str) -> None:
    """Keep ``Player.aml_restriction`` (read by the stake gate's one locking statement) equal to what the cases
    refuse, in the transaction that changed a case. The caller holds the Player lock (taken before the case row)."""
    player_aml_restriction_record(player=player, restriction=restriction_of(player.pk), actor=actor, reason=reason)


def case_open(
    *,
    player_id: int,
    kind: str,
    key: str,
    summary: str,
    blocking: bool,
    actor: Actor,
    rule: str = "",
    anchor: str = "",
    window_start: datetime | None = None,
    window_end: datetime | None = None,
    details: dict[str, Any] | None = None,
) -> tuple[ComplianceCase, bool]:
    """Open a case once per ``key`` (a repeat returns the existing case and False). Audited. A blocking case
    restricts the player in the same transaction (``Player.aml_restriction`` = ``review``, docs/aml.md)."""
    with transaction.atomic():
        # a blocking case changes the player's restriction: the Player row is locked first (the house lock order),
        # so two case changes of one player decide the restriction one after the other
        player = player_lock(Player(pk=player_id)) if blocking else None
        existing = ComplianceCase.objects.filter(key=key).first()
        if existing is not None:
            return existing, False
        try:
            with transaction.atomic():
                case = ComplianceCase.objects.create(
                    player_id=player_id,
                    kind=kind,
                    rule=rule,
                    key=key,
                    blocking=blocking,
                    opened_at=clock.now(),
                    window_start=window_start,
                    window_end=window_end,
                    anchor=anchor[:160],
                    summary=summary[:300],
                    details=details or {},
                )
        except IntegrityError:  # opened by a concurrent run meanwhile
            return ComplianceCase.objects.get(key=key), False
        audit_record(
            actor=actor,
            action="aml.case_opened",
            obj=case,
            player_id=player_id,
            kind=kind,
            rule=rule,
            key=key,
            blocking=blocking,
            summary=summary,
        )
        if kind != ComplianceCase.Kind.RISK_HIGH:
            risk_mark_due(player_id)
        if player is not None:
            _restriction_sync(player, actor=actor, reason=f"case {case.pk} opened ({kind})")
        return case, True


def case_decide(*, case: ComplianceCase, decision: str, note: str, actor: Actor) -> ComplianceCase:
    """Staff decide an open case: ``cleared`` (false positive, PEP relationship accepted, no suspicion) lifts what
    it blocked; ``confirmed`` (list match confirmed, PEP relationship refused, suspicion reported to the FAU) makes a
    blocking case refuse everything: completion, deposits, withdrawals and stakes (docs/aml.md). The player's
    ``aml_restriction`` changes in the same transaction. A note is required; audited."""
    if decision not in DECISIONS:
        raise errors.CASE_DECISION_INVALID(decision=decision, allowed=list(DECISIONS))
    if not (note or "").strip():
        raise errors.NOTE_REQUIRED()
    with transaction.atomic():
        player = player_lock(Player(pk=case.player_id))  # the Player row before the case row (house lock order)
        c = ComplianceCase.objects.select_for_update(no_key=True).get(pk=case.pk)
        if c.status != CaseStatus.OPEN:
            raise errors.CASE_STATE(state=c.status)
        c.status, c.decided_at, c.decided_by, c.decision_note = decision, clock.now(), actor.label, note.strip()[:500]
        c.save(update_fields=["status", "decided_at", "decided_by", "decision_note"])
        audit_record(
            actor=actor,
            action="aml.case_decided",
            obj=c,
            player_id=c.player_id,
            old={"status": CaseStatus.OPEN},
            new={"status": decision},
            note=c.decision_note,
            kind=c.kind,
            rule=c.rule,
        )
        if c.blocking:
            _restriction_sync(player, actor=actor, reason=f"case {c.pk} {decision}")
        if c.kind != ComplianceCase.Kind.RISK_HIGH:
            risk_mark_due(c.player_id)
    case.refresh_from_db()
    return case


def risk_mark_due(player_id: int) -> None:
    """A fact of the client risk rating changed: the rating job (``aml.risk_review``) assesses the player again at
    its next run."""
    AmlProfile.objects.filter(player_id=player_id).update(risk_next_review_at=clock.now())


def case_hold_place(*, case: ComplianceCase, win_reference: str, reason: str, note: str, actor: Actor) -> CaseHold:
    """Hold a win of the case's player (GP §10(3)) through the wallet: ``regularity`` at most until the 60-day
    payout term of the win ends (refused after it, ``aml.hold_too_late``), ``aml`` for the AML-law period
    (the wallet's ``WALLET_AML_HOLD_DAYS``). Only from a case not cleared; a repeat returns the same hold."""
    if reason not in HOLD_REASONS:
        raise errors.HOLD_REASON_INVALID(reason=reason)
    if not (note or "").strip():
        raise errors.NOTE_REQUIRED()
    if case.status == CaseStatus.CLEARED:
        raise errors.CASE_STATE(state=case.status)
    win = activity.win(case.player_id, win_reference)
    if win is None:
        raise errors.WIN_NOT_FOUND(win_reference=win_reference)
    deadline = win.at + timedelta(days=PAYOUT_TERM_DAYS)
    if reason == "regularity" and clock.now() >= deadline:
        raise errors.HOLD_TOO_LATE(deadline=deadline, win_reference=win_reference)
    with transaction.atomic():
        # The wallet locks the player's wallet first; the case row after it (lock order: docs/contracts.md).
        hold_id = win_hold_place(player=case.player, win_reference=win_reference, reason=reason, note=note, actor=actor)
        c = ComplianceCase.objects.select_for_update(no_key=True).get(pk=case.pk)
        if c.status == CaseStatus.CLEARED:
            raise errors.CASE_STATE(state=c.status)
        existing = CaseHold.objects.filter(case=c, win_reference=win_reference).first()
        if existing is not None:
            return existing
        hold = CaseHold.objects.create(
            case=c,
            win_reference=win_reference,
            reason=reason,
            hold_id=hold_id,
            placed_at=clock.now(),
            placed_by=actor.label,
        )
        audit_record(
            actor=actor,
            action="aml.case_hold_placed",
            obj=c,
            player_id=c.player_id,
            win_reference=win_reference,
            amount=Money(win.amount),
            reason=reason,
            hold_id=hold_id,
            note=note,
        )
        return hold
