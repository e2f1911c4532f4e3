"""Staff side of the accounts app. Every staff action is a form that calls one service (audited)."""

from __future__ import annotations

from typing import Any

from django import forms as django_forms
from django.contrib import admin, messages
from django.contrib.admin import AdminSite
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts import forms, rules, selectors, services
from accounts.adapters import RegisterUnavailable
from accounts.models import (
    AisgBatch,
    BarredPerson,
    Consent,
    CorrectionRequest,
    Delivery,
    DuplicateCase,
    IdentityVerification,
    LoginSession,
    Message,
    PersonalData,
    Player,
    RegisterCheck,
    RegisterReview,
    SandboxExclusionEntry,
    SandboxPopulationRecord,
    SandboxSms,
    TermsAcceptance,
    TermsVersion,
    User,
)
from core import clock
from core.admin import (
    PlatformAdminMixin,
    ReadOnlyAdmin,
    ReadOnlyInline,
    decision_action,
    decision_path,
    domain_error_text,
    run_service_action,
)
from core.audit import Actor
from core.errors import DomainError


def _staff_user(request: HttpRequest) -> User:
    """The signed-in staff member (the admin lets no one else into these views)."""
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied
    return user


def _render(
    request: HttpRequest,
    admin_site: AdminSite,
    *,
    title: str,
    form: django_forms.Form,
    subject: str | None = None,
    help: str | None = None,
    error: str | None = None,
    submit_label: str | None = None,
) -> TemplateResponse:
    context = {
        **admin_site.each_context(request),
        "title": title,
        "form": form,
        "subject": subject,
        "help": help,
        "error": error,
        "submit_label": submit_label,
    }
    return TemplateResponse(request, "admin/platform/action_form.html", context)


class PersonalDataInline(PlatformAdminMixin, admin.StackedInline):
    model = PersonalData
    can_delete = False
    exclude = ("email_key", "document_key", "name_dob_key", "person_key")
    masked_fields = ("birth_number", "document_number")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ConsentInline(ReadOnlyInline):
    model = Consent
    fields = ("kind", "version", "given_at", "withdrawn_at")


class IdentityVerificationInline(ReadOnlyInline):
    model = IdentityVerification
    fields = (
        "method",
        "document_type",
        "document_number",
        "document_issuing_state",
        "document_valid_until",
        "likeness_confirmed",
        "verified_by",
        "verified_at",
    )
    masked_fields = ("document_number",)


class RegisterCheckInline(ReadOnlyInline):
    model = RegisterCheck
    fields = ("checked_at", "register", "context", "result", "details")
    ordering = ("-checked_at",)


class MessageInline(ReadOnlyInline):
    model = Message
    fields = ("created_at", "kind", "subject_cs", "reference", "read_at")
    ordering = ("-created_at",)
    show_change_link = True


STAFF_ACTIONS = {
    # name: (label, form class, help)
    "verify_branch": (
        _("Verify identity at a branch"),
        forms.DocumentForm,
        _("GP §4(4)b: record the document and confirm the likeness."),
    ),
    "suspend": (_("Suspend"), forms.ReasonForm, _("Betting, deposits and withdrawals stop until reinstated.")),
    "reinstate": (_("Reinstate"), forms.ReasonForm, _("Back to the status before the suspension.")),
    "close": (
        _("Close (cancel registration)"),
        forms.CloseForm,
        _("GP §4(10), §5(13), §5(15): the wallet settles the balance; the account closes once settled."),
    ),
    "force_logout": (_("Force logout"), forms.ReasonForm, _("Ends all sessions and revokes every token.")),
    "exclusion_check": (
        _("Check exclusion register now"),
        forms.EmptyForm,
        _("Asks the register of excluded persons."),
    ),
    "insider": (
        _("Barred insider flag"),
        forms.InsiderForm,
        _("GP §3(3): shareholders, employees, officers may not bet."),
    ),
}

#: the permission each staff action on a player needs (core/roles.py gives them to roles)
STAFF_ACTION_PERMISSIONS: dict[str, str] = {
    "verify_branch": "accounts.register_at_branch",
    "suspend": "accounts.suspend_player",
    "reinstate": "accounts.suspend_player",
    "close": "accounts.close_player",
    "force_logout": "accounts.force_logout_player",
    "exclusion_check": "accounts.check_exclusion",
    "insider": "accounts.set_barred_insider",
}


