"""API shapes of complaints (player and staff report)."""

from __future__ import annotations

from django.utils import translation
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from complaints import texts
from complaints.models import Complaint, ComplaintAttachment, ComplaintItem, ComplaintMessage
from core.api_money import MoneyField, MoneyOutSerializer
from core.clock import business_date
from core.money import Money


def _lang() -> str:
    return "en" if (translation.get_language() or "cs")[:2] == "en" else "cs"


MoneySerializer = MoneyOutSerializer


class ComplaintFileSerializer(serializers.Serializer):
    """What the player sends (JSON, or multipart/form-data with ``attachments``)."""

    reason = serializers.ChoiceField(
        choices=Complaint.Reason.choices, help_text="win_not_credited makes it a win claim (1-year term, GP §10(2))"
    )
    description = serializers.CharField(max_length=5000, help_text="what happened (GP §11(4))")
    event_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        help_text="time of the bet or event; required unless rounds or "
        "transactions are named (their records then decide)",
    )
    remedy_requested = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
    remedy_amount_requested = MoneyField(
        required=False,
        allow_null=True,
        min_amount=1,
        max_amount=10**13,
        help_text='optional: a Money object {"amount": <haléře>, "currency": '
        '"CZK"}; in multipart/form-data the same object as JSON text',
    )
    rounds = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        required=False,
        default=list,
        max_length=50,
        help_text="ids of the player's own game rounds",
    )
    transactions = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        default=list,
        max_length=50,
        help_text="ids of the player's own ledger transactions",
    )
    attachments = serializers.ListField(
        child=serializers.FileField(),
        required=False,
        default=list,
        max_length=10,
        help_text="PDF, PNG or JPEG, max 5 MB each (multipart only)",
    )


class ComplaintFileFormSerializer(ComplaintFileSerializer):
    """The same filing as multipart/form-data (with ``attachments``): ``remedy_amount_requested`` as the JSON text of
    a Money object. A schema component of its own, so a generated client tells the two encodings apart."""


class ComplaintItemSerializer(serializers.ModelSerializer):
    kind = serializers.CharField(read_only=True, help_text="round | transaction")

    class Meta:
        model = ComplaintItem
        fields = ["kind", "object_id", "occurred_at", "late"]


class ComplaintAttachmentSerializer(serializers.ModelSerializer):
    name = serializers.CharField(source="original_name")

    class Meta:
        model = ComplaintAttachment
        fields = ["id", "name", "content_type", "size", "sha256", "uploaded_by_type", "uploaded_at"]


class ComplaintMessageSerializer(serializers.ModelSerializer):
    author_type = serializers.CharField(read_only=True, help_text="player | staff")

    class Meta:
        model = ComplaintMessage
        fields = ["id", "author_type", "text", "created_at"]


class ComplaintMessageCreateSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=5000)


class AttachmentUploadSerializer(serializers.Serializer):
    attachments = serializers.ListField(child=serializers.FileField(), min_length=1, max_length=10)


class OutOfCourtSerializer(serializers.Serializer):
    text = serializers.CharField()
    url = serializers.URLField()


class AnswerSerializer(serializers.Serializer):
    outcome = serializers.CharField()
    outcome_label = serializers.CharField()
    text = serializers.CharField()
    text_cs = serializers.CharField()
    text_en = serializers.CharField()
    answered_at = serializers.DateTimeField()
    remedy_amount = MoneySerializer(allow_null=True)
    remedy_text = serializers.CharField(allow_blank=True)
    out_of_court = OutOfCourtSerializer(help_text="ČOI, out-of-court resolution (GP §11(8))")


class ConfirmationSerializer(serializers.Serializer):
    reference = serializers.CharField()
    received_at = serializers.DateTimeField()
    received_on = serializers.DateField()
    respond_by_date = serializers.DateField(help_text="the answer is due by the end of this day (Europe/Prague)")
    next_steps = serializers.ListField(child=serializers.CharField())
    text_cs = serializers.CharField()
    text_en = serializers.CharField()


def _values(choices) -> str:
    return " | ".join(v for v in choices.values if v)


# Plain strings (listing their values) rather than enums: the enum names would collide in the OpenAPI schema with
# other apps' "kind"/"status" enums (drf-spectacular warns, and the schema must validate with --fail-on-warn).
class _ChoiceStrings(serializers.Serializer):
    kind = serializers.CharField(read_only=True, help_text=_values(Complaint.Kind))
    reason = serializers.CharField(read_only=True, help_text=_values(Complaint.Reason))
    channel = serializers.CharField(read_only=True, help_text=_values(Complaint.Channel))
    status = serializers.CharField(read_only=True, help_text=_values(Complaint.Status))
    outcome = serializers.CharField(read_only=True, help_text=_values(Complaint.Outcome) + " (empty while open)")
    language = serializers.CharField(read_only=True, help_text="cs | en")


