"""The aml app's privacy contract (``accounts.privacy_contract``; registered by ``AmlConfig.ready``).

Records (all kept for the AML law's period, zákon č. 253/2008 Sb. §16(1): 10 years from the end of the business
relationship, ``ACCOUNTS_RETENTION_AML_YEARS``):

* ``aml.identification``: identification checks, their images (document front/back, selfie) and the provider's
  callbacks. At the end: the document particulars, the data read off the document (``extracted``), the staff note,
  the provider's check id and error, every callback's raw body are blanked; **the image files are deleted from
  storage** (at once, inside the job's transaction: a rollback after that leaves a record whose file is already gone,
  and the next run completes the record; no file outlives its period).
* ``aml.declarations``: PEP declarations (the public function), source-of-funds declarations (the description, the
  review note) and requirements. At the end the texts are blanked; the choices (relation, source), dates and amounts
  stay.
* ``aml.screening``: the screening schedule, the screening runs (the matched list entries), compliance cases (summary,
  details, decision note) and their holds. At the end the matches, summaries, details and notes are blanked.

Export (GP §12(7)a, GDPR art. 15): the identification checks with the document particulars, the data read off the
document and the list of images, each with the player's own download path (``GET /api/v1/aml/identifications/<id>/
images/<side>``); the PEP and source-of-funds declarations; when the player was screened and with what result, a
match shown only as ``review``. Withheld (``WITHHELD``): compliance cases, their decisions and holds, matched list
entries, staff notes, the likeness score.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.core.files.storage import default_storage

from accounts import privacy_contract
from accounts.models import Player
from accounts.privacy_contract import Contract, Record
from aml.models import (
    AmlProfile,
    BankIdAuthorization,
    ComplianceCase,
    IdentificationCheck,
    IdentificationEvent,
    IdentificationImage,
    PepClaim,
    PepDeclaration,
    RiskAssessment,
    ScreeningRun,
    SourceOfFundsDeclaration,
    SourceOfFundsRequirement,
)
from core.audit import Actor

PLACEHOLDER = "[anonymised]"
PLACEHOLDER_DATE = date(1900, 1, 1)
AML = ("aml",)
IMAGE_PATH = "/api/v1/aml/identifications/{id}/images/{side}"

# What a player may be told of a screening (AML law §38: never of a suspicion, a report or a case).
SCREENING_SHOWN: dict[str, str] = {
    ScreeningRun.Result.CLEAR: "clear",
    ScreeningRun.Result.HIT: "review",
    ScreeningRun.Result.UNAVAILABLE: "unavailable",
}

RECORDS = (
    Record(
        code="aml.identification",
        models=(
            "aml.IdentificationCheck",
            "aml.IdentificationImage",
            "aml.IdentificationEvent",
            "aml.BankIdAuthorization",
        ),
        periods=AML,
        what_cs="AML identifikace: údaje dokladu, snímky dokladu a selfie, odpovědi poskytovatele identifikace",
        what_en="AML identification: the document particulars, the images of the document and the selfie, the "
        "identification provider's answers",
        erased_cs="číslo, vydavatel a platnost dokladu, údaje přečtené z dokladu a odpovědi poskytovatele vymazány; "
        "soubory snímků smazány",
        erased_en="the document number, issuer and validity, the data read off the document and the provider's "
        "answers erased; the image files deleted",
        kept_cs="že a kdy identifikace proběhla a s jakým výsledkem",
        kept_en="that and when it took place, and its outcome",
    ),
    Record(
        code="aml.declarations",
        models=("aml.PepDeclaration", "aml.SourceOfFundsDeclaration", "aml.SourceOfFundsRequirement", "aml.PepClaim"),
        periods=AML,
        what_cs="prohlášení o politicky exponované osobě a o původu prostředků",
        what_en="the politically-exposed-person and source-of-funds declarations",
        erased_cs="veřejná funkce, popis původu prostředků a poznámky vymazány",
        erased_en="the public function, the description of the source of funds and the notes erased",
        kept_cs="zvolené možnosti, data a částky",
        kept_en="the options chosen, dates and amounts",
    ),
    Record(
        code="aml.screening",
        models=("aml.AmlProfile", "aml.ScreeningRun", "aml.ComplianceCase", "aml.CaseHold", "aml.RiskAssessment"),
        periods=AML,
        what_cs="prověrky proti seznamům PEP a sankcí a případy compliance",
        what_en="screenings against the PEP and sanctions lists, and compliance cases",
        erased_cs="nalezené záznamy seznamů, shrnutí, podrobnosti a poznámky případů vymazány",
        erased_en="the matched list entries, the cases' summaries, details and notes erased",
        kept_cs="data prověrek a stavy případů",
        kept_en="the dates of the screenings and the states of the cases",
    ),
)

WITHHELD = (
    {
        "what_cs": "případy compliance (PEP, shody se seznamy, pravidla podezřelých obchodů), jejich rozhodnutí, "
        "poznámky a zadržení výher; záznamy seznamů, se kterými se prověrka shodovala; výsledek posouzení "
        "shody",
        "what_en": "compliance cases (PEP, list matches, suspicious-transaction rules), their decisions, notes and the "
        "win holds placed from them; the list entries a screening matched; the outcome of a match's review",
        "why_cs": "zákon č. 253/2008 Sb. §38 (mlčenlivost: klient se nesmí dozvědět o oznámení podezřelého obchodu "
        "ani o úkonech s ním spojených); čl. 23 odst. 1 písm. d) GDPR",
        "why_en": "AML Act 253/2008 Sb. §38 (confidentiality: the client must not learn of a suspicious-transaction "
        "report or the steps around it); GDPR art. 23(1)(d)",
    },
    {
        "what_cs": "poznámky pracovníků k identifikaci a k prohlášení o původu prostředků",
        "what_en": "staff notes on the identification and on the source-of-funds declarations",
        "why_cs": "mohou zaznamenávat podezření (zákon č. 253/2008 Sb. §38)",
        "why_en": "they may record a suspicion (AML Act 253/2008 Sb. §38)",
    },
    {
        "what_cs": "skóre podobnosti selfie a identifikátor kontroly u poskytovatele",
        "what_en": "the likeness score of the selfie and the provider's check id",
        "why_cs": "ochranné opatření identifikace (znalost skóre pomáhá kontrolu obejít); výsledek a důvody uvádíme",
        "why_en": "a safeguard of the identification (knowing the score helps to defeat the check); the outcome and "
        "the reasons are given",
    },
)


def export(player: Player) -> dict[str, Any]:
    """The aml part of the player's export (GP §12(7)a); nothing of another player, nothing the AML law withholds."""
    checks = []
    for c in IdentificationCheck.objects.filter(player=player).prefetch_related("images").order_by("created_at", "id"):
        checks.append(
            {
                "id": c.pk,
                "reference": c.reference,
                "provider": c.provider,
                "status": c.status,
                "document_type": c.document_type,
                "document_number": c.document_number,
                "document_issuing_state": c.document_issuing_state,
                "document_issuing_authority": c.document_issuing_authority,
                "document_valid_until": c.document_valid_until,
                "id_card_unavailable": c.id_card_unavailable,
                "created_at": c.created_at,
                "submitted_at": c.submitted_at,
                "answered_at": c.answered_at,
                "decided_at": c.decided_at,
                "provider_outcome": c.provider_outcome,
                "reasons": c.reasons,
                "extracted": c.extracted,
                "verified_by_the_bank": c.verified_claims,
                "images": [
                    {
                        "side": i.side,
                        "content_type": i.content_type,
                        "size": i.size,
                        "sha256": i.sha256,
                        "available": bool(i.file),
                        "download": IMAGE_PATH.format(id=c.pk, side=i.side) if i.file else None,
                    }
                    for i in sorted(c.images.all(), key=lambda i: (i.side, i.pk))
                ],
            }
        )
    profile = AmlProfile.objects.filter(player=player).first()
    return {
        "identifications": checks,
        "images_note_cs": "Snímky si stáhnete jednotlivě na uvedené adrese (přihlášeni ke svému kontu); po uplynutí "
        "lhůty uchování jsou smazány.",
        "images_note_en": "Download each image at the path given (signed in to your account); they are deleted when "
        "their retention period ends.",
        "pep_declarations": [
            {"is_pep": d.is_pep, "relation": d.relation, "position": d.position, "declared_at": d.declared_at}
            for d in PepDeclaration.objects.filter(player=player).order_by("declared_at", "id")
        ],
        "pep_claims": [
            {"source": c.source, "is_pep": c.is_pep, "recorded_at": c.recorded_at}
            for c in PepClaim.objects.filter(player=player).order_by("recorded_at", "id")
        ],
        "source_of_funds_declarations": [
            {
                "source": d.source,
                "description": d.description,
                "submitted_at": d.submitted_at,
                "deposits_total": d.deposits_total,
                "status": d.status,
                "reviewed_at": d.reviewed_at,
            }
            for d in SourceOfFundsDeclaration.objects.filter(player=player).order_by("submitted_at", "id")
        ],
        "source_of_funds_requirements": [
            {
                "triggered_at": r.triggered_at,
                "deposits_total": r.deposits_total,
                "threshold": r.threshold,
                "window_days": r.window_days,
                "status": r.status,
                "fulfilled_at": r.fulfilled_at,
            }
            for r in SourceOfFundsRequirement.objects.filter(player=player).order_by("triggered_at", "id")
        ],
        "screenings": [
            {
                "ran_at": s.ran_at,
                "trigger": s.trigger,
                "list": s.list_code,
                "list_version": s.list_version,
                "result": SCREENING_SHOWN.get(s.result, "review"),
            }
            for s in ScreeningRun.objects.filter(player=player).order_by("ran_at", "id")
        ],
        "last_screened_at": profile.last_screened_at if profile else None,
        "screening_note_cs": "Výsledek „review“ znamená možnou shodu se seznamem, kterou posuzuje compliance; "
        "podrobnosti zákon neumožňuje sdělit (viz withheld).",
        "screening_note_en": 'A result of "review" means a possible list match that compliance reviews; the law '
        "does not allow telling more (see withheld).",
    }