@admin.register(Player)
class PlayerAdmin(ReadOnlyAdmin):
    """A read-only page: every change is a staff action calling a service."""

    def staff_title(self, obj: Any) -> str:
        """The player's page (``backoffice.admin``) names the player by their username, its status shown on it."""
        return str(obj.user.username)

    list_display = (
        "username",
        "status",
        "channel",
        "created_at",
        "temporary_expires_at",
        "barred_insider",
        "exclusion_listed",
    )
    list_filter = ("status", "channel", "barred_insider", "exclusion_listed")
    search_fields = (
        "user__username",
        "personal__surname",
        "personal__birth_number",
        "personal__email",
        "personal__phone",
    )
    list_select_related = ("user",)
    inlines = [PersonalDataInline, ConsentInline, IdentityVerificationInline, RegisterCheckInline, MessageInline]
    change_list_template = "admin/accounts/player/change_list.html"
    readonly_fields = [f.name for f in Player._meta.fields] + ["history"]
    masked_search_fields = ("personal__birth_number",)

    @admin.display(ordering="user__username")
    def username(self, obj: Player) -> str:
        return obj.user.username

    @admin.display(description="who changed what (audit)")
    def history(self, obj: Player) -> SafeString:
        rows = selectors.player_history(obj)[:100]
        return format_html(
            "<table>{}</table>",
            format_html_join(
                "",
                "<tr><td>{}</td><td>{}:{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                (
                    (
                        e.occurred_at.strftime("%Y-%m-%d %H:%M:%S"),
                        e.actor_type,
                        e.actor_label,
                        e.action,
                        e.old_values or "",
                        e.new_values or "",
                    )
                    for e in rows
                ),
            ),
        )

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        extra_context = {
            **(extra_context or {}),
            "staff_actions": [
                (k, v[0]) for k, v in STAFF_ACTIONS.items() if request.user.has_perm(STAFF_ACTION_PERMISSIONS[k])
            ],
        }
        return super().change_view(request, object_id, form_url, extra_context)

    def get_urls(self) -> list[URLPattern]:
        extra: list[URLPattern] = [
            decision_path(
                self,
                "register-branch/",
                self.register_branch_view,
                perm="accounts.register_at_branch",
                name="accounts_player_register_branch",
            ),
            decision_path(
                self,
                "<int:pk>/act/<str:action>/",
                self.action_view,
                perm=STAFF_ACTION_PERMISSIONS,
                kwarg="action",
                name="accounts_player_act",
            ),
        ]
        return extra + super().get_urls()

    def action_view(self, request: HttpRequest, pk: int, action: str) -> HttpResponse:
        player = get_object_or_404(Player.objects.select_related("user"), pk=pk)
        label, form_cls, help_text = STAFF_ACTIONS[action]
        form = form_cls(request.POST or None)
        error = None
        if request.method == "POST" and form.is_valid():
            try:
                msg = self._run(request, player, action, form.cleaned_data)
                self.message_user(request, msg, messages.SUCCESS)
                return redirect(reverse("admin:accounts_player_change", args=[pk]))
            except DomainError as exc:
                error = domain_error_text(exc)
            except RegisterUnavailable as exc:  # the exclusion-register check could not run: staff see why
                error = f"{exc.__class__.__name__}: {exc}"
        return _render(
            request,
            self.admin_site,
            title=str(label),
            form=form,
            subject=player.staff_label,
            help=str(help_text),
            error=error,
        )

    def _run(self, request: HttpRequest, player: Player, action: str, data: dict[str, Any]) -> str:
        actor = Actor.staff(request.user)
        if action == "verify_branch":
            likeness = data.pop("likeness_confirmed")
            note = data.pop("note", "")
            services.identity_verify_at_branch(
                player=player, document=data, likeness_confirmed=likeness, staff_user=_staff_user(request), note=note
            )
            return gettext("Identity verified at the branch.")
        if action == "suspend":
            services.player_suspend(player=player, reason=data["reason"], actor=actor)
            return gettext("Suspended.")
        if action == "reinstate":
            services.player_reinstate(player=player, reason=data["reason"], actor=actor)
            return gettext("Reinstated.")
        if action == "close":
            services.closure_request(player=player, method=data["settlement"], actor=actor, reason=data["reason"])
            return gettext("Closure started (%(status)s).") % {"status": player.get_status_display()}
        if action == "force_logout":
            n = services.player_force_logout(player=player, reason=data["reason"], actor=actor)
            return ngettext("%(n)s session ended.", "%(n)s sessions ended.", n) % {"n": n}
        if action == "exclusion_check":
            listed = services.exclusion_check(player=player, actor=actor, context="staff")
            return gettext("LISTED in the exclusion register.") if listed else gettext("Not listed.")
        if action == "insider":
            services.player_set_barred_insider(player=player, barred=data["barred"], note=data["note"], actor=actor)
            return gettext("Saved.")
        raise ValueError(action)  # pragma: no cover

    def register_branch_view(self, request: HttpRequest) -> HttpResponse:
        form = forms.BranchRegistrationForm(request.POST or None)
        error = None
        if request.method == "POST" and form.is_valid():
            d = dict(form.cleaned_data)
            versions = rules.document_versions()
            consents: dict[str, Any] = {
                str(kind): versions[str(kind)] for field, kind in forms.CONSENT_FIELDS.items() if d.pop(field)
            }
            if d.pop("marketing"):
                consents["marketing"] = True
            ident = {"likeness_confirmed": d.pop("likeness_confirmed"), "note": d.pop("note", "")}
            try:
                player = services.registration_submit(
                    data=d,
                    consents=consents,
                    channel=Player.Channel.BRANCH,
                    staff_user=_staff_user(request),
                    branch_identification=ident,
                )
                self.message_user(
                    request,
                    gettext("Registered %(username)s (%(status)s).")
                    % {"username": player.user.username, "status": player.get_status_display()},
                    messages.SUCCESS,
                )
                return redirect(reverse("admin:accounts_player_change", args=[player.pk]))
            except DomainError as exc:
                error = domain_error_text(exc)
        return _render(
            request,
            self.admin_site,
            title="Register at a branch",
            form=form,
            help="GP §4(3), §4(4): the username is generated; the first password goes by SMS after the "
            "applicant confirms the e-mail link.",
            error=error,
        )


