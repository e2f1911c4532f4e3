"""The report job: one operating day's figures computed with SQL aggregates (Django ORM) from the rounds, the ledger
and the other apps' records, read through ``reports.db.read_alias()`` (the replica where configured), and written to
``DayReport`` / ``GameDayReport`` replacing the day's rows in one transaction (idempotent). Definitions:
docs/reports.md."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, DecimalField, ExpressionWrapper, F, Min, Q, QuerySet, Sum, Value
from django.db.models.functions import Cast, Coalesce

from accounts.models import Player, RegisterCheck
from aml.models import ComplianceCase
from complaints.models import Complaint
from core import clock, partitioning
from core.audit import Actor, audit_record
from games.models import Game, Round
from jackpots.models import Award, Contribution, Pending
from limits.models import PanicExclusion, SelfLimitChange, SelfListingRequest, StakeRefusal
from reports import errors
from reports import ledger_queries as reports_sql
from reports.db import read_alias
from reports.models import DayReport, GameDayReport
from wallet.archived_totals import carried_total
from wallet.models import Entry, LedgerAccount, LedgerTransaction, Payout

BREAK_CODE = "limits.break_required"  # limits.errors.BREAK_REQUIRED's code (GP §6(2), the 120/15 break)
_NUM: DecimalField[Any, Any] = DecimalField(max_digits=40, decimal_places=0)
_VOID = (Round.Status.VOIDED, Round.Status.REFUNDED)


def day_range(d: date) -> tuple[datetime, datetime]:
    """[start, end) of the Prague operating day ``d`` in UTC (23 or 25 hours on DST days)."""
    return clock.day_bounds(datetime.combine(d, time(12), tzinfo=clock.PRAGUE))


def _within(field: str, start: datetime, end: datetime) -> Q:
    return Q(**{f"{field}__gte": start, f"{field}__lt": end})


def _sum(expr: Any, q: Q) -> Coalesce:
    return Coalesce(Sum(expr, filter=q), Value(0))


def _moment(expr: Any, q: Q) -> Coalesce:
    """A sum of products of haléř amounts, in numeric (bigint would overflow over a day of large wins)."""
    return Coalesce(Sum(expr, filter=q, output_field=_NUM), Value(0, output_field=_NUM), output_field=_NUM)


def _num(field: str) -> Any:
    return ExpressionWrapper(Cast(F(field), _NUM), output_field=_NUM)


def _round_figures(alias: str, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """Per game version, in ONE statement over the rounds that started, settled or were voided in the day."""
    started, settled, voided = (
        _within("started_at", start, end),
        _within("settled_at", start, end),
        _within("voided_at", start, end),
    )
    plain_void = Q(status__in=_VOID) & ~Q(void_reason=Round.VoidReason.PROXY)
    decided = settled & ~plain_void  # a proxy-voided bet was decided; a plain void never was
    base = F("win") - F("jackpot_win")
    base_num = _num("win") - _num("jackpot_win")
    rows = (
        Round.objects.using(alias)
        .filter(play_money=False)
        .filter(started | settled | voided)
        .values("game_code", "game_version")
        .annotate(
            stakes=_sum("stake", started),
            stakes_returned=_sum("stake", (settled & plain_void) | (voided & Q(void_reason=Round.VoidReason.PROXY))),
            wins=_sum("win", settled),
            jackpot_wins=_sum("jackpot_win", settled),
            wins_reclaimed=_sum("win", voided & Q(void_reason=Round.VoidReason.PROXY)),
            rounds=Count("pk", filter=decided),
            decided_stakes=_sum("stake", decided),
            decided_base_wins=_sum(base, decided),
            sum_s2=_moment(_num("stake") * _num("stake"), decided),
            sum_w2=_moment(base_num * base_num, decided),
            sum_sw=_moment(_num("stake") * base_num, decided),
        )
        .order_by("game_code", "game_version")
    )
    return list(rows)


def _ledger(alias: str, start: datetime, end: datetime) -> dict[str, int]:
    kinds = LedgerTransaction.Kind
    day = LedgerTransaction.objects.using(alias).filter(_within("created_at", start, end))
    return day.aggregate(stakes=_sum("amount", Q(kind=kinds.STAKE)), wins=_sum("amount", Q(kind=kinds.WIN)))


_GAME_KINDS = ["stake", "win", "refund", "win_deduction", "win_forfeit"]
_MONEY_FIELDS = ("stakes", "stakes_returned", "wins", "jackpot_wins", "wins_reclaimed")


def _ledger_game_figures(alias: str, start: datetime, end: datetime) -> dict[tuple[str, int] | None, dict[str, int]]:
    """The tax base's parts per game version (None: postings tied to no round), by posting day: stakes debited,
    stakes returned, wins credited (jackpot part apart), wins taken back (deductions, forfeited held wins)."""
    out: dict[tuple[str, int] | None, dict[str, int]] = {}
    for code, version, kind, jackpot, net in reports_sql.ledger_game_rows(alias, start, end, _GAME_KINDS):
        key = (code, version) if code is not None else None
        f = out.setdefault(key, dict.fromkeys(_MONEY_FIELDS, 0))
        net = int(net)
        if kind == "stake":
            f["stakes"] -= net
        elif kind == "win":
            f["wins"] += net
            f["jackpot_wins"] += net if jackpot else 0
        elif kind == "refund":
            f["stakes_returned"] += net
        else:  # win_deduction, win_forfeit: the player's accounts lose what was won
            f["wins_reclaimed"] -= net
    return out


def player_balances(alias: str, end: datetime) -> list[tuple[int, int, str, int]]:
    """Each player ledger account's balance at ``end`` (``reports/sql.py`` player_balance_rows)."""
    return reports_sql.player_balance_rows(alias, end)


