"""Jackpots API under /api/v1/jackpots (read-only; thin: parse, call one selector, format).

GET  ""            the running levels with their current values (public; ?game=, ?coin_value=)
GET  wins          the latest paid wins (public, nothing names a player)
GET  my-wins       the caller's own wins, with the round each came from (players)
"""

from __future__ import annotations

import re

from django.utils.cache import patch_cache_control
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsPlayer, request_player
from jackpots import errors, selectors
from jackpots.serializers import JackpotsDisplaySerializer, JackpotWinSerializer, PlayerJackpotWinSerializer

# Kobushi's rules: the shown values refresh about every 3 s, so a client or a proxy may keep them 2 s.
DISPLAY_MAX_AGE = 2
GAME_CODE = re.compile(r"[a-z0-9_]{1,60}")
COIN_DIGITS = re.compile(r"[0-9]{1,6}")  # ASCII digits only (int() would take "١" or " 5")
COIN_MIN, COIN_MAX = 1, 100_000

GAME_PARAM = OpenApiParameter(
    "game",
    str,
    OpenApiParameter.QUERY,
    required=False,
    allow_blank=False,
    pattern=f"^{GAME_CODE.pattern}$",
    description="only the levels this game contributes to (a game code)",
)
COIN_PARAM = OpenApiParameter(
    "coin_value",
    {"type": "integer", "minimum": COIN_MIN, "maximum": COIN_MAX},
    OpenApiParameter.QUERY,
    required=False,
    description="haléře: also show Kobushi levels' value at this coin value",
)


def _display_query(request: Request) -> tuple[str | None, int | None]:
    """``?game=`` and ``?coin_value=``, strictly (``jackpot.invalid_query`` 400 naming the bad ones); other
    parameters are ignored (e.g. a client's cache buster)."""
    problems: dict[str, str] = {}
    game: str | None = None
    coin: int | None = None
    games = request.query_params.getlist("game")
    if len(games) > 1:
        problems["game"] = "give it at most once"
    elif games:
        if GAME_CODE.fullmatch(games[0]):
            game = games[0]
        else:
            problems["game"] = "a game code: 1-60 characters a-z, 0-9, _"
    coins = request.query_params.getlist("coin_value")
    if len(coins) > 1:
        problems["coin_value"] = "give it at most once"
    elif coins:
        if COIN_DIGITS.fullmatch(coins[0]) and COIN_MIN <= int(coins[0]) <= COIN_MAX:
            coin = int(coins[0])
        else:
            problems["coin_value"] = f"an integer number of haléře, {COIN_MIN}-{COIN_MAX}"
    if problems:
        raise errors.INVALID_QUERY(fields=problems)
    return game, coin


class JackpotsView(APIView):
    """The running jackpot levels with their current values. A must-hit level shows its range and the commitment
    to its hidden WIN_AT (sha256), never WIN_AT: it is revealed with the win (``wins``)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        parameters=[GAME_PARAM, COIN_PARAM], responses=JackpotsDisplaySerializer, operation_id="jackpots_display"
    )
    def get(self, request: Request) -> Response:
        game, coin = _display_query(request)
        data = selectors.jackpots_display(game_code=game, coin_value=coin)
        response = Response(JackpotsDisplaySerializer(data).data)
        patch_cache_control(response, public=True, max_age=DISPLAY_MAX_AGE)
        return response


class JackpotWinsView(APIView):
    """The latest paid jackpot wins (nothing names the player); a must-hit win reveals WIN_AT and its salt."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=JackpotWinSerializer(many=True), operation_id="jackpots_wins")
    def get(self, request: Request) -> Response:
        return Response(JackpotWinSerializer(selectors.wins_public(), many=True).data)


class MyJackpotWinsView(APIView):
    """The caller's own jackpot wins (decided, paid or reversed), newest first, with the round of each."""

    permission_classes = [IsPlayer]

    @extend_schema(responses=PlayerJackpotWinSerializer(many=True), operation_id="jackpots_my_wins")
    def get(self, request: Request) -> Response:
        wins = selectors.wins_of_player(player_id=request_player(request).pk)
        return Response(PlayerJackpotWinSerializer(wins, many=True).data)