@admin.register(DuplicateCase)
class DuplicateCaseAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "state", "matched_fields", "created_at", "resolved_at", "resolved_by")
    list_filter = ("kind", "state")
    readonly_fields = [f.name for f in DuplicateCase._meta.fields] + ["accounts", "resolve_link"]
    exclude = ("players",)

    @admin.display(description="accounts involved")
    def accounts(self, obj: DuplicateCase) -> SafeString:
        return format_html_join(
            ", ",
            '<a href="{}">{}</a>',
            ((reverse("admin:accounts_player_change", args=[p.pk]), str(p)) for p in obj.players.all()),
        )

    @admin.display(description="resolve")
    def resolve_link(self, obj: DuplicateCase) -> str:
        if obj.state != DuplicateCase.State.OPEN:
            return "-"
        return format_html(
            '<a href="{}">Resolve this case</a>', reverse("admin:accounts_duplicatecase_resolve", args=[obj.pk])
        )

    def get_urls(self) -> list[URLPattern]:
        return [
            decision_path(
                self,
                "<int:pk>/resolve/",
                self.resolve_view,
                perm="accounts.resolve_duplicate",
                name="accounts_duplicatecase_resolve",
            )
        ] + super().get_urls()

    def resolve_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        case = get_object_or_404(DuplicateCase, pk=pk)
        form = forms.DuplicateResolveForm(request.POST or None, players=case.players.all())
        error = None
        if request.method == "POST" and form.is_valid():
            try:
                services.duplicate_case_resolve(
                    case=case,
                    same_person=form.cleaned_data["same_person"],
                    keep_player=form.cleaned_data["keep_player"],
                    closure_method=form.cleaned_data["closure_method"],
                    note=form.cleaned_data["note"],
                    actor=Actor.staff(request.user),
                )
                self.message_user(request, gettext("Case resolved."), messages.SUCCESS)
                return redirect(reverse("admin:accounts_duplicatecase_change", args=[pk]))
            except DomainError as exc:
                error = domain_error_text(exc)
        return _render(
            request,
            self.admin_site,
            title=f"Resolve {case}",
            form=form,
            error=error,
            subject=f"matched: {', '.join(case.matched_fields)}",
        )


