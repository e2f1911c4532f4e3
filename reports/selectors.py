"""Reads of the report rows (never of rounds): a day, a month or a tax period (calendar quarter), per game and in
total. Additive figures are sums of the days' rows; the RTP and its interval are recomputed from the summed
moments; stock figures (the pools' liability, complaints overdue, queues) are the last day's."""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal
from typing import Any

from django.db.models import Count, QuerySet, Sum

from reports import figures
from reports.db import read_alias
from reports.figures import Period
from reports.models import DayReport, GameDayReport
from reports.services import day_range
from wallet.models import LedgerTransaction

ADDITIVE = (
    "rounds",
    "stakes",
    "stakes_returned",
    "wins",
    "jackpot_wins",
    "wins_reclaimed",
    "ggr",
    "ledger_stakes",
    "ledger_wins",
    "jackpot_contributed_micro",
    "jackpot_awarded",
    "jackpot_awards_paid",
    "players_registered",
    "temporary_opened",
    "temporary_completed",
    "temporary_expired",
    "temporary_refunded",
    "breaks_enforced",
    "exclusions",
    "exclusion_register_hits",
    "panic_presses",
    "complaints_received",
    "complaints_answered_in_time",
    "complaints_answered_late",
)
STOCK = ("jackpot_liability", "complaints_overdue")
GAME_ADDITIVE = (
    "rounds",
    "stakes",
    "stakes_returned",
    "wins",
    "jackpot_wins",
    "wins_reclaimed",
    "ggr",
    "decided_stakes",
    "decided_base_wins",
    "sum_s2",
    "sum_w2",
    "sum_sw",
)


def days(limit: int = 400) -> QuerySet[DayReport]:
    return DayReport.objects.order_by("-day")[:limit]


def day_rows(period: Period) -> list[DayReport]:
    return list(DayReport.objects.filter(day__gte=period.first, day__lte=period.last).order_by("day"))


def _merge_counts(target: dict[str, Any], more: dict[str, Any]) -> None:
    for k, v in more.items():
        if isinstance(v, dict):
            _merge_counts(target.setdefault(k, {}), v)
        else:
            target[k] = target.get(k, 0) + v


def game_figures(period: Period) -> list[dict[str, Any]]:
    rows = (
        GameDayReport.objects.filter(day__gte=period.first, day__lte=period.last)
        .values("game_code", "game_version", "declared_rtp")
        .annotate(**{k: Sum(k) for k in GAME_ADDITIVE})
        .order_by("game_code", "game_version")
    )
    out = []
    for g in rows:
        r = figures.rtp(
            declared=g["declared_rtp"],
            rounds=g["rounds"],
            stakes=g["decided_stakes"],
            base_wins=g["decided_base_wins"],
            s2=Decimal(g["sum_s2"]),
            w2=Decimal(g["sum_w2"]),
            sw=Decimal(g["sum_sw"]),
        )
        out.append(
            {
                "game": g["game_code"],
                "version": g["game_version"],
                **{k: int(g[k]) for k in GAME_ADDITIVE if not k.startswith("sum_")},
                "rtp_declared": str(r.declared),
                "rtp_actual": None if r.actual is None else str(r.actual),
                "rtp_low": None if r.low is None else str(r.low),
                "rtp_high": None if r.high is None else str(r.high),
                "rtp_outside": r.outside,
            }
        )
    return out


def period_report(period: Period) -> dict[str, Any]:
    """The figures of ``period`` as plain data (the API's JSON, the CSV, the admin pages)."""
    rows = day_rows(period)
    totals: dict[str, Any] = {k: sum(getattr(r, k) for r in rows) for k in ADDITIVE}
    last = rows[-1] if rows else None
    for k in STOCK:
        totals[k] = getattr(last, k) if last else 0
    limits: dict[str, Any] = {}
    aml: dict[str, Any] = {}
    for r in rows:
        _merge_counts(limits, r.limits)
        _merge_counts(aml, r.aml)
    totals["limits"] = limits
    totals["aml"] = aml
    totals["queues"] = last.queues if last else {}
    totals["ledger_agrees"] = all(r.ledger_agrees for r in rows)
    return {
        "period": period.kind,
        "label": period.label,
        "first": period.first.isoformat(),
        "last": period.last.isoformat(),
        "days_computed": len(rows),
        "days_missing": [d.isoformat() for d in period.days() if d not in {r.day for r in rows}],
        "computed_at": max((r.computed_at for r in rows), default=None),
        "totals": totals,
        "games": game_figures(period),
        "daily": [
            {
                "day": r.day.isoformat(),
                "rounds": r.rounds,
                "stakes": r.stakes,
                "wins": r.wins,
                "ggr": r.ggr,
                "temporary_opened": r.temporary_opened,
                "temporary_completed": r.temporary_completed,
                "temporary_expired": r.temporary_expired,
                "temporary_refunded": r.temporary_refunded,
            }
            for r in rows
        ],
    }


