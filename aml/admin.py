"""Back office of the AML duties: read-only records; every decision goes through a form that calls a service
(a note is required; audited with the staff member as actor): the identification review queue (doubtful checks,
with the document images), the compliance cases (decide, hold a win, GP §10(3); a list match shows its score, the
list's name that scored and the list entry), source-of-funds declarations, and the imported sanctions / PEP lists
(an upload form for staff with ``aml.import_screening_list``; versions and entries read-only)."""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import AdminSite
from django.db.models import QuerySet
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, gettext_lazy

from accounts.forms import DOCUMENT_NAMES
from aml import services
from aml.list_parsers import PRAGUE
from aml.models import (
    AmlProfile,
    BankIdAuthorization,
    CaseHold,
    ComplianceCase,
    IdentificationCheck,
    IdentificationEvent,
    IdentificationImage,
    PepClaim,
    PepDeclaration,
    RiskAssessment,
    ScreeningListEntry,
    ScreeningListVersion,
    ScreeningRun,
    SourceOfFundsDeclaration,
    SourceOfFundsRequirement,
)
from core.admin import (
    ReadOnlyAdmin,
    ReadOnlyInline,
    decision_action,
    decision_path,
    domain_error_text,
    run_service_action,
)
from core.audit import Actor
from core.errors import DomainError

#: what started a screening or a risk assessment (``ScreeningRun.trigger``, ``RiskAssessment.trigger``: codes the
#: services write, no choices on the fields), as staff read them (``core.admin.code_column``)
AML_TRIGGERS = {
    "registration": gettext_lazy("at registration"),
    "periodic": gettext_lazy("periodic"),
    "first": gettext_lazy("first assessment"),
    "staff": gettext_lazy("asked by staff"),
    "screening": gettext_lazy("after a screening"),
    "identification": gettext_lazy("after an identification"),
    "personal_data": gettext_lazy("personal data changed"),
}


def _labels(choices: Any) -> dict[str, Any]:
    """A field's stored values by their labels in the staff member's language, for a field that keeps the same
    values without choices (a profile's copy of the last result)."""
    return {value: gettext_lazy(label) for value, label in choices}


#: the screening's results and the risk levels, for the fields that copy them (the profile's last result and level)
SCREENING_RESULTS = _labels(ScreeningRun.Result.choices)
RISK_LEVELS = _labels(RiskAssessment.Level.choices)
#: the identification provider's answer (``IdentificationCheck.provider_outcome``) as staff read it
PROVIDER_OUTCOMES = {
    "approved": gettext_lazy("identified"),
    "doubtful": gettext_lazy("doubtful"),
    "rejected": gettext_lazy("not identified"),
}
#: an identity document's type by its name (the same names as the accounts' forms)
DOCUMENT_TYPES = {code: gettext_lazy(name) for code, name in DOCUMENT_NAMES.items()}


def _render(
    request: HttpRequest,
    site: AdminSite,
    *,
    title: str,
    form: forms.Form,
    subject: str = "",
    help: str = "",
    error: str | None = None,
) -> TemplateResponse:
    context = {
        **site.each_context(request),
        "title": title,
        "form": form,
        "subject": subject,
        "help": help,
        "error": error,
    }
    return TemplateResponse(request, "admin/platform/action_form.html", context)


class ReviewForm(forms.Form):
    approve = forms.TypedChoiceField(
        choices=[("1", "approve: identified, likeness confirmed"), ("0", "reject")],
        coerce=lambda v: v == "1",
        label="decision",
    )
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=300)


class CaseDecideForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[
            (ComplianceCase.Status.CLEARED, "cleared: false positive / PEP accepted / no suspicion"),
            (ComplianceCase.Status.CONFIRMED, "confirmed: list match / relationship refused / suspicion reported"),
        ]
    )
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=500)


class CaseHoldForm(forms.Form):
    win_reference = forms.CharField(max_length=160, help_text="the win's ledger reference")
    reason = forms.ChoiceField(
        choices=[
            ("aml", "aml: suspicious transaction (AML-law period)"),
            ("regularity", "regularity: doubt about the bet (at most the 60-day term)"),
        ]
    )
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=255)


class SofReviewForm(forms.Form):
    accept = forms.TypedChoiceField(
        choices=[("1", "accept"), ("0", "reject: a new declaration is needed")],
        coerce=lambda v: v == "1",
        label="decision",
    )
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=500)


