"""Staff screens of the jackpots: levels (configured in draft, frozen while running), awards, folds, contributions.

A level is configured while it is a draft; "start" (``jackpot_start``) freezes it, "suspend"/"resume"
(``jackpot_set_status``) switch a running level, each audited and run as the signed-in staff member. A running or
suspended level's page is read-only: its books, its live value and, for a must-hit level, the published commitment
and range; never the sealed WIN_AT (``win_at_sealed``, ``win_at_nonce``) nor WIN_AT itself, which is revealed only
on the award once the level is won. Amounts are haléře (micro-haléře for pool values) in the database and are shown
as CZK.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import NoReverseMatch, reverse
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from core import clock
from core.admin import (
    LargeTableAdmin,
    PlatformAdminMixin,
    ReadOnlyAdmin,
    decision_action,
    domain_error_text,
    run_service_action,
)
from core.audit import Actor
from core.errors import DomainError
from core.money import NBSP, Money, MoneyError
from jackpots.levels import commitment
from jackpots.models import MICRO, Award, Contribution, Fold, Jackpot
from jackpots.selectors import live_values, pool_books
from jackpots.services import (
    APPROVAL_FIELDS,
    CONFIG_FIELDS,
    approval_missing,
    jackpot_configure,
    jackpot_create,
    jackpot_set_status,
    jackpot_start,
)
from jackpots.validation import validate_config

MONEY_FIELDS = ("reset_value", "win_from", "win_to", "reference_coin")  # haléře, typed and shown as CZK
DRAFT_FIELDS = ("code", "name", "name_cs", *CONFIG_FIELDS, *APPROVAL_FIELDS)  # what staff may change in a draft


def czk(minor: int | None) -> str:
    """Haléře as staff read them: "1 500,00 Kč"."""
    return "" if minor is None else Money(minor).format("cs")


def micro_czk(micro: int) -> str:
    """Micro-haléře (1e-8 CZK) exactly as CZK, at least two decimals: 375000 -> "0,00375 Kč"."""
    sign = "-" if micro < 0 else ""
    whole, frac = divmod(abs(micro), 100 * MICRO)
    decimals = f"{frac:08d}".rstrip("0").ljust(2, "0")
    return f"{sign}{whole:,}".replace(",", NBSP) + f",{decimals}{NBSP}Kč"


def prague(dt: datetime | None, *, seconds: bool = False) -> str:
    """An instant as staff read it: Prague time, the back office's one format ("28. 3. 2026 14:34")."""
    return date_format(clock.local(dt), "j. n. Y H:i:s" if seconds else "j. n. Y H:i") if dt else "-"