CSV_GAME_COLUMNS = (
    "game",
    "version",
    "rounds",
    "stakes",
    "stakes_returned",
    "wins",
    "jackpot_wins",
    "wins_reclaimed",
    "ggr",
    "rtp_declared",
    "rtp_actual",
    "rtp_low",
    "rtp_high",
    "rtp_outside",
)


def period_csv(period: Period) -> str:
    """Per game and a total line (amounts in haléře), then the day-by-day totals."""
    rep = period_report(period)
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["period", rep["label"], "first", rep["first"], "last", rep["last"], "amounts", "haléře (CZK/100)"])
    w.writerow(CSV_GAME_COLUMNS)
    for g in rep["games"]:
        w.writerow([g[c] for c in CSV_GAME_COLUMNS])
    t = rep["totals"]
    w.writerow(
        [
            "TOTAL",
            "",
            t["rounds"],
            t["stakes"],
            t["stakes_returned"],
            t["wins"],
            t["jackpot_wins"],
            t["wins_reclaimed"],
            t["ggr"],
            "",
            "",
            "",
            "",
            "",
        ]
    )
    w.writerow([])
    w.writerow(["figure", "value"])
    for k in (*ADDITIVE, *STOCK):
        w.writerow([k, t[k]])
    w.writerow([])
    w.writerow(["day", "rounds", "stakes", "wins", "ggr"])
    for d in rep["daily"]:
        w.writerow([d["day"], d["rounds"], d["stakes"], d["wins"], d["ggr"]])
    return buf.getvalue()


def latest_day() -> date | None:
    return DayReport.objects.order_by("-day").values_list("day", flat=True).first()


#: the money that crossed the platform's edge or was corrected by staff, by ledger posting kind (wallet), as the
#: daily and period reports list it beside the rounds
MONEY_MOVES: tuple[tuple[str, str], ...] = (
    ("deposit", "Deposits credited"),
    ("branch_cash_in", "Cash deposits at a branch (GP §5(12))"),
    ("deposit_return", "Deposits returned (not credited)"),
    ("deposit_reversal", "Credited deposits reversed by the bank"),
    ("withdrawal_hold", "Withdrawals requested (funds held)"),
    ("withdrawal_send", "Withdrawals sent"),
    ("withdrawal_release", "Withdrawals cancelled or failed (funds released)"),
    ("withdrawal_return", "Withdrawals returned by the provider"),
    ("branch_cash_out", "Cash withdrawals at a branch (GP §5(12))"),
    ("payout_send", "Payouts sent (refunds, closures)"),
    ("adjustment", "Adjustments (corrections, complaint remedies)"),
    ("win_deduction", "Wins credited in error deducted (GP §7(7), §10(4))"),
    ("fee", "Fees (GP §8(6))"),
)


def money_moves(period: Period) -> list[dict[str, Any]]:
    """For each kind of ``MONEY_MOVES``: how many postings and their total (haléře) in ``period``'s Prague days,
    read from the ledger now (not from the stored day rows)."""

    start, end = day_range(period.first)[0], day_range(period.last)[1]
    found = {
        r["kind"]: r
        for r in LedgerTransaction.objects.using(read_alias())
        .filter(created_at__gte=start, created_at__lt=end, kind__in=[k for k, _ in MONEY_MOVES])
        .values("kind")
        .annotate(total=Sum("amount"), count=Count("id"))
    }
    return [
        {
            "kind": kind,
            "label": label,
            "count": int(found.get(kind, {}).get("count") or 0),
            "total": int(found.get(kind, {}).get("total") or 0),
        }
        for kind, label in MONEY_MOVES
    ]
