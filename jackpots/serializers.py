"""DRF serializers of the jackpots API: the documented response shapes (OpenAPI).

The views pass the selectors' dicts through these serializers, so a response holds only the fields listed here
(a whitelist): whatever a selector might add later, nothing sealed (WIN_AT before the hit, its pad, its salt)
leaves unless it is declared below. Money is whole haléře (integers)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils.dateparse import parse_datetime
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api_money import MoneyOutField


@extend_schema_field({"oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string", "enum": ["all"]}]})
class GamesField(serializers.Field):
    """The game codes a level covers, or ``"all"`` (a network level)."""

    def to_representation(self, value: Any) -> Any:
        return value


class IsoDateTimeField(serializers.DateTimeField):
    """A time the selectors give as an ISO 8601 string, written the way the rest of the API writes times (UTC as
    ``Z``)."""

    def to_representation(self, value: Any) -> Any:
        if isinstance(value, str):
            parsed: datetime | None = parse_datetime(value)
            value = parsed if parsed is not None else value
        return super().to_representation(value)


def _range() -> serializers.ListField:
    return serializers.ListField(
        child=MoneyOutField(), min_length=2, max_length=2, help_text="[WINRANGE_FROM, WINRANGE_TO]"
    )


class MustHitPublicSerializer(serializers.Serializer):
    """A must-hit level before its hit: the range and the commitment to the hidden WIN_AT, never WIN_AT."""

    range = _range()
    commitment = serializers.CharField(
        help_text='sha256 hex of "code|run|WIN_AT|salt", published at the run\'s '
        "start; WIN_AT and the salt are revealed with the win"
    )


class DrawPublicSerializer(serializers.Serializer):
    range = _range()
    chance_per_stake_ppb = serializers.IntegerField(help_text="chance of a draw per stake, parts per billion")


class JackpotLevelSerializer(serializers.Serializer):
    """A running level with its current value."""

    code = serializers.CharField()
    name = serializers.CharField()
    name_cs = serializers.CharField()
    family = serializers.CharField(help_text="kobushi | central")
    level = serializers.CharField(help_text="sushi, kobushi, bronze, silver, gold")
    games = GamesField(help_text='the game codes the level covers, or "all"')
    trigger = serializers.CharField(help_text="game_event | draw | must_hit")
    value = MoneyOutField(help_text="the current value (Kobushi: at the reference coin)")
    run = serializers.IntegerField(help_text="the level's run, +1 at every win")
    pay_order = serializers.IntegerField(help_text="simultaneous wins are paid in this order (low first)")
    must_hit = MustHitPublicSerializer(required=False, help_text="must-hit levels only")
    draw = DrawPublicSerializer(required=False, help_text="draw levels only")
    eligible = serializers.DictField(required=False, help_text="game-event levels: the bet parameters a win needs")
    reference_coin = MoneyOutField(required=False, help_text="game-event levels: the coin value the pool is kept at")
    seed_per_coin = serializers.IntegerField(required=False, help_text="game-event levels: the seed in coin values")
    value_at_coin = MoneyOutField(
        required=False, help_text="game-event levels with ?coin_value=: the value at that coin"
    )


class JackpotsDisplaySerializer(serializers.Serializer):
    enabled = serializers.BooleanField(help_text="false: jackpots are switched off and the list is empty")
    jackpots = JackpotLevelSerializer(many=True)


class MustHitRevealedSerializer(serializers.Serializer):
    """A must-hit win reveals WIN_AT and the salt: sha256("code|run|win_at|salt") equals the commitment
    published when the run started."""

    win_at = MoneyOutField(help_text="the hidden value the level was won at")
    salt = serializers.CharField()
    commitment = serializers.CharField()
    check = serializers.CharField()


class JackpotWinSerializer(serializers.Serializer):
    """A jackpot win as anyone may see it (nothing names the player)."""

    id = serializers.IntegerField()
    jackpot = serializers.CharField(help_text="the level's code")
    name = serializers.CharField()
    name_cs = serializers.CharField()
    level = serializers.CharField()
    run = serializers.IntegerField()
    game = serializers.CharField(help_text="the game code the win came from")
    round_id = serializers.IntegerField()
    status = serializers.CharField(help_text="decided | paid | reversed")
    amount = MoneyOutField(help_text="won")
    paid = MoneyOutField(help_text="credited (within the per-round cap)")
    decided_at = IsoDateTimeField()
    settled_at = IsoDateTimeField(allow_null=True)
    must_hit = MustHitRevealedSerializer(required=False, help_text="must-hit wins only")
    coin_value = MoneyOutField(required=False, help_text="game-event wins: the winner's coin value")


class PlayerJackpotWinSerializer(JackpotWinSerializer):
    """One of the caller's own wins."""

    returned_to_pool = MoneyOutField(help_text="back to the pool (cap excess or void)")
