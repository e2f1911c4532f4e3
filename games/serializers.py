"""DRF serializers of the games API (request bodies and the documented response shapes)."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api_money import MoneyOutSerializer as GameMoneySerializer
from core.api_money import example as money_example
from core.api_money import money_from_json, money_to_json
from core.rng import SeededRNG
from games import selectors
from games.description_schema import GameDescriptionField
from games.engine.base import Game as EngineGame
from games.engine.base import JsonDict
from games.engine.registry import get_game, list_games
from games.models import Game, Round

# The API's money convention (core.api_money) in a game's bet: the engine takes integer haléře; a request carries
# every amount as a Money object. Which keys of a bet (at any depth: roulette's ``bets[].amount``, a slot's
# ``coin_value``) are amounts is what the game version declares (its bet model's ``money_fields``); every other value
# is passed to the engine as sent.
_MONEY_FIELDS: dict[tuple[str, int], frozenset[str]] = {}


def money_bet_fields(code: object, version: int | None = None) -> frozenset[str]:
    """The keys of game ``code``'s bet (at any depth) that its version ``version`` declares as amounts
    (``Game.money_bet_fields``); ``version`` None: the version a new round plays (the engine's newest), as for a
    request; a round's pinned version the engine no longer ships: the newest. Looked up once per process per (code,
    version), in memory. A code the engine does not ship has none (a studio's remote game: its round's bet is empty
    and its stake a Money field of its own; an unknown code: the service refuses the game), its bet kept as sent."""
    if type(code) is not str:
        return frozenset()
    try:
        game = get_game(code, version)
    except KeyError:
        return frozenset() if version is None else money_bet_fields(code)
    key = (code, game.version)
    found = _MONEY_FIELDS.get(key)
    if found is None:
        found = _MONEY_FIELDS[key] = frozenset(game.money_bet_fields)
    return found


def bet_from_api(value: Any, money: Collection[str], path: str = "bet") -> Any:
    """A bet of the API (amounts as Money objects) as the engine takes it (amounts as integer haléře): the values of
    the keys in ``money`` (the game's :func:`money_bet_fields`) are amounts; an amount in another form is
    ``request.invalid_money`` naming its place (``bet.bets.0.amount``)."""
    if isinstance(value, dict):
        return {
            key: money_from_json(item, field=f"{path}.{key}").amount
            if key in money
            else bet_from_api(item, money, f"{path}.{key}")
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [bet_from_api(item, money, f"{path}.{i}") for i, item in enumerate(value)]
    return value


def bet_to_api(value: Any, money: Collection[str], *, formatted: bool = True) -> Any:
    """The inverse of :func:`bet_from_api`: a bet the engine stored, with the amounts of the keys in ``money`` as
    Money objects (with ``formatted`` in answers, so a client can send a bet back as it got it; without in request
    examples)."""
    if isinstance(value, dict):
        return {
            key: _amount_to_api(item, formatted) if key in money else bet_to_api(item, money, formatted=formatted)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [bet_to_api(item, money, formatted=formatted) for item in value]
    return value


def _amount_to_api(item: Any, formatted: bool) -> Any:
    if isinstance(item, int) and not isinstance(item, bool):
        return money_to_json(item) if formatted else money_example(item)
    return item  # already a Money object, or not an amount the engine would take (left for the check to refuse)


def engine_bet_example(game: EngineGame) -> JsonDict | None:
    """The bet a game's definition offers as its example: ``bet_example`` (attribute or in ``describe()``), else its
    default bet (``default_bet_params``); in engine units. Every shipped game has one (a test checks)."""
    declared = getattr(game, "bet_example", None)
    if isinstance(declared, dict):
        return declared
    described = game.describe().get("bet_example")
    if isinstance(described, dict):
        return described
    default = getattr(game, "default_bet_params", None)
    return default if isinstance(default, dict) else None


def api_bet_example(game: EngineGame) -> JsonDict | None:
    """The game's example bet as a request carries it (Money objects)."""
    bet = engine_bet_example(game)
    return None if bet is None else bet_to_api(bet, game.money_bet_fields, formatted=False)


def bet_request_examples(*, play_money: bool = False) -> dict[str, JsonDict]:
    """The schema's request examples of a round: one per shipped game, its bet from the game's definition."""
    out: dict[str, JsonDict] = {}
    for game in list_games():
        bet = api_bet_example(game)
        if bet is not None:
            out[f"{game.code}: {game.name}"] = {"game": game.code, "bet": bet}
    return out


def _pending_options(game: EngineGame, seeds: int = 1500, give_up: int = 1000) -> dict[str, JsonDict]:
    """One option of every kind of pending step a game reaches (free spin, pick, gamble ...), found by starting its
    example bet with seeded generators and following the game's default action (a simulation, no database). A game
    with no step within ``give_up`` starts is taken to have none."""
    bet_params = engine_bet_example(game)
    if bet_params is None:
        return {}
    bet = game.validate_bet(bet_params)
    found: dict[str, JsonDict] = {}
    for seed in range(seeds):
        if seed >= give_up and not found:
            break
        rng = SeededRNG(seed)
        state = game.start(bet, rng)
        for _ in range(40):
            pending = state.get("pending")
            if not pending:
                break
            options = pending.get("options") or []
            kind = str(pending.get("type"))
            if options and kind not in found:
                found[kind] = options[0]
            elif kind in found:
                break  # seen: the next start may show another kind sooner
            try:
                state = game.act(state, game.default_action(state), rng)
            except Exception:  # noqa: BLE001 - an engine without a default action: the first option seen is enough
                break
    return found


_ACTION_EXAMPLES: dict[str, JsonDict] | None = None


def action_request_examples() -> dict[str, JsonDict]:
    """The schema's request examples of a round action: for every shipped game, one of each kind of step it waits
    for (``pending.type``), as the round's ``pending.options`` offer it; computed once per process."""
    global _ACTION_EXAMPLES
    if _ACTION_EXAMPLES is None:
        examples: dict[str, JsonDict] = {}
        for game in list_games():
            for kind, option in _pending_options(game).items():
                examples[f"{game.code}: {kind}"] = {"action": option}
        examples["any game: play through"] = {"action": {"type": "play_through"}}
        _ACTION_EXAMPLES = examples
    return _ACTION_EXAMPLES


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": True,
        "description": "the game's bet parameters (see the game's bet_example); every amount (the "
        "keys the game's description lists in bet_options.money_fields) is a Money "
        'object {"amount": <haléře>, "currency": "CZK"}',
    }
)
class BetField(serializers.DictField):
    """A bet in the API's shape, given to the view in the engine's (integer haléře): the amounts are the money
    fields of the game the body names (its ``game``, as the ``CharField`` keeps it: trimmed)."""

    money = True  # takes amounts (core.schema lists request.invalid_money)

    def to_internal_value(self, data: Any) -> JsonDict:
        body = getattr(self.parent, "initial_data", None)
        game = body.get("game") if isinstance(body, Mapping) else None  # a JSON object or a form's QueryDict
        return bet_from_api(
            super().to_internal_value(data), money_bet_fields(game.strip() if isinstance(game, str) else None)
        )


