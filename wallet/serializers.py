"""Wallet API serializers. Amounts go in as Money objects ``{"amount": <haléře>, "currency": "CZK"}``
(``core.api_money``) and come out as ``{"amount": <haléře>, "currency": "CZK", "formatted": "3 000,01 Kč"}``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api_money import MoneyField, MoneyOutField, MoneyOutSerializer
from core.money import Money
from wallet.models import (
    BankEntry,
    BankStatement,
    Deposit,
    MethodDocument,
    PaymentMethod,
    PaymentOrder,
    PaymentOrderBatch,
    Payout,
    WinDeduction,
    WinHold,
    Withdrawal,
)

WalletMoneySerializer = MoneyOutSerializer


class WalletOverviewSerializer(serializers.Serializer[dict[str, Any]]):
    account = serializers.ChoiceField(choices=["temporary", "full"])
    balance = MoneyOutField()
    held = MoneyOutField()
    held_in_games = MoneyOutField(
        help_text="money a game holds for the player between rounds (carried bonuses), "
        "paid out with the balance at closure (GP §10(1)-(2))"
    )
    debt = MoneyOutField()
    debt_due_at = serializers.DateTimeField(allow_null=True)
    payment_method = serializers.SerializerMethodField()
    temporary_deposits = serializers.SerializerMethodField()

    class _PM(serializers.Serializer[dict[str, Any]]):
        has_verified = serializers.BooleanField()
        deadline = serializers.DateTimeField(allow_null=True)
        missing_since = serializers.DateTimeField(allow_null=True)

    class _Temp(serializers.Serializer[dict[str, Any]]):
        cap = WalletMoneySerializer()
        deposited = WalletMoneySerializer()
        pending = WalletMoneySerializer()
        remaining = WalletMoneySerializer()

    @extend_schema_field(_PM)
    def get_payment_method(self, obj: dict[str, Any]) -> dict[str, Any]:
        return dict(self._PM(obj["payment_method"]).data)

    @extend_schema_field(_Temp(allow_null=True))
    def get_temporary_deposits(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        t = obj["temporary_deposits"]
        return {k: v.to_json() for k, v in t.items()} if t else None


class StatementLineSerializer(serializers.Serializer[Any]):
    """One ``selectors.StatementLine`` (its fields as a dict); also the schema of the statement endpoints."""

    at = serializers.DateTimeField()
    category = serializers.ChoiceField(
        choices=["deposit", "withdrawal", "stake", "win", "refund", "fee", "correction", "transfer", "other"]
    )
    kind = serializers.CharField()
    account = serializers.ChoiceField(choices=["temporary", "player", "held"])
    amount = MoneyOutField()
    balance_after = MoneyOutField()
    reference = serializers.CharField()
    description = serializers.CharField()


class PaymentMethodSerializer(serializers.ModelSerializer[PaymentMethod]):
    kind = serializers.CharField(read_only=True, help_text="bank_account | card | skrill | payu | paysafecard")
    display = serializers.CharField(read_only=True)
    registered = serializers.SerializerMethodField(help_text="verified: the registered payment method (GP §5(10))")

    class Meta:
        model = PaymentMethod
        fields = [
            "id",
            "kind",
            "display",
            "bank_code",
            "iban",
            "holder_name",
            "card_masked",
            "status",
            "registered",
            "verified_by",
            "verified_at",
            "verify_by",
            "status_reason",
            "deposits_blocked_at",
            "created_at",
        ]
        read_only_fields = fields

    def get_registered(self, obj: PaymentMethod) -> bool:
        return obj.status == PaymentMethod.Status.VERIFIED


class PaymentMethodCreateSerializer(serializers.Serializer[dict[str, Any]]):
    kind = serializers.CharField(max_length=20, help_text="bank_account | card | skrill | payu | paysafecard")
    account_number = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=30,
        help_text="bank_account: [prefix-]number/bank code (Czech format)",
    )
    iban = serializers.CharField(required=False, allow_blank=True, max_length=42, help_text="bank_account: CZ IBAN")
    holder_name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    card_token = serializers.CharField(
        required=False, allow_blank=True, max_length=128, help_text="card: the provider's token (never the card number)"
    )
    card_masked = serializers.CharField(
        required=False, allow_blank=True, max_length=23, help_text="card: masked number, e.g. **** **** **** 1234"
    )
    account_id = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=64,
        help_text="skrill / payu / paysafecard: the wallet's account id (e-mail)",
    )

    def validate_kind(self, value: str) -> str:
        if value not in PaymentMethod.Kind.values:
            raise serializers.ValidationError(f"one of {', '.join(PaymentMethod.Kind.values)}")
        return value


class DocumentUploadSerializer(serializers.Serializer[dict[str, Any]]):
    file = serializers.FileField(help_text="PDF, JPEG or PNG proving ownership (account contract, statement)")


class MethodDocumentSerializer(serializers.ModelSerializer[MethodDocument]):
    class Meta:
        model = MethodDocument
        fields = [
            "id",
            "method",
            "original_name",
            "content_type",
            "size",
            "status",
            "uploaded_at",
            "reviewed_at",
            "review_note",
        ]
        read_only_fields = fields


class DepositCreateSerializer(serializers.Serializer[dict[str, Any]]):
    method_id = serializers.IntegerField()
    amount = MoneyField(min_amount=1, max_setting="WALLET_DEPOSIT_MAX_AMOUNT")


class DepositSerializer(serializers.ModelSerializer[Deposit]):
    amount = MoneyOutField()
    fee = MoneyOutField()
    credited = serializers.SerializerMethodField()
    method_id = serializers.IntegerField(read_only=True)

    class Meta:
        model = Deposit
        fields = [
            "id",
            "method_id",
            "provider",
            "amount",
            "fee",
            "credited",
            "status",
            "status_reason",
            "payment_reference",
            "redirect_url",
            "instructions",
            "into_temporary",
            "created_at",
            "expires_at",
            "confirmed_at",
        ]
        read_only_fields = fields

    @extend_schema_field(WalletMoneySerializer)
    def get_credited(self, obj: Deposit) -> dict[str, Any]:
        return Money(obj.amount - obj.fee).to_json()


class WithdrawalCreateSerializer(serializers.Serializer[dict[str, Any]]):
    method_id = serializers.IntegerField()
    amount = MoneyField(min_amount=1, max_setting="WALLET_WITHDRAWAL_MAX_AMOUNT")


class WithdrawalSerializer(serializers.ModelSerializer[Withdrawal]):
    amount = MoneyOutField()
    method_id = serializers.IntegerField(read_only=True)

    class Meta:
        model = Withdrawal
        fields = [
            "id",
            "method_id",
            "amount",
            "status",
            "needs_approval",
            "approval_reasons",
            "status_reason",
            "requested_at",
            "decided_at",
            "sent_at",
            "finished_at",
        ]
        read_only_fields = fields


class PayoutSerializer(serializers.ModelSerializer[Payout]):
    kind = serializers.CharField(
        read_only=True, help_text="temporary_refund | misuse | closure | deposit_return | deposit_refused"
    )
    amount = MoneyOutField()
    paid = MoneyOutField()
    postage = MoneyOutField()
    outstanding = MoneyOutField()
    method_id = serializers.IntegerField(read_only=True, allow_null=True)

    class Meta:
        model = Payout
        fields = [
            "id",
            "kind",
            "amount",
            "paid",
            "postage",
            "outstanding",
            "method_id",
            "channel",
            "status",
            "started_at",
            "due_at",
            "collect_by",
            "sent_at",
            "invited_at",
            "posted_at",
            "completed_at",
        ]
        read_only_fields = fields


class WinHoldSerializer(serializers.ModelSerializer[WinHold]):
    """A hold as the player sees it: amount, state, when it was placed and decided. The reason is not shown: telling
    a customer that a suspicious-transaction report exists is forbidden (AML law, §38 of Act 253/2008), and a
    distinct reason for the other kind of hold would tell it by elimination; every hold reads ``"review"``
    (GP §10(3)). Nor is its term: a regularity hold ends 60 days after the win, an AML hold after the AML law's
    period, so the date would tell the reason too."""

    amount = MoneyOutField()
    reason = serializers.SerializerMethodField()

    def get_reason(self, obj: WinHold) -> str:
        return "review"

    class Meta:
        model = WinHold
        fields = ["id", "amount", "reason", "status", "held_at", "decided_at"]
        read_only_fields = fields


class WinDeductionSerializer(serializers.ModelSerializer[WinDeduction]):
    amount = MoneyOutField()
    debt_due_at = serializers.SerializerMethodField()

    class Meta:
        model = WinDeduction
        fields = ["id", "amount", "reason", "notice_text", "notice_sent_at", "debt_due_at"]
        read_only_fields = fields

    def get_debt_due_at(self, obj: WinDeduction) -> str | None:
        debt = getattr(obj, "debt", None)  # reverse one-to-one: None when no debt arose
        return debt.due_at.isoformat() if debt else None


class SandboxPaySerializer(serializers.Serializer[dict[str, Any]]):
    outcome = serializers.ChoiceField(choices=["succeeded", "failed"], default="succeeded")
    payer_name = serializers.CharField(
        required=False, max_length=200, help_text="the payer the sandbox reports (default: the player)"
    )
    payer_birth_date = serializers.DateField(required=False)


class SandboxPayResultSerializer(serializers.Serializer[dict[str, Any]]):
    deposit_id = serializers.IntegerField()
    outcome = serializers.CharField()
    callback_queued = serializers.BooleanField()


class CallbackResultSerializer(serializers.Serializer[dict[str, Any]]):
    status = serializers.ChoiceField(choices=["processed", "duplicate"])
    event_id = serializers.CharField()
    result = serializers.CharField()


class BranchCashSerializer(serializers.Serializer[dict[str, Any]]):
    player_id = serializers.IntegerField()
    direction = serializers.ChoiceField(choices=["in", "out"])
    amount = MoneyField(min_amount=1, max_setting="WALLET_BRANCH_CASH_MAX_AMOUNT")
    branch = serializers.CharField(max_length=100)
    reference = serializers.CharField(
        max_length=120, required=False, help_text="receipt number; default: derived from the Idempotency-Key"
    )


class BranchCashResultSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    player_id = serializers.IntegerField()
    direction = serializers.CharField()
    amount = MoneyOutField()
    branch = serializers.CharField()
    reference = serializers.CharField()
    at = serializers.DateTimeField()


# Bank transfers (staff) -----------------------------------------------------------------------------------------


class BankStatementUploadSerializer(serializers.Serializer[dict[str, Any]]):
    file = serializers.FileField(help_text="a camt.053 or camt.054 XML file of the operator's account")


class BankStatementSerializer(serializers.ModelSerializer[BankStatement]):
    class Meta:
        model = BankStatement
        fields = [
            "id",
            "kind",
            "schema",
            "message_id",
            "statement_ids",
            "account_iban",
            "created_at_bank",
            "original_name",
            "size",
            "sha256",
            "status",
            "imported_at",
            "imported_by",
            "processed_at",
            "summary",
        ]
        read_only_fields = fields


class BankEntrySerializer(serializers.ModelSerializer[BankEntry]):
    amount = MoneyOutField()

    class Meta:
        model = BankEntry
        fields = [
            "id",
            "statement",
            "account_iban",
            "bank_reference",
            "direction",
            "reversal",
            "amount",
            "currency",
            "booked_on",
            "value_on",
            "end_to_end_id",
            "references",
            "remittance",
            "counterparty_name",
            "counterparty_iban",
            "counterparty_account",
            "counterparty_bic",
            "return_reason",
            "status",
            "status_reason",
            "deposit",
            "player",
            "payout",
            "order",
            "return_attempts",
            "created_at",
            "decided_at",
            "decided_by",
        ]
        read_only_fields = fields


class BankCreditAssignSerializer(serializers.Serializer[dict[str, Any]]):
    deposit_id = serializers.IntegerField(required=False, help_text="a bank-transfer deposit of the player")
    player_id = serializers.IntegerField(
        required=False, help_text="or a player: a new deposit from their registered bank account"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("deposit_id" in attrs) == ("player_id" in attrs):
            raise serializers.ValidationError({"deposit_id": ["name either deposit_id or player_id"]})
        return attrs


class BankCreditReturnSerializer(serializers.Serializer[dict[str, Any]]):
    reason = serializers.CharField(max_length=255, help_text="why the credit goes back to its payer")


class PaymentOrderSerializer(serializers.ModelSerializer[PaymentOrder]):
    amount = MoneyOutField()

    class Meta:
        model = PaymentOrder
        fields = [
            "id",
            "kind",
            "end_to_end_id",
            "withdrawal",
            "payout",
            "payout_attempt",
            "credit",
            "player",
            "amount",
            "creditor_name",
            "creditor_iban",
            "creditor_account",
            "creditor_bic",
            "remittance",
            "status",
            "finished_at",
        ]
        read_only_fields = fields


class PaymentOrderBatchSerializer(serializers.ModelSerializer[PaymentOrderBatch]):
    control_sum = MoneyOutField()
    orders = PaymentOrderSerializer(many=True, read_only=True)

    class Meta:
        model = PaymentOrderBatch
        fields = [
            "id",
            "message_id",
            "schema",
            "created_at",
            "created_by",
            "execution_date",
            "count",
            "control_sum",
            "sha256",
            "status",
            "settled_count",
            "returned_count",
            "orders",
        ]
        read_only_fields = fields


class PaymentOrderExportResultSerializer(serializers.Serializer[dict[str, Any]]):
    exported = serializers.BooleanField()
    batch = PaymentOrderBatchSerializer(allow_null=True)
