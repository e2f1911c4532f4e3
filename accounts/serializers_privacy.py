"""Request/response shapes of the personal-data requests and the privacy notice (GP §12(7)).

``kind`` and ``state`` are plain strings in the schema (their values are listed): an enum of their own would collide
with the consents' ``kind`` and the corrections' ``state``."""

from django.utils import translation
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import DataRequest


def _english() -> bool:
    return (translation.get_language() or "cs")[:2] == "en"


class DataRequestInSerializer(serializers.Serializer):
    kind = serializers.CharField(max_length=20, help_text="one of: " + ", ".join(DataRequest.Kind.values))
    text = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=2000,
        help_text="what to explain, or why (required for an explanation)",
    )


class DataRequestSerializer(serializers.ModelSerializer):
    kind = serializers.CharField(help_text="one of: " + ", ".join(DataRequest.Kind.values))
    state = serializers.CharField(help_text="one of: " + ", ".join(DataRequest.State.values))
    answer = serializers.SerializerMethodField(help_text="in the request's language (Accept-Language)")
    in_force = serializers.SerializerMethodField(help_text="a blocking in force now (GDPR art. 18)")

    class Meta:
        model = DataRequest
        fields = [
            "id",
            "kind",
            "state",
            "text",
            "received_at",
            "due_at",
            "decided_at",
            "answer",
            "answer_cs",
            "answer_en",
            "legal_basis",
            "erase_on",
            "ended_at",
            "in_force",
        ]

    @extend_schema_field(serializers.CharField())
    def get_answer(self, obj: DataRequest) -> str:
        return obj.answer_en if _english() else obj.answer_cs

    @extend_schema_field(serializers.BooleanField())
    def get_in_force(self, obj: DataRequest) -> bool:
        return obj.kind == DataRequest.Kind.BLOCKING and obj.state in (
            DataRequest.State.PENDING,
            DataRequest.State.GRANTED,
        )


class PurposeSerializer(serializers.Serializer):
    code = serializers.CharField()
    mandatory = serializers.BooleanField()
    basis_cs = serializers.CharField()
    basis_en = serializers.CharField()
    text_cs = serializers.CharField()
    text_en = serializers.CharField()


class RetentionSerializer(serializers.Serializer):
    code = serializers.CharField()
    years = serializers.IntegerField()
    counted_from = serializers.CharField(help_text="relationship_end | accounting_period_end")
    setting = serializers.CharField()
    records_cs = serializers.CharField()
    records_en = serializers.CharField()
    source_cs = serializers.CharField()
    source_en = serializers.CharField()


class RightSerializer(serializers.Serializer):
    code = serializers.CharField()
    rule = serializers.CharField()
    how = serializers.CharField()
    text_cs = serializers.CharField()
    text_en = serializers.CharField()


class AuthoritySerializer(serializers.Serializer):
    name_cs = serializers.CharField()
    name_en = serializers.CharField()
    address = serializers.CharField()
    web = serializers.CharField()


class RecordRetentionSerializer(serializers.Serializer):
    app = serializers.CharField()
    record = serializers.CharField()
    models = serializers.ListField(child=serializers.CharField())
    periods = serializers.ListField(child=serializers.CharField(), help_text="retention period codes")
    years = serializers.IntegerField(help_text="the longest of its periods")
    sources_cs = serializers.ListField(child=serializers.CharField())
    sources_en = serializers.ListField(child=serializers.CharField())
    what_cs = serializers.CharField()
    what_en = serializers.CharField()
    erased_cs = serializers.CharField()
    erased_en = serializers.CharField()
    kept_cs = serializers.CharField(allow_blank=True)
    kept_en = serializers.CharField(allow_blank=True)


class RecipientSerializer(serializers.Serializer):
    code = serializers.CharField()
    role = serializers.CharField(help_text="processor | controller | authority")
    name = serializers.CharField()
    purpose_cs = serializers.CharField()
    purpose_en = serializers.CharField()
    records = serializers.ListField(child=serializers.CharField(), help_text="record codes it receives")
    notify = serializers.BooleanField(help_text="told of corrections and erasures (GDPR art. 19)")


class PrivacyNoticeSerializer(serializers.Serializer):
    """GP §12(3) purposes, §12(5) retention, §12(7) rights and the data-protection authority."""

    purposes = PurposeSerializer(many=True)
    retention = RetentionSerializer(many=True)
    retention_note_cs = serializers.CharField()
    retention_note_en = serializers.CharField()
    records = RecordRetentionSerializer(many=True)
    recipients = RecipientSerializer(many=True)
    recipients_note_cs = serializers.CharField()
    recipients_note_en = serializers.CharField()
    rights = RightSerializer(many=True)
    answer_within_months = serializers.IntegerField()
    blocking_effect_cs = serializers.CharField()
    blocking_effect_en = serializers.CharField()
    authority = AuthoritySerializer()
    authority_notice_cs = serializers.CharField()
    authority_notice_en = serializers.CharField()
    contact = serializers.CharField()
