"""Staff side of the personal-data requests (GP §12(7)): the queue (pending first, the due date of GDPR art. 12(3)),
the decision, the end of a blocking, and a request received in writing. Every form calls one service (audited, the
answer goes to the player's inbox and e-mail). Registered from ``accounts/admin.py``."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, reverse
from django.utils.html import format_html

from accounts import retention, services
from accounts.models import DataRequest, PersonalDataErasure, Player, RecipientNotice, User
from core import clock
from core.admin import ReadOnlyAdmin, decision_path, domain_error_text
from core.audit import Actor
from core.errors import DomainError

State = DataRequest.State
TEXTAREA = forms.Textarea(attrs={"rows": 6, "cols": 90})


class DecisionForm(forms.Form):
    outcome = forms.ChoiceField(
        choices=[
            (State.ANSWERED, "answered (an explanation)"),
            (State.GRANTED, "granted (a blocking or a deletion)"),
            (State.REFUSED, "refused (state the legal basis)"),
        ]
    )
    answer_cs = forms.CharField(widget=TEXTAREA, required=False, label="answer (Czech)")
    answer_en = forms.CharField(widget=TEXTAREA, required=False, label="answer (English)")
    legal_basis = forms.CharField(
        max_length=500,
        required=False,
        help_text="required for a refusal (e.g. GDPR art. 12(5), art. 17(3)b with the law); "
        "a deletion kept by law gets the retention periods by default",
    )


class LiftForm(forms.Form):
    answer_cs = forms.CharField(widget=TEXTAREA, label="why the blocking ends (Czech)")
    answer_en = forms.CharField(widget=TEXTAREA, label="why the blocking ends (English)")


class RecordForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="the player's username")
    kind = forms.ChoiceField(choices=DataRequest.Kind.choices)
    text = forms.CharField(widget=TEXTAREA, required=False, max_length=2000, help_text="the request's words")


def _render(
    request: HttpRequest,
    modeladmin: admin.ModelAdmin[Any],
    *,
    title: str,
    form: forms.Form,
    subject: str = "",
    help: str = "",
    error: str | None = None,
) -> TemplateResponse:
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "form": form,
        "subject": subject,
        "help": help,
        "error": error,
        "submit_label": None,
    }
    return TemplateResponse(request, "admin/platform/action_form.html", context)


class OverdueFilter(admin.SimpleListFilter):
    title = "answer due (GDPR art. 12(3))"
    parameter_name = "overdue"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "overdue (pending past the due date)")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[DataRequest]) -> QuerySet[DataRequest]:
        if self.value() == "yes":
            return queryset.filter(state=State.PENDING, due_at__lte=clock.now())
        return queryset


@admin.register(DataRequest)
class DataRequestAdmin(ReadOnlyAdmin):
    list_display = ("id", "player", "kind", "state", "received_at", "due_at", "overdue", "decided_at", "decided_by")
    list_filter = ("state", "kind", OverdueFilter)
    search_fields = ("player__user__username",)
    list_select_related = ("player__user", "decided_by")
    readonly_fields = [f.name for f in DataRequest._meta.fields] + ["retention", "actions_link"]
    change_list_template = "admin/accounts/datarequest/change_list.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[DataRequest]:
        return super().get_queryset(request).order_by("state", "due_at", "id")  # "pending" before the decided ones

    @admin.display(boolean=True, description="overdue")
    def overdue(self, obj: DataRequest) -> bool:
        return obj.state == State.PENDING and obj.due_at <= clock.now()

    @admin.display(description="retention of this account (GP §12(5))")
    def retention(self, obj: DataRequest) -> str:
        ended = retention.relationship_ended_at(obj.player)
        if obj.player.anonymised_at is not None:
            return f"anonymised at {obj.player.anonymised_at:%Y-%m-%d %H:%M} UTC"
        if ended is None:
            return "account open: the retention periods start when it ends"
        return f"ended {ended:%Y-%m-%d}; may be anonymised from {retention.retention_ends_at(ended):%Y-%m-%d %H:%M} UTC"

    @admin.display(description="decide")
    def actions_link(self, obj: DataRequest) -> str:
        if obj.state == State.PENDING:
            return format_html(
                '<a href="{}">Decide (answer, grant or refuse)</a>',
                reverse("admin:accounts_datarequest_decide", args=[obj.pk]),
            )
        if obj.kind == DataRequest.Kind.BLOCKING and obj.state == State.GRANTED:
            return format_html(
                '<a href="{}">End the blocking</a>', reverse("admin:accounts_datarequest_lift", args=[obj.pk])
            )
        return "-"

    def get_urls(self) -> list[URLPattern]:
        perm = "accounts.decide_data_request"
        return [
            decision_path(self, "<int:pk>/decide/", self.decide_view, perm=perm, name="accounts_datarequest_decide"),
            decision_path(self, "<int:pk>/lift/", self.lift_view, perm=perm, name="accounts_datarequest_lift"),
            decision_path(self, "record/", self.record_view, perm=perm, name="accounts_datarequest_record"),
        ] + super().get_urls()

    def decide_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        req = get_object_or_404(DataRequest.objects.select_related("player__user"), pk=pk)
        form = DecisionForm(request.POST or None)
        error = None
        if request.method == "POST" and form.is_valid():
            try:
                services.data_request_decide(request=req, actor=Actor.staff(request.user), **form.cleaned_data)
                self.message_user(request, "Decided; the answer is in the player's inbox and e-mail.", messages.SUCCESS)
                return redirect(reverse("admin:accounts_datarequest_change", args=[pk]))
            except DomainError as exc:
                error = domain_error_text(exc)
        return _render(
            request,
            self,
            title=f"Personal-data request #{req.pk} ({req.kind})",
            form=form,
            error=error,
            subject=f"{req.player} asked on {req.received_at:%Y-%m-%d}: {req.text or '-'}",
            help="GP §12(7): an explanation is answered in writing; a blocking stops marketing and loyalty "
            "while the processing the law requires continues; a deletion erases the optional data and "
            "keeps what the law requires for its period (the answer states the date). The player also "
            "reads the notice of the right to turn to the data-protection authority.",
        )

    def lift_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        req = get_object_or_404(DataRequest.objects.select_related("player__user"), pk=pk)
        form = LiftForm(request.POST or None)
        error = None
        if request.method == "POST" and form.is_valid():
            try:
                services.blocking_lift(request=req, actor=Actor.staff(request.user), **form.cleaned_data)
                self.message_user(request, "The blocking ended; the player was told why.", messages.SUCCESS)
                return redirect(reverse("admin:accounts_datarequest_change", args=[pk]))
            except DomainError as exc:
                error = domain_error_text(exc)
        return _render(
            request,
            self,
            title=f"End the blocking #{req.pk}",
            form=form,
            error=error,
            subject=str(req.player),
            help="GDPR art. 18(3): the player is told, with the reason.",
        )

    def record_view(self, request: HttpRequest) -> HttpResponse:
        form = RecordForm(request.POST or None)
        error = None
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            player = Player.objects.filter(user__username=data["username"]).first()
            staff = request.user
            if player is None:
                error = f"No player with the username {data['username']!r}."
            elif isinstance(staff, User):
                try:
                    req = services.data_request_create(
                        player=player,
                        kind=data["kind"],
                        text=data["text"],
                        actor=Actor.staff(staff),
                        channel=DataRequest.Channel.STAFF,
                        entered_by=staff,
                    )
                    self.message_user(request, f"Recorded request #{req.pk}.", messages.SUCCESS)
                    return redirect(reverse("admin:accounts_datarequest_change", args=[req.pk]))
                except DomainError as exc:
                    error = domain_error_text(exc)
        return _render(
            request,
            self,
            title="Record a personal-data request received in writing",
            form=form,
            error=error,
            help="GP §12(7): e.g. from a player whose account is closed (who cannot sign in).",
        )


@admin.register(PersonalDataErasure)
class PersonalDataErasureAdmin(ReadOnlyAdmin):
    """What the retention job anonymised, per account and group of records (``accounts.privacy_contract``)."""

    list_display = ("player", "retention", "erased_at")
    list_filter = ("retention",)
    search_fields = ("player__id",)
    readonly_fields = ("player", "retention", "records", "erased_at", "rows")


@admin.register(RecipientNotice)
class RecipientNoticeAdmin(ReadOnlyAdmin):
    """Notices to the recipients of the data (GP §12(7), GDPR art. 19): sent ones, and those waiting (no contact
    declared: staff tell the recipient themselves)."""

    list_display = ("created_at", "player", "recipient", "event", "reference", "sent_at", "attempts", "last_error")
    list_filter = ("recipient", "event", ("sent_at", admin.EmptyFieldListFilter))
    search_fields = ("player__id", "reference")
    readonly_fields = (
        "player",
        "recipient",
        "event",
        "reference",
        "records",
        "fields",
        "contact",
        "created_at",
        "sent_at",
        "attempts",
        "next_attempt_at",
        "last_error",
    )
