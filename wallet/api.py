"""Wallet API (``/api/v1/wallet/``): thin views that parse, call one service and format.

Players authenticate with their token and see only their own rows (another player's id is a 404). Money-moving
calls need an ``Idempotency-Key``. The provider callback endpoint has no authentication: its HMAC signature
is the proof. Staff endpoints need ``is_staff``.
"""
from __future__ import annotations

import csv
import io
from datetime import date, datetime, time, timedelta

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.dateparse import parse_date, parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, permissions
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from core import clock
from core.audit import Actor
from core.errors import FORBIDDEN, VALIDATION
from core.idempotency import idempotent
from wallet import errors, selectors, services
from wallet.adapters import SIGNATURE_HEADER
from wallet.models import Deposit, PaymentMethod, Payout, WinDeduction, WinHold, Withdrawal
from wallet.serializers import (
    BranchCashResultSerializer,
    BranchCashSerializer,
    CallbackResultSerializer,
    DepositCreateSerializer,
    DepositSerializer,
    DocumentUploadSerializer,
    MethodDocumentSerializer,
    PaymentMethodCreateSerializer,
    PaymentMethodSerializer,
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


def _player(request):
    player = getattr(request.user, "player", None) if request.user.is_authenticated else None
    if player is None:
        raise FORBIDDEN(reason="a player account is required")
    return player


def _key_reference(request, what: str) -> str:
    return f"api:{what}:{request.user.pk}:{request.headers.get('Idempotency-Key', '')}"


def _parse_bound(value: str | None, *, end: bool):
    """A date (a whole Prague day; ``end`` inclusive) or an ISO datetime."""
    if not value:
        return None
    dt = parse_datetime(value)
    if dt is not None:
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=clock.PRAGUE)
        return dt
    d = parse_date(value)
    if d is None:
        raise VALIDATION(fields={"end" if end else "start": ["a date YYYY-MM-DD or an ISO 8601 datetime"]})
    if end:
        d = d + timedelta(days=1)
    return datetime.combine(d, time.min, tzinfo=clock.PRAGUE)


def _period(request):
    start = _parse_bound(request.query_params.get("start"), end=False)
    end = _parse_bound(request.query_params.get("end"), end=True)
    if start is None:
        start = datetime.combine(date(1970, 1, 1), time.min, tzinfo=clock.PRAGUE)
    if end is not None and end <= start:
        raise VALIDATION(fields={"end": ["end must be after start"]})
    return start, end


PERIOD_PARAMS = [
    OpenApiParameter("start", OpenApiTypes.STR, description="from (date = start of that Prague day, or ISO datetime)"),
    OpenApiParameter("end", OpenApiTypes.STR, description="to (date = that whole Prague day, or ISO datetime; exclusive)"),
]


class OverviewView(APIView):
    """Balance, held funds, debt, payment-method deadline and the temporary account's cap."""

    @extend_schema(responses=WalletOverviewSerializer, operation_id="wallet_overview")
    def get(self, request):
        return Response(WalletOverviewSerializer(selectors.wallet_overview(_player(request))).data)


class StatementView(generics.GenericAPIView):
    """The player's movements in a period: deposits, withdrawals, stakes, wins, refunds, fees, corrections."""

    serializer_class = StatementLineSerializer

    @extend_schema(parameters=PERIOD_PARAMS, responses=StatementLineSerializer(many=True), operation_id="wallet_statement")
    def get(self, request):
        start, end = _period(request)
        page = self.paginate_queryset(selectors.statement_entries(_player(request), start, end))
        lines = [selectors.statement_line(e).__dict__ for e in page]
        return self.get_paginated_response(StatementLineSerializer(lines, many=True).data)


CSV_COLUMNS = ["at", "category", "kind", "account", "amount_czk", "balance_after_czk", "amount_minor",
               "balance_after_minor", "reference", "description"]


