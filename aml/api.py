"""AML API (``/api/v1/aml/``): thin views that parse, call one service and format.

Players (``IsPlayer``) see only their own rows (another player's id is a 404). The identification provider's
callback endpoint has no authentication: its HMAC signature is the proof. Staff endpoints name their permission
(``core.permissions.staff_permission``).
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, time
from typing import Any, NoReturn

from django.conf import settings
from django.db.models import QuerySet
from django.http import FileResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, permissions
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Player
from accounts.permissions import IsPlayer, request_player
from aml import errors, selectors, services
from aml.adapters import SIGNATURE_HEADER
from aml.list_parsers import PRAGUE
from aml.models import (
    ComplianceCase,
    IdentificationCheck,
    IdentificationImage,
    ScreeningListVersion,
    SourceOfFundsDeclaration,
)
from aml.serializers import (
    AmlCallbackResultSerializer,
    AmlStatusSerializer,
    AttemptsAllowSerializer,
    BankIdCallbackSerializer,
    BankIdStartedSerializer,
    BankIdStartSerializer,
    CaseDecideSerializer,
    CaseHoldCreateSerializer,
    CaseHoldSerializer,
    CaseSerializer,
    IdentificationSerializer,
    IdentificationStartSerializer,
    PepDeclarationSerializer,
    PepDeclareSerializer,
    ReviewSerializer,
    ScreeningListImportResultSerializer,
    ScreeningListImportSerializer,
    ScreeningListVersionSerializer,
    SofDeclarationSerializer,
    SofDeclareSerializer,
    SofReviewSerializer,
    SofSummarySerializer,
    StaffIdentificationAttemptsSerializer,
    StaffIdentificationSerializer,
    StaffSofSerializer,
)
from core.audit import Actor, security_event
from core.errors import NOT_FOUND, VALIDATION, DomainError
from core.idempotency import idempotent
from core.permissions import staff_permission
from core.throttling import CallbackRateThrottle, CallbackRefusalThrottle

DOCUMENT_FIELDS = (
    "document_type",
    "document_number",
    "document_issuing_state",
    "document_issuing_authority",
    "document_valid_until",
    "id_card_unavailable",
)


class StatusView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(
        responses=AmlStatusSerializer,
        operation_id="aml_status",
        description="My AML state: identification, PEP declaration, screening, source of funds, and the "
        "code each operation would be refused with now.",
    )
    def get(self, request: Request) -> Response:
        return Response(AmlStatusSerializer(selectors.aml_status(request_player(request))).data)


# Identification (GP §4(4)b) ------------------------------------------------------------------------------------------


class IdentificationListView(generics.GenericAPIView[IdentificationCheck]):
    permission_classes = [IsPlayer]
    serializer_class = IdentificationSerializer
    parser_classes = [MultiPartParser]

    def get_queryset(self) -> QuerySet[IdentificationCheck]:
        return IdentificationCheck.objects.filter(player=request_player(self.request)).order_by("-created_at", "-pk")

    @extend_schema(responses=IdentificationSerializer(many=True), operation_id="aml_identifications_list")
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(IdentificationSerializer(page, many=True).data)

    @extend_schema(
        request={"multipart/form-data": IdentificationStartSerializer},
        responses={201: IdentificationSerializer},
        operation_id="aml_identifications_start",
        description="Online AML identification (GP §4(4)b): the identity document's particulars, images "
        "of its front and back (JPEG/PNG; a passport needs no back) and a selfie. The "
        "provider checks the document and the likeness and answers later; follow the "
        "status here or at GET status.",
    )
    @idempotent(required=False)
    def post(self, request: Request) -> Response:
        player = request_player(request)
        s = IdentificationStartSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        d = s.validated_data
        max_bytes = settings.AML_IDENTIFICATION_IMAGE_MAX_BYTES
        images: dict[str, bytes] = {}
        for side in ("front", "back", "selfie"):
            f = d.get(side)
            if f is None:
                continue
            if f.size > max_bytes:
                raise errors.IMAGE_TOO_LARGE(side=side, max_bytes=max_bytes, size=f.size)
            images[side] = f.read()
        check = services.identification_start(
            player=player, document={k: d[k] for k in DOCUMENT_FIELDS}, images=images, actor=Actor.player(player)
        )
        return Response(IdentificationSerializer(check).data, status=201)


class IdentificationDetailView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(responses=IdentificationSerializer, operation_id="aml_identifications_detail")
    def get(self, request: Request, pk: int) -> Response:
        check = get_object_or_404(IdentificationCheck, pk=pk, player=request_player(request))
        return Response(IdentificationSerializer(check).data)


class BankIdStartView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(
        request=BankIdStartSerializer,
        responses={201: BankIdStartedSerializer},
        operation_id="aml_bankid_start",
        description="Online AML identification by my bank (Bank iD, GP §4(4)b): send my browser to "
        "authorization_url; the bank sends it back to redirect_url with code and state, "
        "which the app forwards to POST identifications/bankid/callback. A newer start "
        "makes an earlier one unusable.",
    )
    @idempotent(required=False)
    def post(self, request: Request) -> Response:
        player = request_player(request)
        s = BankIdStartSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        started = services.bankid_start(
            player=player, redirect_url=s.validated_data["redirect_url"], actor=Actor.player(player)
        )
        return Response(
            BankIdStartedSerializer(
                {
                    "authorization_url": started.authorization_url,
                    "redirect_url": started.authorization.redirect_url,
                    "expires_at": started.authorization.expires_at,
                }
            ).data,
            status=201,
        )


class BankIdCallbackView(APIView):
    """The player app forwards what the bank sent back to its redirect URL. The player's own authentication binds
    the answer to the player who started the sign-in; the state works once."""

    permission_classes = [IsPlayer]

    @extend_schema(
        request=BankIdCallbackSerializer,
        responses={200: IdentificationSerializer},
        operation_id="aml_bankid_callback",
        description="Finish the Bank iD identification with the code and state the bank sent back (or "
        "its error). 200: approved, I am AML-identified. Refusals: aml.bankid_* (nobody is "
        "identified); aml.bankid_claims_mismatch: the bank's data differ from my "
        "registration and compliance staff review it (details.identification_id).",
    )
    def post(self, request: Request) -> Response:
        player = request_player(request)
        s = BankIdCallbackSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        d = s.validated_data
        try:
            check = services.bankid_complete(
                player=player,
                state=d["state"],
                code=d.get("code", ""),
                error=d.get("error", ""),
                error_description=d.get("error_description", ""),
                actor=Actor.player(player),
            )
        except DomainError as exc:
            if exc.code == errors.BANKID_STATE_INVALID.code:
                security_event(
                    action="security.bankid_state_refused",
                    source=request.META.get("REMOTE_ADDR", ""),
                    tried=f"POST aml/identifications/bankid/callback: {exc.code}",
                    body=d["state"],
                    player_id=player.pk,
                    status=exc.details.get("status"),
                )
            raise
        return Response(IdentificationSerializer(check).data)


class IdentificationImageView(APIView):
    """The player's own identification image (GP §12(7)a, GDPR art. 15: the export lists them with this path)."""

    permission_classes = [IsPlayer]

    @extend_schema(
        responses={(200, "image/*"): OpenApiTypes.BINARY},
        operation_id="aml_identification_image",
        summary="Download one image of my identification (document front/back, selfie)",
    )
    def get(self, request: Request, pk: int, side: str) -> FileResponse:
        if side not in IdentificationImage.Side.values or not 0 < pk < 2**63:
            raise NOT_FOUND()
        img = IdentificationImage.objects.filter(
            identification_id=pk, side=side, identification__player=request_player(request)
        ).first()
        if img is None or not img.file:  # another player's, none, or deleted at the end of its retention
            raise NOT_FOUND()
        ext = ".png" if img.content_type == "image/png" else ".jpg"
        response = FileResponse(
            img.file.open("rb"),
            content_type=img.content_type,
            as_attachment=True,
            filename=f"identification-{pk}-{side}{ext}",
        )
        response["X-Content-Type-Options"] = "nosniff"
        response["Cache-Control"] = "private, no-store"
        return response


