"""Forms of the staff actions in the admin (each submitted form calls one service)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django import forms
from django.conf import settings
from django.db.models import QuerySet

from accounts.models import Consent, Player
from accounts.validation import DOCUMENT_TYPES
from core.money import Money, MoneyError

#: the document types a branch records, by name (the values are the codes the API takes)
DOCUMENT_NAMES = {
    "id_card": "identity card",
    "passport": "passport",
    "driving_licence": "driving licence",
    "residence_permit": "residence permit",
}
DOC_CHOICES = [(d, DOCUMENT_NAMES[d]) for d in DOCUMENT_TYPES]
SETTLEMENT = Player.ClosureMethod.choices


class ReasonForm(forms.Form):
    reason = forms.CharField(max_length=200)


class CloseForm(forms.Form):
    settlement = forms.ChoiceField(choices=SETTLEMENT)
    reason = forms.ChoiceField(
        choices=[
            ("player_request", "player's request (GP §4(10))"),
            ("misuse", "evident misuse of the account (GP §5(13))"),
            ("unpaid_debt", "unpaid debt (GP §7(7))"),
            ("serious_breach", "serious breach (GP §3(4))"),
        ]
    )


class InsiderForm(forms.Form):
    barred = forms.BooleanField(required=False, label="barred insider (GP §3(3))")
    note = forms.CharField(max_length=200, required=False)


class EmptyForm(forms.Form):
    pass


class DocumentForm(forms.Form):
    """GP §4(4)b: what the identifier records at a branch."""

    document_type = forms.ChoiceField(choices=DOC_CHOICES)
    document_number = forms.CharField(max_length=30)
    document_issuing_state = forms.CharField(max_length=2, initial="CZ")
    document_issuing_authority = forms.CharField(max_length=100)
    document_valid_until = forms.DateField(help_text="YYYY-MM-DD")
    id_card_unavailable = forms.BooleanField(
        required=False,
        label="a Czech citizen cannot show the identity card (GP §2 point 9)",
        help_text="only then may a Czech citizen show a passport or a driving licence",
    )
    likeness_confirmed = forms.BooleanField(required=False, label="I confirm the likeness of the person to the photo")
    note = forms.CharField(max_length=300, required=False)


class BranchRegistrationForm(DocumentForm):
    """Registration at a branch by staff (GP §4(3)); the username is generated (GP §4(7))."""

    given_names = forms.CharField(max_length=100)
    surname = forms.CharField(max_length=100)
    birth_surname = forms.CharField(max_length=100, required=False)
    birth_number = forms.CharField(max_length=11, required=False)
    date_of_birth = forms.DateField(help_text="YYYY-MM-DD")
    place_of_birth = forms.CharField(max_length=100)
    sex = forms.ChoiceField(choices=[("M", "M"), ("F", "F")])
    citizenship = forms.CharField(max_length=2, initial="CZ")
    residence_street = forms.CharField(max_length=200)
    residence_city = forms.CharField(max_length=100)
    residence_postal_code = forms.CharField(max_length=6)
    permanent_residence_street = forms.CharField(
        max_length=200, required=False, help_text="permanent residence (GP §4(4)a), if not the residence"
    )
    permanent_residence_city = forms.CharField(max_length=100, required=False)
    permanent_residence_postal_code = forms.CharField(max_length=12, required=False)
    permanent_residence_country = forms.CharField(max_length=2, required=False)
    correspondence_address = forms.CharField(max_length=300, required=False)
    phone = forms.CharField(max_length=20)
    email = forms.CharField(max_length=254)
    data_box_id = forms.CharField(max_length=7, required=False)
    accepted_terms = forms.BooleanField(required=False, label="accepted the terms (current version)")
    accepted_data_processing = forms.BooleanField(required=False, label="consented to data processing")
    acknowledged_game_plan = forms.BooleanField(required=False, label="acknowledged the game plan")
    marketing = forms.BooleanField(required=False, label="marketing consent (optional)")


class DuplicateResolveForm(forms.Form):
    same_person = forms.TypedChoiceField(
        choices=[
            ("0", "different persons (lift the freeze / register the application)"),
            ("1", "the same person (keep one account / refuse the application)"),
        ],
        coerce=lambda v: v == "1",
    )
    keep_player = forms.ModelChoiceField(
        queryset=Player.objects.none(),
        required=False,
        help_text="existing accounts, same person: the account that stays",
    )
    closure_method = forms.ChoiceField(choices=SETTLEMENT, initial="transfer")
    note = forms.CharField(max_length=500)

    def __init__(self, *args: Any, players: QuerySet[Player] | None = None, **kwargs: Any) -> None:
        """``players``: the accounts of the case, the choices for the account that stays."""
        super().__init__(*args, **kwargs)
        keep_player = self.fields["keep_player"]
        if isinstance(keep_player, forms.ModelChoiceField):
            keep_player.queryset = players if players is not None else Player.objects.none()


class CorrectionDecisionForm(forms.Form):
    approve = forms.TypedChoiceField(choices=[("1", "approve"), ("0", "reject")], coerce=lambda v: v == "1")
    note = forms.CharField(max_length=500, required=False)


CONSENT_FIELDS = {
    "accepted_terms": Consent.Kind.TERMS,
    "accepted_data_processing": Consent.Kind.DATA_PROCESSING,
    "acknowledged_game_plan": Consent.Kind.GAME_PLAN,
}


class TermsPublishForm(forms.Form):
    """A new version of the game plan and terms (GP §3(5), §8(1), §13(1), §13(6)): texts, or a document and its hash."""

    title = forms.CharField(max_length=200)
    summary_cs = forms.CharField(
        widget=forms.Textarea,
        label="what changes (Czech)",
        help_text="e.g. the new minimum stake or its step (GP §8(1)); players receive it",
    )
    summary_en = forms.CharField(widget=forms.Textarea, label="what changes (English)")
    text_cs = forms.CharField(widget=forms.Textarea, required=False, label="full text (Czech)")
    text_en = forms.CharField(widget=forms.Textarea, required=False, label="full text (English)")
    document_url = forms.CharField(max_length=500, required=False, label="or: the document's address")
    document_sha256 = forms.CharField(max_length=64, required=False, label="the document's SHA-256")
    effective_at = forms.DateTimeField(help_text="Prague time, YYYY-MM-DD HH:MM; at least the minimum notice ahead")
    min_stake = forms.CharField(
        required=False,
        label="minimum stake (CZK)",
        help_text="GP §8(1); empty: unchanged (the latest version's, or the settings')",
    )
    stake_step = forms.CharField(required=False, label="stake step (CZK)", help_text="GP §8(1); empty: unchanged")

    def _czk(self, name: str) -> int | None:
        text = (self.cleaned_data.get(name) or "").strip()
        if not text:
            return None
        try:
            money = Money.parse(text)
        except MoneyError:
            raise forms.ValidationError("an amount in CZK, such as 0,10 or 0.20") from None
        if money.currency != "CZK" or money.amount < 1:
            raise forms.ValidationError("a CZK amount of at least 0,01")
        return money.amount

    def clean_min_stake(self) -> int | None:
        return self._czk("min_stake")

    def clean_stake_step(self) -> int | None:
        return self._czk("stake_step")

    def clean_effective_at(self) -> datetime:
        """The instant as staff mean it: Prague local time."""
        value: datetime = self.cleaned_data["effective_at"]
        return value.replace(tzinfo=None).replace(tzinfo=ZoneInfo(settings.BUSINESS_TIME_ZONE))