class DecisionAdmin(ReadOnlyAdmin):
    """A read-only record with one decision form (``decide``) for staff whose role holds ``decide_permission``."""

    decide_title = "Decide"
    decide_permission = ""  # "aml.<codename>": each subclass names its decision's permission
    form_class: type[forms.Form] = forms.Form

    def decide(self, obj: Any, data: dict[str, Any], actor: Actor) -> str:
        raise NotImplementedError

    def decidable(self, obj: Any) -> bool:
        raise NotImplementedError

    def _url_name(self, what: str) -> str:
        return f"aml_{self.model._meta.model_name}_{what}"

    def get_urls(self) -> list[URLPattern]:
        return [
            decision_path(
                self, "<int:pk>/decide/", self.decide_view, perm=self.decide_permission, name=self._url_name("decide")
            )
        ] + super().get_urls()

    @admin.display(description="decide")
    def decide_link(self, obj: Any) -> str:
        if not self.decidable(obj):
            return "-"
        return format_html(
            '<a href="{}">{}</a>', reverse(f"admin:{self._url_name('decide')}", args=[obj.pk]), self.decide_title
        )

    def decide_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        obj = get_object_or_404(self.model, pk=pk)
        change = reverse(f"admin:{self._url_name('change')}", args=[pk])
        form = self.form_class(request.POST or None)
        error = None
        if request.method == "POST" and form.is_valid():
            try:
                self.message_user(
                    request, self.decide(obj, form.cleaned_data, Actor.staff(request.user)), messages.SUCCESS
                )
                return redirect(change)
            except DomainError as exc:
                error = domain_error_text(exc)
        return _render(
            request, self.admin_site, title=f"{self.decide_title}: {obj}", form=form, subject=str(obj), error=error
        )


class ImageInline(ReadOnlyInline):
    model = IdentificationImage
    fields = ("side", "content_type", "size", "sha256", "view")
    readonly_fields = fields

    @admin.display(description="image")
    def view(self, obj: IdentificationImage) -> str:
        """The image itself, so the reviewer compares the selfie with the document photo on one page (a click opens
        it full size)."""
        url = reverse("admin:aml_identificationcheck_image", args=[obj.identification_id, obj.side])
        return format_html(
            '<a href="{0}" target="_blank"><img src="{0}" alt="{1} (open)" '
            'style="max-height:200px; max-width:320px"></a>',
            url,
            obj.get_side_display(),
        )


@admin.register(IdentificationCheck)
class IdentificationCheckAdmin(DecisionAdmin):
    """The review queue: filter status = doubtful."""

    decide_title = "Review (approve or reject)"
    decide_permission = "aml.review_identification"
    form_class = ReviewForm
    list_display = (
        "id",
        "player",
        "status",
        "document_type",
        "provider_outcome",
        "score",
        "created_at",
        "answered_at",
        "decided_by",
    )
    list_filter = ("status", "provider", "document_type")
    search_fields = ("reference", "provider_check_id", "player__user__username", "document_number")
    code_labels = {"document_type": DOCUMENT_TYPES, "provider_outcome": PROVIDER_OUTCOMES}
    readonly_fields = [f.name for f in IdentificationCheck._meta.fields] + ["decide_link"]
    inlines = [ImageInline]

    def decidable(self, obj: IdentificationCheck) -> bool:
        return obj.status == IdentificationCheck.Status.DOUBTFUL

    def decide(self, obj: IdentificationCheck, data: dict[str, Any], actor: Actor) -> str:
        services.identification_review(check=obj, approve=data["approve"], note=data["note"], actor=actor)
        return gettext("Identification approved.") if data["approve"] else gettext("Identification rejected.")

    def get_urls(self) -> list[URLPattern]:
        return [
            decision_path(
                self,
                "<int:pk>/image/<str:side>/",
                self.image_view,
                perm="aml.view_identificationimage",
                name="aml_identificationcheck_image",
            ),
            *super().get_urls(),
        ]

    def image_view(self, request: HttpRequest, pk: int, side: str) -> FileResponse:
        img = get_object_or_404(IdentificationImage, identification_id=pk, side=_image_side(side))
        if not img.file:  # deleted at the end of its retention (aml/privacy.py)
            raise Http404
        return FileResponse(img.file.open("rb"), content_type=img.content_type)


def _image_side(side: str) -> str:
    """The ``side`` of the image view: one of ``IdentificationImage.Side`` (anything else, a NUL included, is a 404
    before the database sees it)."""
    if side not in IdentificationImage.Side.values:
        raise Http404
    return side