class IdentificationCallbackView(APIView):
    """Identification provider callbacks: no authentication; the HMAC-SHA256 signature over the raw body (header
    ``X-Signature: sha256=<hex>``) is checked. Each event id is handled once; replays return the first result."""

    authentication_classes: list[type[Any]] = []
    permission_classes = [permissions.AllowAny]
    throttle_classes = [CallbackRateThrottle, CallbackRefusalThrottle]  # per source address

    def throttled(self, request: Request, wait: float) -> NoReturn:
        """A source over the callback rates: one security event per window (the rest counted), then 429."""
        security_event(
            action="security.callback_throttled",
            source=request.META.get("REMOTE_ADDR", ""),
            tried="POST aml/callbacks over the per-source rate",
            wait_seconds=wait,
            summarise=True,
        )
        super().throttled(request, wait)

    @extend_schema(
        request={"application/json": OpenApiTypes.OBJECT},
        responses=AmlCallbackResultSerializer,
        operation_id="aml_identification_callback",
        parameters=[
            OpenApiParameter(
                SIGNATURE_HEADER,
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                required=True,
                description="sha256=<hex HMAC of the raw body>",
            )
        ],
    )
    def post(self, request: Request, provider: str) -> Response:
        raw = request.body
        source = request.META.get("REMOTE_ADDR", "")
        try:
            result = services.identification_callback_handle(
                provider=provider, raw_body=raw, signature=request.headers.get(SIGNATURE_HEADER, "")
            )
        except DomainError as exc:
            if exc.code in (errors.BAD_SIGNATURE.code, errors.UNKNOWN_PROVIDER.code, errors.REPLAY_MISMATCH.code):
                CallbackRefusalThrottle.refused(request, self)
                security_event(
                    action="security.callback_refused",
                    source=source,
                    tried=f"POST aml/callbacks/{provider[:60]}: {exc.code}",
                    body=raw,
                    provider=provider[:60],
                    summarise=True,
                )
            raise
        if result["status"] == "duplicate":
            security_event(
                action="security.callback_replayed",
                source=source,
                tried=f"POST aml/callbacks/{provider[:60]}: event {result['event_id']} again",
                body=raw,
                provider=provider[:60],
                first_result=result["result"],
                summarise=True,
            )
        return Response(result)


