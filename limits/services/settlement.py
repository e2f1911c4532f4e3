"""Decided and voided bets: the counters behind GP §6(7) net loss, the hourly loss and play time.

All run inside the caller's transaction under the wallet lock, take the (player, kind) state lock
(``SELECT ... FOR NO KEY UPDATE``) through the gate's one locking read
(:func:`~limits.services.counters.kind_state_read_locked`, as :func:`limits.services.gate.stake_gate` does; the usual
settlement needs none: BET_SETTLE updates the state row itself) and write with the registered statements of
limits/sql.py and limits/sql_voids.py: :func:`stake_settled` (a decided bet, BET_SETTLE), :func:`stake_voided` (an
open bet's stake returned, BET_VOID) and :func:`settled_bet_voided` (a decided bet declared void afterwards,
GP §3(6), SETTLED_VOID).
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from accounts.models import Player
from core.money import Money
from limits import sql, sql_voids
from limits.kinds import KindRules, kind_rules
from limits.models import OpenBet, SettledBet
from limits.rules import day_key, minute_of, month_key, require_money
from limits.services.counters import (
    bet_placed,
    bet_restaked,
    bucket_row,
    kind_state_read_locked,
)


def _pick_open_bet(bets: list[OpenBet], round_ref: str, rules: KindRules) -> OpenBet | None:
    """The open bet a settlement or a void of ``round_ref`` is about: the one of that ``round_ref``, else, for a kind
    with one open round at most, the only one."""
    for b in bets:
        if b.round_ref == (round_ref or ""):
            return b
    if rules.one_open_round and len(bets) == 1:
        return bets[0]
    return None


def stake_settled(
    *,
    player: Player,
    kind: str,
    stake: Money,
    win: Money,
    started_at: datetime,
    settled_at: datetime,
    round_ref: str = "",
    game_code: str = "",
    played_until: datetime | None = None,
) -> SettledBet:
    """Record a decided bet: counters for GP §6(7) net loss, the hourly loss and play time; clears the marker.

    Run inside the caller's transaction under the wallet lock. With a ``round_ref`` the call is
    idempotent (a replay returns the first record and counts nothing). A bet whose stake_gate_and_place was not
    called is counted as placed at ``started_at``. ``played_until``: a round ended at its deadline (GP §7(8)b) was
    played until then, not until it was settled: the play period of the 120/15 break (GP §7(4)) ends there.

    One settlement, :func:`limits.sql.bet_settle` (BET_SETTLE: the open bet of ``round_ref`` with this stake ->
    the totals, the win's bucket, the settled bet, the state row, ONE statement). The usual case, that open bet
    is there, costs that statement alone. Otherwise, under the (player, kind) state lock (the gate's locking read):
    a replay returns the stored record; a bet never placed is first placed at ``started_at`` by the gate's own
    placement (:func:`~limits.services.counters.bet_placed`, BET_PLACE); an open bet of another stake, or found by
    the one-open-round rule under another ``round_ref``, is first corrected
    (:func:`~limits.services.counters.bet_restaked`, BET_RESTAKE); then BET_SETTLE. The hourly-loss buckets follow
    the rule of :func:`~limits.services.counters.bucket_row` for the placement and the decision together.
    """
    stake = require_money(stake, "stake")
    win = require_money(win, "win")
    if stake.amount < 0 or win.amount < 0:
        raise ValueError("stake and win must not be negative")
    if settled_at < started_at:
        raise ValueError("settled_at is before started_at")
    rules = kind_rules(kind)
    round_ref = round_ref or ""

    def settle(in_order: bool = True) -> SettledBet | None:  # limits/sql.py BET_SETTLE, ONE statement
        return sql.bet_settle(
            player_id=player.pk,
            kind=kind,
            round_ref=round_ref,
            stake=stake.amount,
            win=win.amount,
            day=day_key(settled_at),
            month=month_key(settled_at),
            minute=minute_of(settled_at),
            hourly=rules.hourly_loss and win.amount > 0,
            in_order=in_order,
            game_code=game_code,
            started_at=started_at,
            settled_at=settled_at,
            play_ended_at=played_until,
        )

    with transaction.atomic(savepoint=False):
        if round_ref:  # the bet's open row is there (the usual case)
            settled = settle()
            if settled is not None:
                return settled
        read = kind_state_read_locked(player, kind, started_at)  # the gate's lock and read (with the open bets)
        if round_ref:  # a replay: the first record, nothing counted
            existing = SettledBet.objects.filter(player=player, kind=kind, round_ref=round_ref).first()
            if existing is not None:
                return existing
        newest = read.state.last_bucket_minute  # before the placement or correction below
        bet = _pick_open_bet(read.open_bets, round_ref, rules)
        if bet is None:  # never placed: counted as placed at started_at, as the gate places it
            bet_placed(
                state=read.state,
                rules=rules,
                stake=stake.amount,
                at=started_at,
                round_ref=round_ref,
                game_code=game_code,
            )
            placed_at, placed = started_at, stake.amount
        else:
            placed_at, placed = bet.placed_at, stake.amount - bet.stake
            if placed or bet.round_ref != round_ref:
                bet_restaked(state=read.state, rules=rules, bet=bet, stake=stake.amount, round_ref=round_ref)
        # the win's minute as bucket_row takes the placement (or its correction) and the decision together
        events = [(placed, 0)] if placed and minute_of(placed_at) == minute_of(settled_at) else []
        in_order = bucket_row(newest, minute_of(settled_at), [*events, (0, win.amount)])[3]
        settled = settle(in_order)
        if settled is None:
            raise RuntimeError(f"limits open bet of {round_ref!r} not settled")
        return settled


def stake_voided(
    *, player: Player, kind: str, at: datetime, round_ref: str = "", reason: str = ""
) -> SettledBet | None:
    """The open bet's stake was returned (e.g. GP §7(8)b: unfinished round past its deadline).

    Clears the open-round marker and takes the stake back out of the placement counters; the bet is
    neither a stake nor a decided bet for the limits. Idempotent: no open bet, nothing done (None).
    ``reason`` is accepted for the caller's own records; limits stores nothing of it.

    Under the (player, kind) state lock taken by the gate's one locking read
    (:func:`~limits.services.counters.kind_state_read_locked`, which brings the open bets), the open bet of
    ``round_ref`` (or the only one of a kind with one open round at most) is voided by ONE statement,
    :func:`limits.sql_voids.bet_void` (BET_VOID: the open bet deleted, its stake out of the day and month totals of its
    ``placed_at`` and out of its minute bucket by the rule of a stake taken back, the voided settled bet, the state
    row's ``last_round_ended_at`` / ``last_bucket_minute``): two statements in all."""
    rules = kind_rules(kind)
    with transaction.atomic(savepoint=False):
        read = kind_state_read_locked(player, kind, at)
        bet = _pick_open_bet(read.open_bets, round_ref, rules)
        if bet is None:
            return None
        minute = minute_of(bet.placed_at)
        # bucket_row's rule for a stake taken back: conservative (the totals lower, the peak stays)
        hourly = rules.hourly_loss and bet.stake != 0
        return sql_voids.bet_void(
            state_id=read.state.pk,
            bet=bet,
            day=day_key(bet.placed_at),
            month=month_key(bet.placed_at),
            minute=minute,
            hourly=hourly,
            at=at,
        )


def settled_bet_voided(*, player: Player, kind: str, round_ref: str, at: datetime) -> SettledBet | None:
    """A decided bet declared void after it was settled (GP §3(6): placed on order or by proxy); the caller
    returned its stake and took its win back, so for the limits the bet was never placed.

    Under the (player, kind) state lock, the ledger's bet ``round_ref`` (not voided yet) is taken out of the
    counters it went into: its stake and count out of the day and month of ``placed_at`` (stakes per day/month,
    GP §6(6)a-b), its stake, win and count out of the day and month of ``settled_at`` (net loss, GP §6(7); the
    player's statistics, GP §13(4)), its stake and win out of the hourly-loss minute buckets still kept (GP §8(5),
    :func:`limits.sql_voids.settled_void`: SETTLED_VOID, ONE statement after the lock and the bet's read). The bet is
    marked ``voided`` (``voided_at=at``), so ``limits_reconcile`` leaves it out of every sum, as it does a returned
    stake. Play time (GP §7(4)-(5)) is not
    given back: the time was played.

    Run inside the caller's transaction under the wallet lock. Idempotent: no bet of that ``round_ref``, or one
    already voided, changes nothing and returns None; otherwise returns the bet, now voided."""
    if not round_ref:
        raise ValueError("a settled bet is named by its round_ref")
    rules = kind_rules(kind)
    with transaction.atomic(savepoint=False):
        kind_state_read_locked(player, kind, at)  # the gate's lock: every write of this (player, kind) waits here
        bet = SettledBet.objects.filter(player=player, kind=kind, round_ref=round_ref, voided=False).first()
        if bet is None:
            return None
        sql_voids.settled_void(
            bet=bet,
            at=at,
            placed_day=day_key(bet.placed_at),
            placed_month=month_key(bet.placed_at),
            settled_day=day_key(bet.settled_at),
            settled_month=month_key(bet.settled_at),
            hourly=rules.hourly_loss,
            placed_minute=minute_of(bet.placed_at),
            settled_minute=minute_of(bet.settled_at),
        )
        bet.voided, bet.voided_at = True, at
        return bet