def _table(rows: Sequence[tuple[Any, Any]]) -> SafeString:
    return format_html("<table>{}</table>", format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", rows))


def _admin_link(viewname: str, pk: int, text: Any) -> SafeString | str:
    """A link to another app's admin page (by URL name: jackpots does not import the apps above it)."""
    try:
        return format_html('<a href="{}">{}</a>', reverse(viewname, args=[pk]), text)
    except NoReverseMatch:
        return str(text)


# --- levels ----------------------------------------------------------------------------------------------------
class CzkField(forms.CharField):
    """An amount in haléře typed and shown as CZK ("1500", "1 500,50 Kč"); cleaned to whole haléře."""

    def prepare_value(self, value: Any) -> Any:
        return czk(value) if isinstance(value, int) else value

    def to_python(self, value: Any) -> int | None:  # type: ignore[override]  # haléře, not text
        text = super().to_python(value)
        if not text:
            return None
        try:
            money = Money.parse(text)
        except MoneyError:
            raise forms.ValidationError(_("an amount in CZK, such as 1500 or 1 500,50 Kč")) from None
        if money.currency != "CZK" or money.amount < 0:
            raise forms.ValidationError(_("a CZK amount, not negative"))
        return money.amount


class DraftForm(forms.ModelForm):
    reset_value = CzkField(label="RESET_VALUE (CZK)", initial=0, help_text="the value a new run starts at")
    win_from = CzkField(label="WINRANGE_FROM (CZK)", initial=0)
    win_to = CzkField(label="WINRANGE_TO (CZK)", initial=0, help_text="0 = none (Kobushi)")
    reference_coin = CzkField(
        label="Reference coin (CZK)", initial=0, help_text="Kobushi: the pool is kept at this coin value"
    )

    class Meta:
        model = Jackpot
        fields = DRAFT_FIELDS


def _set_status(status: str) -> Callable[[Jackpot, Actor], Jackpot]:
    def service(jp: Jackpot, actor: Actor) -> Jackpot:
        return jackpot_set_status(jackpot=jp, status=status, actor=actor)

    return service


def _short(label: Any) -> str:
    """A choice's label without its explanation in parentheses ("running (configuration frozen)" → "running")."""
    return str(label).split(" (")[0]


@admin.register(Jackpot)
class JackpotAdmin(PlatformAdminMixin, admin.ModelAdmin):
    list_display = (
        "code",
        "name",
        "family_code",
        "level",
        "status_code",
        "trigger_code",
        "live_value",
        "run",
        "started",
    )
    list_filter = ("family", "status", "trigger")
    search_fields = ("code", "name", "name_cs")
    actions = ["start_levels", "suspend_levels", "resume_levels"]
    form = DraftForm
    frozen_fields = (
        "code",
        "name",
        "name_cs",
        "family",
        "level",
        "status",
        "pay_order",
        "games_shown",
        "run",
        "started_at",
        "live_active",
        "live_future",
        "must_hit_commitment",
        "must_hit_range",
        "books",
        "configuration",
        *APPROVAL_FIELDS,
    )

    # the list ------------------------------------------------------------------------------------------------
    def prepare_page(self, request: HttpRequest, rows: QuerySet[Jackpot]) -> None:
        """The live values of the listed levels in one query (folded value + pending contributions)."""
        listed = list(rows)
        values = live_values(listed)
        for jp in listed:
            jp._live = values[jp.pk]  # type: ignore[attr-defined]  # a cache on the instance for one page

    def _live(self, obj: Jackpot) -> tuple[int, int]:
        value = getattr(obj, "_live", None)
        if value is None:
            # the type: ignore below: a cache on the instance for one page
            value = obj._live = live_values([obj])[obj.pk]  # type: ignore[attr-defined]
        return value

    @admin.display(description="live value")
    def live_value(self, obj: Jackpot) -> str:
        return czk(self._live(obj)[0]) if obj.status != Jackpot.Status.DRAFT else "-"

    @admin.display(description="run", ordering="generation")
    def run(self, obj: Jackpot) -> int:
        return obj.generation

    @admin.display(description="started", ordering="started_at")
    def started(self, obj: Jackpot) -> str:
        return prague(obj.started_at)

    # the list shows the short labels (without the parenthesis; the long ones are in the filters and on the page),
    # in the staff member's language, never the stored codes
    @admin.display(description="family", ordering="family")
    def family_code(self, obj: Jackpot) -> str:
        return _short(obj.get_family_display())

    @admin.display(description="status", ordering="status")
    def status_code(self, obj: Jackpot) -> str:
        return _short(obj.get_status_display())

    @admin.display(description="trigger", ordering="trigger")
    def trigger_code(self, obj: Jackpot) -> str:
        return _short(obj.get_trigger_display())

    # the page: a draft is a form, a running or suspended level is read-only -----------------------------------
    def has_change_permission(self, request: HttpRequest, obj: Jackpot | None = None) -> bool:
        if obj is not None and obj.status != Jackpot.Status.DRAFT:
            return False  # frozen: the page opens read-only and a POST is refused (403)
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Jackpot | None = None) -> bool:
        return False

    def _frozen(self, obj: Jackpot | None) -> bool:
        return obj is not None and obj.status != Jackpot.Status.DRAFT

    def get_fieldsets(self, request: HttpRequest, obj: Jackpot | None = None) -> Any:
        if not self._frozen(obj):
            return [
                (None, {"fields": ("code", "name", "name_cs")}),
                (_("Configuration (draft: frozen by the start action)"), {"fields": CONFIG_FIELDS}),
                (
                    _("Approval in the game plan (GP §13(6)): a central level starts only with both recorded"),
                    {"fields": APPROVAL_FIELDS},
                ),
            ]
        assert obj is not None
        sets: list[tuple[str | None, dict[str, Any]]] = [
            (
                None,
                {
                    "fields": (
                        ("code", "status"),
                        ("name", "name_cs"),
                        ("family", "level", "pay_order"),
                        "games_shown",
                        ("run", "started_at"),
                    )
                },
            ),
            (_("Live value (folded + pending contributions)"), {"fields": ("live_active", "live_future")}),
        ]
        if obj.trigger == Jackpot.Trigger.MUST_HIT:
            sets.append(
                (
                    _("Must-hit: published before the hit (WIN_AT itself stays sealed)"),
                    {"fields": ("must_hit_commitment", "must_hit_range")},
                )
            )
        sets.append((_("Books of the pool"), {"fields": ("books",)}))
        sets.append((_("Configuration (frozen)"), {"fields": ("configuration",)}))
        if obj.family == Jackpot.Family.CENTRAL:
            sets.append((_("Approval in the game plan (GP §13(6))"), {"fields": APPROVAL_FIELDS}))
        return sets

    def get_readonly_fields(self, request: HttpRequest, obj: Jackpot | None = None) -> tuple[str, ...]:
        return self.frozen_fields if self._frozen(obj) else ()

    def get_form(self, request: HttpRequest, obj: Jackpot | None = None, change: bool = False, **kwargs: Any) -> Any:
        if self._frozen(obj):
            kwargs["form"] = forms.ModelForm  # nothing to type on a frozen level
        return super().get_form(request, obj, change, **kwargs)

    @admin.display(description="games")
    def games_shown(self, obj: Jackpot) -> str:
        return ", ".join(obj.games) if obj.games else _("every game (network)")

    @admin.display(description="active pot (shown to players)")
    def live_active(self, obj: Jackpot) -> str:
        return czk(self._live(obj)[0])

    @admin.display(description="future / background pot")
    def live_future(self, obj: Jackpot) -> str:
        return czk(self._live(obj)[1])

    @admin.display(description="commitment")
    def must_hit_commitment(self, obj: Jackpot) -> SafeString:
        note = _(
            "sha256(code|run|WIN_AT|salt) of run {run}, published at its start; WIN_AT and the salt are revealed "
            "on the award"
        ).format(run=obj.generation)
        return format_html('<code>{}</code><br><span class="quiet">{}</span>', obj.win_at_commitment, note)

    @admin.display(description="WIN_AT range")
    def must_hit_range(self, obj: Jackpot) -> str:
        return f"{czk(obj.win_from)} - {czk(obj.win_to)}"

    @admin.display(description="books")
    def books(self, obj: Jackpot) -> SafeString:
        b = pool_books(obj)
        value_ok = b["value_micro"] == b["expected_value_micro"]
        log_ok = b["contributed_micro"] == b["log_folded_micro"]
        ledger_ok = b["ledger_balance"] == b["value_micro"] // MICRO
        return _table(
            [
                (_("pool value (active + future, folded)"), micro_czk(b["value_micro"])),
                (_("pending contributions (not yet folded)"), micro_czk(b["pending_micro"])),
                (_("contributions folded"), micro_czk(b["contributed_micro"])),
                (_("contributions folded, by the log"), micro_czk(b["log_folded_micro"])),
                (_("clamped at zero (absorbed by the house)"), micro_czk(b["clamped_micro"])),
                (_("seeded by the house"), czk(b["seeded"])),
                (_("awarded"), czk(b["awarded"])),
                (_("returned from awards (cap excess, voids)"), czk(b["returned"])),
                (_("ledger account"), f"{obj.ledger_code}: {czk(b['ledger_balance'])}"),
                (_("value = contributions + clamped + seeded - awarded + returned"), "ok" if value_ok else "MISMATCH"),
                (_("folded contributions = the log"), "ok" if log_ok else "MISMATCH"),
                (_("ledger = whole haléře of the value"), "ok" if ledger_ok else "MISMATCH"),
            ]
        )

    @admin.display(description="configuration")
    def configuration(self, obj: Jackpot) -> SafeString:
        rows: list[tuple[str, Any]] = [
            (_("basis"), obj.get_basis_display()),
            (_("contribution"), f"{obj.rate_ppm / 10_000:g} % ({obj.rate_ppm} ppm)"),
            (_("split"), obj.get_split_display()),
            (_("trigger"), obj.get_trigger_display()),
            (_("reseed"), obj.get_reseed_display()),
        ]
        if obj.split == Jackpot.Split.FIXED:
            rows.append((_("background share"), f"{obj.background_ppm / 10_000:g} %"))
        if obj.trigger == Jackpot.Trigger.DRAW:
            rows.append((_("chance per stake"), _("{n} per 1 000 000 000").format(n=obj.draw_ppb)))
        if obj.family == Jackpot.Family.KOBUSHI:
            rows += [
                (_("seed"), _("{n} coin values").format(n=obj.seed_per_coin)),
                (_("reference coin"), czk(obj.reference_coin)),
                (_("eligible bet"), ", ".join(f"{k} = {v}" for k, v in sorted(obj.eligible.items()))),
            ]
        else:
            rows += [
                ("RESET_VALUE", czk(obj.reset_value)),
                ("WINRANGE_FROM", czk(obj.win_from)),
                ("WINRANGE_TO", czk(obj.win_to)),
            ]
        return _table(rows)

    # saving a draft (never a running level: has_change_permission refuses it) ---------------------------------
    def save_model(self, request: HttpRequest, obj: Jackpot, form: Any, change: bool) -> None:
        """A new level is a draft; a draft's configuration changes only while it is still a draft (checked under
        the row's lock, so a level started meanwhile is not touched). Audited."""
        actor = Actor.staff(request.user)
        if not change:
            jackpot_create(jackpot=obj, actor=actor)
            return
        changed = [f for f in form.changed_data if f in DRAFT_FIELDS]
        jackpot_configure(jackpot_id=obj.pk, changes={f: getattr(obj, f) for f in changed}, actor=actor)

    def response_add(self, request: HttpRequest, obj: Jackpot, post_url_continue: str | None = None) -> HttpResponse:
        self._warn_if_invalid(request, obj)
        return super().response_add(request, obj, post_url_continue)

    def response_change(self, request: HttpRequest, obj: Jackpot) -> HttpResponse:
        self._warn_if_invalid(request, obj)
        return super().response_change(request, obj)

    def _warn_if_invalid(self, request: HttpRequest, obj: Jackpot) -> None:
        """A draft may be saved half-configured or without its approval; say what would stop it from starting."""
        missing = approval_missing(obj)
        if missing:
            self.message_user(
                request,
                _(
                    "%(jackpot)s: saved, but it cannot start until its approval in the game plan is recorded "
                    "(GP §13(6)): %(missing)s"
                )
                % {"jackpot": self.staff_title(obj), "missing": ", ".join(missing)},
                messages.WARNING,
            )
        try:
            validate_config(obj)
        except DomainError as exc:
            self.message_user(
                request,
                _("%(jackpot)s: saved, but it cannot start yet: %(error)s")
                % {"jackpot": self.staff_title(obj), "error": domain_error_text(exc)},
                messages.WARNING,
            )

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except DomainError as exc:  # started by someone else meanwhile: nothing was saved
            self.message_user(request, domain_error_text(exc), messages.ERROR)
            return HttpResponseRedirect(request.path)

    # actions: one service each, as the staff member ------------------------------------------------------------
    @decision_action(
        "jackpots.start_level", description="Start the selected draft levels (validates and freezes the configuration)"
    )
    def start_levels(self, request: HttpRequest, queryset: QuerySet[Jackpot]) -> None:
        run_service_action(
            self, request, queryset, lambda jp, actor: jackpot_start(jackpot=jp, actor=actor), done="Levels started"
        )

    @decision_action(
        "jackpots.manage_level", description="Suspend the selected running levels (no contributions, no wins)"
    )
    def suspend_levels(self, request: HttpRequest, queryset: QuerySet[Jackpot]) -> None:
        run_service_action(self, request, queryset, _set_status(Jackpot.Status.SUSPENDED), done="Levels suspended")

    @decision_action("jackpots.manage_level", description="Resume the selected suspended levels")
    def resume_levels(self, request: HttpRequest, queryset: QuerySet[Jackpot]) -> None:
        run_service_action(self, request, queryset, _set_status(Jackpot.Status.RUNNING), done="Levels resumed")