def _delete_files(images: list[IdentificationImage]) -> int:
    deleted = 0
    for img in images:
        if img.file:
            default_storage.delete(img.file.name)
            deleted += 1
    return deleted


def anonymise(*, player: Player, records: frozenset[str], actor: Actor, now: datetime) -> dict[str, dict[str, int]]:
    """Blank / delete the given aml records of one ended player (the retention job; idempotent)."""
    out: dict[str, dict[str, int]] = {}
    if "aml.identification" in records:
        checks = IdentificationCheck.objects.filter(player=player)
        images = list(IdentificationImage.objects.filter(identification__player=player))
        refs = list(checks.values_list("reference", flat=True))
        events = IdentificationEvent.objects.filter(identification__player=player)
        legacy = IdentificationEvent.objects.filter(identification__isnull=True, raw_body__gt="")
        legacy_rows = sum(legacy.filter(raw_body__contains=f'"{ref}"').update(raw_body="", detail="") for ref in refs)
        out["aml.identification"] = {
            "checks": checks.update(
                document_number="",
                document_issuing_state="",
                document_issuing_authority="",
                document_valid_until=PLACEHOLDER_DATE,
                extracted={},
                verified_claims={},
                note="",
                provider_check_id="",
                last_error="",
            ),
            "bankid_sign_ins": BankIdAuthorization.objects.filter(player=player).update(
                nonce="", code_verifier="", subject="", error_detail="", redirect_url=""
            ),
            "image_files_deleted": _delete_files(images),
            "images": IdentificationImage.objects.filter(pk__in=[i.pk for i in images]).update(file="", sha256=""),
            "events": events.update(raw_body="", detail="") + legacy_rows,
        }
    if "aml.declarations" in records:
        out["aml.declarations"] = {
            "pep_declarations": PepDeclaration.objects.filter(player=player).exclude(position="").update(position=""),
            "source_of_funds_declarations": SourceOfFundsDeclaration.objects.filter(player=player).update(
                description=PLACEHOLDER, review_note=""
            ),
        }
    if "aml.screening" in records:
        out["aml.screening"] = {
            "screening_runs": ScreeningRun.objects.filter(player=player).update(matches=[], error=""),
            "cases": ComplianceCase.objects.filter(player=player).update(
                summary=PLACEHOLDER, details={}, decision_note="", anchor=""
            ),
            "risk_assessments": RiskAssessment.objects.filter(player=player).update(factors=[]),
        }
    return out


CONTRACT = Contract(app="aml", records=RECORDS, export=export, anonymise=anonymise, withheld=WITHHELD)


def register() -> None:
    privacy_contract.register(CONTRACT)
