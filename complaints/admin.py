"""Back office for complaints. Every change goes through ``complaints.services`` (audited); the admin never writes
the models itself. The change view shows the whole case: the player's complaint, the full recall of every round
it names (from the games app), transactions, attachments, messages, internal notes, e-mails and the audit trail,
with the workflow forms (assign, investigate, ask the player, note, resolve).



"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import format_html
from django.utils.translation import gettext, gettext_lazy

from accounts.models import Player, User
from complaints import selectors, services, texts
from complaints.models import Complaint, ComplaintNotice
from core import clock
from core.admin import (
    ReadOnlyAdmin,
    decision_action,
    decision_path,
    domain_error_text,
    require_permission,
    run_service_action,
)
from core.audit import Actor
from core.audit_actions import action_label
from core.errors import DomainError
from core.models import AuditEvent
from core.money import Money, MoneyError
from core.selectors import readable_changes

RESOLVE = "complaints.resolve_complaint"  # every step of a complaint's workflow (the support and compliance roles)
REMEDY = "complaints.credit_remedy"  # a money remedy credited on resolving (finance, the complaint supervisor)


def _can_act(user: Any) -> bool:
    return bool(user.is_active and user.is_staff and user.has_perm(RESOLVE))


def _staff_user(request: HttpRequest) -> User:
    """The signed-in staff member (every view here is wrapped by ``admin_view``, which requires one)."""
    if not isinstance(request.user, User):
        raise PermissionDenied
    return request.user


def _staff_users() -> QuerySet[User]:
    return User.objects.filter(is_active=True, is_staff=True).order_by("username")


class MoneyFormField(forms.CharField):
    """An amount staff type in Kč ("5,50", "1 500,50 Kč"); the unit is written next to the field."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault(
            "widget",
            forms.TextInput(attrs={"placeholder": "0,00", "inputmode": "decimal", "size": 12, "class": "money-czk"}),
        )
        kwargs.setdefault("help_text", "Kč, two decimals (e.g. 5,50)")
        super().__init__(*args, **kwargs)

    def clean(self, value):
        value = super().clean(value)
        if not value:
            return None
        try:
            return Money.parse(value)
        except MoneyError:
            raise forms.ValidationError(gettext("Enter an amount like 150,00 Kč / 150.00"))


class IdListField(forms.CharField):
    def clean(self, value):
        value = super().clean(value) or ""
        return [v for v in (p.strip() for p in value.replace(";", ",").split(",")) if v]


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, (list, tuple)):
            return [single(d, initial) for d in data if d]
        return [single(data, initial)] if data else []


class FileComplaintForm(forms.Form):
    """A complaint received by e-mail, by post or at a branch, entered by staff (GP §11(4))."""

    username = forms.CharField(label="Player (username)")
    channel = forms.ChoiceField(choices=[(c, lbl) for c, lbl in Complaint.Channel.choices if c != "api"])
    received_at = forms.DateTimeField(label="Received at (Europe/Prague)", initial=lambda: clock.local())
    reason = forms.ChoiceField(choices=Complaint.Reason.choices)
    description = forms.CharField(widget=forms.Textarea)
    event_at = forms.DateTimeField(label="Time of the bet / event (Europe/Prague)", required=False)
    remedy_requested = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    remedy_amount_requested = MoneyFormField(required=False, label="Amount requested, Kč (optional)")
    rounds = IdListField(required=False, label="Game round ids (comma separated)")
    transactions = IdListField(required=False, label="Transaction ids (comma separated)")
    language = forms.ChoiceField(choices=Complaint.Language.choices)
    attachments = MultipleFileField(required=False, label="Attachments (PDF/PNG/JPEG, max 5 MB each)")

    def clean_username(self) -> Player:
        player = Player.objects.select_related("user").filter(user__username=self.cleaned_data["username"]).first()
        if player is None:
            raise forms.ValidationError(gettext("No player with this username."))
        return player


class AssignForm(forms.Form):
    assignee = forms.ModelChoiceField(queryset=_staff_users())  # lazy: read when the form is rendered or cleaned


class TextForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))