# PEP declaration ----------------------------------------------------------------------------------------------------


class PepDeclarationView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(
        responses=PepDeclarationSerializer,
        operation_id="aml_pep_declaration_get",
        description="My latest declaration (404 when I have made none).",
    )
    def get(self, request: Request) -> Response:
        decl = selectors.pep_declaration(request_player(request))
        if decl is None:
            raise NOT_FOUND(what="pep_declaration")
        return Response(PepDeclarationSerializer(decl).data)

    @extend_schema(
        request=PepDeclareSerializer,
        responses={201: PepDeclarationSerializer},
        operation_id="aml_pep_declare",
        description="Declare whether I am a politically exposed person (or a family member or close "
        "associate of one); needed before completing the registration. A PEP goes to "
        "compliance review.",
    )
    @idempotent(required=False)
    def post(self, request: Request) -> Response:
        player = request_player(request)
        s = PepDeclareSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        decl = services.pep_declare(
            player=player,
            relation=s.validated_data["relation"],
            position=s.validated_data.get("position", ""),
            actor=Actor.player(player),
        )
        return Response(PepDeclarationSerializer(decl).data, status=201)


# Source of funds ----------------------------------------------------------------------------------------------------


class SourceOfFundsView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(
        responses=SofSummarySerializer,
        operation_id="aml_source_of_funds_get",
        description="Whether a source-of-funds declaration is required now, the deposits counted, the "
        "threshold and my latest declaration.",
    )
    def get(self, request: Request) -> Response:
        player = request_player(request)
        sof = selectors.sof_status(player)
        latest = SourceOfFundsDeclaration.objects.filter(player=player).order_by("-submitted_at", "-pk").first()
        return Response(
            SofSummarySerializer(
                {
                    "declaration_required": sof.required,
                    "deposits_total": sof.deposits_total,
                    "threshold": sof.threshold,
                    "window_days": sof.window_days,
                    "latest": latest,
                }
            ).data
        )

    @extend_schema(
        request=SofDeclareSerializer,
        responses={201: SofDeclarationSerializer},
        operation_id="aml_source_of_funds_declare",
        description="Declare the source of the funds I deposit; deposits refused for want of it are "
        "possible again at once.",
    )
    @idempotent(required=False)
    def post(self, request: Request) -> Response:
        player = request_player(request)
        s = SofDeclareSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        decl = services.sof_declare(
            player=player,
            source=s.validated_data["source"],
            description=s.validated_data["description"],
            actor=Actor.player(player),
        )
        return Response(SofDeclarationSerializer(decl).data, status=201)


# Staff ---------------------------------------------------------------------------------------------------------------


def _status_filter(request: Request, choices: list[str], default: str) -> str:
    """A staff list's ``?status=``: one of the model's choices (absent or blank: ``default``); anything else, a NUL
    included, is ``request.invalid`` naming the choices, never a value handed to the database."""
    given = request.query_params.getlist("status")
    if not given or given == [""]:
        return default
    if len(given) > 1 or given[0] not in choices:
        raise VALIDATION(fields={"status": [f"one of: {', '.join(choices)} (at most once)"]})
    return given[0]