def _count(qs: QuerySet[Any]) -> int:
    return qs.count()


def _by(qs: QuerySet[Any], *fields: str) -> dict[str, Any]:
    out: dict[str, Any] = defaultdict(dict) if len(fields) > 1 else {}
    for row in qs.values(*fields).annotate(n=Count("pk")).order_by(*fields):
        if len(fields) == 1:
            out[row[fields[0]]] = row["n"]
        else:
            out[row[fields[0]]][row[fields[1]]] = row["n"]
    return dict(out)


def _queue(qs: QuerySet[Any], field: str, end: datetime) -> dict[str, Any]:
    agg = qs.aggregate(n=Count("pk"), oldest=Min(field))
    age = round((end - agg["oldest"]).total_seconds() / 86400, 1) if agg["oldest"] else 0
    return {"count": agg["n"], "oldest_days": age}


def _other_figures(alias: str, start: datetime, end: datetime) -> dict[str, Any]:
    players = Player.objects.using(alias)
    jp_entries = Entry.objects.using(alias).filter(account__kind=LedgerAccount.Kind.JACKPOT, created_at__lt=end)
    contributed = sum(
        m.objects.using(alias)
        .filter(_within("created_at", start, end))
        .aggregate(x=_sum(F("active_micro") + F("future_micro"), Q()))["x"]
        for m in (Contribution, Pending)
    )
    awards = (
        Award.objects.using(alias)
        .filter(_within("decided_at", start, end))
        .aggregate(amount=_sum("amount", Q()), paid=_sum("paid", Q()))
    )
    cases = ComplianceCase.objects.using(alias)
    complaints = Complaint.objects.using(alias)
    answered = complaints.filter(_within("answered_at", start, end))
    open_complaints = complaints.filter(received_at__lt=end).filter(
        Q(answered_at__isnull=True) | Q(answered_at__gte=end)
    )
    open_cases = cases.filter(opened_at__lt=end).filter(Q(decided_at__isnull=True) | Q(decided_at__gte=end))
    return {
        "jackpot_contributed_micro": contributed,
        "jackpot_awarded": awards["amount"],
        "jackpot_awards_paid": awards["paid"],
        # the pools' balances at the end: every entry before it, the archived months' carried totals included
        "jackpot_liability": jp_entries.aggregate(x=_sum("amount", Q()))["x"]
        + carried_total(account_kind=LedgerAccount.Kind.JACKPOT, before=end, using=alias),
        "players_registered": _count(players.filter(_within("created_at", start, end))),
        "temporary_opened": _count(players.filter(_within("temporary_activated_at", start, end))),
        "temporary_completed": _count(players.filter(_within("completed_at", start, end))),
        "temporary_expired": _count(
            players.filter(_within("status_changed_at", start, end), status=Player.Status.EXPIRED)
        ),
        "temporary_refunded": _count(
            Payout.objects.using(alias).filter(_within("completed_at", start, end), kind=Payout.Kind.TEMPORARY_REFUND)
        ),
        "limits": _by(SelfLimitChange.objects.using(alias).filter(_within("requested_at", start, end)), "action"),
        "breaks_enforced": StakeRefusal.objects.using(alias)
        .filter(_within("refused_at", start, end), code=BREAK_CODE)
        .aggregate(n=Count("player_id", distinct=True))["n"],
        "exclusions": _count(SelfListingRequest.objects.using(alias).filter(_within("requested_at", start, end))),
        "exclusion_register_hits": _count(
            RegisterCheck.objects.using(alias).filter(
                _within("checked_at", start, end),
                register=RegisterCheck.Register.EXCLUSION,
                result=RegisterCheck.Result.LISTED,
            )
        ),
        "panic_presses": _count(PanicExclusion.objects.using(alias).filter(_within("started_at", start, end))),
        "aml": {
            "opened": _by(cases.filter(_within("opened_at", start, end)), "kind"),
            "decided": _by(cases.filter(_within("decided_at", start, end)), "kind", "status"),
        },
        "complaints_received": _count(complaints.filter(_within("received_at", start, end))),
        "complaints_answered_in_time": _count(answered.filter(answered_at__lt=F("respond_by"))),
        "complaints_answered_late": _count(answered.filter(answered_at__gte=F("respond_by"))),
        "complaints_overdue": _count(open_complaints.filter(respond_by__lte=end)),
        "queues": {
            "complaints": _queue(open_complaints, "received_at", end),
            "aml_cases": _queue(open_cases, "opened_at", end),
        },
    }


