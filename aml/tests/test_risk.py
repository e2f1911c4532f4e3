"""The client risk rating (AML Act §9, §21a): every player rated from the documented factors (aml/risk.py), the
history kept, the due diligence named, the periodic review, the compliance queue for high risk."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine

from accounts.models import IdentityVerification
from aml.models import AmlProfile, ComplianceCase, PepDeclaration, RiskAssessment
from aml.risk import RiskConfig, RiskFacts, rate
from aml.services import case_decide, case_open, risk_assess, risk_review_due
from core import clock
from core.models import AuditEvent
from tests.kit.aml import SYSTEM, make_player
from tests.kit.money import czk
from tests.kit.wallet import deposit, verified_bank

pytestmark = pytest.mark.django_db


def identified(player, method="bankid"):
    IdentityVerification.objects.create(
        player=player,
        method=method,
        document_type="id_card",
        document_number="123456789",
        verified_at=clock.now(),
        document_valid_until=clock.business_date() + timedelta(days=3650),
    )
    return player


def codes(assessment):
    return {f["code"]: f["points"] for f in assessment.factors}


# The pure rule, one factor at a time ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("facts", "score", "level"),
    [
        (RiskFacts(identification="bankid", countries=("CZ",)), 0, "low"),
        (RiskFacts(identification="online_provider", countries=("CZ",)), 5, "low"),
        (RiskFacts(identification="", countries=("CZ",)), 20, "medium"),
        (RiskFacts(identification="bankid", countries=("SK",)), 5, "low"),
        (RiskFacts(identification="bankid", countries=("IR",)), 40, "high"),
        (RiskFacts(identification="bankid", pep=True), 40, "high"),
        (RiskFacts(identification="bankid", sanctions_open=1), 50, "high"),
        (RiskFacts(identification="bankid", sanctions_cleared=5), 10, "low"),
        (RiskFacts(identification="bankid", suspicious=1), 15, "medium"),
        (RiskFacts(identification="bankid", suspicious=3), 45, "high"),
        (RiskFacts(identification="bankid", funds_missing=True), 20, "medium"),
        (RiskFacts(identification="bankid", funds_other=True), 5, "low"),
        (RiskFacts(identification="bankid", deposits_30d=10_000_000), 0, "low"),  # at the threshold: not over it
        (RiskFacts(identification="bankid", deposits_30d=10_000_001), 10, "low"),
        (RiskFacts(identification="bankid", deposits_30d=50_000_001, deposit_count_30d=31), 35, "medium"),
    ],
)
def test_each_documented_factor_moves_the_score_by_its_points(facts, score, level):
    rating = rate(facts, RiskConfig(high_risk_countries=frozenset({"IR"})))
    assert (rating.score, rating.level) == (score, level)
    assert rating.due_diligence == ("enhanced" if level == "high" else "standard")
    assert rating.review_days == {"low": 1095, "medium": 365, "high": 90}[level]


# The service: facts from the records, history, queue, review ------------------------------------------------------


def test_every_live_player_gets_a_rating_and_the_review_comes_round_again(settings):
    low = identified(make_player())
    unidentified = make_player(aml_identified_at=None)
    out = risk_review_due()
    assert out["assessed"] == 2 and out == {"assessed": 2, "low": 1, "medium": 1}
    assert AmlProfile.objects.get(player=low).risk_level == "low"
    medium = AmlProfile.objects.get(player=unidentified)
    assert (medium.risk_level, medium.risk_score) == ("medium", 20)
    assert risk_review_due() == {"assessed": 0}
    assert medium.risk_next_review_at is not None
    with time_machine.travel(medium.risk_next_review_at + timedelta(seconds=1)):
        assert risk_review_due()["assessed"] == 1  # the medium rating's yearly review; the low one waits 3 years
    assert RiskAssessment.objects.filter(player=unidentified).count() == 2


def test_the_rating_moves_with_deposits_and_a_pep_declaration_and_high_risk_opens_one_compliance_case():
    player = identified(make_player())
    first = risk_assess(player=player, actor=SYSTEM, trigger="test")
    assert (first.level, first.score, first.due_diligence) == ("low", 0, "standard")
    method = verified_bank(player)
    deposit(player, method, czk(60_000))
    deposit(player, method, czk(60_000))  # 120,000.00 CZK in 30 days: over the medium threshold
    second = risk_assess(player=player, actor=SYSTEM, trigger="test")
    assert codes(second) == {"deposits_30d": 10}
    PepDeclaration.objects.create(
        player=player, is_pep=True, relation="self", position="starosta", declared_at=clock.now(), declared_by="player"
    )
    third = risk_assess(player=player, actor=SYSTEM, trigger="test")
    assert (third.level, third.due_diligence, third.previous_level) == ("high", "enhanced", "low")
    assert codes(third) == {"deposits_30d": 10, "pep": 40}
    case = ComplianceCase.objects.get(player=player, kind="risk_high")
    assert case.status == "open" and not case.blocking and case.details["score"] == 50
    risk_assess(player=player, actor=SYSTEM, trigger="test")
    assert ComplianceCase.objects.filter(player=player, kind="risk_high").count() == 1  # one open at a time
    changes = [
        (e.new_values or {})["level"] for e in AuditEvent.objects.filter(action="aml.risk_level_changed").order_by("pk")
    ]
    assert changes == ["low", "high"]  # the first rating, then low -> high once
    history = list(
        RiskAssessment.objects.filter(player=player).order_by("assessed_at", "pk").values_list("level", flat=True)
    )
    assert history == ["low", "low", "high", "high"]
    profile = AmlProfile.objects.get(player=player)
    assert profile.risk_assessed_at is not None
    assert profile.risk_next_review_at == profile.risk_assessed_at + timedelta(days=90)


def test_a_sanctions_hit_makes_the_rating_due_and_high_and_clearing_it_lowers_it(settings):
    player = identified(make_player())
    risk_assess(player=player, actor=SYSTEM, trigger="test")
    case, _ = case_open(
        player_id=player.pk,
        kind="screening_hit",
        key=f"hit:{player.pk}",
        summary="match",
        blocking=True,
        actor=SYSTEM,
        details={"match": {"list_name": "sanctions"}},
    )
    profile = AmlProfile.objects.get(player=player)
    # a case opened: assessed at the job's next run
    assert profile.risk_next_review_at is not None and profile.risk_next_review_at <= clock.now()
    assert risk_review_due()["assessed"] == 1
    assert AmlProfile.objects.get(player=player).risk_level == "high"
    case_decide(case=case, decision="cleared", note="another person", actor=SYSTEM)
    risk_review_due()
    after = RiskAssessment.objects.filter(player=player).latest("assessed_at", "pk")
    assert after.level == "low" and codes(after) == {"sanctions_cleared": 5}


def test_a_citizen_of_a_high_risk_third_country_is_high_risk(settings):
    settings.AML_RISK_HIGH_RISK_COUNTRIES = ["KP"]
    player = identified(
        make_player(
            personal_data={
                "citizenship": "KP",
                "birth_number": "",
                "document_type": "passport",
                "document_issuing_state": "KP",
            }
        )
    )
    a = risk_assess(player=player, actor=SYSTEM, trigger="test")
    assert a.level == "high" and "country_high_risk" in codes(a)
