"""Reads of the aml app, including the refusal other apps ask for (``compliance_refusal``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import QuerySet

from accounts.models import Player
from aml import activity, errors
from aml.models import (
    AmlProfile,
    ComplianceCase,
    IdentificationCheck,
    PepDeclaration,
    ScreeningRun,
    SourceOfFundsDeclaration,
    SourceOfFundsRequirement,
)
from core import clock
from core.errors import DomainError
from core.home import QueueState, queue_of
from core.money import Money

DIRECTIONS = ("deposit", "withdrawal", "completion", "stake")


def pep_declaration(player: Player) -> PepDeclaration | None:
    """The player's latest PEP declaration (the one that counts)."""
    return PepDeclaration.objects.filter(player=player).order_by("-declared_at", "-id").first()


def screened(player: Player) -> bool:
    """Has the list been searched for this player at least once (a run that did not answer does not count)?"""
    return ScreeningRun.objects.filter(player=player).exclude(result=ScreeningRun.Result.UNAVAILABLE).exists()


def blocking_cases(player: Player) -> QuerySet[ComplianceCase]:
    return ComplianceCase.objects.filter(player=player, blocking=True).exclude(status=ComplianceCase.Status.CLEARED)


def bankid_pep_claim(player: Player) -> bool | None:
    """What the player's bank said about a politically exposed person in the latest approved Bank iD
    identification (its ``pep`` claim): True, False, or None when no bank said anything."""
    check = (
        IdentificationCheck.objects.filter(player=player, provider="bankid", status=IdentificationCheck.Status.APPROVED)
        .order_by("-answered_at", "-id")
        .only("verified_claims")
        .first()
    )
    pep = (check.verified_claims or {}).get("pep") if check is not None else None
    return pep if isinstance(pep, bool) else None


@dataclass(frozen=True)
class IdentificationAttempts:
    """The player's identification attempts: at most ``max_per_day`` in any rolling 24 hours;
    once that many were started within 24 hours, no more until staff allow new attempts (``counted_from``)."""

    max_per_day: int
    used_last_24h: int
    blocked: bool
    counted_from: datetime | None  # staff allowed new attempts then; earlier ones no longer count


ATTEMPT_WINDOW = timedelta(hours=24)


def identification_attempts(player: Player, now: datetime | None = None) -> IdentificationAttempts:
    """Count the player's attempts: every identification check started since staff last allowed new attempts,
    except those the provider never answered (``failed``: retries exhausted; not the player's doing). Blocked when
    ``AML_IDENTIFICATION_MAX_ATTEMPTS_PER_DAY`` of them were started within 24 hours of each other (rolling, not the
    Prague calendar day), until staff allow new attempts."""
    now = now or clock.now()
    limit = max(1, settings.AML_IDENTIFICATION_MAX_ATTEMPTS_PER_DAY)
    counted_from = (
        AmlProfile.objects.filter(player=player).values_list("identification_attempts_from", flat=True).first()
    )
    checks = IdentificationCheck.objects.filter(player=player).exclude(status=IdentificationCheck.Status.FAILED)
    if counted_from is not None:
        checks = checks.filter(created_at__gt=counted_from)
    started = sorted(checks.values_list("created_at", flat=True))
    blocked = any(started[i + limit - 1] - started[i] < ATTEMPT_WINDOW for i in range(len(started) - limit + 1))
    return IdentificationAttempts(
        max_per_day=limit,
        used_last_24h=sum(1 for t in started if t > now - ATTEMPT_WINDOW),
        blocked=blocked,
        counted_from=counted_from,
    )


# Source of funds ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SourceOfFundsStatus:
    required: bool
    deposits_total: Money  # confirmed deposits in the window
    threshold: Money
    window_days: int
    window_start: datetime
    open_requirement: SourceOfFundsRequirement | None
    valid_declaration: SourceOfFundsDeclaration | None


def sof_threshold() -> int:
    return settings.AML_SOF_THRESHOLD


def sof_valid_declaration(player: Player, now: datetime) -> SourceOfFundsDeclaration | None:
    """A submitted or accepted declaration younger than ``AML_SOF_VALID_DAYS`` (a rejected one does not count)."""
    since = now - timedelta(days=settings.AML_SOF_VALID_DAYS)
    return (
        SourceOfFundsDeclaration.objects.filter(
            player=player,
            submitted_at__gt=since,
            status__in=[SourceOfFundsDeclaration.Status.SUBMITTED, SourceOfFundsDeclaration.Status.ACCEPTED],
        )
        .order_by("-submitted_at", "-id")
        .first()
    )


def sof_status(player: Player, now: datetime | None = None) -> SourceOfFundsStatus:
    """Is a source-of-funds declaration required now? When confirmed deposits over the last ``AML_SOF_WINDOW_DAYS``
    reach ``AML_SOF_THRESHOLD`` (threshold - 0.01 CZK: not yet; the threshold: required), or an open requirement
    was recorded earlier, and no valid declaration exists."""
    now = now or clock.now()
    days = settings.AML_SOF_WINDOW_DAYS
    start = now - timedelta(days=days)
    total = activity.deposits_total(player.pk, start, now + timedelta(microseconds=1))  # [now - window, now]
    threshold = sof_threshold()
    requirement = SourceOfFundsRequirement.objects.filter(
        player=player, status=SourceOfFundsRequirement.Status.OPEN
    ).first()
    valid = sof_valid_declaration(player, now)
    required = valid is None and (requirement is not None or total >= threshold)
    return SourceOfFundsStatus(
        required=required,
        deposits_total=Money(total),
        threshold=Money(threshold),
        window_days=days,
        window_start=start,
        open_requirement=requirement,
        valid_declaration=valid,
    )


