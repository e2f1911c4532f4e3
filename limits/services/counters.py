"""The running counters' writes: the (player, kind) state lock, day/month totals, hourly-loss minute buckets.

A stake decision reads and writes a fixed number of rows whatever the player's history (see models.py and
docs/limits.md "Counters"); ``manage.py limits_reconcile`` proves the counters equal the ledger of settled
bets. The reads of these counters are :func:`limits.selectors.period_totals` and
:func:`limits.selectors.hourly_loss`.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.db import connection
from django.db.models import F

from accounts.models import Player
from core import clock
from limits.models import MinuteBucket, OpenBet, PeriodTotal, PlayerKindState, SelfLimit, SettledBet
from limits.rules import BUCKET_RETENTION, MINUTE, day_key, minute_of, month_key
from limits.selectors import HourlyLoss, Totals, hourly_loss_from_buckets, hourly_window


def kind_state_lock(player: Player, kind: str) -> PlayerKindState:
    """Lock (creating if needed) the (player, kind) state row: every limit decision of the kind waits here.

    FOR NO KEY UPDATE: the row is updated, never re-keyed or deleted."""
    qs = PlayerKindState.objects.select_for_update(no_key=True)
    state = qs.filter(player=player, kind=kind).first()
    if state is None:
        PlayerKindState.objects.bulk_create([PlayerKindState(player=player, kind=kind)], ignore_conflicts=True)
        state = qs.get(player=player, kind=kind)
    return state


# Adding to the day/month totals (shared by the general path and the one-statement round path).
_PERIOD_ON_CONFLICT = """ON CONFLICT (player_id, kind, period, start) DO UPDATE SET
    stakes_placed = limits_periodtotal.stakes_placed + EXCLUDED.stakes_placed,
    bets_placed = limits_periodtotal.bets_placed + EXCLUDED.bets_placed,
    stakes_decided = limits_periodtotal.stakes_decided + EXCLUDED.stakes_decided,
    wins_decided = limits_periodtotal.wins_decided + EXCLUDED.wins_decided,
    bets_decided = limits_periodtotal.bets_decided + EXCLUDED.bets_decided"""
_PERIOD_UPSERT = """
INSERT INTO limits_periodtotal
    (player_id, kind, period, start, stakes_placed, bets_placed, stakes_decided, wins_decided, bets_decided)