def reports_compute_day(*, day: date, actor: Actor | None = None) -> DayReport:
    """Compute ``day``'s report rows and replace the stored ones in one transaction (safe to run twice). A day
    whose rounds or ledger records are archived is refused (``reports.day_archived``): recomputing it from the live
    rows would overwrite its figures with zeros."""
    alias = read_alias()
    start, end = day_range(day)
    _refuse_archived(day, start, end)
    games = _round_figures(alias, start, end)
    money = _ledger_game_figures(alias, start, end)
    ledger = _ledger(alias, start, end)
    other = _other_figures(alias, start, end)
    declared = {(g.code, g.version): g.rtp for g in Game.objects.using(alias).only("code", "version", "rtp")}
    # the money of each game version comes from the ledger by posting day (the tax base); the rounds give the count
    # of decided rounds and the RTP sample
    by_game = {(g["game_code"], g["game_version"]): g for g in games}
    for key, figures_ in money.items():
        if key is None:
            continue
        row = by_game.setdefault(
            key,
            {
                "game_code": key[0],
                "game_version": key[1],
                "rounds": 0,
                "decided_stakes": 0,
                "decided_base_wins": 0,
                "sum_s2": 0,
                "sum_w2": 0,
                "sum_sw": 0,
            },
        )
        row.update(figures_)
    for row in by_game.values():
        if (row["game_code"], row["game_version"]) not in money:
            row.update(dict.fromkeys(_MONEY_FIELDS, 0))
    games = sorted(by_game.values(), key=lambda g: (g["game_code"], g["game_version"]))
    unattributed = money.get(None, dict.fromkeys(_MONEY_FIELDS, 0))
    totals = {k: sum(int(g[k]) for g in games) + unattributed.get(k, 0) for k in _MONEY_FIELDS}
    totals["rounds"] = sum(int(g["rounds"]) for g in games)
    totals["ggr"] = totals["stakes"] - totals["stakes_returned"] - totals["wins"] + totals["wins_reclaimed"]
    balances: dict[str, dict[str, int]] = {}
    if end <= clock.now():  # once the day is over
        for _acc, _player, kind, bal in player_balances(alias, end):
            b = balances.setdefault(kind, {"accounts": 0, "total": 0})
            b["accounts"] += 1
            b["total"] += bal
    with transaction.atomic(using="default"):
        GameDayReport.objects.using("default").filter(day=day).delete()
        DayReport.objects.using("default").filter(day=day).delete()
        report = DayReport.objects.using("default").create(
            day=day,
            computed_at=clock.now(),
            read_from=alias,
            **totals,
            ledger_stakes=ledger["stakes"],
            ledger_wins=ledger["wins"],
            ledger_agrees=(ledger["stakes"] == totals["stakes"] and ledger["wins"] == totals["wins"]),
            player_balances=balances,
            **other,
        )
        GameDayReport.objects.using("default").bulk_create(
            [
                GameDayReport(
                    day=day,
                    game_code=g["game_code"],
                    game_version=g["game_version"],
                    declared_rtp=declared[(g["game_code"], g["game_version"])],
                    ggr=g["stakes"] - g["stakes_returned"] - g["wins"] + g["wins_reclaimed"],
                    **{k: v for k, v in g.items() if k not in ("game_code", "game_version")},
                )
                for g in games
            ]
        )
        audit_record(
            actor=actor or Actor.system("reports"),
            action="reports.day_computed",
            obj=report,
            new={
                "day": day.isoformat(),
                "rounds": report.rounds,
                "ggr": report.ggr,
                "ledger_agrees": report.ledger_agrees,
                "read_from": alias,
            },
        )
    return report


def _refuse_archived(day: date, start: datetime, end: datetime) -> None:
    """The rows of a day live in the month partitions of the instants that bound it (ids carry the month they were
    written in, core/partitioning.py); a day with one of them archived is not recomputed."""
    months = {
        partitioning.month_index(start.astimezone(UTC).date()),
        partitioning.month_index((end - timedelta(microseconds=1)).astimezone(UTC).date()),
    }
    tables = [m._meta.db_table for m in (Round, LedgerTransaction, Entry)]
    hit = sorted(t for t in tables if months & partitioning.archived_months(connection, t))
    if hit:
        raise errors.DAY_ARCHIVED(day=day.isoformat(), tables=", ".join(hit))


def reports_compute_range(*, first: date, last: date, actor: Actor | None = None) -> list[DayReport]:
    """Every day from ``first`` to ``last`` inclusive, each in its own transaction."""
    out, d = [], first
    while d <= last:
        out.append(reports_compute_day(day=d, actor=actor))
        d += timedelta(days=1)
    return out
