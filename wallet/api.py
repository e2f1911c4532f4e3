"""Wallet API (``/api/v1/wallet/``): thin views that parse, call one service and format.

Players authenticate with their token (``IsPlayer``: a user without a player account gets ``auth.not_a_player``)
and see only their own rows (another player's id is a 404). Money-moving calls need an ``Idempotency-Key``. The
provider callback endpoint has no authentication: its HMAC signature is the proof. Staff endpoints need
``is_staff``.
"""

from __future__ import annotations

import csv
import io
from datetime import date, datetime, time, timedelta
from typing import Any, NoReturn

from django.conf import settings
from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.dateparse import parse_date, parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, permissions, serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Player
from accounts.permissions import IsPlayer, request_player
from core import clock
from core.audit import Actor, security_event
from core.errors import DomainError
from core.idempotency import idempotent
from core.permissions import staff_permission
from core.schema import idempotency_key
from core.throttling import CallbackRateThrottle, CallbackRefusalThrottle
from wallet import errors, selectors, services
from wallet import errors as wallet_errors
from wallet.adapters import SIGNATURE_HEADER
from wallet.models import (
    BankEntry,
    BankStatement,
    Deposit,
    Entry,
    PaymentMethod,
    PaymentOrderBatch,
    Payout,
    WinDeduction,
    WinHold,
    Withdrawal,
)
from wallet.serializers import (
    BankCreditAssignSerializer,
    BankCreditReturnSerializer,
    BankEntrySerializer,
    BankStatementSerializer,
    BankStatementUploadSerializer,
    BranchCashResultSerializer,
    BranchCashSerializer,
    CallbackResultSerializer,
    DepositCreateSerializer,
    DepositSerializer,
    DocumentUploadSerializer,
    MethodDocumentSerializer,
    PaymentMethodCreateSerializer,
    PaymentMethodSerializer,
    PaymentOrderBatchSerializer,
    PaymentOrderExportResultSerializer,
    PayoutSerializer,
    SandboxPayResultSerializer,
    SandboxPaySerializer,
    StatementLineSerializer,
    WalletOverviewSerializer,
    WinDeductionSerializer,
    WinHoldSerializer,
    WithdrawalCreateSerializer,
    WithdrawalSerializer,
)


def _key_reference(request: Request, what: str) -> str:
    return f"api:{what}:{request.user.pk}:{request.headers.get('Idempotency-Key', '')}"


BEGINNING = datetime.combine(date(1970, 1, 1), time.min, tzinfo=clock.PRAGUE)


KEY_HEADER = idempotency_key(required=True)  # every @idempotent() call below
PERIOD_YEARS = (1970, 2999)  # a statement period's bounds ("9999-12-31" overflowed into a 500)


