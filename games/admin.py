"""Admin: the game catalogue (enable/disable, the approval in the game plan: each through its service, audited)
and rounds (read-only recall; staff end a round in progress or declare a settled bet void)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.defaultfilters import yesno
from django.template.response import TemplateResponse
from django.utils import formats, timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from core.admin import LargeTableAdmin, ReadOnlyAdmin, decision_action, run_service_action
from core.audit import Actor
from core.money import Money, points_text
from games import selectors, services
from games.models import Game, Round


def _czk(minor: int | None) -> str:
    return "" if minor is None else Money(minor).format("cs")


def _amount(obj: Round, minor: int | None) -> str:
    """A round's amount as staff read it: points for a play-money round (never Kč), else Kč with two decimals."""
    if minor is None:
        return ""
    return points_text(minor) if obj.play_money else _czk(minor)


def _when(at: Any) -> str:
    """A time as staff read it: in the back office's time zone (Prague, activated for the admin), or "-"."""
    return formats.date_format(timezone.localtime(at), "j. n. Y H:i:s") if at else "-"


def _pre(value: Any) -> SafeString:
    return format_html(
        "<pre style='white-space:pre-wrap;max-width:100em'>{}</pre>",
        json.dumps(value, indent=2, ensure_ascii=False, default=str),
    )


class ApprovalForm(forms.Form):
    plan_version = forms.CharField(
        max_length=services.PLAN_VERSION_MAX,
        label="Game plan version",
        help_text="the version of the approved game plan that lists these game versions",
    )
    reference = forms.CharField(
        max_length=services.REFERENCE_MAX,
        label="Ministry of Finance decision",
        help_text="the decision's reference (číslo jednací), e.g. MF-37814/2016/...",
    )


class ReasonForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 80}), max_length=2000)


def _form_action(
    modeladmin: admin.ModelAdmin[Any],
    request: HttpRequest,
    queryset: QuerySet[Any],
    *,
    form_class: type[forms.Form],
    title: str,
    help_text: str,
    service: Callable[[dict[str, Any]], Callable[[Any, Actor], Any]],
    done: str,
) -> TemplateResponse | None:
    """An admin action that asks for its inputs first: the form on a page of its own (with the selected rows),
    then ``service(cleaned_data)(obj, actor)`` for each row through ``run_service_action`` (audited, refusals
    shown with their codes)."""
    form = form_class(request.POST if "apply" in request.POST else None)
    if "apply" in request.POST and form.is_valid():
        run_service_action(modeladmin, request, queryset, service(form.cleaned_data), done=done)
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "help": help_text,
        "form": form,
        "objects": list(queryset),
        "action": request.POST.get("action", ""),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "opts": modeladmin.model._meta,
    }
    return TemplateResponse(request, "admin/games/action_form.html", context)


def _set_enabled(enabled: bool) -> Callable[[Game, Actor], Game]:
    """The admin action's service call: switch one game on or off (audited)."""

    def service(row: Game, actor: Actor) -> Game:
        return services.game_set_enabled(game=row, enabled=enabled, actor=actor)

    return service


def _approve(data: dict[str, Any]) -> Callable[[Game, Actor], Game]:
    def service(row: Game, actor: Actor) -> Game:
        return services.game_approve(
            game=row, plan_version=data["plan_version"], reference=data["reference"], actor=actor
        )

    return service


def _withdraw(data: dict[str, Any]) -> Callable[[Game, Actor], Game]:
    def service(row: Game, actor: Actor) -> Game:
        return services.game_approval_withdraw(game=row, reason=data["reason"], actor=actor)

    return service


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    list_display = (
        "code",
        "version",
        "name",
        "kind",
        "enabled",
        "approval_state",
        "approval_plan_version",
        "current",
        "registered",
        "rtp",
        "max_bet_czk",
        "max_win_czk",
        "max_hourly_loss_czk",
        "unfinished_deadline_days",
        "synced_at",
    )
    list_filter = ("approval_state", "enabled", "current", "registered", "kind")
    search_fields = ("code", "name", "name_cs", "approval_reference")
    actions = ["enable_games", "disable_games", "approve_games", "withdraw_approval"]
    readonly_fields = ("max_hourly_loss_czk", "description_pretty")
    exclude = ("description",)

    @admin.display(description="max bet")
    def max_bet_czk(self, obj: Game) -> str:
        return _czk(obj.max_bet)

    @admin.display(description="max win")
    def max_win_czk(self, obj: Game) -> str:
        return _czk(obj.max_win)

    @admin.display(description="max hourly loss (GP §7(2))")
    def max_hourly_loss_czk(self, obj: Game) -> str:
        at_pace, capped = selectors.hourly_loss_figures(obj.max_bet)
        return _czk(capped) if capped == at_pace else f"{_czk(capped)} ({_czk(at_pace)} at 1,800 rounds)"

    @admin.display(description="description (engine describe())")
    def description_pretty(self, obj: Game) -> SafeString:
        return _pre(obj.description)

    @decision_action("games.toggle_game", description="Enable selected games")
    def enable_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        run_service_action(self, request, queryset, _set_enabled(True), done="Games enabled")

    @decision_action("games.toggle_game", description="Disable selected games (no new rounds; open rounds can finish)")
    def disable_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        run_service_action(self, request, queryset, _set_enabled(False), done="Games disabled")

    @decision_action(
        "games.approve_version", description="Record the approval of the selected versions in the game plan (GP §13(6))"
    )
    def approve_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> TemplateResponse | None:
        return _form_action(
            self,
            request,
            queryset,
            form_class=ApprovalForm,
            service=_approve,
            done="Approvals recorded",
            title="Record the approval in the game plan",
            help_text="GP §13(6): these versions are part of the game plan the Ministry of Finance approved. "
            "From now on they are offered for real money. Recorded with your name, audited.",
        )

    @decision_action(
        "games.approve_version", description="Withdraw the approval of the selected versions (no new real-money rounds)"
    )
    def withdraw_approval(self, request: HttpRequest, queryset: QuerySet[Game]) -> TemplateResponse | None:
        return _form_action(
            self,
            request,
            queryset,
            form_class=ReasonForm,
            service=_withdraw,
            done="Approvals withdrawn",
            title="Withdraw the approval",
            help_text="These versions are no longer in the approved game plan: no new round starts on them; rounds "
            "in progress can be finished. Audited with the reason.",
        )