class RtpRangeSerializer(serializers.Serializer):
    min = serializers.CharField(help_text="percent")
    max = serializers.CharField(help_text="percent")


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
        "every 2 s, GP §7(9)), at most the platform's hourly-loss cap (GP §8(5))"
    )
    max_hourly_loss_at_max_pace = GameMoneySerializer(
        help_text="max bet x 1,800 rounds, every round lost, before the platform's hourly-loss cap"
    )
    unfinished_deadline_days = serializers.IntegerField(help_text="GP §7(8)b")
    rtp_basis = serializers.CharField(
        allow_null=True,
        help_text="how the declared RTP is known: exact (the exact figure rounded down), "
        "exact+design, simulated (a design figure inside the PAR sheet's 99 % CI)",
    )
    rtp_range = RtpRangeSerializer(
        allow_null=True, help_text="the RTP over the player's ways of playing, where the player has choices"
    )
    hit_frequency_percent = serializers.CharField(allow_null=True, help_text="share of rounds that win (PAR sheet)")
    volatility = serializers.CharField(
        allow_null=True, help_text="standard deviation of win / stake per round (PAR sheet)"
    )


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
    provider = serializers.CharField(
        allow_null=True,
        help_text="the outside studio whose remote game server runs this "
        "game (launched through POST /providers/{provider}/launch); null for the "
        "platform's own games",
    )
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
    description = GameDescriptionField(
        help_text="the engine's description (Game.describe()): rules, paytable, bet "
        "options with the bet's money fields (its figures are integer "
        "haléře, as the engine keeps them)"
    )
    bet_example = serializers.JSONField(
        allow_null=True,
        read_only=True,
        help_text="a valid bet of this game as a request sends it (amounts as Money objects): the body's `bet`",
    )

    def to_representation(self, instance):
        if isinstance(instance, Game):
            instance = selectors.game_detail(instance)
        data = super().to_representation(instance)
        try:
            data["bet_example"] = api_bet_example(get_game(data["code"], data["version"]))
        except KeyError:  # a version the engine no longer ships
            data["bet_example"] = None
        return data


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
    bet = serializers.JSONField(help_text="the bet as the engine took it; amounts as Money objects")
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
        data = super().to_representation(instance)
        data["bet"] = bet_to_api(data["bet"], money_bet_fields(data["game"]["code"], data["game"]["version"]))
        return data


class LaunchSerializer(serializers.Serializer):
    game = GameDetailSerializer()
    last_bet = serializers.JSONField(
        allow_null=True,
        help_text="the player's last bet parameters for this game (amounts as Money objects; may be sent back)",
    )

    def to_representation(self, instance):
        data = super().to_representation(instance)
        game = data["game"]
        data["last_bet"] = bet_to_api(data["last_bet"], money_bet_fields(game["code"], game["version"]))
        return data

    open_round = RoundSerializer(allow_null=True, help_text="a round waiting for the player (resume it first)")


