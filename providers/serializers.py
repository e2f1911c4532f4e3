"""The providers' API shapes (for the OpenAPI schema; the signed calls read their raw body themselves, since the
signature is over the exact bytes). Money on the wire is ``{"amount": <haléře>, "currency": "CZK"}``."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class ProviderMoneySerializer(serializers.Serializer[Any]):
    amount = serializers.IntegerField(help_text="haléře (1/100 CZK)")
    currency = serializers.ChoiceField(choices=[("CZK", "CZK")])


class ProviderLaunchRequestSerializer(serializers.Serializer[Any]):
    game = serializers.CharField(max_length=60, help_text="the platform's game code (e.g. simstudio_wild_ride)")
    lang = serializers.ChoiceField(choices=[("cs", "cs"), ("en", "en")], default="cs")


class ProviderLaunchGameSerializer(serializers.Serializer[Any]):
    code = serializers.CharField()
    name = serializers.CharField()


class ProviderLaunchSerializer(serializers.Serializer[Any]):
    launch_url = serializers.CharField(help_text="the provider's page with the token, the game and the language")
    launch_token = serializers.CharField(help_text="single-use, valid PROVIDERS_LAUNCH_TOKEN_SECONDS")
    expires_at = serializers.DateTimeField()
    game = ProviderLaunchGameSerializer()


class ProviderSessionRequestSerializer(serializers.Serializer[Any]):
    launch_token = serializers.CharField()


class ProviderSessionSerializer(serializers.Serializer[Any]):
    status = serializers.CharField(help_text="RS_OK")
    session = serializers.CharField()
    player = serializers.CharField(help_text="a stable opaque player reference (not the database id)")
    game = serializers.CharField(help_text="the provider's game id")
    currency = serializers.CharField()
    balance = ProviderMoneySerializer()


class ProviderBalanceRequestSerializer(serializers.Serializer[Any]):
    session = serializers.CharField()


class ProviderBalanceSerializer(serializers.Serializer[Any]):
    status = serializers.CharField(help_text="RS_OK")
    balance = ProviderMoneySerializer()


class RoundDetailSerializer(serializers.Serializer[Any]):
    outcome = serializers.JSONField(required=False, help_text="the studio's record of the round (JSON, at most 16 KB)")
    history_url = serializers.URLField(required=False, help_text="https: the round in the studio's own history")
    sha256 = serializers.RegexField(
        r"^[0-9a-f]{64}$",
        required=False,
        help_text="the SHA-256 of the record at history_url, or of outcome as canonical "
        "JSON (sorted keys, separators , and :, UTF-8)",
    )


class BetRequestSerializer(serializers.Serializer[Any]):
    session = serializers.CharField()
    transaction_id = serializers.CharField(max_length=100)
    round_id = serializers.CharField(max_length=100)
    game = serializers.CharField(max_length=100, help_text="the provider's game id")
    amount = ProviderMoneySerializer()
    round_closed = serializers.BooleanField(default=False, help_text="true: a losing one-shot round, settled at once")
    round_detail = RoundDetailSerializer(required=False, help_text="required with round_closed (GP §11(5))")


class PlayWinSerializer(serializers.Serializer[Any]):
    transaction_id = serializers.CharField(max_length=100)
    amount = ProviderMoneySerializer()


class PlayRequestSerializer(serializers.Serializer[Any]):
    session = serializers.CharField()
    transaction_id = serializers.CharField(max_length=100, help_text="the bet's")
    round_id = serializers.CharField(max_length=100)
    game = serializers.CharField(max_length=100, required=False, help_text="the provider's game id")
    amount = ProviderMoneySerializer(help_text="the stake")
    win = PlayWinSerializer(required=False, help_text="absent for a lost round")
    round_detail = RoundDetailSerializer(help_text="the studio's record of the round (GP §11(5))")


class WinRequestSerializer(serializers.Serializer[Any]):
    session = serializers.CharField(help_text="may have expired")
    transaction_id = serializers.CharField(max_length=100)
    bet_transaction_id = serializers.CharField(max_length=100)
    round_id = serializers.CharField(max_length=100)
    amount = ProviderMoneySerializer()
    round_closed = serializers.BooleanField(default=False, help_text="true settles the round")
    round_detail = RoundDetailSerializer(required=False, help_text="required with round_closed (GP §11(5))")


class RollbackRequestSerializer(serializers.Serializer[Any]):
    session = serializers.CharField(help_text="may have expired")
    transaction_id = serializers.CharField(max_length=100)
    bet_transaction_id = serializers.CharField(max_length=100)
    round_id = serializers.CharField(max_length=100)


class RoundEndRequestSerializer(serializers.Serializer[Any]):
    session = serializers.CharField(help_text="may have expired")
    transaction_id = serializers.CharField(max_length=100)
    round_id = serializers.CharField(max_length=100)
    round_detail = RoundDetailSerializer(help_text="the studio's record of the round (GP §11(5))")


class ProviderMovementSerializer(serializers.Serializer[Any]):
    status = serializers.CharField(help_text="RS_OK")
    balance = ProviderMoneySerializer()
    transaction_id = serializers.CharField()
    platform_transaction_id = serializers.CharField(required=False, allow_blank=True)
    credited = ProviderMoneySerializer(required=False, help_text="a win: what was credited (GP §8(3) cap)")
    win_capped = serializers.BooleanField(required=False)
    round_status = serializers.CharField(required=False, help_text="round-end: the round's status")
    win = ProviderMoneySerializer(required=False, help_text="round-end: the round's win")