# --- awards, folds, contributions (read-only) ------------------------------------------------------------------
@admin.register(Award)
class AwardAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "level",
        "run",
        "amount_czk",
        "paid_czk",
        "returned_czk",
        "status",
        "round_id",
        "player_id",
        "game_code",
        "decided",
    )
    list_filter = ("jackpot", "status")
    search_fields = ("=round_id", "=player_id")
    list_select_related = ("jackpot",)
    show_full_result_count = False
    fields = ("award", "must_hit")
    readonly_fields = fields

    @admin.display(description="jackpot", ordering="jackpot__code")
    def level(self, obj: Award) -> str:
        return obj.jackpot.code

    @admin.display(description="run", ordering="generation")
    def run(self, obj: Award) -> int:
        return obj.generation

    @admin.display(description="decided", ordering="decided_at")
    def decided(self, obj: Award) -> str:
        return prague(obj.decided_at, seconds=True)

    @admin.display(description="amount", ordering="amount")
    def amount_czk(self, obj: Award) -> str:
        return czk(obj.amount)

    @admin.display(description="paid", ordering="paid")
    def paid_czk(self, obj: Award) -> str:
        return czk(obj.paid)

    @admin.display(description="returned", ordering="returned")
    def returned_czk(self, obj: Award) -> str:
        return czk(obj.returned)

    @admin.display(description="award")
    def award(self, obj: Award) -> SafeString:
        rows: list[tuple[str, Any]] = [
            (_("level"), _admin_link("admin:jackpots_jackpot_change", obj.jackpot_id, obj.jackpot)),
            (_("run"), obj.generation),
            (_("won by"), obj.event_key),
            (_("status"), obj.get_status_display()),
            (_("game"), obj.game_code),
            (_("round"), _admin_link("admin:games_round_change", obj.round_id, obj.round_id)),
            (_("player"), _admin_link("admin:accounts_player_change", obj.player_id, obj.player_id)),
            (_("pool value before the win"), czk(obj.pool_value)),
            (_("amount decided"), czk(obj.amount)),
            (_("paid (within the per-round cap)"), czk(obj.paid)),
            (_("returned to the pool"), czk(obj.returned)),
            (_("decided at"), prague(obj.decided_at, seconds=True)),
            (_("settled at"), prague(obj.settled_at, seconds=True)),
        ]
        if obj.coin_value:
            rows.append((_("coin value"), czk(obj.coin_value)))
        if obj.draw:
            rows.append((_("draw"), ", ".join(f"{k}: {v}" for k, v in obj.draw.items())))
        return _table(rows)

    @admin.display(description="must-hit: revealed")
    def must_hit(self, obj: Award) -> SafeString | str:
        if obj.win_at is None:
            return "-"
        check = commitment(code=obj.jackpot.code, generation=obj.generation, win_at=obj.win_at, salt=obj.win_at_nonce)
        verdict = _("matches the commitment") if check == obj.win_at_commitment else _("DOES NOT MATCH the commitment")
        return _table(
            [
                ("WIN_AT", f"{czk(obj.win_at)} ({obj.win_at} haléřů)"),
                (_("salt"), format_html("<code>{}</code>", obj.win_at_nonce)),
                (
                    _("commitment published at the start of the run"),
                    format_html("<code>{}</code>", obj.win_at_commitment),
                ),
                (
                    f"sha256({obj.jackpot.code}|{obj.generation}|{obj.win_at}|salt)",
                    format_html("<code>{}</code> {}", check, verdict),
                ),
            ]
        )


