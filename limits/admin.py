"""Staff views of the limits app. Everything is read-only except actions that call services (audited)."""
from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from core import clock
from core.admin import ReadOnlyAdmin
from core.audit import Actor
from limits import services
from limits.models import (
    ClosingSnapshot,
    ExclusionSweep,
    ExclusionWatch,
    OpenBet,
    PanicExclusion,
    PeriodTotal,
    PlayerKindState,
    SelfLimit,
    SelfLimitChange,
    SelfListingRequest,
    SettledBet,
    StakeRefusal,
)


@admin.register(SelfLimit)
class SelfLimitAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "limit_type", "value", "decided_at", "has_pending", "pending_value",
                    "pending_effective_at", "updated_at")
    list_filter = ("kind", "limit_type", "has_pending")
    search_fields = ("player__user__username",)
    list_select_related = ("player__user",)
    actions = ["apply_due_loosenings"]

    @admin.action(description="Apply the selected loosenings that are due (GP §6(4))")
    def apply_due_loosenings(self, request: HttpRequest, queryset: QuerySet[SelfLimit]) -> None:
        done = services.pending_limits_apply(now=clock.now(), ids=list(queryset.values_list("pk", flat=True)),
                                             actor=Actor.staff(request.user))
        self.message_user(request, f"{done} loosening(s) applied.", messages.SUCCESS)


@admin.register(SelfLimitChange)
class SelfLimitChangeAdmin(ReadOnlyAdmin):
    list_display = ("requested_at", "player", "kind", "limit_type", "action", "old_value", "new_value",
                    "effective_from", "actor_type", "actor_label")
    list_filter = ("kind", "limit_type", "action", "actor_type")
    search_fields = ("player__user__username", "actor_label")
    date_hierarchy = "requested_at"
    list_select_related = ("player__user",)


@admin.register(StakeRefusal)
class StakeRefusalAdmin(ReadOnlyAdmin):
    list_display = ("refused_at", "player_id", "kind", "game_code", "stake", "code", "request_id")
    list_filter = ("code", "kind")
    search_fields = ("=player__id", "game_code", "code", "request_id")
    date_hierarchy = "refused_at"
    readonly_fields = ("player", "kind", "game_code", "stake", "code", "details", "refused_at", "request_id")


@admin.register(PanicExclusion)
class PanicExclusionAdmin(ReadOnlyAdmin):
    list_display = ("player", "started_at", "ends_at")
    search_fields = ("player__user__username",)
    date_hierarchy = "started_at"


@admin.register(SelfListingRequest)
class SelfListingRequestAdmin(ReadOnlyAdmin):
    list_display = ("player", "requested_at", "listed_until", "status", "attempts", "next_attempt_at", "sent_at",
                    "last_error")
    list_filter = ("status",)
    search_fields = ("player__user__username",)
    actions = ["send_now"]

    @admin.action(description="Send the selected pending requests to the register now")
    def send_now(self, request: HttpRequest, queryset: QuerySet[SelfListingRequest]) -> None:
        ids = list(queryset.filter(status=SelfListingRequest.Status.PENDING).values_list("pk", flat=True))
        sent = 0
        for pk in ids:
            req = services.self_listing_send(request_id=pk, now=clock.now(), force=True,
                                             actor=Actor.staff(request.user))
            sent += int(bool(req and req.status == SelfListingRequest.Status.SENT))
        self.message_user(request, f"{sent} of {len(ids)} request(s) sent.", messages.INFO)


@admin.register(ExclusionWatch)
class ExclusionWatchAdmin(ReadOnlyAdmin):
    list_display = ("player", "last_checked_at", "last_listed", "last_context", "failures", "last_error")
    list_filter = ("last_listed", "last_context")
    search_fields = ("player__user__username",)


@admin.register(ExclusionSweep)
class ExclusionSweepAdmin(ReadOnlyAdmin):
    list_display = ("started_at", "context", "finished_at", "checked", "listed", "failed", "note")
    list_filter = ("context",)
    date_hierarchy = "started_at"


@admin.register(SettledBet)
class SettledBetAdmin(ReadOnlyAdmin):
    list_display = ("settled_at", "player", "kind", "game_code", "stake", "win", "placed_at", "voided", "round_ref")
    list_filter = ("kind", "voided")
    search_fields = ("player__user__username", "round_ref", "game_code")
    date_hierarchy = "settled_at"


@admin.register(PeriodTotal)
class PeriodTotalAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "period", "start", "stakes_placed", "bets_placed", "stakes_decided",
                    "wins_decided", "bets_decided")
    list_filter = ("kind", "period")
    search_fields = ("player__user__username",)


@admin.register(OpenBet)
class OpenBetAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "game_code", "stake", "placed_at", "round_ref")
    list_filter = ("kind",)


@admin.register(PlayerKindState)
class PlayerKindStateAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "play_started_at", "last_round_ended_at", "updated_at")
    list_filter = ("kind",)


@admin.register(ClosingSnapshot)
class ClosingSnapshotAdmin(ReadOnlyAdmin):
    list_display = ("player", "closed_at", "person_key")
    search_fields = ("person_key",)