@admin.register(CorrectionRequest)
class CorrectionRequestAdmin(ReadOnlyAdmin):
    list_display = ("id", "player", "state", "created_at", "decided_at", "decided_by")
    list_filter = ("state",)
    readonly_fields = [f.name for f in CorrectionRequest._meta.fields] + ["current_values", "decide_link"]

    @admin.display(description="current values")
    def current_values(self, obj: CorrectionRequest) -> Any:
        pd = getattr(obj.player, "personal", None)
        return {f: getattr(pd, f, None) for f in obj.changes} if pd else "-"

    @admin.display(description="decide")
    def decide_link(self, obj: CorrectionRequest) -> str:
        if obj.state != CorrectionRequest.State.PENDING:
            return "-"
        return format_html(
            '<a href="{}">Approve or reject</a>', reverse("admin:accounts_correctionrequest_decide", args=[obj.pk])
        )

    def get_urls(self) -> list[URLPattern]:
        return [
            decision_path(
                self,
                "<int:pk>/decide/",
                self.decide_view,
                perm="accounts.decide_correction",
                name="accounts_correctionrequest_decide",
            )
        ] + super().get_urls()

    def decide_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        req = get_object_or_404(CorrectionRequest, pk=pk)
        form = forms.CorrectionDecisionForm(request.POST or None)
        error = None
        if request.method == "POST" and form.is_valid():
            actor = Actor.staff(request.user)
            try:
                if form.cleaned_data["approve"]:
                    services.correction_approve(request=req, actor=actor, note=form.cleaned_data["note"])
                else:
                    services.correction_reject(request=req, actor=actor, note=form.cleaned_data["note"])
                self.message_user(request, gettext("Decided."), messages.SUCCESS)
                return redirect(reverse("admin:accounts_correctionrequest_change", args=[pk]))
            except DomainError as exc:
                error = domain_error_text(exc)
        return _render(
            request,
            self.admin_site,
            title=f"Correction #{req.pk}",
            form=form,
            error=error,
            subject=f"requested: {req.changes}",
        )


@admin.register(BarredPerson)
class BarredPersonAdmin(PlatformAdminMixin, admin.ModelAdmin):
    list_display = ("surname", "given_names", "date_of_birth", "role", "active")
    list_filter = ("role", "active")
    exclude = ("name_dob_key", "created_at")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # deactivate instead: the flags of matching players are recomputed

    def save_model(self, request: HttpRequest, obj: BarredPerson, form: Any, change: bool) -> None:
        services.barred_person_save(person=obj, actor=Actor.staff(request.user))


