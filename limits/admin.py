"""Staff views of the limits app. Everything is read-only except actions that call services (audited)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext, ngettext

from core import clock
from core.admin import LargeTableAdmin, PlatformAdminMixin, ReadOnlyAdmin, decision_action
from core.audit import Actor
from core.money import Money
from limits import services
from limits.models import (
    ClosingSnapshot,
    ExclusionSweep,
    ExclusionWatch,
    HelpContact,
    OpenBet,
    PanicExclusion,
    PanicReport,
    PeriodTotal,
    PlayerKindState,
    ResponsibleGamingText,
    SelfLimit,
    SelfLimitChange,
    SelfListingRequest,
    SettledBet,
    StakeRefusal,
)
from limits.rules import limit_value_text


@admin.register(SelfLimit)
class SelfLimitAdmin(ReadOnlyAdmin):
    list_display = (
        "player",
        "kind",
        "limit_type",
        "shown_value",
        "decided_at",
        "has_pending",
        "shown_pending",
        "pending_effective_at",
        "updated_at",
    )
    list_filter = ("kind", "limit_type", "has_pending")
    search_fields = ("player__user__username",)
    list_select_related = ("player__user",)
    actions = ["apply_due_loosenings"]

    @decision_action("limits.apply_loosening", description="Apply the selected loosenings that are due (GP §6(4))")
    def apply_due_loosenings(self, request: HttpRequest, queryset: QuerySet[SelfLimit]) -> None:
        done = services.pending_limits_apply(
            now=clock.now(), ids=list(queryset.values_list("pk", flat=True)), actor=Actor.staff(request.user)
        )
        self.message_user(
            request,
            ngettext("%(n)s loosening applied.", "%(n)s loosenings applied.", done) % {"n": done},
            messages.SUCCESS,
        )

    @admin.display(description="value")
    def shown_value(self, obj: SelfLimit) -> str:
        return staff_limit_value_text(obj.limit_type, obj.value)

    @admin.display(description="pending value")
    def shown_pending(self, obj: SelfLimit) -> str:
        return limit_value_text(obj.limit_type, obj.pending_value) if obj.has_pending else "-"


@admin.register(SelfLimitChange)
class SelfLimitChangeAdmin(ReadOnlyAdmin):
    list_display = (
        "requested_at",
        "player",
        "kind",
        "limit_type",
        "action",
        "shown_old",
        "shown_new",
        "effective_from",
        "actor_type",
        "actor_label",
    )
    list_filter = ("kind", "limit_type", "action", "actor_type")
    search_fields = ("player__user__username", "actor_label")
    date_hierarchy = "requested_at"
    list_select_related = ("player__user",)

    @admin.display(description="old value")
    def shown_old(self, obj: SelfLimitChange) -> str:
        return change_value_text(obj, obj.old_value, old=True)

    @admin.display(description="new value")
    def shown_new(self, obj: SelfLimitChange) -> str:
        return change_value_text(obj, obj.new_value, old=False)


def change_value_text(change: SelfLimitChange, value: int | None, *, old: bool) -> str:
    """One side of a limit change in the staff's unit; a first decision has no old side, a decline no new one."""
    if old and change.action in (SelfLimitChange.Action.SET, SelfLimitChange.Action.DECLINED):
        return "-"
    if not old and change.action == SelfLimitChange.Action.DECLINED:
        return gettext("declined")
    return staff_limit_value_text(change.limit_type, value)


def staff_limit_value_text(limit_type: str, value: int | None) -> str:
    """A limit's value as staff read it (``limits.rules.limit_value_text``), "no limit" in their language."""
    return gettext("no limit") if value is None else limit_value_text(limit_type, value)


def _czk(field: str, label: str) -> Any:
    """A money column shown in Kč with two decimals (the field holds haléře)."""

    @admin.display(description=label, ordering=field)
    def shown(obj: Any) -> str:
        value = getattr(obj, field)
        return "-" if value is None else str(Money(int(value)))

    shown.__name__ = f"{field}_czk"
    return shown


