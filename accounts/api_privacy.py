"""Player API of the personal-data requests (GP §12(7)) and the public privacy notice (GP §12(3), §12(5), §12(7)),
mounted under /api/v1/accounts/. Thin: parse, call a service, format."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import errors, privacy, selectors, serializers_privacy, services
from accounts.models import DataRequest
from accounts.permissions import IsPlayer, request_player
from core.audit import Actor
from core.errors import NOT_FOUND
from core.idempotency import idempotent


def _request_id(value: int) -> int:
    """A path identifier within the database's range; anything else is simply not found."""
    if not 0 < value < 2**63:
        raise NOT_FOUND()
    return value


def _problems(errs: Any) -> dict[str, list[str]]:
    return {field: [getattr(p, "code", None) or "invalid" for p in items] for field, items in errs.items()}


class DataRequestsView(generics.ListAPIView):
    """My personal-data requests (explanation, blocking, deletion; GP §12(7)), newest first."""

    permission_classes = [IsPlayer]
    serializer_class = serializers_privacy.DataRequestSerializer

    def get_queryset(self) -> QuerySet[DataRequest]:
        return selectors.data_requests_of(request_player(self.request))

    @extend_schema(
        request=serializers_privacy.DataRequestInSerializer,
        responses={201: serializers_privacy.DataRequestSerializer},
        summary="Ask for an explanation, a blocking or a deletion of my data (GP §12(7)); answered within one month",
    )
    @idempotent(required=False)
    def post(self, request: Request) -> Response:
        ser = serializers_privacy.DataRequestInSerializer(data=request.data)
        if not ser.is_valid():
            raise errors.DATA_REQUEST_INVALID(fields=_problems(ser.errors), kinds=DataRequest.Kind.values)
        player = request_player(request)
        req = services.data_request_create(
            player=player, kind=ser.validated_data["kind"], text=ser.validated_data["text"], actor=Actor.player(player)
        )
        return Response(serializers_privacy.DataRequestSerializer(req).data, status=201)


class DataRequestDetailView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(responses=serializers_privacy.DataRequestSerializer, summary="One of my personal-data requests")
    def get(self, request: Request, request_id: int) -> Response:
        req = selectors.data_request_of(request_player(request), _request_id(request_id))
        if req is None:
            raise NOT_FOUND()
        return Response(serializers_privacy.DataRequestSerializer(req).data)


class DataRequestWithdrawView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(
        request=None,
        responses=serializers_privacy.DataRequestSerializer,
        summary="Withdraw a pending request, or end my blocking",
    )
    @idempotent(required=False)
    def post(self, request: Request, request_id: int) -> Response:
        player = request_player(request)
        req = services.data_request_withdraw(
            player=player, request_id=_request_id(request_id), actor=Actor.player(player)
        )
        return Response(serializers_privacy.DataRequestSerializer(req).data)


class PrivacyView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        responses=serializers_privacy.PrivacyNoticeSerializer,
        summary="How personal data are processed: purposes, retention periods, rights and the "
        "data-protection authority (GP §12)",
    )
    def get(self, request: Request) -> Response:
        return Response(serializers_privacy.PrivacyNoticeSerializer(privacy.privacy_notice()).data)