VALUES {values}
""" + _PERIOD_ON_CONFLICT

# In time order: the new events follow the bucket's earlier ones, so every earlier tail grows by their net.
_BUCKET_ON_CONFLICT_ORDERED = """ON CONFLICT (player_id, kind, minute) DO UPDATE SET
    stakes = limits_minutebucket.stakes + EXCLUDED.stakes,
    wins = limits_minutebucket.wins + EXCLUDED.wins,
    peak = GREATEST(EXCLUDED.peak, limits_minutebucket.peak + EXCLUDED.stakes - EXCLUDED.wins)"""
_BUCKET_UPSERT_ORDERED = """
INSERT INTO limits_minutebucket (player_id, kind, minute, stakes, wins, peak)
VALUES {values}
""" + _BUCKET_ON_CONFLICT_ORDERED
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


def _ledger_peak(player_id: int, kind: str, minute: datetime) -> int:
    """The largest net loss of a tail of the minute's events as the ledger tells them (the stakes of the bets
    placed in it, open or decided and not voided, and the wins of the bets decided in it), in time order; events
    of the same instant are taken wins first, the order that gives the largest tails, so the figure is never
    below the real one."""
    end = minute + MINUTE
    events: list[tuple[datetime, int, int, int]] = []  # (at, 0 for a win / 1 for a stake, stakes, wins)
    bets = SettledBet.objects.filter(player_id=player_id, kind=kind, voided=False)
    for at, amount in bets.filter(placed_at__gte=minute, placed_at__lt=end).values_list("placed_at", "stake"):
        events.append((at, 1, amount, 0))
    for at, amount in bets.filter(settled_at__gte=minute, settled_at__lt=end).values_list("settled_at", "win"):
        events.append((at, 0, 0, amount))
    for at, amount in OpenBet.objects.filter(player_id=player_id, kind=kind, placed_at__gte=minute,
                                             placed_at__lt=end).values_list("placed_at", "stake"):
        events.append((at, 1, amount, 0))
    events.sort(key=lambda e: (e[0], e[1]))
    return _tail_peak([(e[2], e[3]) for e in events if e[2] or e[3]])


def buckets_take_back(player_id: int, kind: str, *, placed_at: datetime, stake: int, settled_at: datetime,
                      win: int) -> None:
    """Take a decided bet back out of the hourly-loss minute buckets still kept (a bet declared void, GP §3(6)):
    its stake out of the bucket of ``placed_at``, its win out of the bucket of ``settled_at``. Called under the
    (player, kind) state lock, after the bet is marked voided in the ledger.

    Only buckets that exist are changed: one already pruned (older than 2 hours, outside every window and the
    reconciliation) stays gone, and none is created. The peak must stay at least the real one (GP §8(5): the
    hourly loss is never read below the real figure). Two bounds hold: the old peak raised by the win taken out
    (a stake taken out only lowers tails; a win taken out raises each tail that held it by at most the win), and
    the peak of the minute's events as the ledger now tells them (:func:`_ledger_peak`); the lower is kept, so a
    void bet frees the hourly room it used."""
    changes: dict[datetime, list[int]] = {}
    if stake:
        changes.setdefault(minute_of(placed_at), [0, 0])[0] += stake
    if win:
        changes.setdefault(minute_of(settled_at), [0, 0])[1] += win
    for minute, (stakes, wins) in sorted(changes.items()):
        bucket = MinuteBucket.objects.filter(player_id=player_id, kind=kind, minute=minute).first()
        if bucket is None:
            continue
        peak = min(bucket.peak + wins, _ledger_peak(player_id, kind, minute))
        MinuteBucket.objects.filter(pk=bucket.pk).update(stakes=F("stakes") - stakes, wins=F("wins") - wins,
                                                         peak=peak)


def minute_buckets_prune(*, now: datetime | None = None) -> int:
    """Delete minute buckets older than 2 hours (the hourly-loss check reads the last 61 minutes)."""
    now = now or clock.now()
    deleted, _ = MinuteBucket.objects.filter(minute__lt=minute_of(now) - BUCKET_RETENTION).delete()
    return deleted


# The stake gate's one locking read -----------------------------------------------------------------------------

@dataclass
class GateState:
    """Everything a stake decision of one (player, kind) needs, read in ONE statement under the state row lock:
    the state row, the open bets, the self-limits, the day and month totals, the hourly-loss buckets of the
    window, the panic button / self-listing in force, and the player's AML restriction (``accounts.Player.
    aml_restriction``, kept by aml in the transaction of each compliance case's change)."""

    state: PlayerKindState
    open_bets: list[OpenBet]
    self_limits: list[SelfLimit]
    totals: Totals
    hourly: HourlyLoss
    panic: tuple[datetime, datetime] | None  # (started_at, ends_at)
    listing: tuple[datetime, datetime] | None  # (requested_at, listed_until)
    aml_restriction: str = ""  # accounts' Player.aml_restriction: what the AML compliance cases refuse