class StatementCsvView(APIView):
    """The same statement as CSV (UTF-8, comma-separated, times in Europe/Prague)."""

    @extend_schema(parameters=PERIOD_PARAMS, operation_id="wallet_statement_csv",
                   responses={(200, "text/csv"): OpenApiResponse(response=OpenApiTypes.STR, description="CSV file")})
    def get(self, request):
        player = _player(request)
        start, end = _period(request)
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(CSV_COLUMNS)
        for e in selectors.statement_entries(player, start, end).iterator():
            line = selectors.statement_line(e)
            w.writerow([clock.local(line.at).isoformat(), line.category, line.kind, line.account, f"{line.amount.major:.2f}",
                        f"{line.balance_after.major:.2f}", line.amount.amount, line.balance_after.amount,
                        line.reference, line.description])
        resp = HttpResponse(buf.getvalue(), content_type="text/csv; charset=utf-8")
        resp["Content-Disposition"] = f'attachment; filename="statement-{clock.business_date()}.csv"'
        return resp


# Payment methods --------------------------------------------------------------------------------------------

class PaymentMethodListView(generics.GenericAPIView):
    serializer_class = PaymentMethodSerializer

    def get_queryset(self):
        return selectors.payment_methods(_player(self.request))

    @extend_schema(responses=PaymentMethodSerializer(many=True), operation_id="wallet_methods_list")
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(PaymentMethodSerializer(page, many=True).data)

    @extend_schema(request=PaymentMethodCreateSerializer, responses={201: PaymentMethodSerializer},
                   operation_id="wallet_methods_register",
                   description="Register a payment method (GP §5(6)); a bank account must be at a bank seated in "
                               "the Czech Republic (GP §5(7)). Ownership is verified by the first payment from it "
                               "or by documents (GP §5(8)).")
    def post(self, request):
        player = _player(request)
        s = PaymentMethodCreateSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        d = dict(s.validated_data)
        kind = d.pop("kind")
        method = services.payment_method_register(player=player, kind=kind, data=d, actor=Actor.player(player),
                                                  holder_name=d.get("holder_name", ""))
        return Response(PaymentMethodSerializer(method).data, status=201)


class PaymentMethodDetailView(APIView):
    @extend_schema(responses=PaymentMethodSerializer, operation_id="wallet_methods_detail")
    def get(self, request, pk: int):
        method = get_object_or_404(PaymentMethod, pk=pk, player=_player(request))
        return Response(PaymentMethodSerializer(method).data)

    @extend_schema(responses=PaymentMethodSerializer, operation_id="wallet_methods_remove")
    def delete(self, request, pk: int):
        player = _player(request)
        method = get_object_or_404(PaymentMethod, pk=pk, player=player)
        method = services.payment_method_remove(method=method, actor=Actor.player(player))
        return Response(PaymentMethodSerializer(method).data)


class MethodDocumentView(APIView):
    parser_classes = [MultiPartParser]

    @extend_schema(request={"multipart/form-data": DocumentUploadSerializer}, responses={201: MethodDocumentSerializer},
                   operation_id="wallet_methods_document_upload",
                   description="Upload a document proving ownership (GP §5(8)b): PDF, JPEG or PNG; staff review it.")
    def post(self, request, pk: int):
        player = _player(request)
        method = get_object_or_404(PaymentMethod, pk=pk, player=player)
        s = DocumentUploadSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        f = s.validated_data["file"]
        from wallet import conf

        max_bytes = conf.get("WALLET_DOCUMENT_MAX_BYTES")
        if f.size > max_bytes:
            raise errors.DOCUMENT_TOO_LARGE(max_bytes=max_bytes, size=f.size)
        doc = services.method_document_upload(method=method, name=f.name, content=f.read(), actor=Actor.player(player))
        return Response(MethodDocumentSerializer(doc).data, status=201)


# Deposits ------------------------------------------------------------------------------------------------------