# The refusal other apps ask for --------------------------------------------------------------------------------------


def compliance_refusal(player: Player, direction: str | None = None) -> DomainError | None:
    """Why the AML duties refuse this player's ``direction`` now, or None (the table in docs/aml.md).

    A blocking compliance case (PEP declared, list match; rule cases only with ``AML_RULE_CASES_BLOCK``) refuses
    every direction: ``aml.compliance_review`` while it is open, ``aml.compliance_refused`` once it is confirmed; a
    cleared case refuses nothing. The stake gate reads the same answer from ``Player.aml_restriction``, which the
    case services keep in the transaction of every case change (``aml.services.cases.restriction_of``).

    * ``"completion"`` (temporary -> player account, GP §4(8)) also needs the PEP declaration
      (``aml.pep_declaration_required``) and a screening that answered (``aml.screening_pending``).
    * ``"deposit"`` also needs a source-of-funds declaration once deposits reach the threshold
      (``aml.source_of_funds_required``).
    * ``"withdrawal"`` and ``"stake"``: the cases only.
    * ``None``: deposits and withdrawals (not completion).
    """
    if direction is not None and direction not in DIRECTIONS:
        raise ValueError(f"unknown direction {direction!r}")
    cases = list(blocking_cases(player).values_list("status", flat=True))
    if ComplianceCase.Status.CONFIRMED in cases:
        return errors.COMPLIANCE_REFUSED()
    if direction == "completion":
        if pep_declaration(player) is None:
            return errors.PEP_DECLARATION_REQUIRED()
        if not screened(player):
            return errors.SCREENING_PENDING()
    if cases:
        return errors.COMPLIANCE_REVIEW()
    if direction in ("deposit", None):
        sof = sof_status(player)
        if sof.required:
            return errors.SOURCE_OF_FUNDS_REQUIRED(
                threshold=sof.threshold, deposits_total=sof.deposits_total, window_days=sof.window_days
            )
    return None


def aml_status(player: Player, now: datetime | None = None) -> dict[str, Any]:
    """What the player sees of their AML state (``GET /api/v1/aml/status``)."""
    now = now or clock.now()
    pep = pep_declaration(player)
    check = IdentificationCheck.objects.filter(player=player).order_by("-created_at", "-id").first()
    sof = sof_status(player, now)
    refusals = {d: compliance_refusal(player, d) for d in DIRECTIONS}
    attempts = identification_attempts(player, now)
    return {
        "identified": player.aml_identified_at is not None,
        "identified_at": player.aml_identified_at,
        "identification": None
        if check is None
        else {"id": check.pk, "status": check.status, "created_at": check.created_at},
        "identification_attempts": {
            "max_per_day": attempts.max_per_day,
            "used_last_24h": attempts.used_last_24h,
            "blocked": attempts.blocked,
        },
        "pep_declared": pep is not None,
        "pep_declared_at": None if pep is None else pep.declared_at,
        "screened": screened(player),
        "source_of_funds": {
            "declaration_required": sof.required,
            "deposits_total": sof.deposits_total,
            "threshold": sof.threshold,
            "window_days": sof.window_days,
        },
        "refusals": {d: (None if e is None else e.code) for d, e in refusals.items()},
    }


# The back office ------------------------------------------------------------------------------------


def identifications_of(player: Player, *, limit: int = 10) -> list[IdentificationCheck]:
    return list(IdentificationCheck.objects.filter(player_id=player.pk).order_by("-created_at", "-pk")[:limit])


def cases_of(player: Player, *, limit: int = 20) -> list[ComplianceCase]:
    """The player's compliance cases, open ones first, then newest first."""
    return list(
        ComplianceCase.objects.filter(player_id=player.pk).order_by(
            models.Case(models.When(status=ComplianceCase.Status.OPEN, then=0), default=1), "-opened_at", "-pk"
        )[:limit]
    )


def screening_runs_of(player: Player, *, limit: int = 5) -> list[ScreeningRun]:
    return list(ScreeningRun.objects.filter(player_id=player.pk).order_by("-ran_at", "-pk")[:limit])


def identifications_review_queue() -> QueueState:
    """Identifications the provider answered as doubtful: waiting for a staff review."""
    return queue_of(IdentificationCheck.objects.filter(status=IdentificationCheck.Status.DOUBTFUL), "answered_at")


def screening_hits_queue() -> QueueState:
    """Open screening hits (sanctions / PEP lists) waiting for a decision."""
    return queue_of(
        ComplianceCase.objects.filter(status=ComplianceCase.Status.OPEN, kind=ComplianceCase.Kind.SCREENING_HIT),
        "opened_at",
    )


def cases_open_queue() -> QueueState:
    """Every other open compliance case (PEP, suspicious activity)."""
    return queue_of(
        ComplianceCase.objects.filter(status=ComplianceCase.Status.OPEN).exclude(
            kind=ComplianceCase.Kind.SCREENING_HIT
        ),
        "opened_at",
    )