class StaffIdentificationListView(generics.GenericAPIView[IdentificationCheck]):
    permission_classes = [staff_permission("aml.view_identificationcheck")]
    serializer_class = StaffIdentificationSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "status",
                OpenApiTypes.STR,
                enum=IdentificationCheck.Status.values,
                description="default: doubtful (the review queue)",
            )
        ],
        responses=StaffIdentificationSerializer(many=True),
        operation_id="aml_staff_identifications",
    )
    def get(self, request: Request) -> Response:
        status = _status_filter(request, IdentificationCheck.Status.values, IdentificationCheck.Status.DOUBTFUL)
        qs = (
            IdentificationCheck.objects.select_related("player__user")
            .filter(status=status)
            .order_by("created_at", "pk")
        )
        page = self.paginate_queryset(qs)
        return self.get_paginated_response(StaffIdentificationSerializer(page, many=True).data)


class StaffIdentificationReviewView(APIView):
    permission_classes = [staff_permission("aml.review_identification")]

    @extend_schema(
        request=ReviewSerializer,
        responses=StaffIdentificationSerializer,
        operation_id="aml_staff_identification_review",
        description="Decide a doubtful identification: approve (the player is AML-identified) or "
        "reject, with a note (audited).",
    )
    def post(self, request: Request, pk: int) -> Response:
        check = get_object_or_404(IdentificationCheck, pk=pk)
        s = ReviewSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        check = services.identification_review(
            check=check,
            approve=s.validated_data["approve"],
            note=s.validated_data["note"],
            actor=Actor.staff(request.user),
        )
        return Response(StaffIdentificationSerializer(check).data)


class StaffIdentificationAttemptsView(APIView):
    """A player's identification attempts, and staff allowing new ones once they are used up."""

    permission_classes = [staff_permission("aml.review_identification")]

    @staticmethod
    def _answer(player_id: int, attempts: selectors.IdentificationAttempts) -> Response:
        return Response(StaffIdentificationAttemptsSerializer({"player_id": player_id, **asdict(attempts)}).data)

    @extend_schema(responses=StaffIdentificationAttemptsSerializer, operation_id="aml_staff_identification_attempts")
    def get(self, request: Request, player_id: int) -> Response:
        player = get_object_or_404(Player, pk=player_id)
        return self._answer(player.pk, selectors.identification_attempts(player))

    @extend_schema(
        request=AttemptsAllowSerializer,
        responses=StaffIdentificationAttemptsSerializer,
        operation_id="aml_staff_identification_attempts_allow",
        description="Allow the player new identification attempts (after reviewing the used-up ones), "
        "with a note (audited): attempts count afresh from now.",
    )
    def post(self, request: Request, player_id: int) -> Response:
        player = get_object_or_404(Player, pk=player_id)
        s = AttemptsAllowSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        attempts = services.identification_attempts_allow(
            player=player, note=s.validated_data["note"], actor=Actor.staff(request.user)
        )
        return self._answer(player.pk, attempts)


class StaffCaseListView(generics.GenericAPIView[ComplianceCase]):
    permission_classes = [staff_permission("aml.view_compliancecase")]
    serializer_class = CaseSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "status",
                OpenApiTypes.STR,
                enum=ComplianceCase.Status.values,
                description="default: open (the compliance queue)",
            )
        ],
        responses=CaseSerializer(many=True),
        operation_id="aml_staff_cases",
    )
    def get(self, request: Request) -> Response:
        status = _status_filter(request, ComplianceCase.Status.values, ComplianceCase.Status.OPEN)
        qs = (
            ComplianceCase.objects.select_related("player__user")
            .prefetch_related("holds")
            .filter(status=status)
            .order_by("opened_at", "pk")
        )
        page = self.paginate_queryset(qs)
        return self.get_paginated_response(CaseSerializer(page, many=True).data)


class StaffCaseDecideView(APIView):
    permission_classes = [staff_permission("aml.decide_case")]

    @extend_schema(
        request=CaseDecideSerializer,
        responses=CaseSerializer,
        operation_id="aml_staff_case_decide",
        description="Decide a case: cleared or confirmed, with a note (audited).",
    )
    def post(self, request: Request, pk: int) -> Response:
        case = get_object_or_404(ComplianceCase, pk=pk)
        s = CaseDecideSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        case = services.case_decide(
            case=case,
            decision=s.validated_data["decision"],
            note=s.validated_data["note"],
            actor=Actor.staff(request.user),
        )
        return Response(CaseSerializer(case).data)


