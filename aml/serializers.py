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
        required=False, default=False,
        help_text="a Czech citizen showing a passport or a driving licence: the identity card cannot be shown")
    front = serializers.FileField(help_text="the document's front side (JPEG or PNG)")
    back = serializers.FileField(required=False, help_text="the back side (JPEG or PNG; not needed for a passport)")
    selfie = serializers.FileField(help_text="a photo of the applicant's face (liveness reference), JPEG or PNG")


class IdentificationSerializer(serializers.ModelSerializer[IdentificationCheck]):
    class Meta:
        model = IdentificationCheck
        fields = ["id", "status", "document_type", "document_issuing_state", "document_valid_until",
                  "id_card_unavailable", "created_at",
                  "submitted_at", "answered_at", "decided_at"]
        read_only_fields = fields


class StaffIdentificationSerializer(serializers.ModelSerializer[IdentificationCheck]):
    username = serializers.CharField(source="player.user.username", read_only=True)

    class Meta:
        model = IdentificationCheck
        fields = ["id", "player", "username", "status", "provider", "reference", "provider_check_id",
                  "document_type", "document_number", "document_issuing_state", "document_issuing_authority",
                  "document_valid_until", "id_card_unavailable", "created_at", "submitted_at", "answered_at",
                  "provider_outcome", "score",
                  "reasons", "extracted", "attempts", "last_error", "decided_at", "decided_by", "note"]
        read_only_fields = fields


class ReviewSerializer(serializers.Serializer[dict[str, Any]]):
    approve = serializers.BooleanField()
    note = serializers.CharField(max_length=300)


class AmlCallbackResultSerializer(serializers.Serializer[dict[str, Any]]):
    status = serializers.CharField(help_text="processed, or duplicate (a repeated event: nothing changed)")
    event_id = serializers.CharField()
    result = serializers.CharField()


# PEP ----------------------------------------------------------------------------------------------------------------

class PepDeclareSerializer(serializers.Serializer[dict[str, Any]]):
    relation = serializers.ChoiceField(choices=PepDeclaration.Relation.choices,
                                       help_text="none = I am not a politically exposed person")
    position = serializers.CharField(max_length=200, required=False, allow_blank=True,
                                     help_text="the public function concerned (required unless relation is none)")


class PepDeclarationSerializer(serializers.ModelSerializer[PepDeclaration]):
    class Meta:
        model = PepDeclaration
        fields = ["id", "is_pep", "relation", "position", "declared_at"]
        read_only_fields = fields


# Source of funds ---------------------------------------------------------------------------------------------------

class SofDeclareSerializer(serializers.Serializer[dict[str, Any]]):
    # the API field is "source", as in the declaration it creates (a Serializer's own ``source`` is unused here)
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
        fields = ["id", "player", "username", "source", "description", "submitted_at", "deposits_total", "status",
                  "reviewed_at", "reviewed_by", "review_note"]
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


class RefusalsSerializer(serializers.Serializer[dict[str, Any]]):
    deposit = serializers.CharField(allow_null=True)
    withdrawal = serializers.CharField(allow_null=True)
    completion = serializers.CharField(allow_null=True)
    stake = serializers.CharField(allow_null=True, help_text="a real-money stake (the AML duties only; the limits "
                                                              "and the account state refuse more)")


class AmlStatusSerializer(serializers.Serializer[dict[str, Any]]):
    identified = serializers.BooleanField()
    identified_at = serializers.DateTimeField(allow_null=True)
    identification = IdentificationBriefSerializer(allow_null=True)
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


class CaseSerializer(serializers.ModelSerializer[ComplianceCase]):
    username = serializers.CharField(source="player.user.username", read_only=True)
    kind = serializers.CharField(read_only=True, help_text="pep_declared, screening_hit or suspicious (a rule)")
    holds = CaseHoldSerializer(many=True, read_only=True)

    class Meta:
        model = ComplianceCase
        fields = ["id", "player", "username", "kind", "rule", "status", "blocking", "opened_at", "window_start",
                  "window_end", "anchor", "summary", "details", "decided_at", "decided_by", "decision_note", "holds"]
        read_only_fields = fields


class CaseDecideSerializer(serializers.Serializer[dict[str, Any]]):
    decision = serializers.ChoiceField(choices=[ComplianceCase.Status.CLEARED, ComplianceCase.Status.CONFIRMED])
    note = serializers.CharField(max_length=500)


class CaseHoldCreateSerializer(serializers.Serializer[dict[str, Any]]):
    win_reference = serializers.CharField(max_length=160)
    reason = serializers.ChoiceField(choices=["regularity", "aml"])
    note = serializers.CharField(max_length=255)
