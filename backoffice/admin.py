"""The back office in the admin: the player's page replaced by their whole picture (``picture``), the one
search, the confirmation pages of the decisions the picture offers, and the audit search with its CSV export.

The Player and AuditEvent admins of accounts and core are extended here (the back office is the top layer and may
import them; they may not import it): same URLs, so every existing link still leads to the player's page."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, reverse
from django.utils.translation import gettext, gettext_lazy

from accounts import selectors as accounts_selectors
from accounts.admin import PlayerAdmin
from accounts.models import Player
from backoffice import errors, picture, services
from backoffice.search import search
from core import clock
from core.admin import AuditEventAdmin, EstimatedCountPaginator, decision_path, domain_error_text
from core.audit import Actor
from core.audit_actions import action_label
from core.errors import DomainError
from core.masking import mask
from core.models import AuditEvent
from core.money import Money
from core.roles import ROLES, SUPERUSER
from core.selectors import audit_events, changes_text, readable_changes, readable_details
from wallet import selectors as wallet_selectors
from wallet import services as wallet_services
from wallet.models import MethodDocument, Withdrawal

#: the decisions the player's page offers on a confirmation page: what each needs and says before it acts
CONFIRM_PERMISSIONS = {
    "document_approve": "wallet.review_method_document",
    "document_reject": "wallet.review_method_document",
    "withdrawal_approve": "wallet.approve_withdrawal",
    "withdrawal_reject": "wallet.approve_withdrawal",
}

PAGE_STYLE = "admin/backoffice/player.html"


class PlayerPictureAdmin(PlayerAdmin):
    """The player's page is their whole picture; the staff actions of ``PlayerAdmin`` sit in its "Account state"
    section, each opening its own form that says what it does (``PlayerAdmin.action_view``). The list shows the
    player's name too (newcomer review)."""

    list_display: Any = (
        "username",
        "name",
        "status",
        "channel",
        "created_at",
        "temporary_expires_at",
        "barred_insider",
        "exclusion_listed",
    )
    list_select_related = ("user", "personal")  # type: ignore[assignment]  # the base names "user" only

    @admin.display(description="name", ordering="personal__surname")
    def name(self, obj: Player) -> str:
        pd = getattr(obj, "personal", None)
        return f"{pd.given_names} {pd.surname}".strip() if pd else ""

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            player, sections = picture.player_picture(int(object_id), request.user)
        except (ValueError, Player.DoesNotExist) as exc:
            raise Http404 from exc
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": player,
            "title": gettext("Player %(username)s") % {"username": player.user.username},
            "subtitle": player.get_status_display(),
            "sections": sections,
            "player": player,
            "has_view_permission": True,
            "search_url": reverse("admin:backoffice_player_search"),
            "history_url": reverse("admin:accounts_player_history", args=[player.pk]),
        }
        return TemplateResponse(request, PAGE_STYLE, context)

    def get_urls(self) -> list[URLPattern]:
        return [
            decision_path(
                self, "search/", self.search_view, perm="accounts.view_player", name="backoffice_player_search"
            ),
            decision_path(
                self,
                "<int:pk>/confirm/<str:action>/<int:obj_id>/",
                self.confirm_view,
                perm=CONFIRM_PERMISSIONS,
                kwarg="action",
                name="backoffice_player_confirm",
            ),
            *super().get_urls(),
        ]

    def search_view(self, request: HttpRequest) -> HttpResponse:
        text = request.GET.get("q", "")[:200]
        result = search(text, actor=Actor.staff(request.user))
        if len(result.players) == 1:
            return redirect(reverse("admin:accounts_player_change", args=[result.players[0].pk]))
        unmasked = request.user.has_perm("accounts.view_unmasked_identifiers")
        rows = [
            {
                "url": reverse("admin:accounts_player_change", args=[p.pk]),
                "username": p.user.username,
                "name": f"{getattr(p, 'personal', None) and p.personal.given_names or ''} "
                f"{getattr(p, 'personal', None) and p.personal.surname or ''}".strip(),
                "status": p.get_status_display(),
                "birth_number": _maybe_masked(getattr(getattr(p, "personal", None), "birth_number", ""), unmasked),
            }
            for p in result.players
        ]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": gettext("Find a player"),
            "q": text,
            "matched": result.matched,
            "rows": rows,
        }
        return TemplateResponse(request, "admin/backoffice/search.html", context)

    def confirm_view(self, request: HttpRequest, pk: int, action: str, obj_id: int) -> HttpResponse:
        try:
            player = accounts_selectors.staff_player(pk)
        except Player.DoesNotExist as exc:
            raise Http404 from exc
        kind, _, verb = action.partition("_")
        back = reverse("admin:accounts_player_change", args=[pk])
        error = ""
        look = ""
        doc: MethodDocument | None = None
        wd: Withdrawal | None = None
        if kind == "document":
            doc = wallet_selectors.method_document_of(player, obj_id)
            if doc is None:
                raise Http404
            pending = doc.status == doc.Status.PENDING
            account = (
                doc.method.display
                if request.user.has_perm("accounts.view_unmasked_identifiers")
                else _maybe_masked(doc.method.display, False)
            )
            subject = gettext("Document %(name)s for the payment method %(kind)s %(account)s") % {
                "name": repr(doc.original_name),
                "kind": doc.method.get_kind_display(),
                "account": account,
            }
            look = reverse("admin:wallet_methoddocument_change", args=[doc.pk])
            will = (
                gettext(
                    "The document is accepted as proof that the method is the player's own (GP §5(8)b): the method "
                    "becomes verified, and deposits and withdrawals through it are allowed."
                )
                if verb == "approve"
                else gettext(
                    "The document is rejected as not proving ownership; the method stays unverified and the "
                    "player is told to send another."
                )
            )
        else:
            wd = wallet_selectors.withdrawal_of(player, obj_id)
            if wd is None:
                raise Http404
            pending = wd.status == wd.Status.REQUESTED and wd.needs_approval
            look = reverse("admin:wallet_withdrawal_change", args=[wd.pk])
            subject = gettext("Withdrawal %(reference)s of %(amount)s to %(kind)s (held for approval: %(reasons)s)") % {
                "reference": wd.reference,
                "amount": Money(wd.amount),
                "kind": wd.method.get_kind_display(),
                "reasons": ", ".join(wd.approval_reasons or []) or "-",
            }
            will = (
                gettext(
                    "The withdrawal is approved: it is sent to the payment method (the held amount leaves the "
                    "player's account)."
                )
                if verb == "approve"
                else gettext("The withdrawal is rejected: the held amount returns to the player's account.")
            )
        if not pending:
            error = domain_error_text(errors.CONFIRM_NOT_PENDING())
        elif request.method == "POST":
            actor = Actor.staff(request.user)
            try:
                if doc is not None:
                    wallet_services.method_document_review(
                        document=doc, approve=verb == "approve", note=f"{verb}d on the player's page", actor=actor
                    )
                elif wd is not None and verb == "approve":
                    wallet_services.withdrawal_approve(withdrawal=wd, actor=actor)
                elif wd is not None:
                    wallet_services.withdrawal_reject(withdrawal=wd, reason="rejected by staff", actor=actor)
                self.message_user(request, f"{subject}: {DONE[verb]}", messages.SUCCESS)
                return redirect(back)
            except DomainError as exc:
                error = domain_error_text(exc)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"{VERBS[verb]}: {player.user.username}",
            "subject": subject,
            "will": will,
            "error": error,
            "pending": pending,
            "back": back,
            "look": look,
            "look_label": gettext("open the document") if kind == "document" else gettext("open the withdrawal"),
            "verb": VERBS[verb],
        }
        return TemplateResponse(request, "admin/backoffice/confirm.html", context)