@admin.register(LoginSession)
class LoginSessionAdmin(PlatformAdminMixin, admin.ModelAdmin):
    list_display = ("player", "started_at", "last_seen_at", "ended_at", "end_reason", "ip_address")
    list_filter = ("end_reason",)
    search_fields = ("player__user__username",)
    readonly_fields = [f.name for f in LoginSession._meta.fields]
    actions = ["end_forced"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @decision_action("accounts.force_logout_player", description="End the selected sessions (forced)")
    def end_forced(self, request: HttpRequest, queryset: QuerySet[LoginSession]) -> None:
        def end(session: LoginSession, actor: Actor) -> None:
            services.session_end(session=session, reason=LoginSession.EndReason.FORCED, detail="staff", actor=actor)

        run_service_action(self, request, queryset.filter(ended_at__isnull=True), end, "Sessions ended")


#: why a register was asked (``RegisterCheck.context``, ``RegisterReview.context``, ``AisgBatch.context``: codes the
#: services write, no choices on the fields), as staff read them (``core.admin.code_column``)
REGISTER_CONTEXTS = {
    "registration": _("at registration"),
    "retry": _("asked again after no answer"),
    "login": _("at login"),
    "periodic": _("periodic re-check"),
    "periodic_daily": _("periodic re-check (daily batch)"),
    "periodic_session": _("periodic re-check (players in a session)"),
    "daily": _("daily batch"),
    "session": _("players in a session"),
    "staff": _("asked by staff"),
    "personal_data": _("personal data changed"),
}
#: why a person is reviewed by hand (``RegisterReview.reason``: the AISG answer's element, ``accounts.aisg.client``
#: ``decide``), as staff read them; an outage's reason (the failure's own words) is shown as stored
REGISTER_REVIEW_REASONS = {
    "Plnoleta=NE": _("under 18 by the register"),
    "NalezenaROB=NENALEZENA": _("not found in the population register"),
    "NalezenaROB=MRTVA": _("dead according to the population register"),
    "NalezenaROB=DUPLICITA": _("more than one person in the population register"),
}


@admin.register(RegisterCheck)
class RegisterCheckAdmin(ReadOnlyAdmin):
    """The answers of the registers, as received: staff read them, never edit them."""

    list_display = ("checked_at", "player", "register", "context", "result")
    list_filter = ("register", "result", "context")
    code_labels = {"context": REGISTER_CONTEXTS}


@admin.register(RegisterReview)
class RegisterReviewAdmin(ReadOnlyAdmin):
    """The staff queue of the AISG interface: persons to review by hand, outages (docs/aml.md "AISG decision
    table")."""

    list_display = ("last_at", "kind", "player", "context", "reason", "occurrences", "resolved_at")
    list_filter = ("kind", "context", ("resolved_at", admin.EmptyFieldListFilter))
    search_fields = ("player__user__username", "reason")
    code_labels = {"context": REGISTER_CONTEXTS, "reason": REGISTER_REVIEW_REASONS}
    actions = ["resolve"]

    @decision_action("accounts.check_exclusion", description="Mark the selected cases resolved")
    def resolve(self, request: HttpRequest, queryset: QuerySet[RegisterReview]) -> None:
        def done(review: RegisterReview, actor: Actor) -> None:
            services.register_review_resolve(review=review, actor=actor)

        run_service_action(self, request, queryset.filter(resolved_at__isnull=True), done, "Cases resolved")


@admin.register(AisgBatch)
class AisgBatchAdmin(ReadOnlyAdmin):
    list_display = ("submitted_at", "context", "state", "polls", "next_poll_at", "collected_at", "summary")
    list_filter = ("state", "context")
    code_labels = {"context": REGISTER_CONTEXTS}


@admin.register(User)
class UserAdmin(PlatformAdminMixin, admin.ModelAdmin):
    list_display = ("username", "is_staff", "is_active", "must_change_password", "last_login")

    def staff_title(self, obj: Any) -> str:
        """An account is named by its username (a name, the same in every language)."""
        return str(obj.username)

    list_filter = ("is_staff", "is_active")
    search_fields = ("username", "email")
    fields = (
        "username",
        "first_name",
        "last_name",
        "email",
        "is_staff",
        "is_superuser",
        "is_active",
        "must_change_password",
        "last_login",
        "date_joined",
    )
    readonly_fields = fields  # players change through the accounts services; staff users via createsuperuser

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# Notices (GP §7(7), §10(4)): what was sent to whom, and how each channel delivered it ---------------------------------
class DeliveryInline(ReadOnlyInline):
    model = Delivery
    fields = ("channel", "recipient", "status", "attempts", "attempted_at", "delivered_at", "error")


@admin.register(Message)
class MessageAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "player", "kind", "subject_cs", "reference", "read_at")
    list_filter = ("kind",)
    search_fields = ("player__user__username", "reference", "subject_cs")
    list_select_related = ("player__user",)
    readonly_fields = [f.name for f in Message._meta.fields]
    inlines = [DeliveryInline]
    date_hierarchy = "created_at"


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyAdmin):
    list_display = ("id", "message_shown", "channel", "recipient", "status", "attempts", "attempted_at", "delivered_at")
    list_filter = ("channel", "status")
    search_fields = ("recipient", "message__reference", "message__player__user__username")
    readonly_fields = ["message_shown" if f.name == "message" else f.name for f in Delivery._meta.fields]
    exclude = ("message",)
    list_select_related = ("message",)  # message_shown reads its kind

    @admin.display(description="message", ordering="message")
    def message_shown(self, obj: Delivery) -> str:
        """The message by its number and kind in the staff member's language (``Message.__str__`` stays
        language-independent, as the admin's history stores it)."""
        return gettext("message #%(id)s (%(kind)s)") % {"id": obj.message_id, "kind": obj.message.get_kind_display()}

    actions = ["send_again"]

    @decision_action("accounts.resend_message", description="Send the selected failed e-mails again now")
    def send_again(self, request: HttpRequest, queryset: QuerySet[Delivery]) -> None:
        sent = sum(
            1
            for d in queryset.filter(channel=Delivery.Channel.EMAIL).exclude(status=Delivery.Status.SENT)
            if services.message_email_send(delivery_id=d.pk)
        )
        self.message_user(
            request,
            ngettext("%(n)s e-mail sent.", "%(n)s e-mails sent.", sent) % {"n": sent},
            messages.SUCCESS if sent else messages.WARNING,
        )