_GATE_STATE_SQL = """
SELECT s.id, s.play_started_at, s.last_round_ended_at, s.last_bucket_minute, s.updated_at,
  (SELECT json_agg(json_build_array(o.id, o.round_ref, o.game_code, o.stake, o.placed_at) ORDER BY o.id)
     FROM limits_openbet o WHERE o.player_id = s.player_id AND o.kind = s.kind),
  (SELECT json_agg(json_build_array(l.id, l.limit_type, l.value, l.decided_at, l.has_pending, l.pending_value,
                                    l.pending_requested_at, l.pending_effective_at, l.updated_at))
     FROM limits_selflimit l WHERE l.player_id = s.player_id AND l.kind = s.kind),
  (SELECT json_agg(json_build_array(p.period, p.start, p.stakes_placed, p.bets_placed, p.stakes_decided,
                                    p.wins_decided, p.bets_decided))
     FROM limits_periodtotal p WHERE p.player_id = s.player_id AND p.kind = s.kind
      AND ((p.period = 'day' AND p.start = %(day)s) OR (p.period = 'month' AND p.start = %(month)s))),
  (SELECT json_agg(json_build_array(b.minute, b.stakes, b.wins, b.peak) ORDER BY b.minute DESC)
     FROM limits_minutebucket b WHERE b.player_id = s.player_id AND b.kind = s.kind
      AND b.minute >= %(lo)s AND b.minute <= %(hi)s),
  (SELECT json_build_array(e.started_at, e.ends_at) FROM limits_panicexclusion e
    WHERE (e.player_id = s.player_id
           OR e.person_key = (SELECT pd.person_key FROM accounts_personaldata pd WHERE pd.player_id = s.player_id))
      AND e.started_at <= %(at)s AND e.ends_at > %(at)s
    ORDER BY e.ends_at DESC LIMIT 1),
  (SELECT json_build_array(r.requested_at, r.listed_until) FROM limits_selflistingrequest r
    WHERE r.player_id = s.player_id AND r.requested_at <= %(at)s AND r.listed_until > %(at)s
    ORDER BY r.listed_until DESC LIMIT 1),
  (SELECT p.aml_restriction FROM accounts_player p WHERE p.id = s.player_id)
FROM limits_playerkindstate s
WHERE s.player_id = %(player)s AND s.kind = %(kind)s
FOR NO KEY UPDATE OF s
"""


