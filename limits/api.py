"""Limits API under /api/v1/limits/ (the player's own data only; thin views).

GET  self-limits?kind=technical              the seven self-limits with usage and a pending loosening
GET  self-limits/history?kind=technical      every change of the player's limits (who, when, old, new, from)
GET  self-limits/{kind}/{limit_type}         one limit
PUT  self-limits/{kind}/{limit_type}         set / decline / tighten (at once) or loosen / remove (after 7 days)
GET  play-status?kind=technical              play time used and left, break end (GP §7(4)-(5))
GET  panic                                   is the panic button exclusion running
POST panic                                   the panic button: 48 hours without gambling, logged out at once
GET  self-listing                            the player's self-listing requests
POST self-listing                            ask to be listed in the register of excluded persons (>= 1 year)
GET  responsible-gaming                      public: responsible-gaming texts and help contacts, cs + en (GP §13(4))
GET  statistics?from=&to=&kind=              the player's logged-in time and net result per day and month
"""

from __future__ import annotations

import re
from dataclasses import asdict
from datetime import date, timedelta
from typing import Any

from django.db.models import QuerySet
from django.utils.cache import patch_cache_control
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Player
from accounts.permissions import IsPlayer, request_player
from core import clock
from core.audit import Actor
from core.idempotency import idempotent
from core.schema import idempotency_key
from limits import errors, selectors, services
from limits.kinds import KINDS, TECHNICAL, kind_rules
from limits.models import LimitType, SelfLimitChange, SelfListingRequest
from limits.rules import LIMIT_UNITS, validate_limit
from limits.serializers import (
    PanicSerializer,
    PanicStatusSerializer,
    PlayStatisticsSerializer,
    PlayStatusSerializer,
    ResponsibleGamingSerializer,
    SelfLimitChangeSerializer,
    SelfLimitSerializer,
    SelfLimitWriteSerializer,
    SelfListingSerializer,
    SelfListingWriteSerializer,
)
from limits.tasks import panic_report_send_task, self_listing_send_task

KIND_PARAM = OpenApiParameter(
    "kind",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    required=False,
    enum=sorted(KINDS),
    description="kind of gambling (default technical)",
)
KIND_PATH = OpenApiParameter("kind", OpenApiTypes.STR, OpenApiParameter.PATH, enum=sorted(KINDS))
KEY_HEADER_OPTIONAL = idempotency_key(required=False)
LIMIT_PATH = OpenApiParameter("limit_type", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(LimitType.values))


def _kind(request: Request) -> str:
    kind = request.query_params.get("kind") or TECHNICAL
    kind_rules(kind)
    return kind


def _limit_view(player: Player, kind: str, limit_type: str) -> selectors.LimitView:
    validate_limit(limit_type, None)
    return next(v for v in selectors.self_limits(player, kind) if v.limit_type == limit_type)


class SelfLimitListView(generics.ListAPIView[Any]):
    """The seven self-limits (GP §6(6)) of one kind, with what is used now and any pending loosening."""

    permission_classes = [IsPlayer]
    serializer_class = SelfLimitSerializer

    # the type: ignore below: a list of the selector's dicts, not a QuerySet
    def get_queryset(self) -> list[dict[str, Any]]:  # type: ignore[override]
        return [asdict(v) for v in selectors.self_limits(request_player(self.request), _kind(self.request))]

    @extend_schema(parameters=[KIND_PARAM])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class SelfLimitDetailView(APIView):
    """One self-limit: read it, or set / decline / change it.

    Tightening (a lower limit, a longer pause after logout) and a first decision are in force at once
    (GP §6(5)); loosening or removal is in force 7 days after the request (GP §6(4)) and shows as pending.
    """

    permission_classes = [IsPlayer]

    @extend_schema(parameters=[KIND_PATH, LIMIT_PATH], responses=SelfLimitSerializer)
    def get(self, request: Request, kind: str, limit_type: str) -> Response:
        player = request_player(request)
        kind_rules(kind)
        return Response(SelfLimitSerializer(asdict(_limit_view(player, kind, limit_type))).data)

    @extend_schema(parameters=[KIND_PATH, LIMIT_PATH], request=SelfLimitWriteSerializer, responses=SelfLimitSerializer)
    @idempotent(required=False)
    def put(self, request: Request, kind: str, limit_type: str) -> Response:
        player = request_player(request)
        kind_rules(kind)
        validate_limit(limit_type, None)
        ser = SelfLimitWriteSerializer(data=request.data, context={"unit": LIMIT_UNITS[LimitType(limit_type)]})
        ser.is_valid(raise_exception=True)
        if "value" not in request.data:
            raise serializers.ValidationError({"value": ["This field is required (null = no limit)."]})
        services.self_limit_set(
            player=player,
            kind=kind,
            limit_type=limit_type,
            value=ser.validated_data["value"],
            actor=Actor.player(player),
            now=clock.now(),
        )
        return Response(SelfLimitSerializer(asdict(_limit_view(player, kind, limit_type))).data)


class SelfLimitHistoryView(generics.ListAPIView[SelfLimitChange]):
    """Every change of the player's self-limits, newest first."""

    permission_classes = [IsPlayer]
    serializer_class = SelfLimitChangeSerializer

    def get_queryset(self) -> QuerySet[SelfLimitChange]:
        kind = self.request.query_params.get("kind")
        if kind:
            kind_rules(kind)
        return selectors.limit_history(request_player(self.request), kind)

    @extend_schema(parameters=[KIND_PARAM])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class PlayStatusView(APIView):
    """How much play time is left before the compulsory break and when a break ends (GP §7(4)-(5))."""

    permission_classes = [IsPlayer]

    @extend_schema(parameters=[KIND_PARAM], responses=PlayStatusSerializer)
    def get(self, request: Request) -> Response:
        player = request_player(request)
        return Response(PlayStatusSerializer(selectors.play_status(player, clock.now(), kind=_kind(request))).data)


