"""Player API of complaints (``/api/v1/complaints``) and the staff report endpoint. Thin: parse, call, format."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import FileResponse
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsPlayer, request_player
from complaints import errors, selectors, services
from complaints.attachments import TYPES as ATTACHMENT_TYPES
from complaints.errors import error
from complaints.models import Complaint
from complaints.serializers import (
    AttachmentUploadSerializer,
    ComplaintAttachmentSerializer,
    ComplaintFileFormSerializer,
    ComplaintFileSerializer,
    ComplaintListSerializer,
    ComplaintMessageCreateSerializer,
    ComplaintMessageSerializer,
    ComplaintSerializer,
    ReportSerializer,
)
from core.audit import Actor
from core.idempotency import idempotent
from core.parsers import JSONParser
from core.permissions import staff_permission


def _lang() -> str:
    return "en" if (translation.get_language() or "cs")[:2] == "en" else "cs"


class ComplaintListCreateView(generics.GenericAPIView):
    """The player's complaints (GET, paginated) and filing a new one (POST)."""

    permission_classes = [IsPlayer]
    parser_classes = [JSONParser, MultiPartParser, FormParser]
    serializer_class = ComplaintListSerializer

    def get_queryset(self) -> QuerySet[Complaint]:
        return selectors.complaints_for_player(request_player(self.request))

    @extend_schema(responses=ComplaintListSerializer(many=True), operation_id="complaints_list")
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(ComplaintListSerializer(page, many=True).data)

    @extend_schema(
        request={"application/json": ComplaintFileSerializer, "multipart/form-data": ComplaintFileFormSerializer},
        responses={201: ComplaintSerializer},
        operation_id="complaints_file",
        description="File a complaint or a win claim (GP §10(2), §11). The response carries the confirmation of "
        "receipt (reference, date received, answer due date, next steps); the same is e-mailed. "
        "An optional Idempotency-Key makes a retried request return the first result.",
    )
    @idempotent(required=False)
    def post(self, request: Request) -> Response:
        player = request_player(request)
        s = ComplaintFileSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        d = s.validated_data
        amount = d.get("remedy_amount_requested")
        c = services.complaint_file(
            player=player,
            reason=d["reason"],
            description=d["description"],
            event_at=d.get("event_at"),
            remedy_requested=d.get("remedy_requested", ""),
            remedy_amount_requested=amount,
            round_ids=d.get("rounds", []),
            transaction_ids=d.get("transactions", []),
            files=d.get("attachments", []),
            language=_lang(),
            actor=Actor.player(player),
        )
        return Response(ComplaintSerializer(selectors.complaint_for_player(player, c.reference)).data, status=201)


class ComplaintDetailView(APIView):
    """One of the player's complaints: status, messages, the answer and any remedy (GP §11(8) notice)."""

    permission_classes = [IsPlayer]
    serializer_class = ComplaintSerializer

    @extend_schema(responses=ComplaintSerializer, operation_id="complaints_detail")
    def get(self, request: Request, reference: str) -> Response:
        complaint = selectors.complaint_for_player(request_player(request), reference)
        return Response(ComplaintSerializer(complaint).data)


class ComplaintMessageView(APIView):
    """The player adds information to an open complaint (answers a request for information)."""

    permission_classes = [IsPlayer]
    serializer_class = ComplaintMessageSerializer

    @extend_schema(
        request=ComplaintMessageCreateSerializer,
        responses={201: ComplaintMessageSerializer},
        operation_id="complaints_message_add",
    )
    @idempotent(required=False)
    def post(self, request: Request, reference: str) -> Response:
        player = request_player(request)
        c = selectors.complaint_for_player(player, reference)
        s = ComplaintMessageCreateSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        msg = services.complaint_player_message(complaint=c, text=s.validated_data["text"], actor=Actor.player(player))
        return Response(ComplaintMessageSerializer(msg).data, status=201)


class ComplaintAttachmentView(APIView):
    """The player adds attachments (PDF/PNG/JPEG by content, max 5 MB each) to an open complaint."""

    permission_classes = [IsPlayer]
    parser_classes = [MultiPartParser, FormParser]
    serializer_class = ComplaintAttachmentSerializer

    @extend_schema(
        request={"multipart/form-data": AttachmentUploadSerializer},
        responses={201: ComplaintAttachmentSerializer(many=True)},
        operation_id="complaints_attachments_add",
    )
    @idempotent(required=False)
    def post(self, request: Request, reference: str) -> Response:
        player = request_player(request)
        c = selectors.complaint_for_player(player, reference)
        s = AttachmentUploadSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        added = services.complaint_attachments_add(
            complaint=c, files=s.validated_data["attachments"], actor=Actor.player(player)
        )
        return Response(ComplaintAttachmentSerializer(added, many=True).data, status=201)


class ComplaintAttachmentDownloadView(APIView):
    """Download one attachment of the player's own complaint."""

    permission_classes = [IsPlayer]

    @extend_schema(
        responses={(200, content_type): OpenApiTypes.BINARY for content_type in ATTACHMENT_TYPES},
        operation_id="complaints_attachment_download",
    )  # the file as stored: PDF, PNG or JPEG
    def get(self, request: Request, reference: str, attachment_id: int) -> FileResponse:
        c = selectors.complaint_for_player(request_player(request), reference)
        a = c.attachments.filter(pk=attachment_id).first()
        if a is None or not a.file:  # none, or deleted at the end of its retention (complaints/privacy.py)
            raise error(errors.COMPLAINT_NOT_FOUND, reference=reference)
        return FileResponse(
            a.file.open("rb"), content_type=a.content_type, as_attachment=True, filename=a.original_name
        )


class ComplaintReportView(APIView):
    """Staff: the monthly complaints report (by reason, outcome, time to answer, overdue)."""

    permission_classes = [staff_permission("complaints.view_complaint")]
    serializer_class = ReportSerializer

    @extend_schema(
        parameters=[OpenApiParameter("month", str, description="YYYY-MM (Europe/Prague); default: the current month")],
        responses=ReportSerializer,
        operation_id="complaints_staff_report",
    )
    def get(self, request: Request) -> Response:
        return Response(ReportSerializer(selectors.complaints_report(request.query_params.get("month"))).data)
