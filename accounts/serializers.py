"""Request/response shapes of the accounts API (drf-spectacular reads them)."""
from rest_framework import serializers

from accounts.models import Consent, CorrectionRequest, LoginSession, Player
from accounts.validation import DOCUMENT_TYPES


class PersonalDataInSerializer(serializers.Serializer):
    """GP §4(4)a: personal data required by ZHH and by the AML law."""

    given_names = serializers.CharField(max_length=100)
    surname = serializers.CharField(max_length=100)
    birth_surname = serializers.CharField(max_length=100, required=False, allow_blank=True)
    birth_number = serializers.CharField(max_length=11, required=False, allow_blank=True,
                                         help_text="rodné číslo (with or without '/'); foreigners only if assigned")
    date_of_birth = serializers.DateField()
    place_of_birth = serializers.CharField(max_length=100)
    sex = serializers.ChoiceField(choices=["M", "F"])
    citizenship = serializers.CharField(max_length=2, help_text="ISO 3166-1 alpha-2, e.g. CZ")
    residence_street = serializers.CharField(max_length=200, help_text="street and house number")
    residence_city = serializers.CharField(max_length=100)
    residence_postal_code = serializers.CharField(max_length=6, help_text="PSČ, e.g. 110 00")
    residence_country = serializers.CharField(max_length=2, required=False, default="CZ")
    correspondence_address = serializers.CharField(max_length=300, required=False, allow_blank=True)
    phone = serializers.CharField(max_length=20, help_text="E.164, e.g. +420731000001")
    email = serializers.CharField(max_length=254)
    data_box_id = serializers.CharField(max_length=7, required=False, allow_blank=True)
    document_type = serializers.ChoiceField(choices=list(DOCUMENT_TYPES))
    document_number = serializers.CharField(max_length=30)
    document_issuing_state = serializers.CharField(max_length=2)
    document_issuing_authority = serializers.CharField(max_length=100)
    document_valid_until = serializers.DateField()


class ConsentsInSerializer(serializers.Serializer):
    """GP §4(4)d: the versions of the documents accepted (current versions: GET registration/documents/)."""

    terms = serializers.CharField(max_length=30)
    data_processing = serializers.CharField(max_length=30)
    game_plan = serializers.CharField(max_length=30)
    marketing = serializers.BooleanField(required=False, default=False)


class RegistrationInSerializer(PersonalDataInSerializer):
    username = serializers.CharField(max_length=30)
    consents = ConsentsInSerializer()


class RegistrationOutSerializer(serializers.Serializer):
    username = serializers.CharField()
    status = serializers.ChoiceField(choices=Player.Status.choices)
    checks_pending = serializers.BooleanField()
    temporary_expires_at = serializers.DateTimeField(allow_null=True)
    next_step_cs = serializers.CharField()
    next_step_en = serializers.CharField()


class DocumentsOutSerializer(serializers.Serializer):
    terms = serializers.CharField()
    data_processing = serializers.CharField()
    game_plan = serializers.CharField()
    marketing = serializers.CharField()


class TokenInSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=500)


class ConfirmOutSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["password_sent", "already_confirmed"])
    phone = serializers.CharField(help_text="masked phone number the SMS went to")


class ResendInSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    email = serializers.CharField(max_length=254)


class AcceptedSerializer(serializers.Serializer):
    status = serializers.CharField()


class StepSerializer(serializers.Serializer):
    code = serializers.CharField()
    done = serializers.BooleanField()
    title_cs = serializers.CharField()
    title_en = serializers.CharField()
    deadline = serializers.DateTimeField(allow_null=True)


class StepsOutSerializer(serializers.Serializer):
    status = serializers.CharField()
    temporary_activated_at = serializers.DateTimeField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True, help_text="temporary account ends (GP §5(2)a)")
    seconds_left = serializers.IntegerField(allow_null=True)
    steps = StepSerializer(many=True)
    missing = serializers.ListField(child=serializers.CharField())
    complete = serializers.BooleanField()
    can_complete = serializers.BooleanField()
    checks_pending = serializers.BooleanField()


class StatusOutSerializer(serializers.Serializer):
    status = serializers.CharField()


class LoginInSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=200, trim_whitespace=False)


class LoginOutSerializer(serializers.Serializer):
    token = serializers.CharField()
    session_id = serializers.IntegerField()
    must_change_password = serializers.BooleanField()
    status = serializers.CharField()
    idle_timeout_minutes = serializers.IntegerField()


class PasswordChangeInSerializer(serializers.Serializer):
    old_password = serializers.CharField(max_length=200, trim_whitespace=False)
    new_password = serializers.CharField(max_length=200, trim_whitespace=False)


class LoginSessionSerializer(serializers.ModelSerializer):
    class Meta:
        model = LoginSession
        fields = ["id", "started_at", "last_seen_at", "ended_at", "end_reason", "ip_address", "user_agent"]


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    status = serializers.CharField()
    status_reason = serializers.CharField()
    given_names = serializers.CharField(allow_null=True)
    surname = serializers.CharField(allow_null=True)
    email = serializers.CharField(allow_null=True)
    phone = serializers.CharField(allow_null=True)
    temporary_expires_at = serializers.DateTimeField(allow_null=True)
    completed_at = serializers.DateTimeField(allow_null=True)
    must_change_password = serializers.BooleanField()
    marketing_consent = serializers.BooleanField()
    betting_refusal = serializers.CharField(allow_null=True, help_text="error code, when betting is refused now")


class ConsentSerializer(serializers.ModelSerializer):
    class Meta:
        model = Consent
        fields = ["id", "kind", "version", "given_at", "withdrawn_at"]


class ConsentInSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Consent.Kind.choices)
    version = serializers.CharField(max_length=30)


class ConsentWithdrawInSerializer(serializers.Serializer):
    settlement = serializers.ChoiceField(choices=Player.ClosureMethod.choices, required=False,
                                         help_text="required when withdrawing a mandatory consent (GP §12(6))")


class CorrectionInSerializer(serializers.Serializer):
    changes = serializers.DictField(child=serializers.CharField(max_length=300, allow_blank=True),
                                    help_text="{field: corrected value}, fields as in registration")
    note = serializers.CharField(max_length=500, required=False, allow_blank=True)


class CorrectionSerializer(serializers.ModelSerializer):
    class Meta:
        model = CorrectionRequest
        fields = ["id", "changes", "note", "state", "created_at", "decided_at", "decision_note"]


class ClosureInSerializer(serializers.Serializer):
    settlement = serializers.ChoiceField(choices=Player.ClosureMethod.choices)


class ClosureOutSerializer(serializers.Serializer):
    status = serializers.CharField()
    closure_method = serializers.CharField()
    closure_requested_at = serializers.DateTimeField(allow_null=True)
