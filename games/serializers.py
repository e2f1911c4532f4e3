"""DRF serializers of the games API (request bodies and the documented response shapes)."""
from __future__ import annotations

from rest_framework import serializers

from games import selectors
from games.models import Game, Round


class GameMoneySerializer(serializers.Serializer):
    amount = serializers.IntegerField(help_text="minor units (haléře)")
    currency = serializers.CharField()
    formatted = serializers.CharField()


class DeclaredSerializer(serializers.Serializer):
    """GP §7(2): the figures each game states."""

    rtp = serializers.CharField(help_text="declared return to player, percent")
    rtp_with_jackpots = serializers.CharField(allow_null=True)
    min_bet = GameMoneySerializer()
    max_bet = GameMoneySerializer()
    max_win = GameMoneySerializer()
    avg_hourly_loss = GameMoneySerializer(help_text="statistical average hourly loss at max bet")
    max_hourly_loss = GameMoneySerializer(
        help_text="GP §7(2): the most a player can lose in this game in an hour: max bet x 1,800 rounds (one start "
                  "every 2 s, GP §7(9)), at most the platform's hourly-loss cap (GP §8(5))")
    max_hourly_loss_at_max_pace = GameMoneySerializer(
        help_text="max bet x 1,800 rounds, every round lost, before the platform's hourly-loss cap")
    unfinished_deadline_days = serializers.IntegerField(help_text="GP §7(8)b")


class ApprovalSerializer(serializers.Serializer):
    """GP §13(6): the version's approval in the game plan (players only ever see approved versions)."""

    state = serializers.CharField(help_text="approved | unapproved | withdrawn (the last two: staff only)")
    plan_version = serializers.CharField(allow_blank=True, help_text="the approved game plan's version")
    reference = serializers.CharField(allow_blank=True, help_text="the Ministry of Finance decision")


class GameSummarySerializer(serializers.Serializer):
    code = serializers.CharField()
    version = serializers.IntegerField()
    name = serializers.CharField()
    name_cs = serializers.CharField()
    kind = serializers.CharField()
    enabled = serializers.BooleanField()
    approval = ApprovalSerializer()
    declared = DeclaredSerializer()
    rules_cs = serializers.CharField()
    rules_en = serializers.CharField()

    def to_representation(self, instance):
        if isinstance(instance, Game):
            instance = selectors.game_summary(instance)
        return super().to_representation(instance)


class GameDetailSerializer(GameSummarySerializer):
    description = serializers.JSONField(help_text="the engine's description: rules, paytable, bet options")

    def to_representation(self, instance):
        if isinstance(instance, Game):
            instance = selectors.game_detail(instance)
        return super().to_representation(instance)


class RoundGameSerializer(serializers.Serializer):
    code = serializers.CharField()
    version = serializers.IntegerField()
    name = serializers.CharField()
    name_cs = serializers.CharField()
    kind = serializers.CharField()


class RoundActionLogSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    action = serializers.JSONField()
    at = serializers.DateTimeField(allow_null=True)


class RoundSerializer(serializers.Serializer):
    """A round as the player sees it (recall, GP §11(5))."""

    id = serializers.IntegerField()
    game = RoundGameSerializer()
    play_money = serializers.BooleanField()
    forced_outcome = serializers.BooleanField()
    status = serializers.CharField(help_text="in_progress | finished | voided | refunded")
    void_reason = serializers.CharField(allow_blank=True)
    started_at = serializers.DateTimeField()
    settled_at = serializers.DateTimeField(allow_null=True)
    deadline = serializers.DateTimeField()
    bet = serializers.JSONField()
    stake = GameMoneySerializer()
    win = GameMoneySerializer(help_text="the win credited (0 until the round is settled)")
    win_engine = GameMoneySerializer(help_text="the win of the game (accrued so far while in progress)")
    jackpot_win = GameMoneySerializer(help_text="the part of the win paid by jackpots (included in win)")
    win_capped = serializers.BooleanField(help_text="the GP §8(3) max win per round cut the win")
    balance_before = GameMoneySerializer(allow_null=True)
    balance_after = GameMoneySerializer(allow_null=True)
    state = serializers.JSONField(help_text="public part of the engine state")
    steps = serializers.JSONField(help_text="every step: symbols, line wins, features")
    pending = serializers.JSONField(allow_null=True, help_text="what the round waits for (in progress)")
    jackpot_events = serializers.JSONField()
    actions = RoundActionLogSerializer(many=True)
    draws = serializers.JSONField(allow_null=True, help_text="every RNG draw [n, value] (once the round ended)")

    def to_representation(self, instance):
        if isinstance(instance, Round):
            instance = selectors.round_public(instance)
        return super().to_representation(instance)


class LaunchSerializer(serializers.Serializer):
    game = GameDetailSerializer()
    last_bet = serializers.JSONField(allow_null=True, help_text="the player's last bet parameters for this game")
    open_round = RoundSerializer(allow_null=True, help_text="a round waiting for the player (resume it first)")


class OpenRoundSerializer(serializers.Serializer):
    round = RoundSerializer(allow_null=True)


class VerifySerializer(serializers.Serializer):
    round_id = serializers.IntegerField()
    game = serializers.CharField()
    version = serializers.IntegerField()
    verified = serializers.BooleanField()
    outcome = serializers.CharField(help_text="match | mismatch | malfunction_reproduced | engine_unavailable | error")
    detail = serializers.CharField(allow_blank=True)
    draws = serializers.IntegerField()
    actions = serializers.IntegerField()
    checked_at = serializers.DateTimeField()


class RoundPlayRequestSerializer(serializers.Serializer):
    game = serializers.CharField(max_length=60, help_text="game code from the catalogue")
    bet = serializers.DictField(help_text="bet parameters, see the game's description (bet_example)")
    forced_draws = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2),
        required=False, help_text="QA only, play money only: draws [n, value] fed to the engine first",
    )


class PlayMoneyRoundRequestSerializer(RoundPlayRequestSerializer):
    pass


class RoundActRequestSerializer(serializers.Serializer):
    action = serializers.DictField(help_text="one of the options in the round's pending")