@admin.register(IdentificationEvent)
class IdentificationEventAdmin(ReadOnlyAdmin):
    list_display = ("received_at", "provider", "event_id", "event_type", "result")
    list_filter = ("provider", "result")
    search_fields = ("event_id",)


@admin.register(BankIdAuthorization)
class BankIdAuthorizationAdmin(ReadOnlyAdmin):
    """Bank iD sign-ins and how each ended (the PKCE verifier and the nonce are not shown)."""

    list_display = ("id", "player", "status", "error_code", "created_at", "finished_at", "identification")
    list_filter = ("status", "error_code")
    search_fields = ("player__user__username", "subject")
    fields = (
        "player",
        "status",
        "redirect_url",
        "issuer",
        "created_at",
        "expires_at",
        "finished_at",
        "error_code",
        "error_detail",
        "subject",
        "identification",
    )
    readonly_fields = fields


class CaseHoldInline(ReadOnlyInline):
    model = CaseHold
    fields = ("win_reference", "reason", "hold_id", "placed_at", "placed_by")


@admin.register(ComplianceCase)
class ComplianceCaseAdmin(DecisionAdmin):
    """The compliance queue: filter status = open."""

    decide_title = "Decide (cleared or confirmed)"
    decide_permission = "aml.decide_case"
    form_class = CaseDecideForm
    list_display = ("id", "player", "kind", "rule", "status", "blocking", "opened_at", "summary", "decided_by")
    list_filter = ("status", "kind", "rule", "blocking")
    search_fields = ("player__user__username", "key", "anchor")
    readonly_fields = [f.name for f in ComplianceCase._meta.fields] + ["list_match", "decide_link", "hold_link"]
    inlines = [CaseHoldInline]

    @admin.display(description="list match")
    def list_match(self, obj: ComplianceCase) -> str:
        """What a screening hit matched: the score, the list's spelling that scored, the entry and its list."""
        match = (obj.details or {}).get("match")
        if obj.kind != ComplianceCase.Kind.SCREENING_HIT or not isinstance(match, dict):
            return "-"
        rows = [
            ("score (0-100)", match.get("score", 100)),
            ("matched name / alias", match.get("matched_name", "")),
            ("list", f"{match.get('source', '')} {match.get('list', '')}".strip()),
            ("reference", match.get("reference") or match.get("entry_id", "")),
            ("programme", match.get("programme", "")),
            ("entry's name", match.get("name", "")),
            ("entry's birth dates", match.get("date_of_birth", "") or "none on the list"),
        ]
        body = format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", rows)
        entry_id = match.get("list_entry_id")
        link = (
            format_html(
                '<p><a href="{}">the list entry</a></p>',
                reverse("admin:aml_screeninglistentry_change", args=[entry_id]),
            )
            if isinstance(entry_id, int)
            else ""
        )
        return format_html("<table>{}</table>{}", body, link)

    def decidable(self, obj: ComplianceCase) -> bool:
        return obj.status == ComplianceCase.Status.OPEN

    def decide(self, obj: ComplianceCase, data: dict[str, Any], actor: Actor) -> str:
        services.case_decide(case=obj, decision=data["decision"], note=data["note"], actor=actor)
        obj.refresh_from_db(fields=["status"])
        return gettext("Case decided: %(status)s.") % {"status": obj.get_status_display()}

    @admin.display(description="hold a win (GP §10(3))")
    def hold_link(self, obj: ComplianceCase) -> str:
        if obj.status == ComplianceCase.Status.CLEARED:
            return "-"
        return format_html('<a href="{}">Hold a win</a>', reverse("admin:aml_compliancecase_hold", args=[obj.pk]))

    def get_urls(self) -> list[URLPattern]:
        return [
            decision_path(
                self, "<int:pk>/hold/", self.hold_view, perm="aml.place_hold", name="aml_compliancecase_hold"
            ),
            *super().get_urls(),
        ]

    def hold_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        case = get_object_or_404(ComplianceCase, pk=pk)
        change = reverse("admin:aml_compliancecase_change", args=[pk])
        initial = {"win_reference": case.details.get("win_reference", "")}
        form = CaseHoldForm(request.POST or None, initial=initial)
        error = None
        if request.method == "POST" and form.is_valid():
            try:
                services.case_hold_place(case=case, actor=Actor.staff(request.user), **form.cleaned_data)
                self.message_user(request, gettext("Win held."), messages.SUCCESS)
                return redirect(change)
            except DomainError as exc:
                error = domain_error_text(exc)
        return _render(
            request,
            self.admin_site,
            title=f"Hold a win: {case}",
            form=form,
            subject=case.summary,
            help="GP §10(3): regularity at most until the win's 60-day payout term; aml for the "
            "period the AML law sets (WALLET_AML_HOLD_DAYS, extendable in the wallet).",
            error=error,
        )