class OpenRoundSerializer(serializers.Serializer):
    round = RoundSerializer(allow_null=True)


class VerifySerializer(serializers.Serializer):
    round_id = serializers.IntegerField()
    game = serializers.CharField()
    version = serializers.IntegerField()
    verified = serializers.BooleanField()
    outcome = serializers.CharField(
        help_text="match | mismatch | malfunction_reproduced | engine_unavailable | error "
        "| studio_record | studio_record_mismatch | studio_record_missing"
    )
    detail = serializers.CharField(allow_blank=True)
    draws = serializers.IntegerField(
        allow_null=True,
        help_text="how many RNG draws the round made; null while the "
        "round is open (the count could reveal values drawn ahead of a choice)",
    )
    actions = serializers.IntegerField(allow_null=True, help_text="null while the round is open")
    checked_at = serializers.DateTimeField()
    provider = serializers.CharField(required=False, help_text="a studio's round: its studio")
    provider_round_id = serializers.CharField(required=False, help_text="a studio's round: the studio's round id")
    studio_record = serializers.JSONField(
        required=False,
        allow_null=True,
        help_text="a studio's round: the studio's record of it (outcome and/or history_url with sha256, received_at)",
    )


class RoundPlayRequestSerializer(serializers.Serializer):
    game = serializers.CharField(max_length=60, help_text="game code from the catalogue")
    bet = BetField(help_text="bet parameters, see the game's bet_example; amounts are Money objects")
    forced_draws = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2),
        required=False,
        help_text="QA only, play money only: draws [n, value] fed to the engine first",
    )


class PlayMoneyRoundRequestSerializer(RoundPlayRequestSerializer):
    pass


class RoundActRequestSerializer(serializers.Serializer):
    action = serializers.DictField(
        help_text='one of the options in the round\'s pending, or {"type": "play_through"} where the pending '
        "offers exactly one option (a free spin): every consecutive step with one option is played in "
        "this request and the answer's steps hold each one's result; refused "
        "(game.play_through_choice_pending, 409) while the pending offers a choice"
    )


# The hot path's request checks, without building a serializer and its fields per request. Each accepts only the
# common well-formed body, for which it gives exactly what the serializer's ``validated_data`` would; for anything
# else it answers None and the view lets the serializer validate, so every refusal (its code, message and fields)
# stays the serializer's own. ``games/tests/platform/test_round_cost.py`` checks both agree.
_GAME_CODE = re.compile(r"[a-z0-9_]{1,60}")


def round_play_request_fast(data: Any) -> tuple[str, JsonDict] | None:
    """``RoundPlayRequestSerializer(data=data)``'s (game, bet) for a JSON object with a plain game code (what the
    ``CharField(max_length=60)`` keeps as sent) and a bet object, no ``forced_draws``; else None."""
    if type(data) is not dict or "forced_draws" in data:
        return None
    game, bet = data.get("game"), data.get("bet")
    if type(game) is not str or type(bet) is not dict or _GAME_CODE.fullmatch(game) is None:
        return None
    try:
        return game, bet_from_api(bet, money_bet_fields(game))
    except Exception:  # noqa: BLE001 - an amount it refuses: the serializer refuses it the same way, with its fields
        return None


def round_act_request_fast(data: Any) -> JsonDict | None:
    """``RoundActRequestSerializer(data=data)``'s action for a JSON object whose ``action`` is an object; else
    None."""
    if type(data) is not dict:
        return None
    action = data.get("action")
    return dict(action) if type(action) is dict else None


class PlayMoneyPresetSerializer(serializers.Serializer):
    """One QA preset: forced draws whose round start triggers ``feature`` with ``bet``."""

    feature = serializers.CharField(help_text="the feature the round start triggers (`big_cat_free_spins`)")
    features = serializers.ListField(
        child=serializers.CharField(), help_text="every feature that start triggers (the feature alone where found)"
    )
    bet = serializers.JSONField(
        help_text="the bet the draws were found with, as a request sends it (amounts as "
        "Money objects): send it as the round's `bet`"
    )
    forced_draws = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2),
        help_text="the draws [n, value] of that start: the play-money round's `forced_draws`",
    )
    seed = serializers.IntegerField(help_text="the seed of the search that gave the draws (for the record)")


class PlayMoneyPresetsSerializer(serializers.Serializer):
    """QA presets of a game's current version (development only, play money only)."""

    game = serializers.CharField()
    version = serializers.IntegerField()
    presets = PlayMoneyPresetSerializer(many=True)
    searched_seeds = serializers.IntegerField(help_text="how many seeds the pure engine tried")
    complete = serializers.BooleanField(help_text="false when the search ran out of time before its seed bound")

    def to_representation(self, instance):
        data = super().to_representation(instance)
        money = money_bet_fields(data["game"], data["version"])
        for preset in data["presets"]:
            preset["bet"] = bet_to_api(preset["bet"], money, formatted=False)
        return data