class DepositListView(generics.GenericAPIView):
    serializer_class = DepositSerializer

    def get_queryset(self):
        return Deposit.objects.filter(player=_player(self.request)).order_by("-created_at", "-pk")

    @extend_schema(responses=DepositSerializer(many=True), operation_id="wallet_deposits_list")
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(DepositSerializer(page, many=True).data)

    @extend_schema(request=DepositCreateSerializer, responses={201: DepositSerializer}, operation_id="wallet_deposits_start",
                   description="Start a deposit from a registered method: follow ``redirect_url`` or pay with the "
                               "``instructions``; the provider's signed callback credits it. Needs Idempotency-Key.")
    @idempotent()
    def post(self, request):
        player = _player(request)
        s = DepositCreateSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        method = get_object_or_404(PaymentMethod, pk=s.validated_data["method_id"], player=player)
        d = services.deposit_start(player=player, method=method, amount=s.validated_data["amount"],
                                   reference=_key_reference(request, "deposit"), actor=Actor.player(player))
        return Response(DepositSerializer(d).data, status=201)


class DepositDetailView(APIView):
    @extend_schema(responses=DepositSerializer, operation_id="wallet_deposits_detail")
    def get(self, request, pk: int):
        return Response(DepositSerializer(get_object_or_404(Deposit, pk=pk, player=_player(request))).data)


class SandboxPayView(APIView):
    """The sandbox provider's "pay" page: it confirms (or fails) the deposit by a signed callback sent after
    commit. Only while ``WALLET_SANDBOX_ENABLED``."""

    @extend_schema(request=SandboxPaySerializer, responses={202: SandboxPayResultSerializer},
                   operation_id="wallet_sandbox_pay")
    @idempotent()
    def post(self, request, pk: int):
        player = _player(request)
        deposit = get_object_or_404(Deposit, pk=pk, player=player)
        s = SandboxPaySerializer(data=request.data)
        s.is_valid(raise_exception=True)
        payer = None
        if s.validated_data.get("payer_name"):
            payer = {"name": s.validated_data["payer_name"]}
            if s.validated_data.get("payer_birth_date"):
                payer["birth_date"] = s.validated_data["payer_birth_date"].isoformat()
        result = services.sandbox_pay(deposit=deposit, outcome=s.validated_data["outcome"], payer=payer,
                                      actor=Actor.player(player))
        return Response(result, status=202)


