"""Admin: the game catalogue (enable/disable through the service, audited) and rounds (read-only recall)."""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from core.admin import ReadOnlyAdmin, run_service_action
from core.audit import Actor
from core.money import Money
from games import selectors, services
from games.models import Game, Round


def _czk(minor: int | None) -> str:
    return "" if minor is None else Money(minor).format("cs")


def _pre(value: Any) -> SafeString:
    return format_html("<pre style='white-space:pre-wrap;max-width:100em'>{}</pre>",
                       json.dumps(value, indent=2, ensure_ascii=False, default=str))


def _set_enabled(enabled: bool) -> Callable[[Game, Actor], Game]:
    """The admin action's service call: switch one game on or off (audited)."""

    def service(row: Game, actor: Actor) -> Game:
        return services.game_set_enabled(game=row, enabled=enabled, actor=actor)

    return service


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    list_display = ("code", "version", "name", "kind", "enabled", "current", "registered", "rtp", "max_bet_czk",
                    "max_win_czk", "unfinished_deadline_days", "synced_at")
    list_filter = ("enabled", "current", "registered", "kind")
    search_fields = ("code", "name", "name_cs")
    actions = ["enable_games", "disable_games"]
    readonly_fields = ("description_pretty",)
    exclude = ("description",)

    @admin.display(description="max bet")
    def max_bet_czk(self, obj: Game) -> str:
        return _czk(obj.max_bet)

    @admin.display(description="max win")
    def max_win_czk(self, obj: Game) -> str:
        return _czk(obj.max_win)

    @admin.display(description="description (engine describe())")
    def description_pretty(self, obj: Game) -> SafeString:
        return _pre(obj.description)

    def has_toggle_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.change_game")

    @admin.action(description="Enable selected games", permissions=["toggle"])
    def enable_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        run_service_action(self, request, queryset, _set_enabled(True), done="Games enabled")

    @admin.action(description="Disable selected games (no new rounds; open rounds can finish)", permissions=["toggle"])
    def disable_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        run_service_action(self, request, queryset, _set_enabled(False), done="Games disabled")



@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
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
    def stake_czk(self, obj: Round) -> str:
        return _czk(obj.stake)

    @admin.display(description="win")
    def win_czk(self, obj: Round) -> str:
        return _czk(obj.win)

    @admin.display(description="recall (GP §11(5))")
    def recall(self, obj: Round) -> SafeString:
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
    def verification(self, obj: Round) -> SafeString:
        return _pre(selectors.round_replay_check(obj))

    def has_refund_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.change_round")

    @admin.action(description="End the selected rounds in progress and refund their stakes", permissions=["refund"])
    def refund_in_progress(self, request: HttpRequest, queryset: QuerySet[Round]) -> None:
        reason = f"staff refund by {request.user.get_username()}"

        def refund(rnd: Round, actor: Actor) -> Round:
            return services.round_refund(round_id=rnd.pk, reason=reason, actor=actor)

        run_service_action(self, request, queryset, refund, done="Rounds refunded")