@admin.register(Round)
class RoundAdmin(LargeTableAdmin):
    list_display = (
        "id",
        "player",
        "game_code",
        "game_version",
        "play_money",
        "status",
        "stake_czk",
        "win_czk",
        "win_capped",
        "started_at",
        "settled_at",
        "deadline",
    )
    list_filter = ("status", "play_money", "void_reason", "game_code", "win_capped", "forced_outcome")
    search_fields = ("=id", "player__user__username", "idempotency_key")
    date_hierarchy = "started_at"
    # newest first by id (the order rounds start in; a month's partition after another's): the model's
    # ``-started_at`` has no b-tree index (a BRIN), so a page would sort the whole table (docs/backoffice.md)
    ordering = ("-id",)
    list_select_related = ("player__user",)
    actions = ["refund_in_progress", "void_settled"]
    fields = ("recall", "verification")
    readonly_fields = ("recall", "verification")

    @admin.display(description="stake")
    def stake_czk(self, obj: Round) -> str:
        return _amount(obj, obj.stake)

    @admin.display(description="win")
    def win_czk(self, obj: Round) -> str:
        return _amount(obj, obj.win)

    @admin.display(description="recall (GP §11(5))")
    def recall(self, obj: Round) -> SafeString:
        data = selectors.round_staff(obj)
        rows = [
            (gettext("game"), f"{obj.game_code} v{obj.game_version}"),
            (gettext("player"), obj.player.staff_label),
            (gettext("status"), f"{obj.get_status_display()} {obj.void_reason}".strip()),
            (gettext("play money"), yesno(obj.play_money)),
            (
                gettext("started / settled / deadline"),
                " / ".join(_when(t) for t in (obj.started_at, obj.settled_at, obj.deadline)),
            ),
            (gettext("stake"), _amount(obj, obj.stake)),
            (gettext("win paid"), _amount(obj, obj.win)),
            (gettext("win of the game"), _amount(obj, obj.win_engine)),
            (gettext("win capped (GP §8(3))"), yesno(obj.win_capped)),
            (
                gettext("balance before / after"),
                f"{_amount(obj, obj.balance_before)} / {_amount(obj, obj.balance_after)}",
            ),
            (gettext("void detail"), obj.void_detail),
            (gettext("declared void at (GP §3(6))"), _when(obj.voided_at)),
        ]
        table = format_html("<table>{}</table>", format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", rows))
        # the bet, the steps, the actions, the draws and the state are the stored record, shown as stored
        return format_html(
            "{}<h4>{}</h4>{}<h4>{}</h4>{}<h4>{}</h4>{}<h4>{}</h4>{}<h4>{}</h4>{}<h4>{}</h4>{}",
            table,
            gettext("Bet"),
            _pre(data["bet"]),
            gettext("Steps"),
            _pre(data["steps"]),
            gettext("Actions"),
            _pre(data["actions"]),
            gettext("Jackpot events"),
            _pre(data["jackpot_events"]),
            gettext("Draws"),
            _pre(data["draws"]),
            gettext("Final state"),
            _pre(data["state"]),
        )

    @admin.display(description="replay verification")
    def verification(self, obj: Round) -> SafeString:
        return _pre(selectors.round_replay_check(obj))

    @decision_action("games.refund_round", description="End the selected rounds in progress and refund their stakes")
    def refund_in_progress(self, request: HttpRequest, queryset: QuerySet[Round]) -> None:
        reason = f"staff refund by {request.user.get_username()}"

        def refund(rnd: Round, actor: Actor) -> Round:
            return services.round_refund(round_id=rnd.pk, reason=reason, actor=actor)

        run_service_action(self, request, queryset, refund, done="Rounds refunded")

    @decision_action(
        "games.void_round", description="Declare the selected settled bets void: placed on order or by proxy (GP §3(6))"
    )
    def void_settled(self, request: HttpRequest, queryset: QuerySet[Round]) -> TemplateResponse | None:
        def service(data: dict[str, Any]) -> Callable[[Round, Actor], Round]:
            def void(rnd: Round, actor: Actor) -> Round:
                return services.round_void_settled(round_id=rnd.pk, reason=data["reason"], actor=actor)

            return void

        return _form_action(
            self,
            request,
            queryset,
            form_class=ReasonForm,
            service=service,
            done="Bets declared void",
            title="Declare settled bets void (GP §3(6))",
            help_text="Each bet's stake goes back to the player and its win is deducted with a notice: first from "
            "a hold on it (GP §10(3)), which ends, then from the balance; a balance that goes negative "
            "is recorded as a debt due in 10 days (GP §7(7)). The round's jackpot "
            "contributions are reversed and a jackpot award it paid goes back to its pool; the bet "
            "no longer counts in the player's limits. Audited with the reason.",
        )
