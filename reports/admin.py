"""Admin pages of the reports: the daily report with its charts, the month and the tax period (calendar quarter),
CSV exports, the sealed regulator's record and its verification. Every page answers GET only (405 otherwise); they
read the report rows, never the rounds (the regulator's record excepted, which is the day's rounds), and the money
that crossed the platform's edge (deposits, withdrawals, adjustments) from the ledger. One action: "recompute now"
of a day (POST, ``reports.change_dayreport``, audited by the service; an archived day is refused)."""

from __future__ import annotations

import shutil
from datetime import date, timedelta
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import BadRequest
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from core import clock
from core.admin import ReadOnlyAdmin, decision_path, domain_error_text
from core.audit import Actor
from core.errors import DomainError
from core.money import Money
from reports import charts, figures, record, seal, selectors, services
from reports.models import DayReport

VIEW = "reports.view_dayreport"
RECOMPUTE = "reports.change_dayreport"
EXPORT = "reports.export_regulator_record"
TREND_DAYS = 31


def czk(minor: int) -> str:
    """Staff read money in Kč with two decimals, Czech style ("150 500,36 Kč")."""
    return str(Money(int(minor)))


def _moves_rows(moves: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """The deposits, withdrawals and adjustments of the period: (label, postings, total in Kč)."""
    return [(gettext(m["label"]), str(m["count"]), czk(m["total"])) for m in moves]


def _get_only(view: Any) -> Any:
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        if request.method not in ("GET", "HEAD"):
            return HttpResponseNotAllowed(["GET"])
        return view(request, *args, **kwargs)

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


def _money_rows(t: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (_("Stakes received"), czk(t["stakes"])),
        (_("Stakes returned (voided / refunded rounds)"), czk(t["stakes_returned"])),
        (_("Wins credited (jackpot wins included)"), czk(t["wins"])),
        (_("of which jackpot wins"), czk(t["jackpot_wins"])),
        (_("Wins taken back (settled bets declared void)"), czk(t["wins_reclaimed"])),
        (_("Gross gaming revenue (tax base, act 187/2016 Sb.)"), czk(t["ggr"])),
        (
            _("Ledger: stakes / wins"),
            f"{czk(t['ledger_stakes'])} / {czk(t['ledger_wins'])}"
            f" - {_('agrees') if t['ledger_agrees'] else _('DIFFERS')}",
        ),
        (_("Jackpot contributions (house-funded)"), czk(t["jackpot_contributed_micro"] // 1_000_000)),
        (_("Jackpot awards decided / paid"), f"{czk(t['jackpot_awarded'])} / {czk(t['jackpot_awards_paid'])}"),
        (_("Jackpot pools' liability at the end"), czk(t["jackpot_liability"])),
    ]


def _count_rows(t: dict[str, Any]) -> list[tuple[str, str]]:
    aml = t.get("aml", {})
    opened = ", ".join(f"{k} {v}" for k, v in aml.get("opened", {}).items()) or _("none")
    decided = ", ".join(
        f"{k}: " + ", ".join(f"{s} {n}" for s, n in v.items()) for k, v in aml.get("decided", {}).items()
    ) or _("none")
    limits = ", ".join(f"{k} {v}" for k, v in t.get("limits", {}).items()) or _("none")
    return [
        (_("Rounds decided"), str(t["rounds"])),
        (_("Players registered"), str(t["players_registered"])),
        (
            _("Temporary accounts opened / completed / expired / refunded"),
            f"{t['temporary_opened']} / {t['temporary_completed']} / {t['temporary_expired']} / "
            f"{t['temporary_refunded']}",
        ),
        (_("Self-limits set and changed"), limits),
        (_("Breaks enforced (players)"), str(t["breaks_enforced"])),
        (_("Exclusions: self-listing requests / register hits"), f"{t['exclusions']} / {t['exclusion_register_hits']}"),
        (_("Panic button presses"), str(t["panic_presses"])),
        (_("AML cases opened"), opened),
        (_("AML cases decided (kind: outcome)"), decided),
        (
            _("Complaints received / answered in time / answered late / overdue at the end"),
            f"{t['complaints_received']} / {t['complaints_answered_in_time']} / {t['complaints_answered_late']} / "
            f"{t['complaints_overdue']}",
        ),
    ]


def _games(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**g, "stakes_f": czk(g["stakes"]), "wins_f": czk(g["wins"]), "ggr_f": czk(g["ggr"])} for g in games]


@admin.register(DayReport)
class DayReportAdmin(ReadOnlyAdmin):
    """The list of days leads to the daily report; the pages below do the rest."""

    list_display = ("day", "rounds", "ggr", "ledger_agrees", "computed_at")

    def get_urls(self):
        return [
            decision_path(self, "daily/", _get_only(self.daily_view), perm=VIEW, name="reports_dayreport_daily"),
            decision_path(self, "period/", _get_only(self.period_view), perm=VIEW, name="reports_dayreport_period"),
            decision_path(self, "csv/", _get_only(self.csv_view), perm=VIEW, name="reports_dayreport_csv"),
            decision_path(
                self, "regulator-record/", _get_only(self.record_view), perm=EXPORT, name="reports_dayreport_record"
            ),
            decision_path(
                self,
                "regulator-record/verify/",
                _get_only(self.verify_view),
                perm=EXPORT,
                name="reports_dayreport_verify",
            ),
            decision_path(self, "recompute/", self.recompute_view, perm=RECOMPUTE, name="reports_dayreport_recompute"),
            *super().get_urls(),
        ]

    def changelist_view(self, request, extra_context=None):
        return HttpResponseRedirect(reverse("admin:reports_dayreport_daily"))

    def _context(self, request: HttpRequest, title: str, **more: Any) -> dict[str, Any]:
        return {
            **self.admin_site.each_context(request),
            "title": title,
            "opts": self.model._meta,
            "can_export": request.user.has_perm(EXPORT),
            "can_recompute": request.user.has_perm(RECOMPUTE),
            **more,
        }

    def _day(self, request: HttpRequest) -> date:
        text = (request.POST if request.method == "POST" else request.GET).get("day", "")
        try:
            day = date.fromisoformat(text) if text else (selectors.latest_day() or clock.business_date())
        except ValueError:
            return selectors.latest_day() or clock.business_date()
        if not clock.day_in_range(day):
            raise BadRequest(f"day {text[:20]}: from {clock.EARLIEST_DAY} to a year after today")
        return day

    def daily_view(self, request: HttpRequest) -> HttpResponse:
        day = self._day(request)
        rep = selectors.period_report(figures.day(day))
        trend = selectors.period_report(figures.Period("trend", "", day - timedelta(days=TREND_DAYS - 1), day))
        labels = [d["day"][5:] for d in trend["daily"]]
        t = rep["totals"]
        queues = t.get("queues", {})
        context = self._context(
            request,
            _("Daily report {day} (Europe/Prague operating day)").format(day=day.isoformat()),
            day=day,
            rep=rep,
            prev=(day - timedelta(days=1)).isoformat(),
            next=(day + timedelta(days=1)).isoformat(),
            money_rows=_money_rows(t),
            count_rows=_count_rows(t),
            games=_games(rep["games"]),
            moves_rows=_moves_rows(selectors.money_moves(figures.day(day))),
            recent=selectors.days(14),
            month=f"{day:%Y-%m}",
            quarter=f"{day.year}-Q{(day.month - 1) // 3 + 1}",
            charts=[
                charts.bars(
                    labels,
                    [d["ggr"] / 100 for d in trend["daily"]],
                    unit=" Kč",
                    title=_("Gross gaming revenue per day, last {days} days (Kč)").format(days=TREND_DAYS),
                ),
                charts.bars(labels, [d["rounds"] for d in trend["daily"]], title=_("Rounds decided per day")),
                charts.rtp_intervals(rep["games"], title=_("Actual against declared RTP per game, this day")),
                charts.hbars(
                    [
                        (_("opened"), t["temporary_opened"]),
                        (_("completed"), t["temporary_completed"]),
                        (_("expired"), t["temporary_expired"]),
                        (_("refunded"), t["temporary_refunded"]),
                    ],
                    title=_("Temporary accounts this day (GP §5(1)-(2))"),
                ),
                charts.hbars(
                    [
                        (
                            _("{queue} ({count} open)").format(queue=_(k.replace("_", " ")), count=v["count"]),
                            v["oldest_days"],
                        )
                        for k, v in queues.items()
                    ],
                    unit=" d",
                    title=_("Queues: oldest open item at day end"),
                ),
            ],
        )
        with timezone.override(clock.PRAGUE):
            return TemplateResponse(request, "admin/reports/daily.html", context).render()

    def period_view(self, request: HttpRequest) -> HttpResponse:
        text = request.GET.get("period") or f"{clock.business_date():%Y-%m}"
        try:
            period = figures.parse_period(text)
        except ValueError:
            return HttpResponse(
                f"period {text[:20]}: YYYY-MM-DD, YYYY-MM or YYYY-Qn, from {clock.EARLIEST_DAY} to a year after today",
                status=400,
                content_type="text/plain; charset=utf-8",
            )
        rep = selectors.period_report(period)
        kind = {"month": _("Monthly report"), "quarter": _("Tax period (calendar quarter)"), "day": _("Day")}[
            period.kind
        ]
        context = self._context(
            request,
            f"{kind} {period.label}",
            rep=rep,
            period=period,
            money_rows=_money_rows(rep["totals"]),
            moves_rows=_moves_rows(selectors.money_moves(period)),
            count_rows=_count_rows(rep["totals"]),
            games=_games(rep["games"]),
            charts=[
                charts.bars(
                    [d["day"][5:] for d in rep["daily"]],
                    [d["ggr"] / 100 for d in rep["daily"]],
                    unit=" Kč",
                    title=_("Gross gaming revenue per day, {period} (Kč)").format(period=period.label),
                ),
                charts.rtp_intervals(
                    rep["games"], title=_("Actual against declared RTP per game, {period}").format(period=period.label)
                ),
            ],
        )
        return TemplateResponse(request, "admin/reports/period.html", context).render()

    def csv_view(self, request: HttpRequest) -> HttpResponse:
        text = request.GET.get("period") or clock.business_date().isoformat()
        try:
            period = figures.parse_period(text)
        except ValueError:
            return HttpResponse("period: YYYY-MM-DD, YYYY-MM or YYYY-Qn", status=400, content_type="text/plain")
        resp = HttpResponse(selectors.period_csv(period), content_type="text/csv; charset=utf-8")
        resp["Content-Disposition"] = f'attachment; filename="report-{period.label}.csv"'
        return resp

    def recompute_view(self, request: HttpRequest) -> HttpResponse:
        """Recompute the day's report now from the live rounds and ledger (the job's own computation, audited as
        ``reports.day_computed`` with the staff member as actor); a day whose records are archived is refused
        (``reports.day_archived``) and keeps its stored figures."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        day = self._day(request)
        try:
            report = services.reports_compute_day(day=day, actor=Actor.staff(request.user, RECOMPUTE))
        except DomainError as exc:
            self.message_user(request, domain_error_text(exc), messages.ERROR)
        else:
            self.message_user(
                request,
                gettext("The report of {day} was recomputed: {rounds} rounds, GGR {ggr}.").format(
                    day=day.isoformat(), rounds=report.rounds, ggr=czk(report.ggr)
                ),
                messages.SUCCESS,
            )
        return HttpResponseRedirect(f"{reverse('admin:reports_dayreport_daily')}?day={day.isoformat()}")

    def record_view(self, request: HttpRequest) -> HttpResponse | FileResponse:
        day = self._day(request)
        try:
            path = seal.export_day(day=day)
        except DomainError as exc:
            return HttpResponse(f"{exc.code}: {exc.message_en}", status=exc.status, content_type="text/plain")
        data = path.read_bytes()
        shutil.rmtree(path.parent, ignore_errors=True)
        return FileResponse(iter([data]), content_type="application/xml", as_attachment=True, filename=path.name)

    def verify_view(self, request: HttpRequest) -> HttpResponse:
        """Builds the day's sealed record as the download would, then verifies it against the operator's
        certificate and the XSD and shows the result."""
        day = self._day(request)
        problem, result, size = "", None, 0
        try:
            path = seal.export_day(day=day)
        except DomainError as exc:
            problem = f"{exc.code}: {exc.message_en}"
        else:
            size = path.stat().st_size
            result = seal.verify(path)
            shutil.rmtree(path.parent, ignore_errors=True)
        context = self._context(
            request,
            _("Regulator's record %(day)s: verification") % {"day": day.isoformat()},
            day=day,
            result=result,
            problem=problem,
            size=size,
            schema=record.SCHEMA.name,
        )
        return TemplateResponse(request, "admin/reports/verify.html", context).render()