class StaffCaseHoldView(APIView):
    permission_classes = [staff_permission("aml.place_hold")]

    @extend_schema(
        request=CaseHoldCreateSerializer,
        responses={201: CaseHoldSerializer},
        operation_id="aml_staff_case_hold",
        description="Hold a win of the case's player (GP §10(3)): regularity (at most until the win's "
        "60-day payout term) or aml (the AML-law period).",
    )
    def post(self, request: Request, pk: int) -> Response:
        case = get_object_or_404(ComplianceCase, pk=pk)
        s = CaseHoldCreateSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        hold = services.case_hold_place(
            case=case,
            win_reference=s.validated_data["win_reference"],
            reason=s.validated_data["reason"],
            note=s.validated_data["note"],
            actor=Actor.staff(request.user),
        )
        return Response(CaseHoldSerializer(hold).data, status=201)


class StaffSofListView(generics.GenericAPIView[SourceOfFundsDeclaration]):
    permission_classes = [staff_permission("aml.view_sourceoffundsdeclaration")]
    serializer_class = StaffSofSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "status",
                OpenApiTypes.STR,
                enum=SourceOfFundsDeclaration.Status.values,
                description="default: submitted (the review queue)",
            )
        ],
        responses=StaffSofSerializer(many=True),
        operation_id="aml_staff_source_of_funds",
    )
    def get(self, request: Request) -> Response:
        status = _status_filter(
            request, SourceOfFundsDeclaration.Status.values, SourceOfFundsDeclaration.Status.SUBMITTED
        )
        qs = (
            SourceOfFundsDeclaration.objects.select_related("player__user")
            .filter(status=status)
            .order_by("submitted_at", "pk")
        )
        page = self.paginate_queryset(qs)
        return self.get_paginated_response(StaffSofSerializer(page, many=True).data)


class StaffSofReviewView(APIView):
    permission_classes = [staff_permission("aml.review_source_of_funds")]

    @extend_schema(
        request=SofReviewSerializer,
        responses=StaffSofSerializer,
        operation_id="aml_staff_source_of_funds_review",
        description="Accept or reject a source-of-funds declaration, with a note (audited).",
    )
    def post(self, request: Request, pk: int) -> Response:
        decl = get_object_or_404(SourceOfFundsDeclaration, pk=pk)
        s = SofReviewSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        decl = services.sof_review(
            declaration=decl,
            accept=s.validated_data["accept"],
            note=s.validated_data["note"],
            actor=Actor.staff(request.user),
        )
        return Response(StaffSofSerializer(decl).data)


class StaffScreeningListView(generics.GenericAPIView[ScreeningListVersion]):
    permission_classes = [staff_permission("aml.view_screeninglistversion")]
    serializer_class = ScreeningListVersionSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "source", OpenApiTypes.STR, enum=ScreeningListVersion.Source.values, description="only this list"
            )
        ],
        responses=ScreeningListVersionSerializer(many=True),
        operation_id="aml_staff_screening_lists",
        description="The imported list versions, newest first (the newest of each source is screened against).",
    )
    def get(self, request: Request) -> Response:
        qs = ScreeningListVersion.objects.order_by("-imported_at", "-pk")
        source = request.query_params.get("source")
        if source:
            qs = qs.filter(source=source)
        page = self.paginate_queryset(qs)
        return self.get_paginated_response(ScreeningListVersionSerializer(page, many=True).data)


class StaffScreeningListImportView(APIView):
    permission_classes = [staff_permission("aml.import_screening_list")]
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={"multipart/form-data": ScreeningListImportSerializer},
        responses={201: ScreeningListImportResultSerializer, 200: ScreeningListImportResultSerializer},
        operation_id="aml_staff_screening_list_import",
        description="Upload a downloaded list file (EU, UN, Czech national sanctions list, the operator's "
        "PEP list). A new file becomes a new version (201) and every live player is "
        "screened again in the background; the same file again changes nothing (200).",
    )
    def post(self, request: Request) -> Response:
        s = ScreeningListImportSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        d = s.validated_data
        max_bytes = settings.AML_SCREENING_LIST_MAX_BYTES
        if d["file"].size > max_bytes:
            raise errors.LIST_TOO_LARGE(max_bytes=max_bytes, size=d["file"].size)
        published = d.get("published")
        version, created = services.screening_list_import(
            source=d["source"],
            data=d["file"].read(),
            file_name=d["file"].name or "",
            actor=Actor.staff(request.user),
            published_at=None if published is None else datetime.combine(published, time(0), tzinfo=PRAGUE),
        )
        return Response(
            ScreeningListImportResultSerializer({"created": created, "version": version}).data,
            status=201 if created else 200,
        )
