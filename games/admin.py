"""Admin: the game catalogue (enable/disable through the service, audited) and rounds (read-only recall)."""
from __future__ import annotations

import json

from django.contrib import admin, messages
from django.utils.html import format_html, format_html_join

from core.audit import Actor
from core.errors import DomainError
from core.money import Money
from games import selectors, services
from games.models import Game, Round


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


def _czk(minor):
    return "" if minor is None else Money(minor).format("cs")


def _pre(value) -> str:
    return format_html("<pre style='white-space:pre-wrap;max-width:100em'>{}</pre>",
                       json.dumps(value, indent=2, ensure_ascii=False, default=str))


@admin.register(Game)
class GameAdmin(_ReadOnly):
    list_display = ("code", "version", "name", "kind", "enabled", "current", "registered", "rtp", "max_bet_czk",
                    "max_win_czk", "unfinished_deadline_days", "synced_at")
    list_filter = ("enabled", "current", "registered", "kind")
    search_fields = ("code", "name", "name_cs")
    actions = ["enable_games", "disable_games"]
    readonly_fields = ("description_pretty",)
    exclude = ("description",)

    @admin.display(description="max bet")
    def max_bet_czk(self, obj):
        return _czk(obj.max_bet)

    @admin.display(description="max win")
    def max_win_czk(self, obj):
        return _czk(obj.max_win)

    @admin.display(description="description (engine describe())")
    def description_pretty(self, obj):
        return _pre(obj.description)

    def _set(self, request, queryset, enabled: bool):
        for row in queryset:
            services.game_set_enabled(game=row, enabled=enabled, actor=Actor.staff(request.user))
        self.message_user(request, f"{queryset.count()} game(s) {'enabled' if enabled else 'disabled'}.")

    def has_toggle_permission(self, request):
        return request.user.has_perm("games.change_game")

    @admin.action(description="Enable selected games", permissions=["toggle"])
    def enable_games(self, request, queryset):
        self._set(request, queryset, True)

    @admin.action(description="Disable selected games (no new rounds; open rounds can finish)", permissions=["toggle"])
    def disable_games(self, request, queryset):
        self._set(request, queryset, False)


@admin.register(Round)
class RoundAdmin(_ReadOnly):
    list_display = ("id", "player", "game_code", "game_version", "play_money", "status", "stake_czk", "win_czk",
                    "win_capped", "started_at", "settled_at", "deadline")
    list_filter = ("status", "play_money", "void_reason", "game_code", "win_capped", "forced_outcome")
    search_fields = ("=id", "player__user__username", "idempotency_key")
    date_hierarchy = "started_at"
    list_select_related = ("player__user",)
    actions = ["refund_in_progress"]
    fields = ("recall", "verification")
    readonly_fields = ("recall", "verification")

    @admin.display(description="stake")
    def stake_czk(self, obj):
        return _czk(obj.stake)

    @admin.display(description="win")
    def win_czk(self, obj):
        return _czk(obj.win)

    @admin.display(description="recall (GP §11(5))")
    def recall(self, obj):
        data = selectors.round_staff(obj)
        rows = [
            ("game", f"{obj.game_code} v{obj.game_version}"), ("player", str(obj.player)),
            ("status", f"{obj.status} {obj.void_reason}".strip()), ("play money", obj.play_money),
            ("started / settled / deadline", f"{obj.started_at} / {obj.settled_at} / {obj.deadline}"),
            ("stake", _czk(obj.stake)), ("win paid", _czk(obj.win)), ("win of the game", _czk(obj.win_engine)),
            ("win capped (GP §8(3))", obj.win_capped),
            ("balance before / after", f"{_czk(obj.balance_before)} / {_czk(obj.balance_after)}"),
            ("void detail", obj.void_detail),
        ]
        table = format_html("<table>{}</table>", format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", rows))
        return format_html(
            "{}<h4>Bet</h4>{}<h4>Steps</h4>{}<h4>Actions</h4>{}<h4>Jackpot events</h4>{}<h4>Draws</h4>{}"
            "<h4>Final state</h4>{}",
            table, _pre(data["bet"]), _pre(data["steps"]), _pre(data["actions"]), _pre(data["jackpot_events"]),
            _pre(data["draws"]), _pre(data["state"]),
        )

    @admin.display(description="replay verification")
    def verification(self, obj):
        return _pre(selectors.round_replay_check(obj))

    def has_refund_permission(self, request):
        return request.user.has_perm("games.change_round")

    @admin.action(description="End the selected rounds in progress and refund their stakes", permissions=["refund"])
    def refund_in_progress(self, request, queryset):
        done = 0
        for rnd in queryset:
            try:
                services.round_refund(round_id=rnd.pk, reason=f"staff refund by {request.user.get_username()}",
                                      actor=Actor.staff(request.user))
                done += 1
            except DomainError as exc:
                self.message_user(request, f"round {rnd.pk}: {exc.message_en}", level=messages.WARNING)
        self.message_user(request, f"{done} round(s) refunded.")