class PeriodBoundField(serializers.CharField):
    """A date (a whole Prague day; as the end, inclusive) or an ISO 8601 datetime (Prague time when naive)."""

    def __init__(self, *, is_end: bool, **kwargs: Any) -> None:
        self.is_end = is_end
        super().__init__(required=False, allow_blank=True, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        value = super().to_internal_value(data)
        if not value:
            return None
        try:
            day = parse_date(value)  # first: Python reads "2026-01-01" as a datetime (midnight) too
            dt = None if day is not None else parse_datetime(value)
        except ValueError:  # well formatted but not a real date ("2026-02-30")
            day = dt = None
        if day is not None:
            if not PERIOD_YEARS[0] <= day.year <= PERIOD_YEARS[1]:
                raise serializers.ValidationError(f"a date in the years {PERIOD_YEARS[0]}-{PERIOD_YEARS[1]}")
            if self.is_end:
                day = day + timedelta(days=1)
            return datetime.combine(day, time.min, tzinfo=clock.PRAGUE)
        if dt is None:
            raise serializers.ValidationError("a date YYYY-MM-DD or an ISO 8601 datetime")
        if not PERIOD_YEARS[0] <= dt.year <= PERIOD_YEARS[1]:  # also keeps the UTC conversion from overflowing
            raise serializers.ValidationError(f"a date in the years {PERIOD_YEARS[0]}-{PERIOD_YEARS[1]}")
        return dt if dt.tzinfo is not None else dt.replace(tzinfo=clock.PRAGUE)


class PeriodQuerySerializer(serializers.Serializer[dict[str, Any]]):
    """``?start=&end=`` of the statements: ``[start, end)``; without ``start`` from the beginning."""

    start = PeriodBoundField(is_end=False, help_text="from (date = start of that Prague day, or ISO datetime)")
    end = PeriodBoundField(is_end=True, help_text="to (date = that whole Prague day, or ISO datetime; exclusive)")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        start = attrs.get("start") or BEGINNING  # absent or blank ("?start=")
        end = attrs.get("end") or None
        if end is not None and end <= start:
            raise serializers.ValidationError({"end": ["end must be after start"]})
        return {"start": start, "end": end}


def _period(request: Request) -> tuple[datetime, datetime | None]:
    """The statement period from the query (``request.invalid`` with the field's problem when unreadable)."""
    query = PeriodQuerySerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    return query.validated_data["start"], query.validated_data["end"]


def _statement_page(view: generics.GenericAPIView[Entry], player: Player, request: Request) -> Response:
    start, end = _period(request)
    page = view.paginate_queryset(selectors.statement_entries(player, start, end)) or []
    lines = [selectors.statement_line(e).__dict__ for e in page]
    return view.get_paginated_response(StatementLineSerializer(lines, many=True).data)


class OverviewView(APIView):
    """Balance, held funds, debt, payment-method deadline and the temporary account's cap."""

    permission_classes = [IsPlayer]

    @extend_schema(responses=WalletOverviewSerializer, operation_id="wallet_overview")
    def get(self, request: Request) -> Response:
        return Response(WalletOverviewSerializer(selectors.wallet_overview(request_player(request))).data)


class StatementView(generics.GenericAPIView[Entry]):
    """The player's movements in a period: deposits, withdrawals, stakes, wins, refunds, fees, corrections."""

    permission_classes = [IsPlayer]
    serializer_class = StatementLineSerializer

    @extend_schema(
        parameters=[PeriodQuerySerializer],
        responses=StatementLineSerializer(many=True),
        operation_id="wallet_statement",
    )
    def get(self, request: Request) -> Response:
        return _statement_page(self, request_player(request), request)


CSV_COLUMNS = [
    "at",
    "category",
    "kind",
    "account",
    "amount_czk",
    "balance_after_czk",
    "amount_minor",
    "balance_after_minor",
    "reference",
    "description",
]


class StatementCsvView(APIView):
    """The same statement as CSV (UTF-8, comma-separated, times in Europe/Prague)."""

    permission_classes = [IsPlayer]

    @extend_schema(
        parameters=[PeriodQuerySerializer],
        operation_id="wallet_statement_csv",
        responses={(200, "text/csv"): OpenApiResponse(response=OpenApiTypes.STR, description="CSV file")},
    )
    def get(self, request: Request) -> HttpResponse:
        player = request_player(request)
        start, end = _period(request)
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(CSV_COLUMNS)
        for e in selectors.statement_entries(player, start, end).iterator():
            line = selectors.statement_line(e)
            w.writerow(
                [
                    clock.local(line.at).isoformat(),
                    line.category,
                    line.kind,
                    line.account,
                    f"{line.amount.major:.2f}",
                    f"{line.balance_after.major:.2f}",
                    line.amount.amount,
                    line.balance_after.amount,
                    line.reference,
                    line.description,
                ]
            )
        resp = HttpResponse(buf.getvalue(), content_type="text/csv; charset=utf-8")
        resp["Content-Disposition"] = f'attachment; filename="statement-{clock.business_date()}.csv"'
        return resp


# Payment methods --------------------------------------------------------------------------------------------


class PaymentMethodListView(generics.GenericAPIView[PaymentMethod]):
    permission_classes = [IsPlayer]
    serializer_class = PaymentMethodSerializer

    def get_queryset(self) -> QuerySet[PaymentMethod]:
        return selectors.payment_methods(request_player(self.request))

    @extend_schema(responses=PaymentMethodSerializer(many=True), operation_id="wallet_methods_list")
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(PaymentMethodSerializer(page, many=True).data)

    @extend_schema(
        request=PaymentMethodCreateSerializer,
        responses={201: PaymentMethodSerializer},
        operation_id="wallet_methods_register",
        description="Register a payment method (GP §5(6)); a bank account must be at a bank seated in "
        "the Czech Republic (GP §5(7)). Ownership is verified by the first payment from it "
        "or by documents (GP §5(8)).",
    )
    @idempotent(required=False)
    def post(self, request: Request) -> Response:
        player = request_player(request)
        s = PaymentMethodCreateSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        d = dict(s.validated_data)
        kind = d.pop("kind")
        method = services.payment_method_register(
            player=player, kind=kind, data=d, actor=Actor.player(player), holder_name=d.get("holder_name", "")
        )
        return Response(PaymentMethodSerializer(method).data, status=201)


class PaymentMethodDetailView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(responses=PaymentMethodSerializer, operation_id="wallet_methods_detail")
    def get(self, request: Request, pk: int) -> Response:
        method = get_object_or_404(PaymentMethod, pk=pk, player=request_player(request))
        return Response(PaymentMethodSerializer(method).data)

    @extend_schema(responses=PaymentMethodSerializer, operation_id="wallet_methods_remove")
    @idempotent(required=False)
    def delete(self, request: Request, pk: int) -> Response:
        player = request_player(request)
        method = get_object_or_404(PaymentMethod, pk=pk, player=player)
        method = services.payment_method_remove(method=method, actor=Actor.player(player))
        return Response(PaymentMethodSerializer(method).data)


class MethodDocumentView(APIView):
    permission_classes = [IsPlayer]
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={"multipart/form-data": DocumentUploadSerializer},
        responses={201: MethodDocumentSerializer},
        operation_id="wallet_methods_document_upload",
        description="Upload a document proving ownership (GP §5(8)b): PDF, JPEG or PNG; staff review it.",
    )
    @idempotent(required=False)
    def post(self, request: Request, pk: int) -> Response:
        player = request_player(request)
        method = get_object_or_404(PaymentMethod, pk=pk, player=player)
        s = DocumentUploadSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        f = s.validated_data["file"]
        max_bytes = settings.WALLET_DOCUMENT_MAX_BYTES
        if f.size > max_bytes:
            raise errors.DOCUMENT_TOO_LARGE(max_bytes=max_bytes, size=f.size)
        doc = services.method_document_upload(method=method, name=f.name, content=f.read(), actor=Actor.player(player))
        return Response(MethodDocumentSerializer(doc).data, status=201)


