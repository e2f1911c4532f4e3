"""Staff screens. The ledger is read-only here; every staff action calls a service (audited)."""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from django import forms
from django.contrib import admin, messages
from django.db.models import Model
from django.db.models.query import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from core import clock
from core.admin import (
    LargeTableAdmin,
    PlatformAdminMixin,
    ReadOnlyAdmin,
    ReadOnlyInline,
    decision_action,
    decision_path,
    domain_error_text,
    may_see_identifiers,
    money_confirmation,
    require_permission,
    run_service_action,
)
from core.audit import Actor
from core.errors import DomainError
from core.masking import mask_accounts_in
from core.money import Money, MoneyError
from wallet import selectors, services
from wallet.models import (
    BranchCash,
    Debt,
    Deposit,
    LedgerAccount,
    LedgerTransaction,
    MethodDocument,
    PaymentMethod,
    Payout,
    ProviderEvent,
    Wallet,
    WinDeduction,
    WinHold,
    Withdrawal,
)


def money_text(minor: int | None) -> str:
    """An amount in minor units as staff read it ("1 500,00 Kč")."""
    return str(Money(minor or 0))


class _HasAmount(Protocol):
    amount: int


class AmountColumn:
    """The ``amount`` column of a money record, formatted."""

    @admin.display(description="amount")
    def shown_amount(self, obj: _HasAmount) -> str:
        return money_text(obj.amount)


class StaffActionAdmin(AmountColumn, ReadOnlyAdmin):
    """A record staff only look at, except through the admin actions that call its services. Reading (the list,
    the record's read-only page, its history) needs the model's view permission, as everywhere in the admin;
    nothing is saved from the page (no change permission for anyone)."""


AccountKind = LedgerAccount.Kind
#: the ledger accounts a wallet's list shows: its live account (temporary or player account) and the held one
_PAGE_KINDS = (AccountKind.PLAYER_TEMPORARY, AccountKind.PLAYER_MAIN, AccountKind.PLAYER_HELD)