class ProviderCallbackView(APIView):
    """Provider callbacks: no authentication; the HMAC-SHA256 signature over the raw body (header
    ``X-Signature: sha256=<hex>``) is checked. Each event id is handled once; replays return the first result."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]

    @extend_schema(request={"application/json": OpenApiTypes.OBJECT}, responses=CallbackResultSerializer,
                   operation_id="wallet_provider_callback",
                   parameters=[OpenApiParameter(SIGNATURE_HEADER, OpenApiTypes.STR, OpenApiParameter.HEADER,
                                                required=True, description="sha256=<hex HMAC of the raw body>")])
    def post(self, request, provider: str):
        raw = request.body
        result = services.provider_callback_handle(provider=provider, raw_body=raw,
                                                   signature=request.headers.get(SIGNATURE_HEADER, ""))
        return Response(result)


# Withdrawals --------------------------------------------------------------------------------------------------

class WithdrawalListView(generics.GenericAPIView):
    serializer_class = WithdrawalSerializer

    def get_queryset(self):
        return Withdrawal.objects.filter(player=_player(self.request)).order_by("-requested_at", "-pk")

    @extend_schema(responses=WithdrawalSerializer(many=True), operation_id="wallet_withdrawals_list")
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(WithdrawalSerializer(page, many=True).data)

    @extend_schema(request=WithdrawalCreateSerializer, responses={201: WithdrawalSerializer},
                   operation_id="wallet_withdrawals_request",
                   description="Withdraw to a verified registered method (GP §5(6), §5(8)); only from a full "
                               "player account (GP §5(2)c). Needs Idempotency-Key.")
    @idempotent()
    def post(self, request):
        player = _player(request)
        s = WithdrawalCreateSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        method = get_object_or_404(PaymentMethod, pk=s.validated_data["method_id"], player=player)
        w = services.withdrawal_request(player=player, method=method, amount=s.validated_data["amount"],
                                        reference=_key_reference(request, "withdrawal"), actor=Actor.player(player))
        w.refresh_from_db()
        return Response(WithdrawalSerializer(w).data, status=201)


class WithdrawalDetailView(APIView):
    @extend_schema(responses=WithdrawalSerializer, operation_id="wallet_withdrawals_detail")
    def get(self, request, pk: int):
        return Response(WithdrawalSerializer(get_object_or_404(Withdrawal, pk=pk, player=_player(request))).data)


class WithdrawalCancelView(APIView):
    @extend_schema(request=None, responses=WithdrawalSerializer, operation_id="wallet_withdrawals_cancel")
    @idempotent()
    def post(self, request, pk: int):
        player = _player(request)
        w = services.withdrawal_cancel(withdrawal=get_object_or_404(Withdrawal, pk=pk, player=player),
                                       actor=Actor.player(player))
        return Response(WithdrawalSerializer(w).data)


# Payouts, holds, deductions ---------------------------------------------------------------------------------------

class PayoutListView(generics.ListAPIView):
    """Refunds and settlements paid outside the account (GP §5(2)e, §5(13), §5(15)), with their steps."""

    serializer_class = PayoutSerializer

    def get_queryset(self):
        return Payout.objects.filter(player=_player(self.request)).order_by("-started_at", "-pk")

    @extend_schema(operation_id="wallet_payouts_list")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class WinHoldListView(generics.ListAPIView):
    """Wins held under doubt (GP §10(3))."""

    serializer_class = WinHoldSerializer

    def get_queryset(self):
        return WinHold.objects.filter(player=_player(self.request)).order_by("-held_at", "-pk")

    @extend_schema(operation_id="wallet_holds_list")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class WinDeductionListView(generics.ListAPIView):
    """Wins deducted with notice (GP §7(7), §10(4)) and the resulting debt's due date."""

    serializer_class = WinDeductionSerializer

    def get_queryset(self):
        return WinDeduction.objects.filter(player=_player(self.request)).select_related("debt").order_by("-notice_sent_at")

    @extend_schema(operation_id="wallet_deductions_list")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


# Staff ---------------------------------------------------------------------------------------------------------

class StaffBranchCashView(APIView):
    """Staff record cash paid in or out at a branch (GP §5(12): 5,000 CZK per rolling 24 h each way)."""

    permission_classes = [permissions.IsAdminUser]

    @extend_schema(request=BranchCashSerializer, responses={201: BranchCashResultSerializer},
                   operation_id="wallet_staff_branch_cash")
    @idempotent()
    def post(self, request):
        from accounts.models import Player

        s = BranchCashSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        d = s.validated_data
        player = get_object_or_404(Player, pk=d["player_id"])
        bc = services.branch_cash_record(player=player, direction=d["direction"], amount=d["amount"],
                                         reference=d.get("reference") or _key_reference(request, "branch"),
                                         branch=d["branch"], actor=Actor.staff(request.user))
        return Response(BranchCashResultSerializer({"id": bc.pk, "player_id": bc.player_id, "direction": bc.direction,
                                                    "amount": bc.amount, "branch": bc.branch,
                                                    "reference": bc.reference, "at": bc.at}).data, status=201)


class StaffStatementView(generics.GenericAPIView):
    """Staff: any player's statement."""

    permission_classes = [permissions.IsAdminUser]
    serializer_class = StatementLineSerializer

    @extend_schema(parameters=PERIOD_PARAMS, responses=StatementLineSerializer(many=True),
                   operation_id="wallet_staff_statement")
    def get(self, request, player_id: int):
        from accounts.models import Player

        player = get_object_or_404(Player, pk=player_id)
        start, end = _period(request)
        page = self.paginate_queryset(selectors.statement_entries(player, start, end))
        return self.get_paginated_response(
            StatementLineSerializer([selectors.statement_line(e).__dict__ for e in page], many=True).data)
