"""Request/response shapes of the accounts API (drf-spectacular reads them)."""

from django.utils import translation
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import Consent, CorrectionRequest, LoginSession, Message, Player, TermsAcceptance, TermsVersion
from accounts.validation import DOCUMENT_TYPES
from core.api_money import MoneyOutField

DB_INT_MAX = 2**31 - 1


class PersonalDataInSerializer(serializers.Serializer):
    """GP §4(4)a: personal data required by ZHH and by the AML law."""

    given_names = serializers.CharField(max_length=100)
    surname = serializers.CharField(max_length=100)
    birth_surname = serializers.CharField(max_length=100, required=False, allow_blank=True)
    birth_number = serializers.CharField(
        max_length=11,
        required=False,
        allow_blank=True,
        help_text="rodné číslo (with or without '/'); foreigners only if assigned",
    )
    date_of_birth = serializers.DateField()
    place_of_birth = serializers.CharField(max_length=100)
    sex = serializers.ChoiceField(choices=["M", "F"])
    citizenship = serializers.CharField(max_length=2, help_text="ISO 3166-1 alpha-2, e.g. CZ")
    residence_street = serializers.CharField(max_length=200, help_text="street and house number")
    residence_city = serializers.CharField(max_length=100)
    residence_postal_code = serializers.CharField(max_length=6, help_text="PSČ, e.g. 110 00")
    residence_country = serializers.CharField(max_length=2, required=False, default="CZ")
    permanent_residence_street = serializers.CharField(
        max_length=200,
        required=False,
        allow_blank=True,
        help_text="permanent residence (trvalý pobyt, AML law), when it differs from the residence; street and number",
    )
    permanent_residence_city = serializers.CharField(max_length=100, required=False, allow_blank=True)
    permanent_residence_postal_code = serializers.CharField(
        max_length=12, required=False, allow_blank=True, help_text="PSČ in the Czech Republic, else that country's"
    )
    permanent_residence_country = serializers.CharField(
        max_length=2,
        required=False,
        allow_blank=True,
        help_text="ISO 3166-1 alpha-2; leave all four permanent_residence_* empty when it is the residence",
    )
    correspondence_address = serializers.CharField(max_length=300, required=False, allow_blank=True)
    phone = serializers.CharField(max_length=20, help_text="E.164, e.g. +420731000001")
    email = serializers.CharField(max_length=254)
    data_box_id = serializers.CharField(max_length=7, required=False, allow_blank=True)
    document_type = serializers.ChoiceField(
        choices=list(DOCUMENT_TYPES),
        help_text="GP §2 point 9: a Czech citizen shows the identity card, or where it cannot be shown a passport or "
        "a driving licence (then id_card_unavailable=true); a foreigner an identity card of their state, a "
        "passport or a Czech residence permit",
    )
    document_number = serializers.CharField(max_length=30)
    document_issuing_state = serializers.CharField(max_length=2)
    document_issuing_authority = serializers.CharField(max_length=100)
    document_valid_until = serializers.DateField()
    id_card_unavailable = serializers.BooleanField(
        required=False,
        default=False,
        help_text="a Czech citizen declares the identity card cannot be shown (passport or driving licence instead)",
    )


class ConsentsInSerializer(serializers.Serializer):
    """GP §4(4)d: the versions of the documents accepted (current versions: GET registration/documents/)."""

    terms = serializers.CharField(max_length=30)
    data_processing = serializers.CharField(max_length=30)
    game_plan = serializers.CharField(max_length=30)
    marketing = serializers.BooleanField(required=False, default=False)
    plan_version = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=DB_INT_MAX,
        help_text="optional: the version of the game plan and terms in force the applicant read (GET terms/)",
    )


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
    plan_version = serializers.IntegerField(
        allow_null=True, help_text="the published game plan and terms in force (GET terms/)"
    )


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
    terms_version_accepted = serializers.IntegerField(
        allow_null=True, help_text="the last version of the game plan and terms accepted"
    )


class ConsentSerializer(serializers.ModelSerializer):
    class Meta:
        model = Consent
        fields = ["id", "kind", "version", "given_at", "withdrawn_at"]


class ConsentInSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Consent.Kind.choices)
    version = serializers.CharField(max_length=30)


class ConsentWithdrawInSerializer(serializers.Serializer):
    settlement = serializers.ChoiceField(
        choices=Player.ClosureMethod.choices,
        required=False,
        help_text="required when withdrawing a mandatory consent (GP §12(6))",
    )


class CorrectionInSerializer(serializers.Serializer):
    changes = serializers.DictField(
        child=serializers.CharField(max_length=300, allow_blank=True),
        help_text="{field: corrected value}, fields as in registration",
    )
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


# Notices (GP §7(7), §10(4)) ---------------------------------------------------------------------------------------
class MessageSerializer(serializers.ModelSerializer):
    # a plain string in the schema (a second "kind" enum would collide with the consents' one): the kinds are listed
    kind = serializers.CharField(help_text="one of: " + ", ".join(Message.Kind.values))
    subject = serializers.SerializerMethodField(help_text="in the request's language (Accept-Language)")
    body = serializers.SerializerMethodField(help_text="in the request's language (Accept-Language)")

    class Meta:
        model = Message
        fields = [
            "id",
            "kind",
            "subject",
            "body",
            "subject_cs",
            "subject_en",
            "body_cs",
            "body_en",
            "reference",
            "created_at",
            "read_at",
        ]

    @extend_schema_field(serializers.CharField())
    def get_subject(self, obj: Message) -> str:
        return obj.subject_en if (translation.get_language() or "cs")[:2] == "en" else obj.subject_cs

    @extend_schema_field(serializers.CharField())
    def get_body(self, obj: Message) -> str:
        return obj.body_en if (translation.get_language() or "cs")[:2] == "en" else obj.body_cs


# The game plan and terms (GP §3(5), §8(1)) ------------------------------------------------------------------------
class TermsVersionSerializer(serializers.ModelSerializer):
    min_stake = MoneyOutField(read_only=True, help_text="GP §8(1): the minimum stake it sets")
    stake_step = MoneyOutField(read_only=True, help_text="GP §8(1): the stake step it sets")

    class Meta:
        model = TermsVersion
        fields = [
            "version",
            "title",
            "summary_cs",
            "summary_en",
            "text_cs",
            "text_en",
            "document_url",
            "sha256",
            "published_at",
            "effective_at",
            "min_stake",
            "stake_step",
        ]


class TermsOutSerializer(serializers.Serializer):
    current = TermsVersionSerializer(allow_null=True, help_text="in force now (null before the first one)")
    upcoming = TermsVersionSerializer(many=True, help_text="published, not in force yet (announced, GP §8(1))")


class TermsAcceptInSerializer(serializers.Serializer):
    version = serializers.IntegerField(min_value=1, max_value=DB_INT_MAX)


class TermsAcceptanceSerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="version.version")

    class Meta:
        model = TermsAcceptance
        fields = ["version", "accepted_at", "source"]
