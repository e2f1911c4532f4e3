"""The typed schema of a game's description (``Game.describe()``, ``CatalogueEntry.as_json()``), as the catalogue's
``description`` documents it in the OpenAPI. The API answers the description as the engine wrote it; these
serializers only document it, key by key: ``games/tests/platform/test_description_schema.py`` checks every
registered game version's description against them (no key missing, none undocumented) and that the reference client
reads only documented keys. Amounts here are integer haléře, as the engine keeps them (not Money objects)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

_HALERE = "integer haléře (1/100 CZK)"


class _Schema(serializers.Serializer[Any]):
    """Read-only documentation of a JSON object (never used to write)."""


class StakeLimitsSerializer(_Schema):
    min = serializers.IntegerField(help_text=f"the smallest total stake, {_HALERE}")
    max = serializers.IntegerField(help_text=f"the largest total stake, {_HALERE}")
    step = serializers.IntegerField(help_text=f"the total stake's grid, {_HALERE}")


class BetOptionsSerializer(_Schema):
    """What the player may choose in a bet (the bet model's options), and which of the bet's keys are money."""

    model = serializers.ChoiceField(
        choices=["total", "level", "lines", "lines_bet_per_line", "stake_choice", "table"],
        help_text="the bet model: total {stake}; level {level, coin_value}; lines {lines, coins, coin_value}; "
        "lines_bet_per_line {lines, bet_per_line}; stake_choice {stake, flags...}; table {bets: [...]}",
    )
    money_fields = serializers.ListField(
        child=serializers.CharField(),
        help_text="the bet's keys (at any depth) that are amounts: a request sends each as a Money object "
        '{"amount": <haléře>, "currency": "CZK"}; every other key as a plain value',
    )
    stake = StakeLimitsSerializer(help_text="the total stake's limits")
    min = serializers.IntegerField(required=False, help_text=f"total: the smallest stake, {_HALERE}")
    max = serializers.IntegerField(required=False, help_text=f"total: the largest stake, {_HALERE}")
    step = serializers.IntegerField(required=False, help_text=f"total: the stake's grid, {_HALERE}")
    unit = serializers.IntegerField(required=False, help_text="total: pays are multiples of stake / unit")
    suggested = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text=f"total: stakes offered first, {_HALERE}"
    )
    formula = serializers.CharField(required=False, help_text="how the total stake is made of the bet's fields")
    coins_per_level = serializers.IntegerField(required=False, help_text="level: coins bet per level")
    levels = serializers.ListField(child=serializers.IntegerField(), required=False, help_text="level: the levels")
    coin_values = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text=f"level, lines: the coin values, {_HALERE}"
    )
    max_lines = serializers.IntegerField(required=False, help_text="lines: the most lines")
    max_coins = serializers.IntegerField(required=False, help_text="lines: the most coins per line")
    lines = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="lines: [1, max_lines]; lines_bet_per_line: the line counts offered",
    )
    coins = serializers.ListField(child=serializers.IntegerField(), required=False, help_text="lines: [1, max_coins]")
    bet_per_line = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text=f"lines_bet_per_line: the bets per line, {_HALERE}"
    )
    flags = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="stake_choice: the bet's true/false switches"
    )
    stakes = serializers.ListField(
        child=serializers.JSONField(),
        required=False,
        help_text=f"stake_choice: the machine's bets (stake, enabled, upper_bet; {_HALERE})",
    )
    upper_only_bets = serializers.ListField(
        child=serializers.JSONField(),
        required=False,
        help_text="stake_choice: bets played in the upper game only (stake, "
        f"bonus_price, enabled, offered_from_stake; {_HALERE})",
    )


class FollowsSerializer(_Schema):
    """The catalogue entry the game follows and how far."""

    catalogue = serializers.CharField(help_text="the game catalogue (tipsport-games.md, kajot-vlt.md)")
    entry = serializers.CharField(help_text="the entry in it")
    figures = serializers.CharField(required=False, help_text="whose figures the game keeps")
    features = serializers.ListField(child=serializers.CharField(), help_text="the entry's features built")
    not_built = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="the entry's features not built (absent: every one is built)",
    )


class RtpRangeFigureSerializer(_Schema):
    min = serializers.CharField(help_text="percent")
    max = serializers.CharField(help_text="percent")


class DescriptionDeclaredSerializer(_Schema):
    """GP §7(2): the figures the game states, as the engine keeps them (amounts in haléře)."""

    rtp = serializers.CharField(help_text="declared return to player, percent")
    rtp_with_jackpots = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="percent, with the jackpots' contribution (null: the game's jackpots are not offered now)",
    )
    min_bet = serializers.IntegerField(help_text=_HALERE)
    max_bet = serializers.IntegerField(help_text=_HALERE)
    max_win = serializers.IntegerField(help_text=_HALERE)
    avg_hourly_loss = serializers.IntegerField(help_text=f"statistical average hourly loss at max bet, {_HALERE}")
    unfinished_deadline_days = serializers.IntegerField(help_text="GP §7(8)b")
    rtp_exact = serializers.CharField(required=False, help_text="the exact RTP, percent")
    rtp_lowest = serializers.CharField(required=False, help_text="the lowest RTP over the player's choices, percent")
    rtp_range = RtpRangeFigureSerializer(required=False, help_text="the RTP over the player's ways of playing")
    rtp_by_option = serializers.ListField(
        child=serializers.JSONField(), required=False, help_text="the RTP of each of the player's options"
    )
    rtp_spread_bound_pp = serializers.CharField(
        required=False, help_text="the bound of the RTP's spread over the options, points"
    )


def _own(help_text: str) -> serializers.JSONField:
    return serializers.JSONField(required=False, help_text=f"the game's own part: {help_text}")


class GameDescriptionSerializer(_Schema):
    """A game version's description (``Game.describe()``): its common block, typed, and the game's own part
    (paytable, layout, features; present where the game has it)."""

    code = serializers.CharField()
    version = serializers.IntegerField()
    name = serializers.CharField()
    name_cs = serializers.CharField()
    kind = serializers.CharField(help_text="slot | roulette | ...")
    # a field named like Field.source: the serializer's metaclass takes it out of the class as a field
    source = serializers.CharField(help_text="where the game's rules come from")  # type: ignore[assignment]
    follows = FollowsSerializer(required=False, help_text="the catalogue entry the game follows (absent: none)")
    bet_options = BetOptionsSerializer()
    default_bet = serializers.DictField(help_text=f"the bet played when the player sends none ({_HALERE})")
    par_bet = serializers.DictField(help_text=f"the bet the PAR sheet was made with ({_HALERE})")
    bet_example = serializers.DictField(
        help_text=f"a valid bet, as the engine keeps it ({_HALERE}); the game's "
        "bet_example is the same bet as a request sends it"
    )
    max_win_multiplier = serializers.IntegerField(required=False, help_text="the largest win in stakes")
    declared = DescriptionDeclaredSerializer()
    rules_en = serializers.CharField()
    rules_cs = serializers.CharField()
    paytable = _own("pays by symbol and count (in line bets or stakes, as the game says)")
    symbols = _own("the symbols by code: names, wild/scatter")
    lines = _own("the paylines (rows per reel)")
    reels = serializers.IntegerField(required=False, help_text="the game's own part: the number of reels")
    rows = serializers.IntegerField(required=False, help_text="the game's own part: the number of rows")
    ways = serializers.IntegerField(required=False, help_text="the game's own part: ways to win")
    heights = _own("the reels' heights")
    grid = _own("the grid of a grid slot")
    layout = _own("the table's layout")
    pays = serializers.CharField(required=False, help_text="the game's own part: how wins are counted")
    features = _own("the game's features (free spins, gamble, pick ...)")
    scatter_pays = _own("pays of scatter symbols")
    free_spins = _own("the free spins feature")
    free_spin_triggers = _own("what triggers free spins")
    full_screen_multiplier = serializers.IntegerField(
        required=False, help_text="the game's own part: a full screen's multiplier"
    )
    rtp_by_lines = _own("the RTP by the number of lines played")
    bet_types = _own(
        "a table's bet types: type, name_en, name_cs, category, covers, multiplier, payout, fields, "
        "valid_numbers, numbers, choices"
    )
    type_aliases = _own("other names of the bet types")
    limits = _own("a table's limits per position and in total")
    stages = _own("the stages of a staged game")
    auto_play = _own("a machine's automatic play")
    demo_mode = _own("a machine's demonstration mode")
    bonus_value = serializers.IntegerField(required=False, help_text="the game's own part: a machine's bonus value")
    carry_over = serializers.JSONField(
        required=False,
        allow_null=True,
        help_text="the game's own part: the state carried from one round to the next (null: none)",
    )
    lower_game = _own("a machine's lower game")
    upper_game = _own("a machine's upper game")
    minigames = _own("a machine's minigames")
    max_prize_multiplier = serializers.IntegerField(
        required=False, help_text="the game's own part: the largest prize in stakes"
    )
    rules_without_jackpots = _own("the rules as played without the jackpots")


class RemoteGameDescriptionSerializer(_Schema):
    """A studio's remote game (``provider`` set in the catalogue): no engine describes it; the platform stores what
    its registration gave (``games.services.remote_game_upsert``)."""

    remote = serializers.BooleanField(help_text="true: the studio's remote game server runs it")
    provider = serializers.CharField(help_text="the studio")
    plan_number = serializers.IntegerField(required=False, help_text="the game's number in the game plan")
    hourly_loss_derived = serializers.BooleanField(
        required=False, help_text="true: the plan's average hourly loss was derived from its other figures"
    )


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="GameDescriptionAny",
        serializers=[GameDescriptionSerializer, RemoteGameDescriptionSerializer],
        resource_type_field_name=None,
    )
)
class GameDescriptionField(serializers.JSONField):
    """The description as stored (the engine's ``describe()``; for a studio's game, its registration's), documented
    by :class:`GameDescriptionSerializer` or :class:`RemoteGameDescriptionSerializer`."""