@admin.register(Fold)
class FoldAdmin(ReadOnlyAdmin):
    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = ("id", "created_at", "jackpot", "rows", "active", "future", "clamped", "posted_czk")
    list_filter = ("jackpot",)
    list_select_related = ("jackpot",)
    show_full_result_count = False
    list_display_links = None
    ordering = ("-id",)

    @admin.display(description="to the active pot")
    def active(self, obj: Fold) -> str:
        return micro_czk(obj.active_micro)

    @admin.display(description="to the future pot")
    def future(self, obj: Fold) -> str:
        return micro_czk(obj.future_micro)

    @admin.display(description="clamped at zero")
    def clamped(self, obj: Fold) -> str:
        return micro_czk(obj.clamped_micro)

    @admin.display(description="posted house -> pool")
    def posted_czk(self, obj: Fold) -> str:
        return czk(obj.posted)


@admin.register(Contribution)
class ContributionAdmin(LargeTableAdmin):
    """The log is large: newest first by id, searched only by round (indexed), never counted, no filters."""

    list_display = (
        "id",
        "created_at",
        "jackpot",
        "round_id",
        "player_id",
        "basis",
        "active",
        "future",
        "reversal",
        "fold_id",
    )
    search_fields = ("=round_id",)
    list_select_related = ("jackpot",)
    ordering = ("-id",)
    sortable_by = ()
    list_per_page = 100
    list_display_links = None

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None and super().has_view_permission(request, obj)  # the list only, no record pages

    @admin.display(description="basis")
    def basis(self, obj: Contribution) -> str:
        return czk(obj.basis_amount)

    @admin.display(description="to the active pot")
    def active(self, obj: Contribution) -> str:
        return micro_czk(obj.active_micro)

    @admin.display(description="to the future pot")
    def future(self, obj: Contribution) -> str:
        return micro_czk(obj.future_micro)
