"""Games API under /api/v1/games/ (thin: parse, call one service or selector, format).

GET  catalogue                      games with declared figures (public; staff also see unapproved versions)
GET  catalogue/{code}               launch: rules, paytable, the player's last bet and open round
POST rounds                         start a real-money round (Idempotency-Key required)
GET  rounds                         the player's rounds, newest first, 10 a page (recall: page 1 = last 10)
GET  rounds/open                    the round waiting for the player (resume, GP §7(8)b)
GET  rounds/{id}                    recall of one round (GP §11(5))
GET  rounds/{id}/verify             replay check of the stored round
POST rounds/{id}/actions            continue an interactive round (Idempotency-Key required)
POST play-money/rounds              start a play-money round (no wallet, no limits; QA forced draws)
GET  play-money/presets/{code}      QA presets: forced draws that trigger each feature (development only)
"""

from __future__ import annotations

from typing import Any, cast

from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, permissions
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsPlayer, request_player
from accounts.selectors import player_for_user
from core.audit import Actor
from core.errors import DomainError
from core.idempotency import idempotent, mark_replayed, request_key
from core.jsonable import jsonable
from core.permissions import staff_permission
from core.renderers import HOT_RENDERERS, HotContentNegotiation
from games import errors, selectors, services
from games.models import Game, Round
from games.serializers import (
    GameSummarySerializer,
    LaunchSerializer,
    OpenRoundSerializer,
    PlayMoneyPresetsSerializer,
    PlayMoneyRoundRequestSerializer,
    RoundActRequestSerializer,
    RoundPlayRequestSerializer,
    RoundSerializer,
    VerifySerializer,
    action_request_examples,
    bet_request_examples,
    bet_to_api,
    money_bet_fields,
    round_act_request_fast,
    round_play_request_fast,
)
from games.services import qa

PLAY_MONEY_PARAM = OpenApiParameter(
    "play_money", OpenApiTypes.BOOL, OpenApiParameter.QUERY, description="play-money rounds instead of real-money ones"
)


def _flag(request: Request, name: str) -> bool:
    return str(request.query_params.get(name, "")).lower() in ("1", "true", "yes", "on")


_CATALOGUE_STAFF = staff_permission("games.view_game")


def _staff(request: Request, view: APIView) -> bool:
    """Whether the caller passes the staff API's check for reading the catalogue (staff with ``games.view_game``,
    with the second factor where required). Staff see game versions not approved in the game plan (GP §13(6));
    players never do."""
    try:
        return _CATALOGUE_STAFF().has_permission(request, view)
    except DomainError:
        return False


class RecentRoundsPagination(PageNumberPagination):
    """Game recall: the first page is the last 10 rounds."""

    page_size = 10
    page_size_query_param = "page_size"
    max_page_size = 100


class CatalogueView(generics.ListAPIView):
    """The games a player can play (approved in the game plan), with their declared RTP, max bet, max win, average
    and maximum hourly loss. Staff also see the enabled versions not approved (``approval.state``)."""

    permission_classes = [permissions.AllowAny]
    serializer_class = GameSummarySerializer

    def get_queryset(self) -> QuerySet[Game]:
        return selectors.games_catalogue(include_unapproved=_staff(self.request, self))


class GameLaunchView(APIView):
    """A game's rules and paytable; for a player also their last bet and the round waiting for them."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=LaunchSerializer)
    def get(self, request: Request, code: str) -> Response:
        row = selectors.game_current(code, include_unapproved=_staff(request, self))
        player = player_for_user(request.user)  # anonymous callers and staff see the rules only
        data: dict[str, Any] = {"game": row, "last_bet": None, "open_round": None}
        if player is not None:
            data["last_bet"] = selectors.player_bet_settings(player, row.code)
            data["open_round"] = selectors.round_open(player)
        return Response(LaunchSerializer(data).data)


def round_json(rnd: Round) -> dict[str, Any]:
    """``RoundSerializer(rnd).data`` without building the serializer tree per request (the hot path of a round):
    the same dict (``selectors.round_public``) with times written as DRF writes them (ISO 8601, UTC as ``Z``).
    ``games/tests/platform/test_round_cost.py`` checks both give the same answer for finished, waiting, voided
    rounds and rounds with actions; the serializer stays the documented (OpenAPI) shape."""
    data = cast(dict[str, Any], jsonable(selectors.round_public(rnd)))
    data["bet"] = bet_to_api(data["bet"], money_bet_fields(rnd.game_code, rnd.game_version))  # the pinned version's
    return data


class RoundsView(generics.ListAPIView):
    """GET: the player's rounds (newest first). POST: start a real-money round."""

    permission_classes = [IsPlayer]
    renderer_classes = HOT_RENDERERS
    content_negotiation_class = HotContentNegotiation
    serializer_class = RoundSerializer
    pagination_class = RecentRoundsPagination
    request_examples = staticmethod(bet_request_examples)  # the schema's examples: each game's bet

    def get_queryset(self) -> QuerySet[Round]:
        return selectors.rounds_history(request_player(self.request), play_money=_flag(self.request, "play_money"))

    @extend_schema(parameters=[PLAY_MONEY_PARAM])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(request=RoundPlayRequestSerializer, responses={201: RoundSerializer})
    @idempotent(record=False)
    def post(self, request: Request) -> Response:
        """The round row is unique on (player, Idempotency-Key): it is its own idempotency record, so a replay
        returns the round (``Idempotent-Replayed: true``) and moves nothing, with no separate record."""
        key = request_key(request)
        player = request_player(request)
        fast = round_play_request_fast(request.data)
        if fast is not None:
            (game, bet), forced_draws = fast, None
        else:  # anything but the common body: the serializer validates it (and words its refusals)
            body = RoundPlayRequestSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            game, bet = body.validated_data["game"], body.validated_data["bet"]
            forced_draws = body.validated_data.get("forced_draws")
        rnd = services.round_play(
            player=player,
            game_code=game,
            bet=bet,
            idempotency_key=key,
            actor=Actor.player(player),
            forced_draws=forced_draws,
        )
        response = Response(round_json(rnd), status=201)
        return mark_replayed(response) if rnd.replayed else response


