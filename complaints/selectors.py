"""Complaint selectors (reads): the player's own complaints, the staff's round recall, the monthly report."""

from __future__ import annotations

import logging
import re
import statistics
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.db.models import Prefetch, Q, QuerySet

from complaints import errors, records
from complaints.errors import error
from complaints.models import Complaint, ComplaintItem
from core import clock
from core.db_router import replica_reads
from core.home import QueueState, queue_of

if TYPE_CHECKING:
    from accounts.models import Player

logger = logging.getLogger("complaints.selectors")
REFERENCE = re.compile(r"^RK-\d{4}-\d{6,12}$")


def complaints_for_player(player: Player) -> QuerySet[Complaint]:
    """The player's own complaints, newest first (another player's complaints never appear)."""
    return (
        Complaint.objects.filter(player=player)
        .select_related("player__user")
        .prefetch_related("items", "attachments", "messages")
        .order_by("-received_at", "-id")
    )


def complaint_for_player(player: Player, reference: str) -> Complaint:
    """One of the player's own complaints by its reference; anyone else's is not found (404)."""
    reference = str(reference).strip().upper()
    c = complaints_for_player(player).filter(reference=reference).first() if REFERENCE.match(reference) else None
    if c is None:
        raise error(errors.COMPLAINT_NOT_FOUND, reference=reference)
    return c


def complaint_round_recalls(complaint: Complaint) -> list[dict[str, Any]]:
    """The full recall of every round the complaint names (staff view, GP §11(5)), in the order named, with the
    games app's replay check (the round re-run from its stored draws and actions).

    A round that does not exist is ``problem="round not found"``. Any other failure of the games app is logged
    with its traceback and shown to staff as the problem of that round (the case page with the rest of the
    complaint stays usable); it is never shown as a passed check."""
    out = []
    for item in complaint.items.filter(kind=ComplaintItem.Kind.ROUND).order_by("id"):
        replay = None
        try:
            recall = records.any_round(item.object_id)
            problem = "" if recall is not None else "round not found"
            if recall is not None:
                replay = records.round_replay(complaint.player, item.object_id)
        except Exception as exc:  # logged, and shown to staff as this round's problem
            logger.exception(
                "complaint round recall failed", extra={"complaint": complaint.pk, "round_id": item.object_id}
            )
            recall, problem = None, f"{exc.__class__.__name__}: {exc}"
        out.append({"item": item, "round_id": item.object_id, "recall": recall, "replay": replay, "problem": problem})
    return out


def overdue_open() -> QuerySet[Complaint]:
    """Open complaints past their answer deadline (GP §11(1))."""
    return Complaint.objects.filter(status__in=Complaint.OPEN_STATUSES, respond_by__lte=clock.now())


# --- the monthly report ------------------------------------------------------------------------------------------
def parse_month(value: str | date | None) -> date:
    """'2026-11' -> date(2026, 11, 1); a date -> the first of its month; None -> the current Prague month."""
    if value is None or value == "":
        return clock.business_date().replace(day=1)
    if isinstance(value, date):
        return value.replace(day=1)
    try:
        year, month = str(value).strip().split("-")
        first = date(int(year), int(month), 1)
    except (ValueError, TypeError):
        raise error(errors.REPORT_MONTH_INVALID, month=str(value)[:20])
    if not clock.day_in_range(first):
        raise error(errors.REPORT_MONTH_INVALID, month=str(value)[:20])
    return first


def _days(seconds: float) -> float:
    return round(seconds / 86400, 2)