@admin.register(SourceOfFundsDeclaration)
class SourceOfFundsDeclarationAdmin(DecisionAdmin):
    decide_title = "Review (accept or reject)"
    decide_permission = "aml.review_source_of_funds"
    form_class = SofReviewForm
    list_display = ("id", "player", "source", "status", "submitted_at", "reviewed_by")
    list_filter = ("status", "source")
    search_fields = ("player__user__username",)
    readonly_fields = [f.name for f in SourceOfFundsDeclaration._meta.fields] + ["decide_link"]

    def decidable(self, obj: SourceOfFundsDeclaration) -> bool:
        return obj.status == SourceOfFundsDeclaration.Status.SUBMITTED

    def decide(self, obj: SourceOfFundsDeclaration, data: dict[str, Any], actor: Actor) -> str:
        services.sof_review(declaration=obj, accept=data["accept"], note=data["note"], actor=actor)
        return gettext("Declaration accepted.") if data["accept"] else gettext("Declaration rejected.")


@admin.register(SourceOfFundsRequirement)
class SourceOfFundsRequirementAdmin(ReadOnlyAdmin):
    list_display = ("id", "player", "status", "triggered_at", "deposits_total", "threshold", "fulfilled_at")
    list_filter = ("status",)
    search_fields = ("player__user__username",)


@admin.register(PepDeclaration)
class PepDeclarationAdmin(ReadOnlyAdmin):
    list_display = ("id", "player", "is_pep", "relation", "position", "declared_at", "declared_by")
    list_filter = ("is_pep", "relation")
    search_fields = ("player__user__username",)


@admin.register(ScreeningRun)
class ScreeningRunAdmin(ReadOnlyAdmin):
    list_display = ("id", "player", "trigger", "ran_at", "list_code", "list_version", "result")
    list_filter = ("result", "trigger", "list_code")
    search_fields = ("player__user__username",)
    code_labels = {"trigger": AML_TRIGGERS}


@admin.register(AmlProfile)
class AmlProfileAdmin(ReadOnlyAdmin):
    list_display = (
        "player",
        "last_screened_at",
        "last_screening_result",
        "list_version",
        "next_screening_at",
        "risk_level",
        "risk_score",
        "risk_next_review_at",
    )
    list_filter = ("last_screening_result", "risk_level")
    search_fields = ("player__user__username",)
    code_labels = {"last_screening_result": SCREENING_RESULTS, "risk_level": RISK_LEVELS}
    actions = ["screen_now", "assess_risk_now"]

    @decision_action("aml.screen_player", description="Assess the selected players' risk now")
    def assess_risk_now(self, request: HttpRequest, queryset: QuerySet[AmlProfile]) -> None:
        def assess(profile: AmlProfile, actor: Actor) -> None:
            services.risk_assess(player=profile.player, actor=actor, trigger="staff")

        run_service_action(self, request, queryset.select_related("player"), assess, "Risk assessed")

    @decision_action("aml.screen_player", description="Screen the selected players now")
    def screen_now(self, request: HttpRequest, queryset: QuerySet[AmlProfile]) -> None:
        actor = Actor.staff(request.user)
        done = []
        for profile in queryset.select_related("player"):
            try:
                run = services.screening_run(player=profile.player, actor=actor, trigger="staff")
                done.append(f"{profile.player_id}: {run.result}")
            except DomainError as exc:
                self.message_user(request, f"{profile.player.staff_label}: {domain_error_text(exc)}", messages.ERROR)
        if done:
            self.message_user(request, format_html_join(", ", "{}", ((d,) for d in done)), messages.SUCCESS)


@admin.register(PepClaim)
class PepClaimAdmin(ReadOnlyAdmin):
    list_display = ("id", "player", "source", "is_pep", "recorded_at", "recorded_by")
    list_filter = ("source", "is_pep")
    search_fields = ("player__user__username",)


# Imported screening lists -------------------------------------------------------------------------------------------


