"""AML API serializers. Amounts come out as ``{"amount": <haléře>, "currency": "CZK", "formatted": "..."}``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import PersonalData
from aml.models import (
    CaseHold,
    ComplianceCase,
    IdentificationCheck,
    PepDeclaration,
    ScreeningListVersion,
    SourceOfFundsDeclaration,
)
from core.money import Money


class AmlMoneySerializer(serializers.Serializer[Money]):
    amount = serializers.IntegerField(help_text="minor units (haléře)")
    currency = serializers.CharField()
    formatted = serializers.CharField()


@extend_schema_field(AmlMoneySerializer)
class MoneyOutField(serializers.Field[Money, Any, dict[str, Any], Any]):
    def __init__(self, **kw: Any) -> None:
        kw.setdefault("read_only", True)
        super().__init__(**kw)

    def to_representation(self, value: Money | int) -> dict[str, Any]:
        return (value if isinstance(value, Money) else Money(int(value))).to_json()


# Identification ----------------------------------------------------------------------------------------------------


class IdentificationStartSerializer(serializers.Serializer[dict[str, Any]]):
    document_type = serializers.ChoiceField(choices=PersonalData.DocumentType.choices)
    document_number = serializers.CharField(max_length=30)
    document_issuing_state = serializers.CharField(max_length=2, help_text="ISO 3166-1 alpha-2")
    document_issuing_authority = serializers.CharField(max_length=100)
    document_valid_until = serializers.DateField()
    id_card_unavailable = serializers.BooleanField(
        required=False,
        default=False,
        help_text="a Czech citizen showing a passport or a driving licence: the identity card cannot be shown",
    )
    front = serializers.FileField(help_text="the document's front side (JPEG or PNG)")
    back = serializers.FileField(required=False, help_text="the back side (JPEG or PNG; not needed for a passport)")
    selfie = serializers.FileField(help_text="a photo of the applicant's face (liveness reference), JPEG or PNG")


class IdentificationSerializer(serializers.ModelSerializer[IdentificationCheck]):
    class Meta:
        model = IdentificationCheck
        fields = [
            "id",
            "status",
            "provider",
            "document_type",
            "document_issuing_state",
            "document_valid_until",
            "id_card_unavailable",
            "created_at",
            "submitted_at",
            "answered_at",
            "decided_at",
        ]
        read_only_fields = fields


class StaffIdentificationSerializer(serializers.ModelSerializer[IdentificationCheck]):
    username = serializers.CharField(source="player.user.username", read_only=True)

    class Meta:
        model = IdentificationCheck
        fields = [
            "id",
            "player",
            "username",
            "status",
            "provider",
            "reference",
            "provider_check_id",
            "document_type",
            "document_number",
            "document_issuing_state",
            "document_issuing_authority",
            "document_valid_until",
            "id_card_unavailable",
            "created_at",
            "submitted_at",
            "answered_at",
            "provider_outcome",
            "score",
            "reasons",
            "extracted",
            "verified_claims",
            "attempts",
            "last_error",
            "decided_at",
            "decided_by",
            "note",
        ]
        read_only_fields = fields


class BankIdStartSerializer(serializers.Serializer[dict[str, Any]]):
    redirect_url = serializers.CharField(
        max_length=500,
        help_text="where the bank sends the player back: one of the player app's addresses "
        "registered with Bank iD (AML_BANKID_REDIRECT_URLS), exactly",
    )


class BankIdStartedSerializer(serializers.Serializer[dict[str, Any]]):
    authorization_url = serializers.CharField(help_text="send the player's browser here (the bank's sign-in)")
    redirect_url = serializers.CharField()
    expires_at = serializers.DateTimeField(help_text="the sign-in must come back before this instant")


class BankIdCallbackSerializer(serializers.Serializer[dict[str, Any]]):
    state = serializers.CharField(max_length=200, help_text="the state the bank sent back, unchanged")
    code = serializers.CharField(
        max_length=2000, required=False, allow_blank=True, help_text="the authorization code the bank sent back"
    )
    error = serializers.CharField(
        max_length=200,
        required=False,
        allow_blank=True,
        help_text="the bank's error instead of a code (e.g. access_denied)",
    )
    error_description = serializers.CharField(max_length=500, required=False, allow_blank=True)


class ReviewSerializer(serializers.Serializer[dict[str, Any]]):
    approve = serializers.BooleanField()
    note = serializers.CharField(max_length=300)


class AmlCallbackResultSerializer(serializers.Serializer[dict[str, Any]]):
    status = serializers.CharField(help_text="processed, or duplicate (a repeated event: nothing changed)")
    event_id = serializers.CharField()
    result = serializers.CharField()


# PEP ----------------------------------------------------------------------------------------------------------------


class PepDeclareSerializer(serializers.Serializer[dict[str, Any]]):
    relation = serializers.ChoiceField(
        choices=PepDeclaration.Relation.choices, help_text="none = I am not a politically exposed person"
    )
    position = serializers.CharField(
        max_length=200,
        required=False,
        allow_blank=True,
        help_text="the public function concerned (required unless relation is none)",
    )


class PepDeclarationSerializer(serializers.ModelSerializer[PepDeclaration]):
    class Meta:
        model = PepDeclaration
        fields = ["id", "is_pep", "relation", "position", "declared_at"]
        read_only_fields = fields


# Source of funds ---------------------------------------------------------------------------------------------------


class SofDeclareSerializer(serializers.Serializer[dict[str, Any]]):
    # the API field is "source", as in the declaration it creates (a Serializer's own ``source`` is unused here)
    # the type: ignore below: the API field shadows Field.source
    source = serializers.ChoiceField(choices=SourceOfFundsDeclaration.Source.choices)  # type: ignore[assignment]
    description = serializers.CharField(max_length=2000)


class SofDeclarationSerializer(serializers.ModelSerializer[SourceOfFundsDeclaration]):
    deposits_total = MoneyOutField()

    class Meta:
        model = SourceOfFundsDeclaration
        fields = ["id", "source", "description", "submitted_at", "deposits_total", "status", "reviewed_at"]
        read_only_fields = fields


class SofSummarySerializer(serializers.Serializer[dict[str, Any]]):
    declaration_required = serializers.BooleanField()
    deposits_total = MoneyOutField()
    threshold = MoneyOutField()
    window_days = serializers.IntegerField()
    latest = SofDeclarationSerializer(allow_null=True)


class StaffSofSerializer(serializers.ModelSerializer[SourceOfFundsDeclaration]):
    username = serializers.CharField(source="player.user.username", read_only=True)
    deposits_total = MoneyOutField()

    class Meta:
        model = SourceOfFundsDeclaration
        fields = [
            "id",
            "player",
            "username",
            "source",
            "description",
            "submitted_at",
            "deposits_total",
            "status",
            "reviewed_at",
            "reviewed_by",
            "review_note",
        ]
        read_only_fields = fields


class SofReviewSerializer(serializers.Serializer[dict[str, Any]]):
    accept = serializers.BooleanField()
    note = serializers.CharField(max_length=500)


# Status -------------------------------------------------------------------------------------------------------------


class IdentificationBriefSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    status = serializers.CharField()
    created_at = serializers.DateTimeField()


class SofBriefSerializer(serializers.Serializer[dict[str, Any]]):
    declaration_required = serializers.BooleanField()
    deposits_total = MoneyOutField()
    threshold = MoneyOutField()
    window_days = serializers.IntegerField()


class IdentificationAttemptsSerializer(serializers.Serializer[dict[str, Any]]):
    max_per_day = serializers.IntegerField(help_text="attempts allowed in any rolling 24 hours")
    used_last_24h = serializers.IntegerField(
        help_text="attempts started in the last 24 hours (a check the provider never answered does not count)"
    )
    blocked = serializers.BooleanField(help_text="the attempts are used up: no new one until staff allow it")


class StaffIdentificationAttemptsSerializer(IdentificationAttemptsSerializer):
    player_id = serializers.IntegerField()
    counted_from = serializers.DateTimeField(
        allow_null=True, help_text="staff last allowed new attempts then (earlier ones no longer count)"
    )


class AttemptsAllowSerializer(serializers.Serializer[dict[str, Any]]):
    note = serializers.CharField(max_length=300, help_text="what staff reviewed (required, audited)")


class RefusalsSerializer(serializers.Serializer[dict[str, Any]]):
    deposit = serializers.CharField(allow_null=True)
    withdrawal = serializers.CharField(allow_null=True)
    completion = serializers.CharField(allow_null=True)
    stake = serializers.CharField(
        allow_null=True,
        help_text="a real-money stake (the AML duties only; the limits and the account state refuse more)",
    )


class AmlStatusSerializer(serializers.Serializer[dict[str, Any]]):
    identified = serializers.BooleanField()
    identified_at = serializers.DateTimeField(allow_null=True)
    identification = IdentificationBriefSerializer(allow_null=True)
    identification_attempts = IdentificationAttemptsSerializer()
    pep_declared = serializers.BooleanField()
    pep_declared_at = serializers.DateTimeField(allow_null=True)
    screened = serializers.BooleanField()
    source_of_funds = SofBriefSerializer()
    refusals = RefusalsSerializer(help_text="the error code each operation would be refused with now, or null")


# Cases (staff) ------------------------------------------------------------------------------------------------------


class CaseHoldSerializer(serializers.ModelSerializer[CaseHold]):
    class Meta:
        model = CaseHold
        fields = ["id", "win_reference", "reason", "hold_id", "placed_at", "placed_by"]
        read_only_fields = fields


class ScreeningHitSerializer(serializers.Serializer[dict[str, Any]]):
    score = serializers.FloatField(help_text="name score 0-100 (aml/matching.py); at least the threshold")
    matched_name = serializers.CharField(help_text="the list's spelling (name or alias) that scored")
    list = serializers.CharField(help_text="sanctions or pep")
    # the type: ignore below: the API field shadows Field.source
    source = serializers.CharField(help_text="eu, un, cz, pep (imported lists) or sandbox")  # type: ignore[assignment]
    reference = serializers.CharField(help_text="the entry's reference on its list")
    programme = serializers.CharField(help_text="the sanctions programme / regime (EU regulation programme, UN list)")
    name = serializers.CharField(help_text="the entry's primary name")
    date_of_birth = serializers.CharField(help_text="the entry's birth dates (YYYY-MM-DD, YYYY, YYYY/YYYY ...)")
    entry_id = serializers.CharField()
    list_version_id = serializers.IntegerField(allow_null=True)
    list_entry_id = serializers.IntegerField(allow_null=True)


class CaseSerializer(serializers.ModelSerializer[ComplianceCase]):
    username = serializers.CharField(source="player.user.username", read_only=True)
    kind = serializers.CharField(
        read_only=True, help_text="pep_declared, pep_claimed, screening_hit or suspicious (a rule)"
    )
    holds = CaseHoldSerializer(many=True, read_only=True)
    screening_hit = serializers.SerializerMethodField(help_text="for a screening_hit: the list entry matched")

    class Meta:
        model = ComplianceCase
        fields = [
            "id",
            "player",
            "username",
            "kind",
            "rule",
            "status",
            "blocking",
            "opened_at",
            "window_start",
            "window_end",
            "anchor",
            "summary",
            "details",
            "screening_hit",
            "decided_at",
            "decided_by",
            "decision_note",
            "holds",
        ]
        read_only_fields = fields

    @extend_schema_field(ScreeningHitSerializer(allow_null=True))
    def get_screening_hit(self, case: ComplianceCase) -> dict[str, Any] | None:
        match = (case.details or {}).get("match") if case.kind == ComplianceCase.Kind.SCREENING_HIT else None
        if not isinstance(match, dict):
            return None
        return ScreeningHitSerializer(
            {
                "score": float(match.get("score", 100.0)),
                "matched_name": str(match.get("matched_name") or match.get("name", "")),
                "list": str(match.get("list", "")),
                "source": str(match.get("source", "")),
                "reference": str(match.get("reference") or match.get("entry_id", "")),
                "programme": str(match.get("programme", "")),
                "name": str(match.get("name", "")),
                "date_of_birth": str(match.get("date_of_birth", "")),
                "entry_id": str(match.get("entry_id", "")),
                "list_version_id": match.get("list_version_id"),
                "list_entry_id": match.get("list_entry_id"),
            }
        ).data


class CaseDecideSerializer(serializers.Serializer[dict[str, Any]]):
    decision = serializers.ChoiceField(choices=[ComplianceCase.Status.CLEARED, ComplianceCase.Status.CONFIRMED])
    note = serializers.CharField(max_length=500)


class CaseHoldCreateSerializer(serializers.Serializer[dict[str, Any]]):
    win_reference = serializers.CharField(max_length=160)
    reason = serializers.ChoiceField(choices=["regularity", "aml"])
    note = serializers.CharField(max_length=255)


# Screening lists (staff) ---------------------------------------------------------------------------------------------


class ScreeningListVersionSerializer(serializers.ModelSerializer[ScreeningListVersion]):
    class Meta:
        model = ScreeningListVersion
        fields = [
            "id",
            "source",
            "published_at",
            "sha256",
            "file_name",
            "size",
            "entry_count",
            "person_count",
            "name_count",
            "imported_at",
            "imported_by",
        ]
        read_only_fields = fields


class ScreeningListImportSerializer(serializers.Serializer[dict[str, Any]]):
    # the API field is "source", as in the version it creates (a Serializer's own ``source`` is unused here)
    # the type: ignore below: the API field shadows Field.source
    source = serializers.ChoiceField(choices=ScreeningListVersion.Source.choices)  # type: ignore[assignment]
    file = serializers.FileField(
        help_text="the list file as downloaded (EU FSF XML, UN XML, national list XML in "
        "our layout, PEP list CSV): docs/aml.md"
    )
    published = serializers.DateField(required=False, help_text="for a file that states no publication date (pep)")


class ScreeningListImportResultSerializer(serializers.Serializer[dict[str, Any]]):
    created = serializers.BooleanField(help_text="false: this file was imported before; nothing changed")
    version = ScreeningListVersionSerializer()
