"""The running counters' writes: the (player, kind) state lock (the gate's one locking read), the hourly-loss bucket
rule, the placement and its correction (one statement each, limits/sql.py), the pruning of old buckets.

A stake decision reads and writes a fixed number of rows whatever the player's history (see models.py and
docs/limits.md "Counters"); ``manage.py limits_reconcile`` proves the counters equal the ledger of settled
bets. The reads of these counters are :func:`limits.selectors.period_totals` and
:func:`limits.selectors.hourly_loss`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from accounts.models import Player
from core import clock
from limits import sql
from limits.kinds import KindRules
from limits.models import MinuteBucket, OpenBet, PlayerKindState
from limits.rules import BUCKET_RETENTION, break_length, day_key, minute_of, month_key
from limits.selectors import HourlyLoss, Totals, hourly_loss_from_buckets, hourly_window


def _tail_peak(events: list[tuple[int, int]]) -> int:
    """The largest net loss of a tail of ``events`` ((stakes, wins) in time order; the empty tail counts as 0)."""
    acc = peak = 0
    for stakes, wins in reversed(events):
        acc -= wins
        peak = max(peak, acc)
        acc += stakes
        peak = max(peak, acc)
    return peak


def bucket_row(newest: datetime | None, minute: datetime, events: list[tuple[int, int]]) -> tuple[int, int, int, bool]:
    """One minute's hourly-loss events ``(stakes, wins)`` (in time order) as a bucket update ``(stakes, wins, peak,
    in_order)``: the hourly-loss bucket rule of every write (BET_PLACE, BET_RESTAKE, BET_SETTLE, BET_VOID of
    limits/sql.py). A minute not older than ``newest`` (the newest minute written so far) with no stake taken back
    is "in order": the bucket's peak (largest tail loss) stays exact, the events' own merged in
    (``sql.BUCKET_ORDERED_SET``). Otherwise (an older minute, or a stake taken back: a negative stake) the totals
    change but the peak may only grow, by the stakes added (``sql.BUCKET_CONSERVATIVE_SET``): never below the real
    figure (GP §8(5))."""
    stakes = sum(e[0] for e in events)
    wins = sum(e[1] for e in events)
    if (newest is None or minute >= newest) and all(e[0] >= 0 for e in events):
        return stakes, wins, _tail_peak(events), True
    return stakes, wins, sum(max(0, e[0]) for e in events), False


def minute_buckets_prune(*, now: datetime | None = None) -> int:
    """Delete minute buckets older than 2 hours (the hourly-loss check reads the last 61 minutes)."""
    now = now or clock.now()
    deleted, _ = MinuteBucket.objects.filter(minute__lt=minute_of(now) - BUCKET_RETENTION).delete()
    return deleted


# Placing a bet and correcting it (the one-statement writes of limits/sql.py) ---------------------------------------


def opens_play_period(rules: KindRules, state: PlayerKindState, at: datetime) -> bool:
    """GP §7(4)-(5): a stake at ``at`` opens a new play period (the first one, or after a pause of a break's length)."""
    return rules.play_break and (
        state.last_round_ended_at is None
        or state.play_started_at is None
        or at - state.last_round_ended_at >= break_length()
    )


def bet_placed(
    *, state: PlayerKindState, rules: KindRules, stake: int, at: datetime, round_ref: str, game_code: str
) -> None:
    """:func:`bet_counted`, written at once in ONE statement (:data:`limits.sql.BET_PLACE`). The one placement: the
    gate's ``stake_placed`` and ``stake_settled`` of a bet never placed both come here."""
    bet_counted(state=state, rules=rules, stake=stake, at=at, round_ref=round_ref, game_code=game_code).write()


def bet_counted(
    *, state: PlayerKindState, rules: KindRules, stake: int, at: datetime, round_ref: str, game_code: str
) -> BetCounters:
    """Count a stake as placed at ``at`` and set its open bet (GP §7(6)): the day and month totals, the stake's
    hourly-loss bucket, the open bet and the state row (the play period it may open, the newest bucket minute),
    returned unwritten (:class:`BetCounters`, written by :func:`bet_placed` or with the round's insert). ``state``
    is the (player, kind) state row read under its lock; it is updated in place."""
    minute = minute_of(at)
    bucketed = rules.hourly_loss and stake > 0  # a zero stake is no hourly-loss event
    if opens_play_period(rules, state, at):
        state.play_started_at = at  # this stake opens a new play period
    if bucketed and (state.last_bucket_minute is None or minute > state.last_bucket_minute):
        state.last_bucket_minute = minute  # a single stake's peak update is the same in or out of order
    state.updated_at = at
    params = sql.bet_place_params(
        state_id=state.pk,
        player_id=state.player_id,
        kind=state.kind,
        stake=stake,
        day=day_key(at),
        month=month_key(at),
        minute=minute,
        hourly=bucketed,
        round_ref=round_ref or "",
        game_code=game_code or "",
        now=at,
        play_started_at=state.play_started_at,
        last_bucket_minute=state.last_bucket_minute,
    )
    return BetCounters(parts="bet_place", params=params, round_ref=round_ref or "")


def bet_restaked(*, state: PlayerKindState, rules: KindRules, bet: OpenBet, stake: int, round_ref: str) -> None:
    """Correct an open bet before it is decided: its stake to ``stake`` (the placement counters of its
    ``placed_at``, the day and month totals and the hourly-loss bucket, by the difference, the bucket by the rule
    of :func:`bucket_row`) and its ``round_ref`` to the one it is settled under, in ONE statement
    (:data:`limits.sql.BET_RESTAKE`). ``state`` is the state row read under its lock; updated in place."""
    diff = stake - bet.stake
    minute = minute_of(bet.placed_at)
    hourly = rules.hourly_loss and diff != 0
    _, _, peak, in_order = bucket_row(state.last_bucket_minute, minute, [(diff, 0)])
    if hourly and (state.last_bucket_minute is None or minute > state.last_bucket_minute):
        state.last_bucket_minute = minute
    sql.bet_restake(
        state_id=state.pk,
        bet_id=bet.pk,
        player_id=state.player_id,
        kind=state.kind,
        stake=stake,
        diff=diff,
        round_ref=round_ref,
        day=day_key(bet.placed_at),
        month=month_key(bet.placed_at),
        minute=minute,
        hourly=hourly,
        peak=peak,
        in_order=in_order,
        last_bucket_minute=state.last_bucket_minute,
    )
    bet.stake, bet.round_ref = stake, round_ref


# The stake gate's one locking read -----------------------------------------------------------------------------


@dataclass
class GateState:
    """Everything a stake decision of one (player, kind) needs, read in ONE statement under the state row lock:
    the state row, the open bets, the self-limits, the day and month totals, the hourly-loss buckets of the
    window, the panic button / self-listing in force, and the player's AML restriction (``accounts.Player.
    aml_restriction``, kept by aml in the transaction of each compliance case's change)."""

    state: PlayerKindState
    open_bets: list[OpenBet]
    self_limits: list[sql.LimitFigures]  # (limit_type, value, has_pending, pending_value, pending_effective_at)
    totals: Totals
    hourly: HourlyLoss
    panic: tuple[datetime, datetime] | None  # (started_at, ends_at)
    listing: tuple[datetime, datetime] | None  # (requested_at, listed_until)
    aml_restriction: str = ""  # accounts' Player.aml_restriction: what the AML compliance cases refuse


def kind_state_read_locked(player: Player, kind: str, at: datetime) -> GateState:
    """The (player, kind) state lock (the state row ``FOR NO KEY UPDATE``, created if needed: every limit decision
    and every write of the kind's counters waits here; the row is updated, never re-keyed or deleted) and the reads
    of a stake decision, in ONE statement: the one lock of the gate, the settlement and the voids.

    The same rows as :func:`limits.selectors.period_totals`, :func:`~limits.selectors.hourly_loss`,
    :func:`~limits.selectors.effective_limits`, ``active_panic`` and ``active_self_listing`` read (and the Player
    row's ``aml_restriction``, which ``accounts.selectors.betting_refusal`` reads from the token's row), so the
    decision is the same; a fixed number of rows whatever the player's history (the window's buckets, two totals)."""
    lo, hi = hourly_window(at)
    read = sql.gate_state(player_id=player.pk, kind=kind, day=day_key(at), month=month_key(at), lo=lo, hi=hi, at=at)
    if read is None:  # the first stake of this kind: create the state row, then read it locked
        PlayerKindState.objects.bulk_create([PlayerKindState(player=player, kind=kind)], ignore_conflicts=True)
        read = sql.gate_state(player_id=player.pk, kind=kind, day=day_key(at), month=month_key(at), lo=lo, hi=hi, at=at)
    assert read is not None
    return GateState(
        state=read.state,
        open_bets=read.open_bets,
        self_limits=read.self_limits,
        totals=Totals(day=read.day, month=read.month),
        hourly=hourly_loss_from_buckets(read.buckets),
        panic=(read.panic.started_at, read.panic.ends_at) if read.panic else None,
        listing=(read.listing.requested_at, read.listing.listed_until) if read.listing else None,
        aml_restriction=read.aml_restriction,
    )


@dataclass
class BetCounters:
    """The counters of a bet computed under the (player, kind) state lock (which is updated in place) and not yet
    written: ``params`` are those of the ``limits/sql.py`` parts named by ``parts``: ``"bet_place"``
    (BET_PLACE_CTES / BET_PLACE_STATE, a stake placed: totals, bucket, open bet, state row) or ``"decided_now"``
    (DECIDED_NOW_CTES / DECIDED_NOW_STATE, placed and decided at once: totals, bucket, settled bet, state row). The
    statement inserting the round carries them (games/sql.py ROUND_INSERT_PLACED / ROUND_INSERT_DECIDED, one round
    trip for both) and hands back what it wrote to :meth:`written`; :meth:`write` writes a placement alone."""

    parts: str
    params: dict[str, Any]
    round_ref: str

    def written(self, counts: Sequence[int | None]) -> None:
        """``counts``: the totals written first, the open bet or settled bet written last (None when the state row
        was not found). Two totals and one bet, or the transaction fails."""
        if counts[0] != 2 or counts[-1] != 1:
            raise RuntimeError(f"limits counters for {self.round_ref} not written: {tuple(counts)}")

    def write(self) -> None:
        """Write a placement in a statement of its own (:data:`limits.sql.BET_PLACE`)."""
        if self.parts != "bet_place":
            raise ValueError(f"limits counters {self.parts} are written with the round's insert only")
        self.written(sql.bet_place(self.params))


def decided_now_record(
    *,
    gate: GateState,
    stake: int,
    win: int,
    placed_at: datetime,
    settled_at: datetime,
    round_ref: str,
    game_code: str,
    hourly: bool,
    play_started_at: datetime | None,
) -> BetCounters:
    """A bet placed and decided in the same transaction (a round that needs no action), to be counted in ONE
    statement: the day and month totals (placed and decided at once), the hourly-loss minute bucket, the
    settled-bet record and the state row. Returns the counters to write (:class:`BetCounters`): the statement that
    inserts the settled round writes them (games/sql.py ROUND_INSERT_DECIDED), in the same round trip. Same figures
    as ``bet_placed`` (BET_PLACE) + ``stake_settled`` would write for the placement at ``placed_at`` and the
    settlement at ``settled_at``, which must fall in the same minute and the bucket order must hold (the caller
    checks, else uses the general path)."""
    state = gate.state
    minute = minute_of(placed_at)
    params: dict[str, Any] = {
        "player": state.player_id,
        "kind": state.kind,
        "day": day_key(placed_at),
        "month": month_key(placed_at),
        "stake": stake,
        "win": win,
        "minute": minute,
        "peak": _tail_peak([(stake, 0), (0, win)]),
        "hourly": hourly and bool(stake or win),
        "game_code": game_code,
        "round_ref": round_ref,
        "placed_at": placed_at,
        "settled_at": settled_at,
        "play_started_at": play_started_at,
        "last_round_ended_at": max(filter(None, (state.last_round_ended_at, settled_at))),
        "last_bucket_minute": (
            max(filter(None, (state.last_bucket_minute, minute)))
            if hourly and (stake or win)
            else state.last_bucket_minute
        ),
        "state": state.pk,
    }
    state.play_started_at = params["play_started_at"]
    state.last_round_ended_at = params["last_round_ended_at"]
    state.last_bucket_minute = params["last_bucket_minute"]
    state.updated_at = settled_at
    return BetCounters(parts="decided_now", params=sql.decided_now_params(params), round_ref=round_ref)
