"""The client risk rating (AML Act §9, §21a): the facts of a player gathered from the AML records and the wallet,
rated by ``aml.risk.rate``, stored as a ``RiskAssessment`` (history) and on the ``AmlProfile`` (current level and
next review); a high rating opens a compliance case (``risk_high``, not blocking: enhanced due diligence is
compliance's work, docs/aml.md "Client risk rating"). ``risk_review_due`` (job ``aml.risk_review``) assesses every
live player without a rating and every rating due for its periodic review; a screening, a compliance decision and
a staff request assess at once."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q, Sum

from accounts.models import IdentityVerification, Player
from aml.models import (
    AmlProfile,
    ComplianceCase,
    PepClaim,
    PepDeclaration,
    RiskAssessment,
    SourceOfFundsDeclaration,
    SourceOfFundsRequirement,
)
from aml.risk import HIGH, RiskConfig, RiskFacts, rate
from aml.services.cases import case_open
from core import clock
from core.audit import Actor, audit_record
from wallet.models import Deposit

LIVE = (Player.Status.TEMPORARY, Player.Status.ACTIVE, Player.Status.SUSPENDED, Player.Status.CLOSING)
Kind, Status = ComplianceCase.Kind, ComplianceCase.Status


def risk_config() -> RiskConfig:
    return RiskConfig(
        medium_score=settings.AML_RISK_MEDIUM_SCORE,
        high_score=settings.AML_RISK_HIGH_SCORE,
        deposits_medium=settings.AML_RISK_DEPOSITS_MEDIUM,
        deposits_high=settings.AML_RISK_DEPOSITS_HIGH,
        deposit_count_30d=settings.AML_RISK_DEPOSIT_COUNT_30D,
        high_risk_countries=frozenset(c.upper() for c in settings.AML_RISK_HIGH_RISK_COUNTRIES),
        review_days=dict(settings.AML_RISK_REVIEW_DAYS),
    )


def risk_facts(player: Player, *, now: datetime) -> RiskFacts:
    """What the rating reads of the player (each fact named in aml/risk.py)."""
    cases = ComplianceCase.objects.filter(player=player)
    pep_declared = PepDeclaration.objects.filter(player=player).order_by("-declared_at", "-pk").first()
    pep_claim = PepClaim.objects.filter(player=player).order_by("-recorded_at", "-pk").first()
    screening = cases.filter(kind=Kind.SCREENING_HIT)
    hits = screening.aggregate(
        open=Count("pk", filter=Q(status__in=(Status.OPEN, Status.CONFIRMED))),
        cleared=Count("pk", filter=Q(status=Status.CLEARED)),
    )
    pep_list_hit = screening.filter(status=Status.CONFIRMED, details__match__list_name="pep").exists()
    funds_missing = SourceOfFundsRequirement.objects.filter(player=player, status="open").exists()
    last_funds = SourceOfFundsDeclaration.objects.filter(player=player).order_by("-submitted_at", "-pk").first()
    if last_funds is not None and last_funds.status == SourceOfFundsDeclaration.Status.REJECTED:
        funds_missing = True
    since = now - timedelta(days=30)
    deposits = Deposit.objects.filter(player=player, status=Deposit.Status.CONFIRMED, confirmed_at__gte=since)
    totals = deposits.aggregate(total=Sum("amount"), count=Count("pk"))
    identification = ""
    if player.aml_identified_at is not None:
        last = IdentityVerification.objects.filter(player=player).order_by("-verified_at", "-pk").first()
        identification = last.method if last is not None else "branch"
    personal = getattr(player, "personal", None)
    countries = tuple(
        c
        for c in (
            (personal.citizenship, personal.permanent_residence_country or personal.residence_country)
            if personal is not None
            else ()
        )
        if c
    )
    return RiskFacts(
        pep=bool(
            (pep_declared is not None and pep_declared.is_pep)
            or (pep_claim is not None and pep_claim.is_pep)
            or pep_list_hit
        ),
        sanctions_open=int(hits["open"] or 0),
        sanctions_cleared=int(hits["cleared"] or 0),
        suspicious=cases.filter(kind=Kind.SUSPICIOUS, status__in=(Status.OPEN, Status.CONFIRMED)).count(),
        funds_missing=funds_missing,
        funds_other=bool(last_funds is not None and last_funds.source == SourceOfFundsDeclaration.Source.OTHER),
        deposits_30d=int(totals["total"] or 0),
        deposit_count_30d=int(totals["count"] or 0),
        identification=identification,
        countries=countries,
    )


def risk_assess(*, player: Player, actor: Actor, trigger: str, now: datetime | None = None) -> RiskAssessment:
    """Rate the player now; store the assessment and the profile's current rating; a new high rating opens the
    compliance case ``risk_high`` (one open at a time) and a change of level is audited."""
    now = now or clock.now()
    player = Player.objects.select_related("personal").get(pk=player.pk)
    rating = rate(risk_facts(player, now=now), risk_config())
    with transaction.atomic():
        profile = AmlProfile.objects.select_for_update(no_key=True).filter(player=player).first()
        if profile is None:
            AmlProfile.objects.get_or_create(player=player, defaults={"created_at": now, "next_screening_at": now})
            profile = AmlProfile.objects.select_for_update(no_key=True).get(player=player)
        previous = profile.risk_level
        assessment = RiskAssessment.objects.create(
            player=player,
            assessed_at=now,
            score=rating.score,
            level=rating.level,
            due_diligence=rating.due_diligence,
            factors=[f.as_dict() for f in rating.factors],
            trigger=trigger[:40],
            previous_level=previous,
            next_review_at=now + timedelta(days=rating.review_days),
            assessed_by=actor.label[:150],
        )
        profile.risk_level, profile.risk_score = rating.level, rating.score
        profile.risk_assessed_at, profile.risk_next_review_at = now, assessment.next_review_at
        profile.save(update_fields=["risk_level", "risk_score", "risk_assessed_at", "risk_next_review_at"])
        if previous != rating.level:
            audit_record(
                actor=actor,
                action="aml.risk_level_changed",
                obj=assessment,
                player_id=player.pk,
                old={"level": previous},
                new={"level": rating.level, "score": rating.score},
                trigger=trigger,
            )
    if (
        rating.level == HIGH
        and not ComplianceCase.objects.filter(player=player, kind=Kind.RISK_HIGH, status=Status.OPEN).exists()
    ):
        factors = ", ".join(f"{f.code} ({f.points})" for f in rating.factors)
        case_open(
            player_id=player.pk,
            kind=Kind.RISK_HIGH,
            key=f"risk_high:{player.pk}:{assessment.pk}",
            summary=f"High-risk client (score {rating.score}): {factors}"[:300],
            blocking=False,
            actor=actor,
            anchor=f"risk_assessment:{assessment.pk}",
            details={"assessment": assessment.pk, "score": rating.score, "factors": assessment.factors},
        )
    return assessment


def risk_review_due(*, now: datetime | None = None, batch: int = 500) -> dict[str, Any]:
    """Every live player without a rating, and every rating whose periodic review is due, assessed."""
    now = now or clock.now()
    live = Player.objects.filter(status__in=LIVE, personal__isnull=False)
    unrated = list(
        live.filter(Q(aml_profile__isnull=True) | Q(aml_profile__risk_assessed_at__isnull=True)).values_list(
            "pk", flat=True
        )[:batch]
    )
    due = list(
        live.filter(aml_profile__risk_next_review_at__lte=now)
        .exclude(pk__in=unrated)
        .values_list("pk", flat=True)[: max(0, batch - len(unrated))]
    )
    actor = Actor.system("aml.risk_review")
    levels: dict[str, int] = {}
    for pk in unrated + due:
        a = risk_assess(player=Player(pk=pk), actor=actor, trigger="first" if pk in unrated else "periodic", now=now)
        levels[a.level] = levels.get(a.level, 0) + 1
    return {"assessed": len(unrated) + len(due), **levels}