class PanicView(APIView):
    """The panic button: immediate exclusion from all gambling for 48 hours (pressing again restarts the 48 h)."""

    permission_classes = [IsPlayer]

    @extend_schema(responses=PanicStatusSerializer)
    def get(self, request: Request) -> Response:
        player = request_player(request)
        panic = selectors.active_panic(player, clock.now())
        return Response(
            PanicStatusSerializer({"active": panic is not None, "ends_at": panic.ends_at if panic else None}).data
        )

    @extend_schema(request=None, responses={201: PanicSerializer}, parameters=[KEY_HEADER_OPTIONAL])
    @idempotent(required=False)
    def post(self, request: Request) -> Response:
        player = request_player(request)
        panic = services.panic_press(player=player, actor=Actor.player(player), now=clock.now())
        panic_report_send_task.delay_on_commit(panic.report.pk)  # the register at once; the sweeper retries
        return Response(PanicSerializer(panic).data, status=201)


class SelfListingView(generics.ListCreateAPIView[SelfListingRequest]):
    """Requests to be listed in the register of excluded persons (removal at the earliest after 1 year)."""

    permission_classes = [IsPlayer]
    serializer_class = SelfListingSerializer

    def get_queryset(self) -> QuerySet[SelfListingRequest]:
        return SelfListingRequest.objects.filter(player=request_player(self.request)).order_by("-requested_at", "-id")

    @extend_schema(
        request=SelfListingWriteSerializer, responses={201: SelfListingSerializer}, parameters=[KEY_HEADER_OPTIONAL]
    )
    @idempotent(required=False)
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        player = request_player(request)
        ser = SelfListingWriteSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        req = services.self_listing_request(
            player=player, actor=Actor.player(player), years=ser.validated_data["years"], now=clock.now()
        )
        self_listing_send_task.delay_on_commit(req.pk)  # the register at once; the sweeper retries a failure
        return Response(SelfListingSerializer(req).data, status=201)


class ResponsibleGamingView(APIView):
    """Responsible gaming (GP §13(4)): the operator's principles and the player's tools, and the help contacts, in
    Czech and English. Public (no login); staff edit them in the admin."""

    permission_classes = [permissions.AllowAny]
    MAX_AGE = 300  # seconds a client or proxy may reuse the answer; a staff edit shows within 5 minutes

    @extend_schema(responses=ResponsibleGamingSerializer, operation_id="limits_responsible_gaming")
    def get(self, request: Request) -> Response:
        response = Response(ResponsibleGamingSerializer(selectors.responsible_gaming()).data)
        patch_cache_control(response, public=True, max_age=self.MAX_AGE)
        return response


DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
DATE_YEARS = (1970, 2999)  # a statistics date's bounds (no overflow at the edges of the calendar)
DEFAULT_STATISTICS_DAYS = 30  # without from/to: the last 30 Prague days, today included
DATE_FROM = OpenApiParameter(
    "from",
    OpenApiTypes.DATE,
    OpenApiParameter.QUERY,
    required=False,
    description=f"first Prague day, YYYY-MM-DD; default: {DEFAULT_STATISTICS_DAYS - 1} days "
    "before `to` (the last 30 days)",
)
DATE_TO = OpenApiParameter(
    "to",
    OpenApiTypes.DATE,
    OpenApiParameter.QUERY,
    required=False,
    description=f"last Prague day (inclusive), YYYY-MM-DD; default: today; at most "
    f"{selectors.STATISTICS_MAX_DAYS} days from `from`",
)


def _query_date(request: Request, name: str, default: date | None = None) -> date:
    """A query date written exactly YYYY-MM-DD (``limits.invalid_date`` otherwise); ``default`` when absent."""
    raw = request.query_params.get(name)
    if raw is None and default is not None:
        return default
    shown = raw[:40] if raw is not None else None  # echoed back in the error, never at length
    if raw is None or not DATE_RE.fullmatch(raw):
        raise errors.INVALID_DATE(field=name, value=shown, expected="YYYY-MM-DD")
    try:
        value = date.fromisoformat(raw)
    except ValueError:
        raise errors.INVALID_DATE(field=name, value=shown, expected="YYYY-MM-DD") from None
    if not DATE_YEARS[0] <= value.year <= DATE_YEARS[1]:
        raise errors.INVALID_DATE(field=name, value=shown, expected="YYYY-MM-DD", years=list(DATE_YEARS))
    return value


class PlayStatisticsView(APIView):
    """The player's own play (GP §13(4)) per Prague day of the range and per calendar month touching it: time
    logged in, and the stakes, wins and net loss (stakes - wins) of the bets decided then (GP §6(7)). Without
    ``to``: today; without ``from``: 29 days before ``to`` (the last 30 days)."""

    permission_classes = [IsPlayer]

    @extend_schema(
        parameters=[DATE_FROM, DATE_TO, KIND_PARAM],
        responses=PlayStatisticsSerializer,
        operation_id="limits_statistics",
    )
    def get(self, request: Request) -> Response:
        player = request_player(request)
        now = clock.now()
        last = _query_date(request, "to", default=clock.business_date(now))
        first = _query_date(request, "from", default=last - timedelta(days=DEFAULT_STATISTICS_DAYS - 1))
        data = selectors.play_statistics(player, _kind(request), first, last, now)
        return Response(PlayStatisticsSerializer(data).data)