class ComplaintSerializer(_ChoiceStrings, serializers.ModelSerializer):
    reason_label = serializers.SerializerMethodField()
    status_label = serializers.SerializerMethodField()
    remedy_amount_requested = serializers.SerializerMethodField()
    items = ComplaintItemSerializer(many=True, read_only=True)
    attachments = ComplaintAttachmentSerializer(many=True, read_only=True)
    messages = ComplaintMessageSerializer(many=True, read_only=True)
    answer = serializers.SerializerMethodField()
    confirmation = serializers.SerializerMethodField()

    class Meta:
        model = Complaint
        fields = [
            "reference",
            "kind",
            "reason",
            "reason_label",
            "channel",
            "status",
            "status_label",
            "outcome",
            "language",
            "event_at",
            "event_at_stated",
            "event_at_from_records",
            "description",
            "remedy_requested",
            "remedy_amount_requested",
            "received_at",
            "filing_deadline",
            "late",
            "respond_by_date",
            "respond_by",
            "items",
            "attachments",
            "messages",
            "answer",
            "confirmation",
        ]

    def get_reason_label(self, c) -> str:
        return texts.label(texts.REASONS, c.reason, _lang())

    def get_status_label(self, c) -> str:
        return texts.label(texts.STATUSES, c.status, _lang())

    @extend_schema_field(MoneySerializer(allow_null=True))
    def get_remedy_amount_requested(self, c):
        return Money(c.remedy_amount_requested, c.currency).to_json() if c.remedy_amount_requested else None

    @extend_schema_field(AnswerSerializer(allow_null=True))
    def get_answer(self, c):
        if c.status != Complaint.Status.RESOLVED:
            return None
        lang = _lang()
        return {
            "outcome": c.outcome,
            "outcome_label": texts.label(texts.OUTCOMES, c.outcome, lang),
            "text": texts.answer("en" if lang == "en" else "cs", c=c)[1],
            "text_cs": texts.answer("cs", c=c)[1],
            "text_en": texts.answer("en", c=c)[1],
            "answered_at": c.answered_at,
            "remedy_amount": Money(c.remedy_amount, c.currency).to_json() if c.remedy_amount else None,
            "remedy_text": c.remedy_text,
            "out_of_court": {"text": texts.COI_NOTICE[lang], "url": texts.COI_URL},
        }

    @extend_schema_field(ConfirmationSerializer)
    def get_confirmation(self, c):
        lang = _lang()
        return {
            "reference": c.reference,
            "received_at": c.received_at,
            "received_on": business_date(c.received_at),
            "respond_by_date": c.respond_by_date,
            "next_steps": texts.next_steps(c, lang),
            "text_cs": texts.confirmation("cs", c=c)[1],
            "text_en": texts.confirmation("en", c=c)[1],
        }


class ComplaintListSerializer(_ChoiceStrings, serializers.ModelSerializer):
    status_label = serializers.SerializerMethodField()

    class Meta:
        model = Complaint
        fields = [
            "reference",
            "kind",
            "reason",
            "status",
            "status_label",
            "outcome",
            "received_at",
            "respond_by_date",
            "late",
        ]

    def get_status_label(self, c) -> str:
        return texts.label(texts.STATUSES, c.status, _lang())


class ReportSerializer(serializers.Serializer):
    """The monthly report (see complaints.selectors.complaints_report)."""

    month = serializers.CharField()
    period = serializers.DictField()
    generated_at = serializers.DateTimeField()
    received = serializers.IntegerField()
    open = serializers.IntegerField()
    late_filed = serializers.IntegerField()
    by_reason = serializers.DictField(child=serializers.IntegerField())
    by_outcome = serializers.DictField(child=serializers.IntegerField())
    by_kind = serializers.DictField(child=serializers.IntegerField())
    by_channel = serializers.DictField(child=serializers.IntegerField())
    reason_by_outcome = serializers.DictField(child=serializers.DictField(child=serializers.IntegerField()))
    time_to_answer = serializers.DictField()
    overdue = serializers.IntegerField()
    overdue_answered_late = serializers.IntegerField()
    overdue_open_now = serializers.IntegerField()