class PlayMoneyRoundsView(APIView):
    """Start a play-money round: no wallet, no limits, no jackpots; QA forced draws where enabled."""

    permission_classes = [IsPlayer]
    request_examples = staticmethod(bet_request_examples)

    @extend_schema(request=PlayMoneyRoundRequestSerializer, responses={201: RoundSerializer})
    @idempotent(record=False)
    def post(self, request: Request) -> Response:
        """The round row is its own idempotency record, as for real money (a replay: 201 with
        ``Idempotent-Replayed: true``)."""
        player = request_player(request)
        body = PlayMoneyRoundRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        rnd = services.round_play(
            player=player,
            game_code=body.validated_data["game"],
            bet=body.validated_data["bet"],
            idempotency_key=request_key(request),
            actor=Actor.player(player),
            play_money=True,
            forced_draws=body.validated_data.get("forced_draws"),
        )
        response = Response(RoundSerializer(rnd).data, status=201)
        return mark_replayed(response) if rnd.replayed else response


class PlayMoneyPresetsView(APIView):
    """QA presets (development only: ``GAMES_QA_FORCED_OUTCOMES``, never in production): for the game's current
    version, each feature its round start can trigger, with the forced draws that trigger it and the bet they were
    found with (searched with the pure engine, cached per game version). Send both to ``POST play-money/rounds``
    (``bet``, ``forced_draws``); a real-money round refuses forced draws."""

    permission_classes = [IsPlayer]

    @extend_schema(responses=PlayMoneyPresetsSerializer)
    def get(self, request: Request, code: str) -> Response:
        if not services.qa_forced_outcomes_enabled():  # refused before anything is looked up or searched
            raise errors.QA_FORCED_DISABLED()
        row = selectors.game_current(code)
        found = qa.game_presets(row.code, row.version)
        return Response(PlayMoneyPresetsSerializer({"game": row.code, "version": row.version, **found}).data)


class OpenRoundView(APIView):
    """GP §7(8)b: the round waiting for the player, to resume exactly where it stopped."""

    permission_classes = [IsPlayer]

    @extend_schema(responses=OpenRoundSerializer, parameters=[PLAY_MONEY_PARAM])
    def get(self, request: Request) -> Response:
        rnd = selectors.round_open(request_player(request), play_money=_flag(request, "play_money"))
        return Response(OpenRoundSerializer({"round": rnd}).data)


class RoundDetailView(APIView):
    """Recall of one of the player's rounds."""

    permission_classes = [IsPlayer]

    @extend_schema(responses=RoundSerializer)
    def get(self, request: Request, round_id: int) -> Response:
        return Response(RoundSerializer(selectors.round_get(request_player(request), round_id)).data)


class RoundVerifyView(APIView):
    """Replay the stored round with the engine and say whether it reproduces the stored result."""

    permission_classes = [IsPlayer]

    @extend_schema(responses=VerifySerializer)
    def get(self, request: Request, round_id: int) -> Response:
        return Response(VerifySerializer(selectors.round_verify(request_player(request), round_id)).data)


class RoundActionView(APIView):
    """Continue an interactive round with one action (pick, collect, gamble ...): one of the round's
    ``pending.options``, or ``{"type": "play_through"}`` while the pending offers exactly one option (a free spin):
    every consecutive single-option step played in this one request, each step's result in the answer's ``steps``."""

    permission_classes = [IsPlayer]
    renderer_classes = HOT_RENDERERS
    content_negotiation_class = HotContentNegotiation
    request_examples = staticmethod(action_request_examples)  # each game's kinds of step, from its engine

    @extend_schema(request=RoundActRequestSerializer, responses=RoundSerializer)
    @idempotent(record=False)
    def post(self, request: Request, round_id: int) -> Response:
        """The action row is unique on (round, Idempotency-Key): its own idempotency record (see RoundsView)."""
        key = request_key(request)
        player = request_player(request)
        action = round_act_request_fast(request.data)
        if action is None:  # anything but the common body: the serializer validates it (and words its refusals)
            body = RoundActRequestSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            action = body.validated_data["action"]
        rnd = services.round_act(
            player=player, round_id=round_id, action=action, idempotency_key=key, actor=Actor.player(player)
        )
        response = Response(round_json(rnd))
        return mark_replayed(response) if rnd.replayed else response
