"""Staff screens of the providers: the providers (game manager: ``providers.manage_provider``; the secret
write-only), their transactions (read-only; finance) and the reconciliation cases (finance resolves them:
``providers.resolve_reconciliation``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.html import format_html_join
from django.utils.translation import gettext, ngettext

from core.admin import LargeTableAdmin, PlatformAdminMixin, ReadOnlyAdmin, decision_action, domain_error_text
from core.audit import Actor
from core.errors import DomainError
from games.models import Game
from providers import services
from providers.models import Provider, ProviderTransaction, ReconciliationCase

MANAGE = "providers.manage_provider"


class ProviderForm(forms.ModelForm):
    """The stored secret is never shown: ``new_secret`` replaces it (required for a new provider)."""

    new_secret = forms.CharField(
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False),
        help_text="a new shared HMAC secret (at least 32 bytes in production); leave empty "
        "to keep the stored one, which is never displayed",
    )
    launch_url = forms.URLField(max_length=500, assume_scheme="https", help_text="the provider's game page")
    api_url = forms.URLField(max_length=500, assume_scheme="https", help_text="the provider's API")
    allowed_sources = forms.JSONField(
        required=False,
        initial=list,
        help_text='a JSON list of IP addresses or networks, e.g. ["203.0.113.0/28"]; '
        "empty: the provider's calls are refused from everywhere",
    )

    class Meta:
        model = Provider
        fields = ("code", "name", "enabled", "launch_url", "api_url", "allowed_sources", "currency")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.instance.pk is None and not data.get("new_secret"):
            self.add_error("new_secret", gettext("a new provider needs a secret"))
        return data


@admin.register(Provider)
class ProviderAdmin(PlatformAdminMixin, admin.ModelAdmin):
    form = ProviderForm
    list_display = ("code", "name", "enabled", "api_url", "updated_at")
    readonly_fields = ("games", "created_at", "updated_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(MANAGE))

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.has_perm(MANAGE))

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="games of the provider")
    def games(self, obj: Provider) -> str:
        rows = Game.objects.filter(provider=obj.code, current=True).order_by("code")
        return (
            format_html_join(
                "",
                "<div>{} ({}): {}{}</div>",
                ((g.name, g.code, g.approval_state, "" if g.enabled else ", disabled") for g in rows),
            )
            or "-"
        )

    def save_model(self, request: HttpRequest, obj: Provider, form: Any, change: bool) -> None:
        try:
            services.provider_save(
                provider=obj, new_secret=form.cleaned_data.get("new_secret") or "", actor=Actor.staff(request.user)
            )
        except DomainError as exc:
            self.message_user(request, domain_error_text(exc), messages.ERROR)


@admin.register(ProviderTransaction)
class ProviderTransactionAdmin(LargeTableAdmin):
    list_display = (
        "created_at",
        "provider",
        "transaction_id",
        "kind",
        "provider_round_id",
        "amount",
        "credited",
        "response_status",
    )
    list_filter = ("provider", "kind", "response_status")
    search_fields = ("=transaction_id", "=provider_round_id", "=bet_transaction_id")


class ResolveForm(forms.Form):
    resolution = forms.CharField(widget=forms.Textarea, max_length=2000, help_text="how the difference was resolved")


@admin.register(ReconciliationCase)
class ReconciliationCaseAdmin(ReadOnlyAdmin):
    list_display = ("day", "provider", "transaction_id", "difference", "status", "resolved_by")
    list_filter = ("status", "difference", "provider")
    search_fields = ("=transaction_id",)
    actions = ["resolve"]

    @decision_action("providers.resolve_reconciliation", description="Resolve the selected cases")
    def resolve(self, request: HttpRequest, queryset: QuerySet[ReconciliationCase]) -> HttpResponse | None:
        form = ResolveForm(request.POST if "resolution" in request.POST else None)
        if not form.is_valid():
            return TemplateResponse(
                request,
                "admin/providers/resolve.html",
                {
                    **self.admin_site.each_context(request),
                    "form": form,
                    "cases": queryset,
                    "action": "resolve",
                    "title": "Resolve reconciliation cases",
                },
            )
        actor = Actor.staff(request.user)
        done = 0
        for case in queryset:
            try:
                services.reconciliation_resolve(case=case, resolution=form.cleaned_data["resolution"], actor=actor)
                done += 1
            except DomainError as exc:
                self.message_user(request, f"{self.staff_title(case)}: {domain_error_text(exc)}", messages.ERROR)
        if done:
            self.message_user(
                request, ngettext("%(n)s case resolved.", "%(n)s cases resolved.", done) % {"n": done}, messages.SUCCESS
            )
        return None