# Deposits ------------------------------------------------------------------------------------------------------


class DepositListView(generics.GenericAPIView[Deposit]):
    permission_classes = [IsPlayer]
    serializer_class = DepositSerializer

    def get_queryset(self) -> QuerySet[Deposit]:
        return Deposit.objects.filter(player=request_player(self.request)).order_by("-created_at", "-pk")

    @extend_schema(responses=DepositSerializer(many=True), operation_id="wallet_deposits_list")
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(DepositSerializer(page, many=True).data)

    @extend_schema(
        request=DepositCreateSerializer,
        responses={201: DepositSerializer},
        operation_id="wallet_deposits_start",
        parameters=[KEY_HEADER],
        description="Start a deposit from a registered method: follow ``redirect_url`` or pay with the "
        "``instructions``; the provider's signed callback credits it. Needs Idempotency-Key.",
    )
    @idempotent()
    def post(self, request: Request) -> Response:
        player = request_player(request)
        s = DepositCreateSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        method = get_object_or_404(PaymentMethod, pk=s.validated_data["method_id"], player=player)
        d = services.deposit_start(
            player=player,
            method=method,
            amount=s.validated_data["amount"],
            reference=_key_reference(request, "deposit"),
            actor=Actor.player(player),
        )
        return Response(DepositSerializer(d).data, status=201)


class DepositDetailView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(responses=DepositSerializer, operation_id="wallet_deposits_detail")
    def get(self, request: Request, pk: int) -> Response:
        return Response(DepositSerializer(get_object_or_404(Deposit, pk=pk, player=request_player(request))).data)


