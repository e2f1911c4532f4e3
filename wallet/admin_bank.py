"""Staff screens of the bank transfers (GP §5(6)-(9)): the statements in (upload), the staff queue of unmatched
credits (assign, return), the payment-order files out. Registered from ``wallet/admin.py``; every staff action calls
a service (audited).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models.query import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from accounts.models import Player
from core.admin import (
    ReadOnlyAdmin,
    ReadOnlyInline,
    decision_action,
    decision_path,
    domain_error_text,
    require_permission,
    run_service_action,
)
from core.audit import Actor
from core.errors import DomainError
from wallet import services
from wallet.admin import StaffActionAdmin, money_text
from wallet.admin_forms import AssignForm, StatementUploadForm
from wallet.errors import PAYMENT_ORDER_FILE_ERASED
from wallet.models import (
    BankEntry,
    BankStatement,
    Deposit,
    PaymentOrder,
    PaymentOrderBatch,
)

# Bank transfers: statements in, payment orders out --------------------------------------------------------------


def _bank_form(
    modeladmin: admin.ModelAdmin[Any], request: HttpRequest, form: forms.Form, **ctx: Any
) -> TemplateResponse:
    opts = modeladmin.model._meta
    return TemplateResponse(
        request,
        "admin/wallet/bank_form.html",
        {
            **modeladmin.admin_site.each_context(request),
            "opts": opts,
            "form": form,
            "changelist": f"admin:{opts.app_label}_{opts.model_name}_changelist",
            **ctx,
        },
    )


def _require(request: HttpRequest, perm: str) -> None:
    require_permission(request, perm)  # a 403 without it; the audit names the role that granted it


@admin.register(BankStatement)
class BankStatementAdmin(ReadOnlyAdmin):
    """Imported statements; "Add" uploads one (``wallet.import_bank_statement``): checked now, processed after
    commit by a background task."""

    list_display = (
        "imported_at",
        "kind",
        "message_id",
        "account_iban",
        "status",
        "entry_count",
        "imported_by",
        "original_name",
    )
    list_filter = ("kind", "status")
    search_fields = ("message_id", "sha256", "original_name")
    readonly_fields = ("summary",)

    @admin.display(description="entries")
    def entry_count(self, obj: BankStatement) -> int:
        return int(obj.summary.get("entries", 0)) if obj.summary else 0

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("wallet.import_bank_statement"))

    def add_view(
        self,
        request: HttpRequest,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        _require(request, "wallet.import_bank_statement")
        form = StatementUploadForm(request.POST, request.FILES) if request.method == "POST" else StatementUploadForm()
        if request.method == "POST" and form.is_valid():
            f = form.cleaned_data["file"]
            try:
                stmt, created = services.bank_statement_upload(
                    raw=f.read(), name=f.name or "", actor=Actor.staff(request.user)
                )
            except DomainError as exc:
                self.message_user(request, domain_error_text(exc), messages.ERROR)
                return HttpResponseRedirect(request.path)
            done = "stored; its entries are being handled" if created else "was imported before: nothing changes"
            self.message_user(request, f"{stmt} {done}", messages.SUCCESS)
            return HttpResponseRedirect(reverse("admin:wallet_bankstatement_changelist"))
        return _bank_form(
            self,
            request,
            form,
            title="Import a bank statement",
            submit="Import",
            intro="A camt.053 statement or camt.054 notification of the operator's account "
            "(versions 001.02, 001.08). Each entry is handled once, whatever file brings it.",
        )


@admin.register(BankEntry)
class BankEntryAdmin(StaffActionAdmin):
    """The bank's movements; filter "unmatched" is the staff queue: assign a credit (link) or return it (action),
    ``wallet.match_bank_credit``."""

    list_display = (
        "created_at",
        "direction",
        "shown_amount",
        "status",
        "status_reason",
        "references",
        "counterparty_name",
        "counterparty_iban",
        "end_to_end_id",
        "deposit",
        "player",
        "assign_link",
    )
    list_filter = ("status", "direction", "reversal")
    search_fields = ("bank_reference", "end_to_end_id", "counterparty_name", "counterparty_iban", "remittance")
    masked_fields = ("counterparty_iban", "counterparty_account", "counterparty_name")
    masked_search_fields = ("counterparty_iban", "counterparty_name")
    masked_text_fields = ("status_reason", "remittance")
    actions = ["return_to_payer"]

    @admin.display(description="assign")
    def assign_link(self, obj: BankEntry) -> SafeString | str:
        if obj.status != BankEntry.Status.UNMATCHED or obj.direction != BankEntry.Direction.CREDIT:
            return ""
        return format_html('<a href="{}">assign</a>', reverse("admin:wallet_bankentry_assign", args=[obj.pk]))

    def get_urls(self) -> list[URLPattern]:
        return [
            decision_path(
                self,
                "<int:pk>/assign/",
                self.assign_view,
                perm="wallet.match_bank_credit",
                name="wallet_bankentry_assign",
            ),
            *super().get_urls(),
        ]

    def assign_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        _require(request, "wallet.match_bank_credit")
        entry = get_object_or_404(BankEntry, pk=pk)
        form = AssignForm(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            d = form.cleaned_data
            try:
                deposit = get_object_or_404(Deposit, pk=d["deposit_id"]) if d.get("deposit_id") is not None else None
                player = None
                if d.get("player_id") is not None:
                    player = get_object_or_404(Player, pk=d["player_id"])
                entry = services.bank_credit_assign(
                    entry=entry, deposit=deposit, player=player, actor=Actor.staff(request.user)
                )
            except DomainError as exc:
                self.message_user(request, domain_error_text(exc), messages.ERROR)
                return HttpResponseRedirect(request.path)
            self.message_user(request, f"{entry}: {entry.get_status_display()}", messages.SUCCESS)
            return HttpResponseRedirect(reverse("admin:wallet_bankentry_changelist"))
        return _bank_form(
            self,
            request,
            form,
            title="Assign an unmatched credit",
            submit="Assign",
            subject=str(entry),
            intro=f"From {entry.counterparty_name or '?'} "
            f"({entry.counterparty_iban or entry.counterparty_account or 'no account'}), message "
            f"{entry.remittance or '-'}. The deposit is credited only when the money came from the "
            f"player's registered bank account.",
        )

    @decision_action("wallet.match_bank_credit", description="Return to the payer (next payment-order file)")
    def return_to_payer(self, request: HttpRequest, queryset: QuerySet[BankEntry]) -> None:
        _require(request, "wallet.match_bank_credit")
        run_service_action(
            self,
            request,
            queryset,
            lambda e, a: services.bank_credit_return(
                entry=e, reason=f"returned in the admin by {request.user}", actor=a
            ),
            "to be returned",
        )


class PaymentOrderInline(ReadOnlyInline):
    model = PaymentOrder
    fields = (
        "end_to_end_id",
        "kind",
        "shown_amount",
        "creditor_name",
        "creditor_iban",
        "creditor_account",
        "status",
        "finished_at",
    )
    readonly_fields = fields

    @admin.display(description="amount")
    def shown_amount(self, obj: PaymentOrder) -> str:
        return money_text(obj.amount)


@admin.register(PaymentOrderBatch)
class PaymentOrderBatchAdmin(ReadOnlyAdmin):
    """Payment-order files (pain.001); "Add" exports the next one (``wallet.export_payment_orders``)."""

    list_display = (
        "created_at",
        "message_id",
        "count",
        "shown_sum",
        "status",
        "settled_count",
        "returned_count",
        "created_by",
        "download",
    )
    list_filter = ("status",)
    search_fields = ("message_id", "orders__end_to_end_id")
    inlines = [PaymentOrderInline]
    exclude = ("xml",)

    @admin.display(description="sum")
    def shown_sum(self, obj: PaymentOrderBatch) -> str:
        return money_text(obj.control_sum)

    @admin.display(description="file")
    def download(self, obj: PaymentOrderBatch) -> SafeString:
        return format_html(
            '<a href="{}">{}.xml</a>', reverse("admin:wallet_paymentorderbatch_file", args=[obj.pk]), obj.message_id
        )

    def get_urls(self) -> list[URLPattern]:
        return [
            decision_path(
                self,
                "<int:pk>/file/",
                self.file_view,
                perm="wallet.export_payment_orders",
                name="wallet_paymentorderbatch_file",
            ),
            *super().get_urls(),
        ]

    def file_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        _require(request, "wallet.export_payment_orders")
        batch = get_object_or_404(PaymentOrderBatch, pk=pk)
        if not batch.xml:  # blanked by the retention job (wallet/privacy.py): gone, not an empty file
            return HttpResponse(
                PAYMENT_ORDER_FILE_ERASED.message_en, status=410, content_type="text/plain; charset=utf-8"
            )
        resp = HttpResponse(batch.xml.encode(), content_type="application/xml; charset=utf-8")
        resp["Content-Disposition"] = f'attachment; filename="{batch.message_id}.xml"'
        return resp

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("wallet.export_payment_orders"))

    def add_view(
        self,
        request: HttpRequest,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        _require(request, "wallet.export_payment_orders")
        form = forms.Form(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            try:
                batch = services.bank_payment_order_export(actor=Actor.staff(request.user))
            except DomainError as exc:
                self.message_user(request, domain_error_text(exc), messages.ERROR)
                return HttpResponseRedirect(request.path)
            if batch is None:
                self.message_user(request, "nothing to export", messages.INFO)
                return HttpResponseRedirect(reverse("admin:wallet_paymentorderbatch_changelist"))
            self.message_user(request, f"exported {batch}", messages.SUCCESS)
            return HttpResponseRedirect(reverse("admin:wallet_paymentorderbatch_change", args=[batch.pk]))
        return _bank_form(
            self,
            request,
            form,
            title="Export payment orders",
            submit="Export",
            intro="Every bank withdrawal, payout and credit return not yet in a file, as one "
            "pain.001.001.03 file for the bank. Each goes into exactly one file.",
        )
