"""The source-of-funds declaration the AML duties ask for (GP §12(1): "personal statements about property").

When the player's confirmed deposits over the last ``AML_SOF_WINDOW_DAYS`` reach ``AML_SOF_THRESHOLD``, a
declaration is required: further deposits are refused (``aml.selectors.compliance_refusal``) until the player
submits one (``sof_declare``). The requirement is recorded (``sof_requirements_scan``, periodic) so that it stays
until a declaration comes even when the window moves on, and staff see it. Staff accept or reject a declaration
(``sof_review``, audited); a rejected one no longer counts, so deposits are refused again until a new one.
A declaration counts for ``AML_SOF_VALID_DAYS``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction

from accounts.models import Player
from aml import activity, errors
from aml.models import SourceOfFundsDeclaration, SourceOfFundsRequirement
from aml.selectors import sof_status, sof_threshold, sof_valid_declaration
from core import clock
from core.audit import Actor, audit_record
from core.money import Money

Source = SourceOfFundsDeclaration.Source
DeclStatus = SourceOfFundsDeclaration.Status


def sof_requirement_record(
    *, player: Player, actor: Actor, now: datetime | None = None, reopen: bool = False
) -> SourceOfFundsRequirement | None:
    """Record the open requirement when the threshold is reached and no valid declaration exists, or (``reopen``)
    when the declaration that fulfilled one was rejected (idempotent: at most one open requirement per player).
    Returns the open requirement, or None when none is due."""
    now = now or clock.now()
    status = sof_status(player, now)
    if status.open_requirement is not None:
        return status.open_requirement
    if not (status.required or (reopen and status.valid_declaration is None)):
        return None
    try:
        with transaction.atomic():
            req = SourceOfFundsRequirement.objects.create(
                player=player,
                triggered_at=now,
                deposits_total=status.deposits_total.amount,
                threshold=status.threshold.amount,
                window_days=status.window_days,
            )
            audit_record(
                actor=actor,
                action="aml.source_of_funds_required",
                obj=req,
                player_id=player.pk,
                deposits_total=status.deposits_total,
                threshold=status.threshold,
                window_days=status.window_days,
            )
            return req
    except IntegrityError:  # recorded by a concurrent run
        return SourceOfFundsRequirement.objects.get(player=player, status=SourceOfFundsRequirement.Status.OPEN)


def sof_requirements_scan(*, now: datetime | None = None) -> dict[str, int]:
    """Periodic: every player who deposited in the window and reached the threshold gets an open requirement."""
    now = now or clock.now()
    since = now - timedelta(days=settings.AML_SOF_WINDOW_DAYS)
    actor = Actor.system("aml.source_of_funds_scan")
    recorded = 0
    threshold = sof_threshold()
    for pk in activity.players_depositing(since, now):
        if activity.deposits_total(pk, since, now) < threshold:
            continue
        if SourceOfFundsRequirement.objects.filter(player_id=pk, status=SourceOfFundsRequirement.Status.OPEN).exists():
            continue
        player = Player.objects.get(pk=pk)
        if sof_valid_declaration(player, now) is None and sof_requirement_record(player=player, actor=actor, now=now):
            recorded += 1
    return {"open_requirements": recorded}


def sof_declare(*, player: Player, source: str, description: str, actor: Actor) -> SourceOfFundsDeclaration:
    """The player declares the source of the funds deposited; it fulfils any open requirement (deposits are
    possible again at once; staff review it afterwards). Audited."""
    if source not in Source.values:
        raise errors.SOF_INVALID(reason="source", allowed=Source.values)
    description = (description or "").strip()
    if len(description) < 3:
        raise errors.SOF_INVALID(reason="description")
    if player.status in Player.TERMINAL:
        raise errors.IDENTIFICATION_NOT_ALLOWED(account_status=player.status)
    with transaction.atomic():
        now = clock.now()
        window = now - timedelta(days=settings.AML_SOF_WINDOW_DAYS)
        decl = SourceOfFundsDeclaration.objects.create(
            player=player,
            source=source,
            description=description[:2000],
            submitted_at=now,
            deposits_total=activity.deposits_total(player.pk, window, now),
        )
        fulfilled = list(
            SourceOfFundsRequirement.objects.select_for_update(no_key=True).filter(
                player=player, status=SourceOfFundsRequirement.Status.OPEN
            )
        )
        for req in fulfilled:
            req.status, req.fulfilled_at, req.declaration = SourceOfFundsRequirement.Status.FULFILLED, now, decl
            req.save(update_fields=["status", "fulfilled_at", "declaration"])
        audit_record(
            actor=actor,
            action="aml.source_of_funds_declared",
            obj=decl,
            player_id=player.pk,
            source=source,
            deposits_total=Money(decl.deposits_total),
            requirements=[r.pk for r in fulfilled],
        )
        return decl


def sof_review(
    *, declaration: SourceOfFundsDeclaration, accept: bool, note: str, actor: Actor
) -> SourceOfFundsDeclaration:
    """Staff accept or reject a submitted declaration (a note is required; audited). A rejected declaration does
    not count: if the threshold is still reached, deposits are refused until a new one is submitted."""
    if not (note or "").strip():
        raise errors.NOTE_REQUIRED()
    with transaction.atomic():
        d = SourceOfFundsDeclaration.objects.select_for_update(no_key=True).get(pk=declaration.pk)
        if d.status != DeclStatus.SUBMITTED:
            raise errors.SOF_STATE(state=d.status)
        d.status = DeclStatus.ACCEPTED if accept else DeclStatus.REJECTED
        d.reviewed_at, d.reviewed_by, d.review_note = clock.now(), actor.label, note.strip()[:500]
        d.save(update_fields=["status", "reviewed_at", "reviewed_by", "review_note"])
        audit_record(
            actor=actor,
            action="aml.source_of_funds_reviewed",
            obj=d,
            player_id=d.player_id,
            old={"status": DeclStatus.SUBMITTED},
            new={"status": d.status},
            note=d.review_note,
        )
        if not accept:  # the requirement it fulfilled is open again (or one is due now)
            sof_requirement_record(player=d.player, actor=actor, reopen=d.requirements.exists())
    declaration.refresh_from_db()
    return declaration