# The game plan and terms (GP §3(5), §8(1)) ----------------------------------------------------------------------------
@admin.register(TermsVersion)
class TermsVersionAdmin(ReadOnlyAdmin):
    """Versions are published through a form (the service checks the notice and audits it), never edited."""

    list_display = ("version", "title", "published_at", "effective_at", "announced_at", "published_by")
    readonly_fields = [f.name for f in TermsVersion._meta.fields] + ["acceptances_count"]
    change_list_template = "admin/accounts/termsversion/change_list.html"

    @admin.display(description="accepted by (players)")
    def acceptances_count(self, obj: TermsVersion) -> int:
        return obj.acceptances.count()

    def get_urls(self) -> list[URLPattern]:
        return [
            decision_path(
                self, "publish/", self.publish_view, perm="accounts.publish_terms", name="accounts_termsversion_publish"
            )
        ] + super().get_urls()

    def publish_view(self, request: HttpRequest) -> HttpResponse:
        form = forms.TermsPublishForm(request.POST or None)
        error = None
        if request.method == "POST" and form.is_valid():
            try:
                version = services.terms_publish(
                    **form.cleaned_data, actor=Actor.staff(request.user), published_by=_staff_user(request)
                )
                self.message_user(
                    request,
                    gettext("Published %(version)s; players are told before it applies.") % {"version": version},
                    messages.SUCCESS,
                )
                return redirect(reverse("admin:accounts_termsversion_change", args=[version.pk]))
            except DomainError as exc:
                error = domain_error_text(exc)
        notice = rules.terms_min_notice()
        return _render(
            request,
            self.admin_site,
            title="Publish a new version of the game plan and terms",
            form=form,
            error=error,
            submit_label="Publish",
            help=f"GP §8(1), §3(5): players are told through their inbox and by e-mail; from the instant it "
            f"takes effect (at least {notice} ahead) each must accept it before the next stake.",
        )


@admin.register(TermsAcceptance)
class TermsAcceptanceAdmin(ReadOnlyAdmin):
    list_display = ("accepted_at", "player", "version", "source", "source_address")
    list_filter = ("source",)
    search_fields = ("player__user__username",)
    readonly_fields = [f.name for f in TermsAcceptance._meta.fields]


# Sandbox data of the adapters: staff (and tests) fill these in development and demo.
@admin.register(SandboxPopulationRecord)
class SandboxPopulationRecordAdmin(PlatformAdminMixin, admin.ModelAdmin):
    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = ("surname", "given_names", "date_of_birth", "birth_number", "resident_in_cz", "simulate_unavailable")
    search_fields = ("surname", "birth_number")


@admin.register(SandboxExclusionEntry)
class SandboxExclusionEntryAdmin(PlatformAdminMixin, admin.ModelAdmin):
    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = ("surname", "given_names", "date_of_birth", "birth_number", "outcome", "listed_until", "source")
    list_filter = ("outcome", "source")

    def save_model(self, request: HttpRequest, obj: SandboxExclusionEntry, form: Any, change: bool) -> None:
        if not obj.created_at:
            obj.created_at = clock.now()
        super().save_model(request, obj, form, change)

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("created_at",)


@admin.register(SandboxSms)
class SandboxSmsAdmin(PlatformAdminMixin, admin.ModelAdmin):
    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = ("sent_at", "to", "purpose", "text")
    readonly_fields = ("sent_at", "to", "purpose", "text")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


# Personal-data requests (GP §12(7)): the staff queue lives in its own module, registered with the admin here.
from accounts import admin_privacy  # noqa: E402,F401