@admin.register(Wallet)
class WalletAdmin(ReadOnlyAdmin):
    """Per player: the account mode, balances and the statement (staff view per player)."""

    list_display = (
        "player",
        "mode",
        "shown_balance",
        "shown_held",
        "shown_debt",
        "debt_flagged_at",
        "method_term_flagged_at",
        "statement_link",
    )
    list_filter = (
        "mode",
        ("debt_flagged_at", admin.EmptyFieldListFilter),
        ("method_term_flagged_at", admin.EmptyFieldListFilter),
    )
    search_fields = ("player__user__username", "player__pk")

    def prepare_page(self, request: HttpRequest, rows: QuerySet[Wallet]) -> None:
        """The page's players' ledger accounts in one statement, each wallet's live and held account picked as
        ``selectors.balance``, ``held_balance`` and ``debt`` pick them (the first by id of its kind; the live one by
        the wallet's mode); a missing account shows 0, as there."""
        wallets = list(rows)
        accounts: dict[tuple[int, str], LedgerAccount] = {}
        for account in LedgerAccount.objects.filter(
            player_id__in={w.player_id for w in wallets}, kind__in=_PAGE_KINDS
        ).order_by("-pk"):
            accounts[(account.player_id, account.kind)] = account  # type: ignore[index]  # a player's account
        for w in wallets:
            live_kind = AccountKind.PLAYER_TEMPORARY if w.mode == Wallet.Mode.TEMPORARY else AccountKind.PLAYER_MAIN
            w.page_accounts = (  # type: ignore[attr-defined]  # read by the three columns
                accounts.get((w.player_id, live_kind)),
                accounts.get((w.player_id, AccountKind.PLAYER_HELD)),
            )

    @staticmethod
    def _accounts(obj: Wallet) -> tuple[LedgerAccount | None, LedgerAccount | None] | None:
        return getattr(obj, "page_accounts", None)  # the list's page read them (prepare_page)

    @admin.display(description="balance")
    def shown_balance(self, obj: Wallet) -> str:
        if (page := self._accounts(obj)) is None:
            return str(selectors.balance(obj.player))
        return str(Money(page[0].balance if page[0] else 0))

    @admin.display(description="held")
    def shown_held(self, obj: Wallet) -> str:
        if (page := self._accounts(obj)) is None:
            return str(selectors.held_balance(obj.player))
        return str(Money(page[1].balance if page[1] else 0))

    @admin.display(description="debt")
    def shown_debt(self, obj: Wallet) -> str:
        if (page := self._accounts(obj)) is None:
            return str(selectors.debt(obj.player))
        return str(Money(page[0].debt if page[0] else 0))

    @admin.display(description="statement")
    def statement_link(self, obj: Wallet) -> SafeString:
        url = reverse("admin:wallet_wallet_statement", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, gettext("statement"))

    def get_urls(self) -> list[URLPattern]:
        return [
            decision_path(
                self,
                "<int:pk>/statement/",
                self.statement_view,
                perm="wallet.view_wallet",
                name="wallet_wallet_statement",
            ),
            *super().get_urls(),
        ]

    def statement_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        wallet = get_object_or_404(Wallet, pk=pk)
        lines = [staff_statement_line(line) for line in selectors.statement(wallet.player)[-500:]]
        if not may_see_identifiers(request.user):  # a posting's memo may name an account (a refused deposit)
            lines = [dataclasses.replace(line, description=mask_accounts_in(line.description)) for line in lines]
        title = gettext("Statement of {player}").format(player=wallet.player.staff_label)
        ctx = {
            **self.admin_site.each_context(request),
            "title": title,
            "wallet": wallet,
            "lines": lines,
            "overview": selectors.wallet_overview(wallet.player),
            "totals": {
                str(_label(STATEMENT_CATEGORIES, k)): v for k, v in selectors.statement_totals(wallet.player).items()
            },
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/wallet/statement.html", ctx)


#: the statement's categories (``selectors.CATEGORY``) and the player's ledger accounts (``selectors.ACCOUNT_LABEL``),
#: the codes the statement carries (the players' API returns them as codes), as staff read them
STATEMENT_CATEGORIES = {
    "deposit": pgettext_lazy("statement category", "deposit"),
    "withdrawal": pgettext_lazy("statement category", "withdrawal"),
    "stake": pgettext_lazy("statement category", "stake"),
    "win": pgettext_lazy("statement category", "win"),
    "refund": pgettext_lazy("statement category", "refund"),
    "fee": pgettext_lazy("statement category", "fee"),
    "correction": pgettext_lazy("statement category", "correction"),
    "transfer": pgettext_lazy("statement category", "transfer"),
    "other": pgettext_lazy("statement category", "other"),
}
STATEMENT_ACCOUNTS = {
    "temporary": pgettext_lazy("player's ledger account", "temporary account"),
    "player": pgettext_lazy("player's ledger account", "player account"),
    "held": pgettext_lazy("player's ledger account", "held"),
}


def _label(labels: dict[str, Any], code: str) -> Any:
    return labels.get(code, code)


def staff_statement_line(line: selectors.StatementLine) -> selectors.StatementLine:
    """A statement line as staff read it: its category, the transaction's kind and the ledger account by their
    labels in the staff member's language (the line itself carries codes; the memo stays as stored)."""
    kinds = dict(LedgerTransaction._meta.get_field("kind").flatchoices)
    return dataclasses.replace(
        line,
        category=str(_label(STATEMENT_CATEGORIES, line.category)),
        kind=str(kinds.get(line.kind, line.kind)),
        account=str(_label(STATEMENT_ACCOUNTS, line.account)),
    )


# Payment methods -------------------------------------------------------------------------------------------


class DocumentInline(ReadOnlyInline):
    model = MethodDocument
    fields = ("original_name", "content_type", "size", "file", "status", "uploaded_at", "reviewed_by", "review_note")
    readonly_fields = fields


@admin.register(PaymentMethod)
class PaymentMethodAdmin(StaffActionAdmin):
    list_display = (
        "player",
        "kind",
        "display",
        "status",
        "verified_by",
        "verified_at",
        "verify_by",
        "deposits_blocked_at",
        "created_at",
    )
    list_filter = ("kind", "status", "verified_by", ("deposits_blocked_at", admin.EmptyFieldListFilter))
    search_fields = ("identifier", "iban", "player__user__username", "holder_name")
    masked_fields = ("identifier", "iban", "display")
    masked_search_fields = ("identifier", "iban")
    inlines = [DocumentInline]
    actions = ["confirm_owner", "refuse", "cancel_misuse"]

    @decision_action(
        "wallet.decide_payment_method",
        description="Confirm as the player's own after a refused deposit: deposits from it work again "
        "(GP §5(6), §5(8)b)",
    )
    def confirm_owner(self, request: HttpRequest, queryset: QuerySet[PaymentMethod]) -> None:
        run_service_action(
            self,
            request,
            queryset,
            lambda m, a: services.payment_method_owner_confirm(
                method=m, note=f"confirmed in the admin by {request.user} on the evidence on file", actor=a
            ),
            "confirmed",
        )

    @decision_action(
        "wallet.decide_payment_method", description="Refuse: ownership not proven after a request (GP §5(11))"
    )
    def refuse(self, request: HttpRequest, queryset: QuerySet[PaymentMethod]) -> None:
        run_service_action(
            self,
            request,
            queryset,
            lambda m, a: services.payment_method_refuse(
                method=m, reason="ownership not proven after a request (GP §5(11))", actor=a
            ),
            "refused",
        )

    @decision_action("wallet.decide_payment_method", description="Cancel: suspected misuse (GP §5(11))")
    def cancel_misuse(self, request: HttpRequest, queryset: QuerySet[PaymentMethod]) -> None:
        run_service_action(
            self,
            request,
            queryset,
            lambda m, a: services.payment_method_cancel(method=m, reason="suspected misuse (GP §5(11))", actor=a),
            "cancelled",
        )


@admin.register(MethodDocument)
class MethodDocumentAdmin(StaffActionAdmin):
    list_display = ("method", "original_name", "content_type", "size", "status", "uploaded_at", "reviewed_by")
    list_filter = ("status", "content_type")
    search_fields = ("method__player__user__username", "sha256")
    actions = ["approve", "reject"]

    @decision_action(
        "wallet.review_method_document", description="Approve: ownership proven (GP §5(8)b) - verifies the method"
    )
    def approve(self, request: HttpRequest, queryset: QuerySet[MethodDocument]) -> None:
        run_service_action(
            self,
            request,
            queryset,
            lambda d, a: services.method_document_review(document=d, approve=True, note="approved", actor=a),
            "approved",
        )

    @decision_action("wallet.review_method_document", description="Reject: does not prove ownership")
    def reject(self, request: HttpRequest, queryset: QuerySet[MethodDocument]) -> None:
        run_service_action(
            self,
            request,
            queryset,
            lambda d, a: services.method_document_review(
                document=d, approve=False, note="does not prove ownership", actor=a
            ),
            "rejected",
        )


# Deposits, withdrawals, events ------------------------------------------------------------------------------


@admin.register(Deposit)
class DepositAdmin(AmountColumn, ReadOnlyAdmin):
    list_display = (
        "created_at",
        "player",
        "method",
        "shown_amount",
        "status",
        "status_reason",
        "payment_reference",
        "confirmed_at",
    )
    list_filter = ("status", "provider", "into_temporary")
    search_fields = ("payment_reference", "player__user__username", "provider_payment_id")
    masked_text_fields = ("status_reason", "payer")


@admin.register(Withdrawal)
class WithdrawalAdmin(StaffActionAdmin):
    list_display = (
        "requested_at",
        "player",
        "method",
        "shown_amount",
        "status",
        "needs_approval",
        "approval_reasons_text",
        "decided_by",
    )
    list_filter = ("status", "needs_approval", "provider")
    search_fields = ("reference", "player__user__username")
    actions = ["approve", "reject"]

    @admin.display(description=gettext_lazy("approval reasons"))
    def approval_reasons_text(self, obj: Withdrawal) -> str:
        return obj.approval_reasons_text

    @staticmethod
    def _row(w: Withdrawal) -> dict[str, Any]:
        return {
            "amount": money_text(w.amount),
            "player": w.player.staff_label,
            "reason": f"{w.reference} · {w.approval_reasons_text or gettext('no approval reason')}",
        }

    @decision_action("wallet.approve_withdrawal", description="Approve (sent after approval)")
    def approve(self, request: HttpRequest, queryset: QuerySet[Withdrawal]) -> HttpResponse | None:
        if (
            page := money_confirmation(
                self, request, queryset, verb=gettext("approve and send these withdrawals"), rows=self._row
            )
        ) is not None:
            return page
        run_service_action(
            self, request, queryset, lambda w, a: services.withdrawal_approve(withdrawal=w, actor=a), "approved"
        )
        return None

    @decision_action("wallet.approve_withdrawal", description="Reject (money returns to the player account)")
    def reject(self, request: HttpRequest, queryset: QuerySet[Withdrawal]) -> HttpResponse | None:
        if (
            page := money_confirmation(
                self,
                request,
                queryset,
                verb=gettext("reject these withdrawals (the money returns to the player account)"),
                rows=self._row,
            )
        ) is not None:
            return page
        run_service_action(
            self,
            request,
            queryset,
            lambda w, a: services.withdrawal_reject(withdrawal=w, reason="rejected by staff", actor=a),
            "rejected",
        )
        return None


@admin.register(ProviderEvent)
class ProviderEventAdmin(LargeTableAdmin):
    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = ("received_at", "provider", "provider_txn_id", "event_type", "result", "detail")
    list_filter = ("provider", "event_type", "result")
    search_fields = ("provider_txn_id", "raw_body")


# Payouts and branch cash -------------------------------------------------------------------------------------


@admin.register(Payout)
class PayoutAdmin(StaffActionAdmin):
    list_display = (
        "started_at",
        "player",
        "kind",
        "shown_amount",
        "shown_outstanding",
        "channel",
        "status",
        "due_at",
        "collect_by",
        "completed_at",
    )
    list_filter = ("kind", "status", "channel")
    search_fields = ("reference", "player__user__username")
    readonly_fields = ("history",)
    actions = ["collect_in_cash", "send_again"]

    @staticmethod
    def _row(p: Payout) -> dict[str, Any]:
        return {
            "amount": money_text(p.outstanding),
            "player": p.player.staff_label,
            "reason": f"{p.get_kind_display()} · {p.reference}",
        }

    @decision_action("wallet.resend_payout", description="Send a stopped return to its source again (GP §5(6))")
    def send_again(self, request: HttpRequest, queryset: QuerySet[Payout]) -> HttpResponse | None:
        if (
            page := money_confirmation(
                self, request, queryset, verb=gettext("send these returns again"), rows=self._row
            )
        ) is not None:
            return page
        run_service_action(
            self, request, queryset, lambda p, a: services.payout_resend(payout=p, actor=a), "sent again"
        )
        return None

    @admin.display(description="outstanding")
    def shown_outstanding(self, obj: Payout) -> str:
        return money_text(obj.outstanding)

    @decision_action(
        "wallet.record_branch_cash",
        description="Collected in cash at a branch (the whole outstanding amount, GP §5(12) cap applies)",
    )
    def collect_in_cash(self, request: HttpRequest, queryset: QuerySet[Payout]) -> HttpResponse | None:
        if (
            page := money_confirmation(
                self, request, queryset, verb=gettext("pay these out in cash at the branch"), rows=self._row
            )
        ) is not None:
            return page
        now = clock.now()
        run_service_action(
            self,
            request,
            queryset,
            lambda p, a: services.payout_collect_cash(
                payout=p,
                amount=Money(p.outstanding),
                reference=f"admin-collect:{p.pk}:{now.timestamp():.0f}",
                branch="admin",
                actor=a,
            ),
            "collected",
        )
        return None


class AmountFormField(forms.CharField):
    """A positive CZK amount typed by staff ("1500", "1 500,50 Kč"); the unit is written next to the field."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", forms.TextInput(attrs={"placeholder": "0,00", "inputmode": "decimal", "size": 12}))
        kwargs.setdefault("help_text", "Kč, two decimals (e.g. 1 500,50); a confirmation page follows")
        super().__init__(*args, **kwargs)

    def clean(self, value: Any) -> Money:
        text = super().clean(value)
        try:
            money = Money.parse(text)
        except MoneyError:
            raise forms.ValidationError(gettext("an amount such as 1500 or 1 500,50 Kč"))
        if money.amount <= 0 or money.currency != "CZK":
            raise forms.ValidationError(gettext("a positive CZK amount"))
        return money


class BranchCashForm(forms.ModelForm[Any]):
    amount_czk = AmountFormField(label="amount, Kč")

    class Meta:
        model = BranchCash
        fields = ("player", "direction", "branch", "reference")


class CreatedByService(AmountColumn, PlatformAdminMixin, admin.ModelAdmin[Any]):
    """An append-only record that staff create through a service (never edited or deleted here).

    The add form calls ``create(request, cleaned_data)``; a refusal (DomainError) is shown to staff with its
    code and changes nothing. Only a role holding ``create_permission`` sees or posts the form."""

    create_permission = ""  # "wallet.<codename>" of the decision

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_staff and request.user.has_perm(self.create_permission))

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # reading is the view permission; a record is never edited here

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def create(self, request: HttpRequest, data: dict[str, Any]) -> Model:  # pragma: no cover - each names its service
        raise NotImplementedError

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        require_permission(request, self.create_permission)
        created = self.create(request, form.cleaned_data)
        obj.pk, obj.id = created.pk, created.pk
        obj.__dict__.update({k: v for k, v in created.__dict__.items() if not k.startswith("_")})

    def confirm_reason(self, data: dict[str, Any]) -> str:  # pragma: no cover - each names its own
        return str(data.get("reference", ""))

    def add_view(
        self,
        request: HttpRequest,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        if request.method == "POST" and request.POST.get("confirmed") != "1":
            require_permission(request, self.create_permission)
            form = self.get_form(request)(request.POST, request.FILES)
            if form.is_valid():  # money moves: repeat amount, player and reason first
                d = form.cleaned_data
                opts = self.model._meta
                return TemplateResponse(
                    request,
                    "admin/wallet/confirm_money_form.html",
                    {
                        **self.admin_site.each_context(request),
                        "opts": opts,
                        "title": f"Confirm: {opts.verbose_name}",
                        "amount": d["amount_czk"],
                        "player": d["player"],
                        "reason": self.confirm_reason(d),
                        "hidden": [
                            (k, v) for k, v in request.POST.items() if k not in ("csrfmiddlewaretoken", "confirmed")
                        ],
                    },
                )
        try:
            return super().add_view(request, form_url, extra_context)
        except DomainError as exc:
            self.message_user(request, domain_error_text(exc), messages.ERROR)
            return HttpResponseRedirect(request.path)


@admin.register(BranchCash)
class BranchCashAdmin(CreatedByService):
    """Staff record cash at a branch; the form calls ``branch_cash_record`` (GP §5(12) limits apply)."""

    form = BranchCashForm
    create_permission = "wallet.record_branch_cash"
    list_display = ("at", "player", "direction", "shown_amount", "branch", "staff", "reference", "payout")
    list_filter = ("direction", "branch")
    search_fields = ("reference", "player__user__username")

    def confirm_reason(self, data: dict[str, Any]) -> str:
        return f"{data['direction']} at {data['branch']} · reference {data['reference']}"

    def create(self, request: HttpRequest, data: dict[str, Any]) -> BranchCash:
        return services.branch_cash_record(
            player=data["player"],
            direction=data["direction"],
            amount=data["amount_czk"],
            reference=data["reference"],
            branch=data["branch"],
            actor=Actor.staff(request.user),
        )


# Holds, deductions, debts ---------------------------------------------------------------------------------------


@admin.register(WinHold)
class WinHoldAdmin(StaffActionAdmin):
    list_display = ("held_at", "player", "shown_amount", "reason", "status", "release_due_at", "decided_by")
    list_filter = ("reason", "status")
    search_fields = ("reference", "player__user__username")
    actions = ["release", "forfeit"]

    @staticmethod
    def _row(h: WinHold) -> dict[str, Any]:
        return {
            "amount": money_text(h.amount),
            "player": h.player.staff_label,
            "reason": f"{h.get_reason_display()} · {h.reference}",
        }

    @decision_action("wallet.decide_win_hold", description="Release to the player (doubt cleared)")
    def release(self, request: HttpRequest, queryset: QuerySet[WinHold]) -> HttpResponse | None:
        if (
            page := money_confirmation(
                self, request, queryset, verb=gettext("release these held wins to the players"), rows=self._row
            )
        ) is not None:
            return page
        run_service_action(
            self,
            request,
            queryset,
            lambda h, a: services.win_hold_release(hold=h, actor=a, note="released by staff"),
            "released",
        )
        return None

    @decision_action("wallet.decide_win_hold", description="Forfeit (bet judged irregular, GP §9(2), §10(3))")
    def forfeit(self, request: HttpRequest, queryset: QuerySet[WinHold]) -> HttpResponse | None:
        if (
            page := money_confirmation(self, request, queryset, verb=gettext("forfeit these held wins"), rows=self._row)
        ) is not None:
            return page
        run_service_action(
            self,
            request,
            queryset,
            lambda h, a: services.win_hold_forfeit(hold=h, reason="bet judged irregular by staff", actor=a),
            "forfeited",
        )
        return None


class WinDeductionForm(forms.ModelForm[Any]):
    amount_czk = AmountFormField(label="amount, Kč")

    class Meta:
        model = WinDeduction
        fields = ("player", "reference", "reason", "notice_text")


@admin.register(WinDeduction)
class WinDeductionAdmin(CreatedByService):
    """Deduct a win credited in error with the notice sent to the player (GP §7(7), §10(4))."""

    form = WinDeductionForm
    create_permission = "wallet.deduct_win"
    list_display = ("notice_sent_at", "player", "shown_amount", "reason", "created_by")
    search_fields = ("reference", "player__user__username")

    def confirm_reason(self, data: dict[str, Any]) -> str:
        return f"deducted: {data['reason']} · reference {data['reference']}"

    def create(self, request: HttpRequest, data: dict[str, Any]) -> WinDeduction:
        return services.win_deduct(
            player=data["player"],
            amount=data["amount_czk"],
            reference=data["reference"],
            reason=data["reason"],
            notice_text=data["notice_text"],
            actor=Actor.staff(request.user),
        )


@admin.register(Debt)
class DebtAdmin(AmountColumn, ReadOnlyAdmin):
    list_display = ("created_at", "player", "shown_amount", "shown_outstanding", "status", "due_at", "flagged_at")
    list_filter = ("status",)
    search_fields = ("player__user__username",)

    @admin.display(description="outstanding")
    def shown_outstanding(self, obj: Debt) -> str:
        return money_text(obj.outstanding)


# The ledger's lists, and the bank transfers (statements in, the unmatched-credit queue, payment orders out): their
# own modules, registered here.
from wallet import admin_bank, admin_ledger  # noqa: E402,F401
