"""The running counters' writes: the (player, kind) state lock, day/month totals, hourly-loss minute buckets.

A stake decision reads and writes a fixed number of rows whatever the player's history (see models.py and
docs/limits.md "Counters"); ``manage.py limits_reconcile`` proves the counters equal the ledger of settled
bets. The reads of these counters are :func:`limits.selectors.period_totals` and
:func:`limits.selectors.hourly_loss`.
"""
from __future__ import annotations

from datetime import date, datetime

from django.db import connection

from accounts.models import Player
from core import clock
from limits.models import MinuteBucket, PlayerKindState
from limits.rules import BUCKET_RETENTION, day_key, minute_of, month_key


def kind_state_lock(player: Player, kind: str) -> PlayerKindState:
    """Lock (creating if needed) the (player, kind) state row: every limit decision of the kind waits here.

    FOR NO KEY UPDATE: the row is updated, never re-keyed or deleted."""
    qs = PlayerKindState.objects.select_for_update(no_key=True)
    state = qs.filter(player=player, kind=kind).first()
    if state is None:
        PlayerKindState.objects.bulk_create([PlayerKindState(player=player, kind=kind)], ignore_conflicts=True)
        state = qs.get(player=player, kind=kind)
    return state


_PERIOD_UPSERT = """
INSERT INTO limits_periodtotal
    (player_id, kind, period, start, stakes_placed, bets_placed, stakes_decided, wins_decided, bets_decided)
VALUES {values}
ON CONFLICT (player_id, kind, period, start) DO UPDATE SET
    stakes_placed = limits_periodtotal.stakes_placed + EXCLUDED.stakes_placed,
    bets_placed = limits_periodtotal.bets_placed + EXCLUDED.bets_placed,
    stakes_decided = limits_periodtotal.stakes_decided + EXCLUDED.stakes_decided,
    wins_decided = limits_periodtotal.wins_decided + EXCLUDED.wins_decided,
    bets_decided = limits_periodtotal.bets_decided + EXCLUDED.bets_decided
"""

# In time order: the new events follow the bucket's earlier ones, so every earlier tail grows by their net.
_BUCKET_UPSERT_ORDERED = """
INSERT INTO limits_minutebucket (player_id, kind, minute, stakes, wins, peak)
VALUES {values}
ON CONFLICT (player_id, kind, minute) DO UPDATE SET
    stakes = limits_minutebucket.stakes + EXCLUDED.stakes,
    wins = limits_minutebucket.wins + EXCLUDED.wins,
    peak = GREATEST(EXCLUDED.peak, limits_minutebucket.peak + EXCLUDED.stakes - EXCLUDED.wins)
"""
# Out of order (an older minute, or a stake taken back): the peak may only grow, by the stakes added.
_BUCKET_UPSERT_CONSERVATIVE = """
INSERT INTO limits_minutebucket (player_id, kind, minute, stakes, wins, peak)
VALUES {values}
ON CONFLICT (player_id, kind, minute) DO UPDATE SET
    stakes = limits_minutebucket.stakes + EXCLUDED.stakes,
    wins = limits_minutebucket.wins + EXCLUDED.wins,
    peak = limits_minutebucket.peak + EXCLUDED.peak
"""


def periods_bump(player_id: int, kind: str, at: datetime, *, stakes_placed: int = 0, bets_placed: int = 0,
                 stakes_decided: int = 0, wins_decided: int = 0, bets_decided: int = 0) -> None:
    """Add to the day and month totals of the Prague day/month containing ``at`` (one statement)."""
    figures = [stakes_placed, bets_placed, stakes_decided, wins_decided, bets_decided]
    params: list[int | str | date] = [player_id, kind, "day", day_key(at), *figures, player_id, kind, "month", month_key(at), *figures]
    row = "(%s, %s, %s, %s, %s, %s, %s, %s, %s)"
    with connection.cursor() as cur:
        cur.execute(_PERIOD_UPSERT.format(values=f"{row}, {row}"), params)


def _tail_peak(events: list[tuple[int, int]]) -> int:
    """The largest net loss of a tail of ``events`` ((stakes, wins) in time order; the empty tail counts as 0)."""
    acc = peak = 0
    for stakes, wins in reversed(events):
        acc -= wins
        peak = max(peak, acc)
        acc += stakes
        peak = max(peak, acc)
    return peak


def buckets_bump(state: PlayerKindState, entries: list[tuple[datetime, int, int]]) -> None:
    """Record hourly-loss events ``(at, stakes, wins)``, given in the order they happened, in minute buckets.

    Events of a minute not older than the newest minute written so far are "in order": the bucket's peak
    (largest tail loss) stays exact. Events into an older minute, or stakes taken back (negative), update the
    totals but may only raise the peak (by the stakes added): never below the real figure. Updates
    ``state.last_bucket_minute``; the caller saves the state row. One statement (two at most)."""
    groups: dict[datetime, list[tuple[int, int]]] = {}
    for at, stakes, wins in entries:
        if stakes or wins:
            groups.setdefault(minute_of(at), []).append((stakes, wins))
    if not groups:
        return
    newest = state.last_bucket_minute
    ordered: list[tuple[datetime, int, int, int]] = []
    conservative: list[tuple[datetime, int, int, int]] = []
    for minute, events in sorted(groups.items()):
        stakes = sum(e[0] for e in events)
        wins = sum(e[1] for e in events)
        if (newest is None or minute >= newest) and all(e[0] >= 0 for e in events):
            ordered.append((minute, stakes, wins, _tail_peak(events)))
        else:
            conservative.append((minute, stakes, wins, sum(max(0, e[0]) for e in events)))
    for sql, rows in ((_BUCKET_UPSERT_ORDERED, ordered), (_BUCKET_UPSERT_CONSERVATIVE, conservative)):
        if not rows:
            continue
        params: list[int | str | datetime] = []
        for minute, stakes, wins, peak in rows:
            params += [state.player_id, state.kind, minute, stakes, wins, peak]
        with connection.cursor() as cur:
            cur.execute(sql.format(values=", ".join(["(%s, %s, %s, %s, %s, %s)"] * len(rows))), params)
    top = max(groups)
    if newest is None or top > newest:
        state.last_bucket_minute = top


def minute_buckets_prune(*, now: datetime | None = None) -> int:
    """Delete minute buckets older than 2 hours (the hourly-loss check reads the last 61 minutes)."""
    now = now or clock.now()
    deleted, _ = MinuteBucket.objects.filter(minute__lt=minute_of(now) - BUCKET_RETENTION).delete()
    return deleted