class ScreeningListImportForm(forms.Form):
    source = forms.ChoiceField(choices=ScreeningListVersion.Source.choices)
    file = forms.FileField(
        help_text="the file as downloaded: EU FSF XML, UN consolidated list XML, the national "
        "list in our XML layout, the PEP list CSV (docs/aml.md)"
    )
    published = forms.DateField(required=False, help_text="only for a file that states no publication date (PEP CSV)")


@admin.register(ScreeningListVersion)
class ScreeningListVersionAdmin(ReadOnlyAdmin):
    """Imported list files; a new one through the import form (``aml.import_screening_list``)."""

    list_display = (
        "id",
        "source",
        "published_at",
        "entry_count",
        "person_count",
        "name_count",
        "imported_at",
        "imported_by",
        "file_name",
        "withdrawn_at",
    )
    list_filter = ("source",)
    search_fields = ("sha256", "file_name")
    readonly_fields = [f.name for f in ScreeningListVersion._meta.fields]
    change_list_template = "admin/aml/screeninglistversion/change_list.html"
    actions = ["withdraw"]

    @decision_action("aml.import_screening_list", description="Withdraw the selected versions (imported wrongly)")
    def withdraw(self, request: HttpRequest, queryset: QuerySet[ScreeningListVersion]) -> None:
        def withdraw_one(version: ScreeningListVersion, actor: Actor) -> None:
            services.screening_list_withdraw(
                version=version, actor=actor, reason=f"withdrawn in the admin by {request.user.get_username()}"
            )

        run_service_action(
            self,
            request,
            queryset.filter(withdrawn_at__isnull=True),
            withdraw_one,
            "Versions withdrawn; every live player is screened again",
        )

    def get_urls(self) -> list[URLPattern]:
        return [
            decision_path(
                self,
                "import/",
                self.import_view,
                perm="aml.import_screening_list",
                name="aml_screeninglistversion_import",
            ),
            *super().get_urls(),
        ]

    def import_view(self, request: HttpRequest) -> HttpResponse:
        form = ScreeningListImportForm(request.POST or None, request.FILES or None)
        error = None
        if request.method == "POST" and form.is_valid():
            f, published = form.cleaned_data["file"], form.cleaned_data.get("published")
            try:
                version, created = services.screening_list_import(
                    source=form.cleaned_data["source"],
                    data=f.read(),
                    file_name=f.name or "",
                    actor=Actor.staff(request.user),
                    published_at=None if published is None else datetime.combine(published, time(0), tzinfo=PRAGUE),
                )
                if created:
                    self.message_user(
                        request,
                        gettext("Imported %(version)s; every live player is screened again in the background.")
                        % {"version": version},
                        messages.SUCCESS,
                    )
                else:
                    self.message_user(
                        request,
                        gettext("This file was imported before (%(version)s); nothing changed.") % {"version": version},
                        messages.WARNING,
                    )
                return redirect(reverse("admin:aml_screeninglistversion_change", args=[version.pk]))
            except DomainError as exc:
                error = domain_error_text(exc)
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Import a sanctions or PEP list file"),
            "form": form,
            "error": error,
            "help": gettext(
                "The newest version of each list is the one players are screened against. The same file "
                "twice changes nothing; a file older than the newest version is refused."
            ),
        }
        return TemplateResponse(request, "admin/aml/screeninglistversion/import_form.html", context)


@admin.register(RiskAssessment)
class RiskAssessmentAdmin(ReadOnlyAdmin):
    """The client risk rating's history (AML Act §9, §21a; docs/aml.md "Client risk rating")."""

    list_display = (
        "assessed_at",
        "player",
        "level",
        "score",
        "due_diligence",
        "trigger",
        "previous_level",
        "next_review_at",
    )
    list_filter = ("level", "due_diligence", "trigger")
    code_labels = {"trigger": AML_TRIGGERS, "previous_level": RISK_LEVELS}
    search_fields = ("player__user__username",)
    readonly_fields = [f.name for f in RiskAssessment._meta.fields]


@admin.register(ScreeningListEntry)
class ScreeningListEntryAdmin(ReadOnlyAdmin):
    list_display = ("id", "source", "reference", "name", "subject_type", "programme", "version")
    list_filter = ("source", "subject_type", "list_kind")
    search_fields = ("reference", "name", "names", "match_names")
    readonly_fields = [f.name for f in ScreeningListEntry._meta.fields]