def _ts(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


def _ts_req(value: str) -> datetime:
    return datetime.fromisoformat(value)


def kind_state_read_locked(player: Player, kind: str, at: datetime) -> GateState:
    """:func:`kind_state_lock` and the reads of a stake decision in ONE statement (the hot path).

    The same rows as :func:`limits.selectors.period_totals`, :func:`~limits.selectors.hourly_loss`,
    :func:`~limits.selectors.effective_limits`, ``active_panic`` and ``active_self_listing`` read (and the Player
    row's ``aml_restriction``, which ``accounts.selectors.betting_refusal`` reads from the token's row), so the
    decision is the same; a fixed number of rows whatever the player's history (the window's buckets, two totals)."""
    lo, hi = hourly_window(at)
    params: dict[str, Any] = {"player": player.pk, "kind": kind, "day": day_key(at), "month": month_key(at),
                              "lo": lo, "hi": hi, "at": at}
    with connection.cursor() as cur:
        cur.execute(_GATE_STATE_SQL, params)
        row = cur.fetchone()
        if row is None:  # the first stake of this kind: create the state row, then read it locked
            PlayerKindState.objects.bulk_create([PlayerKindState(player=player, kind=kind)], ignore_conflicts=True)
            cur.execute(_GATE_STATE_SQL, params)
            row = cur.fetchone()
    (state_id, play_started_at, last_round_ended_at, last_bucket_minute, updated_at,
     open_bets, self_limits, totals, buckets, panic, listing, aml_restriction) = row
    state = PlayerKindState(id=state_id, player_id=player.pk, kind=kind, play_started_at=play_started_at,
                            last_round_ended_at=last_round_ended_at, last_bucket_minute=last_bucket_minute,
                            updated_at=updated_at)
    state._state.adding = False
    periods = {(p[0], date.fromisoformat(p[1])): p for p in totals or []}

    def total(period: str, start: date) -> PeriodTotal:
        p = periods.get((period, start))
        figures = dict(zip(("stakes_placed", "bets_placed", "stakes_decided", "wins_decided", "bets_decided"),
                           p[2:] if p else (0, 0, 0, 0, 0), strict=True))
        return PeriodTotal(player_id=player.pk, kind=kind, period=period, start=start, **figures)

    return GateState(
        state=state,
        open_bets=[OpenBet(id=o[0], player_id=player.pk, kind=kind, round_ref=o[1], game_code=o[2], stake=o[3],
                           placed_at=_ts_req(o[4])) for o in open_bets or []],
        self_limits=[SelfLimit(id=x[0], player_id=player.pk, kind=kind, limit_type=x[1], value=x[2],
                               decided_at=_ts(x[3]), has_pending=x[4], pending_value=x[5],
                               pending_requested_at=_ts(x[6]), pending_effective_at=_ts(x[7]),
                               updated_at=_ts_req(x[8])) for x in self_limits or []],
        totals=Totals(day=total("day", day_key(at)), month=total("month", month_key(at))),
        hourly=hourly_loss_from_buckets([(_ts_req(b[0]), b[1], b[2], b[3]) for b in buckets or []]),
        panic=(_ts_req(panic[0]), _ts_req(panic[1])) if panic else None,
        listing=(_ts_req(listing[0]), _ts_req(listing[1])) if listing else None,
        aml_restriction=aml_restriction or "",
    )


_DECIDED_NOW_SQL = f"""
WITH periods AS (
    INSERT INTO limits_periodtotal
        (player_id, kind, period, start, stakes_placed, bets_placed, stakes_decided, wins_decided, bets_decided)
    VALUES (%(player)s, %(kind)s, 'day', %(day)s, %(stake)s, 1, %(stake)s, %(win)s, 1),
           (%(player)s, %(kind)s, 'month', %(month)s, %(stake)s, 1, %(stake)s, %(win)s, 1)
    {_PERIOD_ON_CONFLICT}
    RETURNING 1
), bucket AS (
    INSERT INTO limits_minutebucket (player_id, kind, minute, stakes, wins, peak)
    SELECT %(player)s, %(kind)s, %(minute)s, %(stake)s, %(win)s, %(peak)s WHERE %(hourly)s
    {_BUCKET_ON_CONFLICT_ORDERED}
    RETURNING 1
), settled AS (
    INSERT INTO limits_settledbet
        (player_id, kind, game_code, round_ref, stake, win, placed_at, started_at, settled_at, voided)
    VALUES (%(player)s, %(kind)s, %(game_code)s, %(round_ref)s, %(stake)s, %(win)s, %(placed_at)s, %(placed_at)s,
            %(settled_at)s, false)
    RETURNING 1
)
UPDATE limits_playerkindstate SET play_started_at = %(play_started_at)s, last_round_ended_at = %(last_round_ended_at)s,
       last_bucket_minute = %(last_bucket_minute)s, updated_at = %(settled_at)s
WHERE id = %(state)s
RETURNING (SELECT count(*) FROM periods), (SELECT count(*) FROM bucket), (SELECT count(*) FROM settled)
"""


def decided_now_record(*, gate: GateState, stake: int, win: int, placed_at: datetime, settled_at: datetime,
                       round_ref: str, game_code: str, hourly: bool, play_started_at: datetime | None) -> None:
    """A bet placed and decided in the same transaction (a round that needs no action), counted in ONE
    statement: the day and month totals (placed and decided at once), the hourly-loss minute bucket, the
    settled-bet record and the state row. Same figures as ``periods_bump`` + ``buckets_bump`` +
    ``stake_settled`` would write for the placement at ``placed_at`` and the settlement at ``settled_at``, which
    must fall in the same minute and the bucket order must hold (the caller checks, else uses the general path)."""
    state = gate.state
    minute = minute_of(placed_at)
    params: dict[str, Any] = {
        "player": state.player_id, "kind": state.kind, "day": day_key(placed_at), "month": month_key(placed_at),
        "stake": stake, "win": win, "minute": minute, "peak": _tail_peak([(stake, 0), (0, win)]),
        "hourly": hourly and bool(stake or win), "game_code": game_code, "round_ref": round_ref,
        "placed_at": placed_at, "settled_at": settled_at, "play_started_at": play_started_at,
        "last_round_ended_at": max(filter(None, (state.last_round_ended_at, settled_at))),
        "last_bucket_minute": (max(filter(None, (state.last_bucket_minute, minute)))
                               if hourly and (stake or win) else state.last_bucket_minute),
        "state": state.pk,
    }
    with connection.cursor() as cur:
        cur.execute(_DECIDED_NOW_SQL, params)
        counts = cur.fetchone()
    if counts is None or counts[0] != 2 or counts[2] != 1:
        raise RuntimeError(f"limits counters for {round_ref} not written: {counts}")
    state.play_started_at = params["play_started_at"]
    state.last_round_ended_at = params["last_round_ended_at"]
    state.last_bucket_minute = params["last_bucket_minute"]
    state.updated_at = settled_at