def complaints_report(month: str | date | None = None, *, now: datetime | None = None) -> dict[str, Any]:
    """Complaints received in one Prague calendar month: by reason, by outcome, by kind and channel, the
    reason x outcome table, late filings, the time to answer (median and maximum, over complaints answered by
    staff: automatic answers to late filings are counted apart so they do not flatter the median) and how many
    missed the 30-day term (answered after ``respond_by`` or still open past it at ``now``)."""
    now = now or clock.now()
    first = parse_month(month)
    start, end = clock.month_bounds(datetime.combine(first, datetime.min.time(), tzinfo=clock.PRAGUE))
    with replica_reads():  # a monthly report may lag: the replica when there is one (core/db_router.py)
        rows = list(
            Complaint.objects.filter(received_at__gte=start, received_at__lt=end)
            .prefetch_related(Prefetch("items"))
            .order_by("received_at")
        )
    by_reason: dict[str, int] = {r: 0 for r in Complaint.Reason.values}
    by_outcome: dict[str, int] = {o or "open": 0 for o in Complaint.Outcome.values}
    by_kind: dict[str, int] = {k: 0 for k in Complaint.Kind.values}
    by_channel: dict[str, int] = {k: 0 for k in Complaint.Channel.values}
    table: dict[str, dict[str, int]] = {}
    durations: list[float] = []
    overdue = overdue_answered = overdue_open_now = late_filed = open_count = 0
    for c in rows:
        by_reason[c.reason] += 1
        key = c.outcome or "open"
        by_outcome[key] += 1
        by_kind[c.kind] += 1
        by_channel[c.channel] += 1
        table.setdefault(c.reason, {}).setdefault(key, 0)
        table[c.reason][key] += 1
        late_filed += c.late
        if c.answered_at is None:
            open_count += 1
            if now >= c.respond_by:
                overdue += 1
                overdue_open_now += 1
        else:
            if c.answered_at >= c.respond_by:
                overdue += 1
                overdue_answered += 1
            if c.outcome != Complaint.Outcome.NOT_JUSTIFIED_LATE:
                durations.append((c.answered_at - c.received_at).total_seconds())
    return {
        "month": f"{first:%Y-%m}",
        "period": {"start": start, "end": end, "time_zone": "Europe/Prague"},
        "generated_at": now,
        "received": len(rows),
        "open": open_count,
        "late_filed": late_filed,
        "by_reason": by_reason,
        "by_outcome": by_outcome,
        "by_kind": by_kind,
        "by_channel": by_channel,
        "reason_by_outcome": table,
        "time_to_answer": {
            "answered": len(durations),
            "median_days": _days(statistics.median(durations)) if durations else None,
            "max_days": _days(max(durations)) if durations else None,
            "median_seconds": int(statistics.median(durations)) if durations else None,
            "max_seconds": int(max(durations)) if durations else None,
        },
        "overdue": overdue,
        "overdue_answered_late": overdue_answered,
        "overdue_open_now": overdue_open_now,
    }


# The back office ------------------------------------------------------------------------------------

#: how many days before its 30-day deadline (GP §11(1)) an open complaint is counted as "near its deadline"
NEAR_DEADLINE_DAYS = 7


def complaints_recent(player: Player, *, limit: int = 10) -> list[Complaint]:
    return list(Complaint.objects.filter(player_id=player.pk).order_by("-received_at", "-id")[:limit])


def complaint_player_id(reference: str) -> int | None:
    """The player of the complaint with this reference (RK-YYYY-NNNNNN), exact match."""
    ref = reference.strip().upper()
    if not REFERENCE.match(ref):
        return None
    found = Complaint.objects.filter(reference=ref).values_list("player_id", flat=True).first()
    return int(found) if found is not None else None


def complaints_near_deadline_queue() -> QueueState:
    """Open complaints whose answer is due within ``NEAR_DEADLINE_DAYS`` days (not yet overdue); the oldest is the
    earliest received."""
    now = clock.now()
    return queue_of(
        Complaint.objects.filter(
            status__in=Complaint.OPEN_STATUSES,
            respond_by__gt=now,
            respond_by__lte=now + timedelta(days=NEAR_DEADLINE_DAYS),
        ),
        "received_at",
    )


def complaints_new_queue() -> QueueState:
    """Open complaints nobody has taken yet (new, or without an assignee), from the day they arrive."""
    return queue_of(
        Complaint.objects.filter(status__in=Complaint.OPEN_STATUSES).filter(
            Q(status=Complaint.Status.NEW) | Q(assignee__isnull=True)
        ),
        "received_at",
    )


def complaints_money_queue() -> QueueState:
    """Open complaints asking for an amount: a money remedy for finance or a complaint supervisor to decide."""
    return queue_of(
        Complaint.objects.filter(status__in=Complaint.OPEN_STATUSES, remedy_amount_requested__isnull=False),
        "received_at",
    )


def complaints_overdue_queue() -> QueueState:
    """Open complaints past their answer deadline (GP §11(1))."""
    return queue_of(overdue_open(), "received_at")