class SandboxPayView(APIView):
    """The sandbox provider's "pay" page: it confirms (or fails) the deposit by a signed callback sent after
    commit. Only while ``WALLET_SANDBOX_ENABLED``."""

    permission_classes = [IsPlayer]

    @extend_schema(
        request=SandboxPaySerializer,
        responses={202: SandboxPayResultSerializer},
        operation_id="wallet_sandbox_pay",
        parameters=[KEY_HEADER],
    )
    @idempotent()
    def post(self, request: Request, pk: int) -> Response:
        player = request_player(request)
        deposit = get_object_or_404(Deposit, pk=pk, player=player)
        s = SandboxPaySerializer(data=request.data)
        s.is_valid(raise_exception=True)
        payer: dict[str, Any] | None = None
        if s.validated_data.get("payer_name"):
            payer = {"name": s.validated_data["payer_name"]}
            if s.validated_data.get("payer_birth_date"):
                payer["birth_date"] = s.validated_data["payer_birth_date"].isoformat()
        result = services.sandbox_pay(
            deposit=deposit, outcome=s.validated_data["outcome"], payer=payer, actor=Actor.player(player)
        )
        return Response(result, status=202)


class ProviderCallbackView(APIView):
    """Provider callbacks: no authentication; the HMAC-SHA256 signature over the raw body (header
    ``X-Signature: sha256=<hex>``) is checked. Each event id is handled once; replays return the first result."""

    authentication_classes: list[type[Any]] = []
    permission_classes = [permissions.AllowAny]
    throttle_classes = [CallbackRateThrottle, CallbackRefusalThrottle]  # per source address

    def throttled(self, request: Request, wait: float) -> NoReturn:
        """A source over the callback rates: one security event per window (the rest counted), then 429."""
        security_event(
            action="security.callback_throttled",
            source=request.META.get("REMOTE_ADDR", ""),
            tried="POST callbacks over the per-source rate",
            wait_seconds=wait,
            summarise=True,
        )
        super().throttled(request, wait)

    @extend_schema(
        request={"application/json": OpenApiTypes.OBJECT},
        responses=CallbackResultSerializer,
        operation_id="wallet_provider_callback",
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
        try:
            result = services.provider_callback_handle(
                provider=provider, raw_body=raw, signature=request.headers.get(SIGNATURE_HEADER, "")
            )
        except DomainError as exc:
            if exc.code in (
                wallet_errors.BAD_SIGNATURE.code,
                wallet_errors.UNKNOWN_PROVIDER.code,
                wallet_errors.REPLAY_MISMATCH.code,
            ):
                CallbackRefusalThrottle.refused(request, self)
                security_event(
                    action="security.callback_refused",
                    source=request.META.get("REMOTE_ADDR", ""),
                    tried=f"POST callbacks/{provider[:60]}: {exc.code}",
                    body=raw,
                    provider=provider[:60],
                    summarise=True,
                )
            raise
        if result["status"] == "duplicate":  # a signed replay: harmless (nothing changed), recorded for the trail
            security_event(
                action="security.callback_replayed",
                source=request.META.get("REMOTE_ADDR", ""),
                tried=f"POST callbacks/{provider[:60]}: event {result['event_id']} again",
                body=raw,
                provider=provider[:60],
                first_result=result["result"],
                summarise=True,
            )
        return Response(result)


# Withdrawals --------------------------------------------------------------------------------------------------


class WithdrawalListView(generics.GenericAPIView[Withdrawal]):
    permission_classes = [IsPlayer]
    serializer_class = WithdrawalSerializer

    def get_queryset(self) -> QuerySet[Withdrawal]:
        return Withdrawal.objects.filter(player=request_player(self.request)).order_by("-requested_at", "-pk")

    @extend_schema(responses=WithdrawalSerializer(many=True), operation_id="wallet_withdrawals_list")
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(WithdrawalSerializer(page, many=True).data)

    @extend_schema(
        request=WithdrawalCreateSerializer,
        responses={201: WithdrawalSerializer},
        operation_id="wallet_withdrawals_request",
        parameters=[KEY_HEADER],
        description="Withdraw to a verified registered method (GP §5(6), §5(8)); only from a full "
        "player account (GP §5(2)c). Needs Idempotency-Key.",
    )
    @idempotent()
    def post(self, request: Request) -> Response:
        player = request_player(request)
        s = WithdrawalCreateSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        method = get_object_or_404(PaymentMethod, pk=s.validated_data["method_id"], player=player)
        w = services.withdrawal_request(
            player=player,
            method=method,
            amount=s.validated_data["amount"],
            reference=_key_reference(request, "withdrawal"),
            actor=Actor.player(player),
        )
        w.refresh_from_db()
        return Response(WithdrawalSerializer(w).data, status=201)


class WithdrawalDetailView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(responses=WithdrawalSerializer, operation_id="wallet_withdrawals_detail")
    def get(self, request: Request, pk: int) -> Response:
        withdrawal = get_object_or_404(Withdrawal, pk=pk, player=request_player(request))
        return Response(WithdrawalSerializer(withdrawal).data)


class WithdrawalCancelView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(
        request=None, responses=WithdrawalSerializer, operation_id="wallet_withdrawals_cancel", parameters=[KEY_HEADER]
    )
    @idempotent()
    def post(self, request: Request, pk: int) -> Response:
        player = request_player(request)
        w = services.withdrawal_cancel(
            withdrawal=get_object_or_404(Withdrawal, pk=pk, player=player), actor=Actor.player(player)
        )
        return Response(WithdrawalSerializer(w).data)


# Payouts, holds, deductions ---------------------------------------------------------------------------------------


class PayoutListView(generics.ListAPIView[Payout]):
    """Refunds and settlements paid outside the account (GP §5(2)e, §5(13), §5(15)), with their steps."""

    permission_classes = [IsPlayer]
    serializer_class = PayoutSerializer

    def get_queryset(self) -> QuerySet[Payout]:
        return Payout.objects.filter(player=request_player(self.request)).order_by("-started_at", "-pk")

    @extend_schema(operation_id="wallet_payouts_list")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class WinHoldListView(generics.ListAPIView[WinHold]):
    """Wins held under doubt (GP §10(3))."""

    permission_classes = [IsPlayer]
    serializer_class = WinHoldSerializer

    def get_queryset(self) -> QuerySet[WinHold]:
        return WinHold.objects.filter(player=request_player(self.request)).order_by("-held_at", "-pk")

    @extend_schema(operation_id="wallet_holds_list")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class WinDeductionListView(generics.ListAPIView[WinDeduction]):
    """Wins deducted with notice (GP §7(7), §10(4)) and the resulting debt's due date."""

    permission_classes = [IsPlayer]
    serializer_class = WinDeductionSerializer

    def get_queryset(self) -> QuerySet[WinDeduction]:
        return (
            WinDeduction.objects.filter(player=request_player(self.request))
            .select_related("debt")
            .order_by("-notice_sent_at")
        )

    @extend_schema(operation_id="wallet_deductions_list")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


# Staff ---------------------------------------------------------------------------------------------------------


class StaffBranchCashView(APIView):
    """Staff record cash paid in or out at a branch (GP §5(12): 5,000 CZK per rolling 24 h each way)."""

    permission_classes = [staff_permission("wallet.record_branch_cash")]

    @extend_schema(
        request=BranchCashSerializer,
        responses={201: BranchCashResultSerializer},
        operation_id="wallet_staff_branch_cash",
        parameters=[KEY_HEADER],
    )
    @idempotent()
    def post(self, request: Request) -> Response:
        s = BranchCashSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        d = s.validated_data
        player = get_object_or_404(Player, pk=d["player_id"])
        bc = services.branch_cash_record(
            player=player,
            direction=d["direction"],
            amount=d["amount"],
            reference=d.get("reference") or _key_reference(request, "branch"),
            branch=d["branch"],
            actor=Actor.staff(request.user),
        )
        return Response(
            BranchCashResultSerializer(
                {
                    "id": bc.pk,
                    "player_id": bc.player_id,
                    "direction": bc.direction,
                    "amount": bc.amount,
                    "branch": bc.branch,
                    "reference": bc.reference,
                    "at": bc.at,
                }
            ).data,
            status=201,
        )


class StaffStatementView(generics.GenericAPIView[Entry]):
    """Staff: any player's statement."""

    permission_classes = [staff_permission("wallet.view_wallet")]
    serializer_class = StatementLineSerializer

    @extend_schema(
        parameters=[PeriodQuerySerializer],
        responses=StatementLineSerializer(many=True),
        operation_id="wallet_staff_statement",
    )
    def get(self, request: Request, player_id: int) -> Response:
        return _statement_page(self, get_object_or_404(Player, pk=player_id), request)


# Staff: bank statements in, payment orders out ---------------------------------------------------------------------


class StaffBankStatementListView(generics.GenericAPIView[BankStatement]):
    """Staff: the imported bank statements (camt.053 / camt.054); upload one (checked now, processed after commit)."""

    permission_classes = [staff_permission("wallet.import_bank_statement", read="wallet.view_bankstatement")]
    serializer_class = BankStatementSerializer
    parser_classes = [MultiPartParser]

    def get_queryset(self) -> QuerySet[BankStatement]:
        return BankStatement.objects.order_by("-imported_at", "-pk")

    @extend_schema(responses=BankStatementSerializer(many=True), operation_id="wallet_staff_bank_statements_list")
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(BankStatementSerializer(page, many=True).data)

    @extend_schema(
        request={"multipart/form-data": BankStatementUploadSerializer},
        responses={202: BankStatementSerializer, 200: BankStatementSerializer},
        operation_id="wallet_staff_bank_statements_upload",
        description="Upload a camt.053 statement or camt.054 notification of the operator's account "
        "(WALLET_BANK_IBAN; another account's is refused). 202: stored, its entries are "
        "handled by a background task; 200: the same file was uploaded before (nothing "
        "changes).",
    )
    def post(self, request: Request) -> Response:
        s = BankStatementUploadSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        f = s.validated_data["file"]
        max_bytes = settings.WALLET_BANK_STATEMENT_MAX_BYTES
        if f.size > max_bytes:
            raise errors.BANK_FILE_TOO_LARGE(max_bytes=max_bytes, size=f.size)
        stmt, created = services.bank_statement_upload(raw=f.read(), name=f.name or "", actor=Actor.staff(request.user))
        stmt.refresh_from_db()
        return Response(BankStatementSerializer(stmt).data, status=202 if created else 200)


class StaffBankStatementDetailView(APIView):
    permission_classes = [staff_permission("wallet.import_bank_statement", read="wallet.view_bankstatement")]

    @extend_schema(responses=BankStatementSerializer, operation_id="wallet_staff_bank_statements_detail")
    def get(self, request: Request, pk: int) -> Response:
        return Response(BankStatementSerializer(get_object_or_404(BankStatement, pk=pk)).data)


class BankEntryQuerySerializer(serializers.Serializer[dict[str, Any]]):
    status = serializers.ChoiceField(
        choices=BankEntry.Status.choices, required=False, help_text="default: unmatched (the queue)"
    )
    direction = serializers.ChoiceField(choices=BankEntry.Direction.choices, required=False)


class StaffBankEntryListView(generics.GenericAPIView[BankEntry]):
    """Staff: the bank's movements; by default the queue of credits no deposit matched (oldest first)."""

    permission_classes = [staff_permission("wallet.match_bank_credit", read="wallet.view_bankentry")]
    serializer_class = BankEntrySerializer

    @extend_schema(
        parameters=[BankEntryQuerySerializer],
        responses=BankEntrySerializer(many=True),
        operation_id="wallet_staff_bank_entries_list",
    )
    def get(self, request: Request) -> Response:
        query = BankEntryQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        qs = BankEntry.objects.filter(status=query.validated_data.get("status", BankEntry.Status.UNMATCHED))
        if query.validated_data.get("direction"):
            qs = qs.filter(direction=query.validated_data["direction"])
        page = self.paginate_queryset(qs.order_by("created_at", "pk"))
        return self.get_paginated_response(BankEntrySerializer(page, many=True).data)


class StaffBankEntryAssignView(APIView):
    """Staff: an unmatched credit is a deposit's, or a player's from their registered bank account (GP §5(6))."""

    permission_classes = [staff_permission("wallet.match_bank_credit")]

    @extend_schema(
        request=BankCreditAssignSerializer,
        responses=BankEntrySerializer,
        operation_id="wallet_staff_bank_entries_assign",
        parameters=[KEY_HEADER],
    )
    @idempotent()
    def post(self, request: Request, pk: int) -> Response:
        entry = get_object_or_404(BankEntry, pk=pk)
        s = BankCreditAssignSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        d = s.validated_data
        deposit = get_object_or_404(Deposit, pk=d["deposit_id"]) if "deposit_id" in d else None
        player = get_object_or_404(Player, pk=d["player_id"]) if "player_id" in d else None
        entry = services.bank_credit_assign(
            entry=entry, deposit=deposit, player=player, actor=Actor.staff(request.user)
        )
        return Response(BankEntrySerializer(entry).data)


class StaffBankEntryReturnView(APIView):
    """Staff: an unmatched credit goes back to the account it came from (in the next payment-order file)."""

    permission_classes = [staff_permission("wallet.match_bank_credit")]

    @extend_schema(
        request=BankCreditReturnSerializer,
        responses=BankEntrySerializer,
        operation_id="wallet_staff_bank_entries_return",
        parameters=[KEY_HEADER],
    )
    @idempotent()
    def post(self, request: Request, pk: int) -> Response:
        entry = get_object_or_404(BankEntry, pk=pk)
        s = BankCreditReturnSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        entry = services.bank_credit_return(
            entry=entry, reason=s.validated_data["reason"], actor=Actor.staff(request.user)
        )
        return Response(BankEntrySerializer(entry).data)


class StaffPaymentOrderListView(generics.GenericAPIView[PaymentOrderBatch]):
    """Staff: the payment-order files (pain.001); export the next one."""

    permission_classes = [staff_permission("wallet.export_payment_orders", read="wallet.view_paymentorderbatch")]
    serializer_class = PaymentOrderBatchSerializer

    def get_queryset(self) -> QuerySet[PaymentOrderBatch]:
        return PaymentOrderBatch.objects.prefetch_related("orders").order_by("-created_at", "-pk")

    @extend_schema(responses=PaymentOrderBatchSerializer(many=True), operation_id="wallet_staff_payment_orders_list")
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(PaymentOrderBatchSerializer(page, many=True).data)

    @extend_schema(
        request=None,
        responses={201: PaymentOrderExportResultSerializer, 200: PaymentOrderExportResultSerializer},
        operation_id="wallet_staff_payment_orders_export",
        parameters=[KEY_HEADER],
        description="Export every bank withdrawal, payout and credit return not yet in a file as one "
        "pain.001.001.03 file (201), or nothing to export (200, batch null).",
    )
    @idempotent()
    def post(self, request: Request) -> Response:
        batch = services.bank_payment_order_export(actor=Actor.staff(request.user))
        data = {"exported": batch is not None, "batch": batch}
        return Response(PaymentOrderExportResultSerializer(data).data, status=201 if batch else 200)


class StaffPaymentOrderFileView(APIView):
    """Staff: the pain.001 file of a batch, for the bank."""

    permission_classes = [staff_permission("wallet.export_payment_orders")]

    @extend_schema(
        operation_id="wallet_staff_payment_orders_file",
        responses={
            (200, "application/xml"): OpenApiResponse(response=OpenApiTypes.STR, description="pain.001.001.03 XML")
        },
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        batch = get_object_or_404(PaymentOrderBatch, pk=pk)
        if not batch.xml:  # blanked by the retention job (wallet/privacy.py): gone, not an empty file
            raise errors.PAYMENT_ORDER_FILE_ERASED(batch=batch.message_id)
        resp = HttpResponse(batch.xml.encode(), content_type="application/xml; charset=utf-8")
        resp["Content-Disposition"] = f'attachment; filename="{batch.message_id}.xml"'
        return resp
