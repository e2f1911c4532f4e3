"""Serializers of the limits API (plain shapes, drf-spectacular friendly)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api_money import money_from_json, money_to_json
from core.money import Money
from limits.models import (
    HelpContact,
    LimitType,
    PanicExclusion,
    ResponsibleGamingText,
    SelfLimitChange,
    SelfListingRequest,
)
from limits.rules import LIMIT_UNITS

MONEY_UNIT = "CZK_minor"
MAX_LIMIT_VALUE = 10**12  # bounded at the API; the rules bound each limit further

LIMIT_VALUE_SCHEMA = {
    "oneOf": [
        {"$ref": "#/components/schemas/MoneyValue"},  # the four money limits (unit CZK_minor); config/settings/
        {"type": "integer", "minimum": 0, "description": "a count or minutes limit (unit count / minutes)"},
    ],
    "nullable": True,
}


@extend_schema_field(LIMIT_VALUE_SCHEMA)
class LimitValueField(serializers.Field[Any, Any, Any, Any]):
    """A self-limit's value in the limit's unit (the serializer's ``unit`` context): a Money object for the four
    money limits (``core.api_money``), a JSON integer for counts and minutes; ``null`` = no limit. A string is
    refused either way (``{"value": "500"}`` once stored 5 CZK)."""

    money = True  # takes amounts (core.schema lists request.invalid_money)

    def __init__(self, **kw: Any) -> None:
        kw.setdefault("allow_null", True)
        super().__init__(**kw)

    def to_internal_value(self, data: Any) -> int:
        unit = self.context.get("unit")
        if unit == MONEY_UNIT:
            value = money_from_json(data, field="value").amount
        elif isinstance(data, bool) or not isinstance(data, int):
            raise serializers.ValidationError(f"a JSON integer of {unit} (or null for no limit)")
        else:
            value = data
        if not 0 <= value <= MAX_LIMIT_VALUE:
            raise serializers.ValidationError(f"from 0 to {MAX_LIMIT_VALUE} {unit} (or null for no limit)")
        return value

    def to_representation(self, value: Any) -> Any:
        return value


def _money_values(data: dict[str, Any], unit: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """The limit's amounts as Money objects when the limit is money (counts and minutes stay integers)."""
    if unit == MONEY_UNIT:
        for key in keys:
            if data.get(key) is not None:
                data[key] = money_to_json(int(data[key]))
    return data


class SelfLimitSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    limit_type = serializers.ChoiceField(choices=LimitType.choices)
    unit = serializers.ChoiceField(
        choices=[
            (MONEY_UNIT, "money: value is a Money object (amount in haléře)"),
            ("count", "count"),
            ("minutes", "minutes"),
        ]
    )
    decided = serializers.BooleanField(help_text="set or declined (GP §4(4)e)")
    declined = serializers.BooleanField(help_text="decided with no limit")
    value = LimitValueField(help_text="in force now, in `unit` (a Money object for money limits); null = no limit")
    pending = serializers.BooleanField(help_text="a loosening waits for its effective date (GP §6(4))")
    pending_value = LimitValueField()
    pending_requested_at = serializers.DateTimeField(allow_null=True)
    pending_effective_at = serializers.DateTimeField(allow_null=True)
    used = LimitValueField(help_text="used in the current period, in `unit`")
    resets_at = serializers.DateTimeField(allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)

    def to_representation(self, instance: Any) -> dict[str, Any]:
        data = super().to_representation(instance)
        return _money_values(data, data["unit"], ("value", "pending_value", "used"))


class SelfLimitWriteSerializer(serializers.Serializer[Any]):
    value = LimitValueField(
        help_text='in the limit\'s unit: a Money object {"amount": <haléře>, "currency": '
        '"CZK"} for daily_stake, monthly_stake, daily_loss, monthly_loss; a JSON '
        "integer for monthly_logins (count), daily_time and pause_after_logout "
        "(minutes); null = no limit (declines the limit, or asks to remove it)"
    )


class SelfLimitChangeSerializer(serializers.ModelSerializer[SelfLimitChange]):
    old_value = LimitValueField()
    new_value = LimitValueField()

    class Meta:
        model = SelfLimitChange
        fields = [
            "id",
            "kind",
            "limit_type",
            "action",
            "old_value",
            "new_value",
            "requested_at",
            "effective_from",
            "actor_type",
            "actor_label",
            "note",
        ]

    def to_representation(self, instance: SelfLimitChange) -> dict[str, Any]:
        data = super().to_representation(instance)
        return _money_values(data, LIMIT_UNITS[LimitType(instance.limit_type)], ("old_value", "new_value"))


class PlayStatusSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    applies = serializers.BooleanField()
    play_limit_minutes = serializers.IntegerField()
    break_minutes = serializers.IntegerField()
    round_open = serializers.BooleanField()
    play_started_at = serializers.DateTimeField(allow_null=True)
    play_seconds_used = serializers.IntegerField()
    play_seconds_left = serializers.IntegerField(allow_null=True)
    break_required = serializers.BooleanField()
    break_ends_at = serializers.DateTimeField(allow_null=True)
    pause_resets_at = serializers.DateTimeField(allow_null=True)


class PanicSerializer(serializers.ModelSerializer[PanicExclusion]):
    class Meta:
        model = PanicExclusion
        fields = ["id", "started_at", "ends_at"]


class PanicStatusSerializer(serializers.Serializer[Any]):
    active = serializers.BooleanField()
    ends_at = serializers.DateTimeField(allow_null=True)


class SelfListingWriteSerializer(serializers.Serializer[Any]):
    years = serializers.IntegerField(
        min_value=1, max_value=50, default=1, help_text="how long to be listed; removal at the earliest after 1 year"
    )


class SelfListingSerializer(serializers.ModelSerializer[SelfListingRequest]):
    class Meta:
        model = SelfListingRequest
        fields = ["id", "requested_at", "listed_until", "status", "sent_at"]


# Responsible gaming (GP §13(4)) ------------------------------------------------------------------------------
class LimitsMoneySerializer(serializers.Serializer[Any]):
    """The house Money JSON (``core.money.Money.to_json``)."""

    amount = serializers.IntegerField(help_text="minor units (haléře)")
    currency = serializers.CharField()
    formatted = serializers.CharField()

    def to_representation(self, instance: Money) -> dict[str, Any]:
        return instance.to_json()


class ResponsibleGamingTextSerializer(serializers.ModelSerializer[ResponsibleGamingText]):
    class Meta:
        model = ResponsibleGamingText
        fields = ["key", "title_cs", "title_en", "body_cs", "body_en", "updated_at"]


class HelpContactSerializer(serializers.ModelSerializer[HelpContact]):
    class Meta:
        model = HelpContact
        fields = [
            "name_cs",
            "name_en",
            "description_cs",
            "description_en",
            "phone",
            "email",
            "url",
            "hours_cs",
            "hours_en",
        ]


class ResponsibleGamingSerializer(serializers.Serializer[Any]):
    texts = ResponsibleGamingTextSerializer(many=True)
    help_contacts = HelpContactSerializer(many=True, help_text="as the operator entered them; may be empty")


class PlayFiguresSerializer(serializers.Serializer[Any]):
    logged_in_seconds = serializers.IntegerField(help_text="time logged in (union of the login sessions)")
    bets = serializers.IntegerField(help_text="bets decided in the period")
    stakes = LimitsMoneySerializer(help_text="stakes of the bets decided in the period")
    wins = LimitsMoneySerializer(help_text="wins of the bets decided in the period")
    net_loss = LimitsMoneySerializer(help_text="stakes - wins (GP §6(7)); negative when the player won more")


class PlayDaySerializer(PlayFiguresSerializer):
    date = serializers.DateField(help_text="Prague calendar day")


class PlayMonthSerializer(PlayFiguresSerializer):
    month = serializers.CharField(help_text="YYYY-MM, Prague calendar month")
    first_day = serializers.DateField()
    last_day = serializers.DateField()


class PlayStatisticsSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    date_from = serializers.DateField()
    date_to = serializers.DateField()
    time_zone = serializers.CharField()
    total = PlayFiguresSerializer(help_text="the days of the range together")
    days = PlayDaySerializer(many=True)
    months = PlayMonthSerializer(many=True, help_text="whole calendar months touching the range")