#: the decision's name on the confirmation page's title and button, and in the message after it
VERBS = {"approve": gettext_lazy("Approve"), "reject": gettext_lazy("Reject")}
DONE = {"approve": gettext_lazy("approved."), "reject": gettext_lazy("rejected.")}


def _maybe_masked(value: str, unmasked: bool) -> str:
    return value if unmasked else mask(value)


# The audit trail --------------------------------------------------------------------------------------------

ROLE_CHOICES = [("", "any"), *((name, role.label) for name, role in ROLES.items()), (SUPERUSER, "superuser")]


class AuditSearchForm(forms.Form):
    player = forms.CharField(required=False, max_length=150, help_text="username or player id")
    staff = forms.CharField(
        required=False, max_length=150, label="staff member / actor", help_text="the username that acted (exact)"
    )
    role = forms.ChoiceField(required=False, choices=ROLE_CHOICES)
    action = forms.CharField(required=False, max_length=100, help_text='a whole action or a prefix ("wallet.")')
    object_type = forms.CharField(required=False, max_length=100, help_text='e.g. "wallet.withdrawal"')
    object_id = forms.CharField(required=False, max_length=64)
    since = forms.DateField(required=False, label="from (day, Prague)", widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(
        required=False, label="to (day, Prague, inclusive)", widget=forms.DateInput(attrs={"type": "date"})
    )

    def _day(self, name: str) -> Any:
        day = self.cleaned_data.get(name)
        if day is not None and not clock.day_in_range(day):
            raise forms.ValidationError(
                gettext("a day from %(earliest)s to a year after today") % {"earliest": clock.EARLIEST_DAY}
            )
        return day

    def clean_since(self) -> Any:
        return self._day("since")

    def clean_until(self) -> Any:
        return self._day("until")

    def events(self) -> Any:
        """The matching events; a player that does not exist matches nothing (never everything)."""
        d = self.cleaned_data
        player_id = None
        if d["player"]:
            player_id = accounts_selectors.player_id_for(d["player"])
            if player_id is None:
                return AuditEvent.objects.none()
        since = clock.day_bounds(_prague_noon(d["since"]))[0] if d["since"] else None
        until = clock.day_bounds(_prague_noon(d["until"]))[1] if d["until"] else None
        if since and until and since >= until:
            raise errors.AUDIT_FILTER_INVALID(problem="'from' is after 'to'")
        return audit_events(
            player_id=player_id,
            actor=d["staff"],
            role=d["role"],
            action=d["action"],
            object_type=d["object_type"],
            object_id=d["object_id"],
            since=since,
            until=until,
        )


def _prague_noon(day: Any) -> datetime:
    return datetime.combine(day, datetime.min.time(), tzinfo=clock.PRAGUE) + timedelta(hours=12)


class _Echo:
    def write(self, value: str) -> str:
        return value


CSV_COLUMNS = (
    "occurred_at",
    "actor_type",
    "actor_label",
    "actor_role",
    "action",
    "object_type",
    "object_id",
    "changes",
    "details",
    "request_id",
)


def audit_csv_rows(events: Any) -> Iterator[str]:
    """The CSV lines of ``events``, streamed (read in chunks, never all in memory)."""
    writer = csv.writer(_Echo())
    yield writer.writerow(CSV_COLUMNS)
    for e in events.iterator(chunk_size=2000):
        yield writer.writerow(
            [
                e.occurred_at.isoformat(),
                e.actor_type,
                e.actor_label,
                e.actor_role,
                e.action,
                e.object_type,
                e.object_id,
                changes_text(e.old_values, e.new_values),
                "; ".join(f"{k}: {v}" for k, v in readable_details(e.details)),
                e.request_id,
            ]
        )


class AuditSearchAdmin(AuditEventAdmin):
    """The audit trail's list, plus the search page and its CSV export (``core.export_audit``)."""

    def get_urls(self) -> list[URLPattern]:
        return [
            decision_path(
                self, "search/", self.search_view, perm="core.view_auditevent", name="backoffice_audit_search"
            ),
            decision_path(self, "export/", self.export_view, perm="core.export_audit", name="backoffice_audit_export"),
            *super().get_urls(),
        ]

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        return super().changelist_view(
            request, {**(extra_context or {}), "audit_search_url": reverse("admin:backoffice_audit_search")}
        )

    def search_view(self, request: HttpRequest) -> HttpResponse:
        form = AuditSearchForm(request.GET or None)
        page = None
        error = ""
        if form.is_bound and form.is_valid():
            try:
                paginator = EstimatedCountPaginator(form.events(), 50)
                page = paginator.get_page(request.GET.get("page"))
            except DomainError as exc:
                error = domain_error_text(exc)
        elif not form.is_bound:
            page = EstimatedCountPaginator(audit_events(), 50).get_page(1)  # the whole trail: never counted whole
        rows = [
            {
                "at": e.occurred_at,
                "who": e.actor_label,
                "type": e.actor_type,
                "role": e.actor_role,
                "action": e.action,
                "action_label": action_label(e.action),
                "object": f"{e.object_type} {e.object_id}".strip(),
                "url": reverse("admin:core_auditevent_change", args=[e.pk]),
                "changes": readable_changes(e.old_values, e.new_values),
                "details": readable_details(e.details, skip=("player_id",)),
            }
            for e in (page.object_list if page else [])
        ]
        query = request.GET.copy()
        query.pop("page", None)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": gettext("Audit trail"),
            "form": form,
            "page": page,
            "rows": rows,
            "error": error,
            "query": query.urlencode(),
            "may_export": request.user.has_perm("core.export_audit"),
            "export_url": f"{reverse('admin:backoffice_audit_export')}?{query.urlencode()}",
        }
        status = 400 if form.is_bound and not form.is_valid() else 200
        return TemplateResponse(request, "admin/backoffice/audit_search.html", context, status=status)

    def export_view(self, request: HttpRequest) -> HttpResponseBase:
        form = AuditSearchForm(request.GET)
        if not form.is_valid():
            return HttpResponse(
                f"invalid filter: {form.errors.as_text()}", status=400, content_type="text/plain; charset=utf-8"
            )
        try:
            events = form.events()
        except DomainError as exc:
            return HttpResponse(domain_error_text(exc), status=400, content_type="text/plain; charset=utf-8")
        services.audit_export_record(
            filters={k: str(v) for k, v in form.cleaned_data.items() if v}, actor=Actor.staff(request.user)
        )
        response = StreamingHttpResponse(audit_csv_rows(events), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="audit-{clock.business_date()}.csv"'
        return response


admin.site.unregister(Player)
admin.site.register(Player, PlayerPictureAdmin)
admin.site.unregister(AuditEvent)
admin.site.register(AuditEvent, AuditSearchAdmin)