@admin.register(StakeRefusal)
class StakeRefusalAdmin(LargeTableAdmin):
    list_display = ("refused_at", "player_id", "kind", "game_code", _czk("stake", "stake"), "code", "request_id")
    list_filter = ("code", "kind")
    search_fields = ("=player__id", "game_code", "code", "request_id")
    date_hierarchy = "refused_at"
    readonly_fields = ("player", "kind", "game_code", "stake", "code", "details", "refused_at", "request_id")


@admin.register(PanicExclusion)
class PanicExclusionAdmin(ReadOnlyAdmin):
    list_display = ("player", "started_at", "ends_at", "register_report")
    search_fields = ("player__user__username", "person_key", "report__reference")
    date_hierarchy = "started_at"
    list_select_related = ("player__user", "report")

    @admin.display(description="register of excluded persons")
    def register_report(self, obj: PanicExclusion) -> str:
        report = getattr(obj, "report", None)
        if report is None:
            return "-"
        if report.status == PanicReport.Status.ACKNOWLEDGED:
            return f"acknowledged {report.acknowledged_at:%Y-%m-%d %H:%M:%S} UTC ({report.register_reference})"
        return f"pending, {report.attempts} attempt(s), next {report.next_attempt_at:%Y-%m-%d %H:%M:%S} UTC"


@admin.register(PanicReport)
class PanicReportAdmin(ReadOnlyAdmin):
    """The outbox of panic-button presses to the register of excluded persons: what is sent, how often it was
    tried, when the next attempt is due, the register's acknowledgement or the last error."""

    list_display = (
        "reference",
        "player",
        "status",
        "attempts",
        "last_attempt_at",
        "next_attempt_at",
        "acknowledged_at",
        "register_reference",
        "last_error",
    )
    list_filter = ("status",)
    search_fields = ("reference", "register_reference", "panic__player__user__username")
    date_hierarchy = "created_at"
    list_select_related = ("panic__player__user",)
    readonly_fields = (
        "reference",
        "panic",
        "sent",
        "status",
        "created_at",
        "attempts",
        "last_attempt_at",
        "next_attempt_at",
        "acknowledged_at",
        "register_reference",
        "last_error",
    )
    actions = ["send_now"]

    @admin.display(description="player")
    def player(self, obj: PanicReport) -> str:
        return obj.panic.player.staff_label

    @admin.display(description="what is sent")
    def sent(self, obj: PanicReport) -> str:
        return (
            f"reference={obj.reference}, identity of player {obj.panic.player_id} (personal data when sent), "
            f"started_at={obj.panic.started_at.isoformat()}, ends_at={obj.panic.ends_at.isoformat()}"
        )

    @decision_action("limits.send_register_report", description="Send the selected pending reports to the register now")
    def send_now(self, request: HttpRequest, queryset: QuerySet[PanicReport]) -> None:
        ids = list(queryset.filter(status=PanicReport.Status.PENDING).values_list("pk", flat=True))
        acknowledged = 0
        for pk in ids:
            report = services.panic_report_send(
                report_id=pk, now=clock.now(), force=True, actor=Actor.staff(request.user)
            )
            acknowledged += int(bool(report and report.status == PanicReport.Status.ACKNOWLEDGED))
        self.message_user(
            request,
            ngettext("%(done)s of %(n)s report acknowledged.", "%(done)s of %(n)s reports acknowledged.", len(ids))
            % {"done": acknowledged, "n": len(ids)},
            messages.INFO,
        )


@admin.register(SelfListingRequest)
class SelfListingRequestAdmin(ReadOnlyAdmin):
    list_display = (
        "player",
        "requested_at",
        "listed_until",
        "status",
        "attempts",
        "next_attempt_at",
        "sent_at",
        "last_error",
    )
    list_filter = ("status",)
    search_fields = ("player__user__username",)
    actions = ["send_now"]

    @decision_action(
        "limits.send_register_report", description="Send the selected pending requests to the register now"
    )
    def send_now(self, request: HttpRequest, queryset: QuerySet[SelfListingRequest]) -> None:
        ids = list(queryset.filter(status=SelfListingRequest.Status.PENDING).values_list("pk", flat=True))
        sent = 0
        for pk in ids:
            req = services.self_listing_send(
                request_id=pk, now=clock.now(), force=True, actor=Actor.staff(request.user)
            )
            sent += int(bool(req and req.status == SelfListingRequest.Status.SENT))
        self.message_user(
            request,
            ngettext("%(done)s of %(n)s request sent.", "%(done)s of %(n)s requests sent.", len(ids))
            % {"done": sent, "n": len(ids)},
            messages.INFO,
        )