class ResolveForm(forms.Form):
    outcome = forms.ChoiceField(choices=[(o, lbl) for o, lbl in Complaint.Outcome.choices if o])
    answer_cs = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), required=False, label="Answer (Czech)")
    answer_en = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), required=False, label="Answer (English)")
    remedy_amount = MoneyFormField(
        required=False,
        label="Money remedy credited to the player, Kč (upheld only)",
        help_text="Kč, two decimals (e.g. 5,50); a confirmation page follows",
    )
    remedy_text = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False, label="Other remedy (described)"
    )

    def __init__(self, *args: Any, may_credit: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not may_credit:  # support resolves; a money remedy is credited by finance or a complaint supervisor
            del self.fields["remedy_amount"]


class OverdueFilter(admin.SimpleListFilter):
    title = "deadline"
    parameter_name = "deadline"

    def lookups(self, request, model_admin):
        return [
            ("overdue", "open past day 30"),
            ("due7", "open, due within 7 days"),
            ("flagged", "flagged overdue (ever)"),
        ]

    def queryset(self, request, queryset):
        now = clock.now()
        if self.value() == "overdue":
            return queryset.filter(status__in=Complaint.OPEN_STATUSES, respond_by__lte=now)
        if self.value() == "due7":
            return queryset.filter(
                status__in=Complaint.OPEN_STATUSES, respond_by__gt=now, respond_by__lte=now + timedelta(days=7)
            )
        if self.value() == "flagged":
            return queryset.filter(overdue_flagged_at__isnull=False)
        return queryset


#: what staff read after a workflow step posted from the case page
STEP_DONE = {
    "assign": gettext_lazy("assigned."),
    "assign_me": gettext_lazy("assigned to you."),
    "investigate": gettext_lazy("under investigation."),
    "note": gettext_lazy("note added."),
    "request_info": gettext_lazy("the player was asked for information."),
    "resolve": gettext_lazy("resolved."),
}


def _cleaned(form: forms.Form) -> dict[str, Any]:
    if not form.is_valid():
        raise forms.ValidationError(form.errors.as_text())
    return form.cleaned_data


@admin.register(Complaint)
class ComplaintAdmin(ReadOnlyAdmin):
    list_display = (
        "reference",
        "player",
        "kind",
        "reason",
        "status",
        "outcome",
        "assignee",
        "received_at",
        "respond_by_date",
        "deadline_badge",
        "late",
    )
    list_filter = (OverdueFilter, "status", "outcome", "reason", "kind", "channel", "late", "assignee")
    search_fields = ("reference", "player__user__username", "description")
    date_hierarchy = "received_at"
    list_select_related = ("player__user", "assignee")
    actions = ["assign_to_me"]
    change_list_template = "admin/complaints/complaint/change_list.html"
    readonly_fields = [f.name for f in Complaint._meta.fields]

    # No direct edits or deletes (ReadOnlyAdmin): the workflow runs through services. "Add" is the form for a
    # complaint received off-line, which calls complaints.services.complaint_file.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return _can_act(request.user)

    @admin.display(description="deadline")
    def deadline_badge(self, obj):
        if obj.status == Complaint.Status.RESOLVED:
            late = obj.answered_at and obj.answered_at >= obj.respond_by
            return format_html(
                '<span style="color:{}">{}</span>',
                "#b00" if late else "#080",
                "answered late" if late else "answered in time",
            )
        if clock.now() >= obj.respond_by:
            return format_html('<b style="color:#b00">{}</b>', "OVERDUE")
        days = (obj.respond_by_date - clock.business_date()).days
        return format_html('<span style="color:{}">{}</span>', "#c60" if days <= 3 else "#333", f"{days} d left")

    @decision_action(RESOLVE, description="Assign the selected complaints to me")
    def assign_to_me(self, request: HttpRequest, queryset: QuerySet[Complaint]) -> None:
        me = _staff_user(request)
        run_service_action(
            self,
            request,
            queryset,
            lambda c, actor: services.complaint_assign(complaint=c, assignee=me, actor=actor),
            done="Complaints assigned to you",
        )

    # --- extra views ------------------------------------------------------------------------------------------
    def get_urls(self):
        view = "complaints.view_complaint"
        return [
            decision_path(self, "file/", self.file_view, perm=RESOLVE, name="complaints_complaint_file"),
            decision_path(self, "report/", self.report_view, perm=view, name="complaints_complaint_report"),
            decision_path(
                self, "<int:pk>/act/<str:action>/", self.act_view, perm=RESOLVE, name="complaints_complaint_act"
            ),
            decision_path(
                self,
                "<int:pk>/attachment/<int:attachment_id>/",
                self.attachment_view,
                perm=view,
                name="complaints_complaint_attachment",
            ),
            *super().get_urls(),
        ]

    def add_view(self, request, form_url="", extra_context=None):
        return HttpResponseRedirect(reverse("admin:complaints_complaint_file"))

    def file_view(self, request):
        if not _can_act(request.user):
            raise PermissionDenied
        with timezone.override(clock.PRAGUE):  # staff type Prague wall-clock times
            return self._file_view(request)

    def _file_view(self, request):
        form = FileComplaintForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            d = form.cleaned_data
            try:
                c = services.complaint_file(
                    player=d["username"],
                    reason=d["reason"],
                    description=d["description"],
                    event_at=d.get("event_at"),
                    remedy_requested=d.get("remedy_requested", ""),
                    remedy_amount_requested=d.get("remedy_amount_requested"),
                    round_ids=d.get("rounds") or [],
                    transaction_ids=d.get("transactions") or [],
                    files=request.FILES.getlist("attachments"),
                    channel=d["channel"],
                    received_at=d["received_at"],
                    language=d["language"],
                    entered_by=request.user,
                    actor=Actor.staff(request.user),
                )
            except DomainError as exc:
                form.add_error(None, domain_error_text(exc))
            else:
                self.message_user(
                    request,
                    gettext("Complaint %(reference)s recorded; confirmation sent to the player.")
                    % {"reference": c.reference},
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(reverse("admin:complaints_complaint_change", args=[c.pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Enter a complaint received off-line"),
            "form": form,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/complaints/complaint/file_form.html", context).render()

    def report_view(self, request):
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            report = selectors.complaints_report(request.GET.get("month"))
        except DomainError as exc:
            self.message_user(request, domain_error_text(exc), messages.ERROR)
            report = selectors.complaints_report(None)
        lang = "cs" if translation.get_language() == "cs" else "en"  # the staff member's language
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Complaints report %(month)s") % {"month": report["month"]},
            "report": report,
            "opts": self.model._meta,
            "reasons": [(k, texts.label(texts.REASONS, k, lang), v) for k, v in report["by_reason"].items()],
            "outcomes": [
                (gettext("open") if k == "open" else texts.label(texts.OUTCOMES, k, lang), v)
                for k, v in report["by_outcome"].items()
            ],
        }
        with timezone.override(clock.PRAGUE):
            return TemplateResponse(request, "admin/complaints/complaint/report.html", context).render()

    def attachment_view(self, request, pk, attachment_id):
        if not self.has_view_permission(request):
            raise PermissionDenied
        c = get_object_or_404(Complaint, pk=pk)
        a = get_object_or_404(c.attachments, pk=attachment_id)
        return FileResponse(
            a.file.open("rb"), content_type=a.content_type, as_attachment=True, filename=a.original_name
        )

    def _act(self, request: HttpRequest, c: Complaint, action: str, actor: Actor) -> None:
        """One workflow step posted from the case page, through its service."""
        me = _staff_user(request)
        if action == "assign":
            assignee = _cleaned(AssignForm(request.POST))["assignee"]
            services.complaint_assign(complaint=c, assignee=assignee, actor=actor)
        elif action == "assign_me":
            services.complaint_assign(complaint=c, assignee=me, actor=actor)
        elif action == "investigate":
            services.complaint_investigate(complaint=c, actor=actor)
        elif action == "note":
            text = _cleaned(TextForm(request.POST))["text"]
            services.complaint_note_add(complaint=c, text=text, author=me, actor=actor)
        elif action == "request_info":
            text = _cleaned(TextForm(request.POST))["text"]
            services.complaint_request_info(complaint=c, text=text, actor=actor, author=me)
        elif action == "resolve":
            d = _cleaned(ResolveForm(request.POST))
            self._ready_to_resolve(c, me, actor)
            services.complaint_resolve(
                complaint=c,
                outcome=d["outcome"],
                answer_cs=d["answer_cs"],
                answer_en=d["answer_en"],
                remedy_amount=d.get("remedy_amount"),
                remedy_text=d["remedy_text"],
                resolved_by=me,
                actor=actor,
            )
        else:
            raise Http404

    @staticmethod
    def _ready_to_resolve(c: Complaint, me: User, actor: Actor) -> None:
        """Resolving is one decision: a complaint not yet assigned is assigned to whoever resolves it, and one not
        yet under investigation is taken into investigation first (both steps audited as usual)."""
        c.refresh_from_db()
        if c.status == Complaint.Status.NEW:
            services.complaint_assign(complaint=c, assignee=me, actor=actor)
            c.refresh_from_db()
        if c.status == Complaint.Status.ASSIGNED:
            services.complaint_investigate(complaint=c, actor=actor)
            c.refresh_from_db()

    def _remedy_confirmation(self, request: HttpRequest, c: Complaint) -> HttpResponse | None:
        """A resolve that credits money: only finance or a complaint supervisor (403 otherwise), and first a page
        repeating the amount, the player and the reason; the credit happens when that page is confirmed."""
        if not (request.POST.get("remedy_amount") or "").strip():
            return None
        require_permission(request, REMEDY)
        form = ResolveForm(request.POST)
        if not form.is_valid() or form.cleaned_data.get("remedy_amount") is None:
            return None  # the resolve reports the form's errors
        if request.POST.get("confirmed") == "1":
            return None
        d = form.cleaned_data
        pd = getattr(c.player, "personal", None)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "complaint": c,
            "title": gettext("Confirm the money remedy of %(ref)s") % {"ref": c.reference},
            "amount": d["remedy_amount"],
            "player": c.player.user.username,
            "player_name": f"{pd.given_names} {pd.surname}".strip() if pd else "",
            "reason": c.get_reason_display(),
            "outcome": dict(Complaint._meta.get_field("outcome").flatchoices).get(d["outcome"]),
            "requested": Money(c.remedy_amount_requested, c.currency) if c.remedy_amount_requested else None,
            "answer": d["answer_cs"] or d["answer_en"],
            "hidden": [(k, v) for k, v in request.POST.items() if k not in ("csrfmiddlewaretoken", "confirmed")],
            "action_url": reverse("admin:complaints_complaint_act", args=[c.pk, "resolve"]),
            "back_url": reverse("admin:complaints_complaint_change", args=[c.pk]),
        }
        return TemplateResponse(request, "admin/complaints/complaint/confirm_remedy.html", context)

    def act_view(self, request: HttpRequest, pk: int, action: str) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        c = get_object_or_404(Complaint, pk=pk)
        actor = Actor.staff(request.user)
        back = HttpResponseRedirect(reverse("admin:complaints_complaint_change", args=[c.pk]))
        if action == "resolve" and (confirm := self._remedy_confirmation(request, c)) is not None:
            return confirm
        try:
            self._act(request, c, action, actor)
        except DomainError as exc:
            self.message_user(request, domain_error_text(exc), messages.ERROR)
            return back
        except forms.ValidationError as exc:
            self.message_user(request, "; ".join(exc.messages), messages.ERROR)
            return back
        self.message_user(request, f"{c.reference}: {STEP_DONE[action]}", messages.SUCCESS)
        return back

    def change_view(self, request, object_id, form_url="", extra_context=None):
        c = Complaint.objects.filter(pk=object_id).select_related("player__user", "assignee").first()
        extra = dict(extra_context or {})
        if c is not None:
            recalls = selectors.complaint_round_recalls(c)
            for r in recalls:
                r["pretty"] = json.dumps(r["recall"], indent=2, default=str, ensure_ascii=False) if r["recall"] else ""
            extra.update(
                {
                    "complaint": c,
                    "can_act": _can_act(request.user) and c.is_open,
                    "can_note": _can_act(request.user),
                    "recalls": recalls,
                    "transactions": c.items.filter(kind="transaction"),
                    "attachments_list": c.attachments.all(),
                    "messages_list": c.messages.select_related("author"),
                    "notes": c.notes.select_related("author"),
                    "notices": c.notices.all(),
                    "audit": [
                        {
                            "at": e.occurred_at,
                            "who": f"{e.actor_type}:{e.actor_label}",
                            "role": e.actor_role,
                            "action": e.action,
                            "action_label": action_label(e.action),
                            "changes": readable_changes(e.old_values, e.new_values),
                        }
                        for e in AuditEvent.objects.filter(
                            object_type="complaints.complaint", object_id=str(c.pk)
                        ).order_by("occurred_at", "id")
                    ],
                    "assign_form": AssignForm(initial={"assignee": c.assignee_id}),
                    "text_form": TextForm(),
                    "resolve_form": ResolveForm(
                        may_credit=request.user.has_perm(REMEDY),
                        initial={
                            "remedy_amount": str(Money(c.remedy_amount_requested, c.currency))
                            if c.remedy_amount_requested
                            else ""
                        },
                    ),
                    "requested_money": Money(c.remedy_amount_requested, c.currency)
                    if c.remedy_amount_requested
                    else None,
                    "credited_money": Money(c.remedy_amount, c.currency) if c.remedy_amount else None,
                    "may_credit": request.user.has_perm(REMEDY),
                    "overdue": c.is_open and clock.now() >= c.respond_by,
                    "answer_cs": texts.answer("cs", c=c)[1] if not c.is_open else "",
                    "notice_kinds": dict(ComplaintNotice._meta.get_field("kind").flatchoices),
                }
            )
        with timezone.override(clock.PRAGUE):  # the case is read in Prague time
            response = super().change_view(request, object_id, form_url, extra_context=extra)
            if hasattr(response, "render"):
                response.render()
        return response