@admin.register(ExclusionWatch)
class ExclusionWatchAdmin(ReadOnlyAdmin):
    list_display = ("player", "last_checked_at", "last_listed", "last_context", "failures", "last_error")
    list_filter = ("last_listed", "last_context")
    search_fields = ("player__user__username",)


@admin.register(ExclusionSweep)
class ExclusionSweepAdmin(ReadOnlyAdmin):
    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = ("started_at", "context", "finished_at", "checked", "listed", "failed", "note")
    list_filter = ("context",)
    date_hierarchy = "started_at"


@admin.register(SettledBet)
class SettledBetAdmin(LargeTableAdmin):
    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = (
        "settled_at",
        "player",
        "kind",
        "game_code",
        _czk("stake", "stake"),
        _czk("win", "win"),
        "placed_at",
        "voided",
        "round_ref",
    )
    list_filter = ("kind", "voided")
    search_fields = ("player__user__username", "round_ref", "game_code")
    date_hierarchy = "settled_at"


@admin.register(PeriodTotal)
class PeriodTotalAdmin(ReadOnlyAdmin):
    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = (
        "player",
        "kind",
        "period",
        "start",
        _czk("stakes_placed", "stakes placed"),
        "bets_placed",
        _czk("stakes_decided", "stakes decided"),
        _czk("wins_decided", "wins decided"),
        "bets_decided",
    )
    list_filter = ("kind", "period")
    search_fields = ("player__user__username",)


@admin.register(OpenBet)
class OpenBetAdmin(ReadOnlyAdmin):
    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = ("player", "kind", "game_code", _czk("stake", "stake"), "placed_at", "round_ref")
    list_filter = ("kind",)


@admin.register(PlayerKindState)
class PlayerKindStateAdmin(ReadOnlyAdmin):
    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = ("player", "kind", "play_started_at", "last_round_ended_at", "updated_at")
    list_filter = ("kind",)


@admin.register(ClosingSnapshot)
class ClosingSnapshotAdmin(ReadOnlyAdmin):
    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = ("player", "closed_at", "person_key")
    search_fields = ("person_key",)


# Responsible gaming (GP §13(4)): staff edit these; each save goes through an audited service. Nothing is deleted:
# unpublish a text or contact instead (the audit trail keeps every wording).
@admin.register(ResponsibleGamingText)
class ResponsibleGamingTextAdmin(PlatformAdminMixin, admin.ModelAdmin[Any]):
    list_display = ("key", "order", "title_cs", "title_en", "published", "updated_at")
    list_filter = ("published",)
    list_editable = ("order", "published")
    readonly_fields = ("updated_at",)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: ResponsibleGamingText, form: Any, change: bool) -> None:
        services.responsible_text_save(text=obj, actor=Actor.staff(request.user))


class HelpContactForm(forms.ModelForm[Any]):
    url = forms.URLField(required=False, assume_scheme="https", max_length=200)

    class Meta:
        model = HelpContact
        fields = [
            "order",
            "name_cs",
            "name_en",
            "description_cs",
            "description_en",
            "phone",
            "email",
            "url",
            "hours_cs",
            "hours_en",
            "published",
        ]


@admin.register(HelpContact)
class HelpContactAdmin(PlatformAdminMixin, admin.ModelAdmin[Any]):
    form = HelpContactForm
    list_display = ("name_cs", "name_en", "phone", "email", "url", "order", "published", "updated_at")
    list_filter = ("published",)
    readonly_fields = ("updated_at",)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: HelpContact, form: Any, change: bool) -> None:
        services.help_contact_save(contact=obj, actor=Actor.staff(request.user))
