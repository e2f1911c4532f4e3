"""The stake gate: may this player stake this amount now? (:func:`stake_gate` on every bet, then :func:`stake_placed`
or :func:`stake_decided_now` counts it; :func:`stake_gate_and_place` is the gate and the placing in one call.)

Runs inside the caller's transaction, after the caller took ``wallet.services.wallet_lock(player=)``; it also
locks its own (player, kind) state row (``SELECT ... FOR NO KEY UPDATE``), so two stakes of one player and
kind are decided one after the other even if a caller forgot the wallet lock. It reads and writes a fixed
number of rows whatever the player's history (see models.py and docs/limits.md "Counters").

Every refusal is recorded (:func:`limits.services.refusals.refusal_record`) so that it survives the
caller's rollback.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from accounts.models import Player
from accounts.selectors import aml_refusal, betting_refusal
from core import clock
from core.errors import DomainError
from core.money import Money
from limits import errors
from limits.kinds import KindRules, kind_rules
from limits.models import LimitType, PlayerKindState, value_in_force
from limits.rules import (
    HOURLY_WINDOW_MINUTES,
    break_length,
    check_stake_grid,
    grid_floor,
    minute_of,
    play_limit,
    require_money,
)
from limits.selectors import (
    active_panic,
    active_self_listing,
    last_logout,
    logged_in_seconds,
    logins_started,
    money_rooms,
    stake_grid_in_force,
)
from limits.services.counters import (
    BetCounters,
    GateState,
    bet_counted,
    bet_placed,
    decided_now_record,
    kind_state_read_locked,
    opens_play_period,
)
from limits.services.refusals import refusal_record
from limits.services.settlement import stake_settled


@dataclass(frozen=True)
class StakeAllowed:
    """What stake_gate_and_place returns when the stake may be placed."""

    kind: str
    stake: Money
    placed_at: datetime
    play_seconds_left: int | None  # GP §7(4) play left before the break (None: no break rule for the kind)
    max_stake_now: Money  # the largest stake the limits allowed at this moment (before this stake)


def check_account(player: Player) -> None:
    """The account state allows staking (accounts' ``betting_refusal``: status, suspension, GP §3(3) insider,
    the register of excluded persons, the AML restriction, a pending password change ...)."""
    refusal = betting_refusal(player)
    if refusal is not None:
        raise refusal


def check_exclusions(player: Player, at: datetime) -> None:
    """The panic button (48 hours) and a self-listing request in force at ``at`` refuse at once."""
    panic = active_panic(player, at)
    if panic is not None:
        raise errors.PANIC_EXCLUSION(limit="panic_button", started_at=panic.started_at, ends_at=panic.ends_at)
    listing = active_self_listing(player, at)
    if listing is not None:
        raise errors.SELF_LISTED(
            limit="self_listing", requested_at=listing.requested_at, listed_until=listing.listed_until
        )


def play_left(state: PlayerKindState, at: datetime) -> timedelta:
    """GP §7(4)-(5): play left before the break at ``at``; raises BREAK_REQUIRED when none is left.

    Play is counted from the stake that opened the current play period to ``at``: rounds from stake to
    settlement, and gaps between rounds while shorter than the break (15 min). A gap of 15 minutes or
    more is a pause: the next stake opens a new period with the full 120 minutes."""
    limit, brk = play_limit(), break_length()
    if state.play_started_at is None or state.last_round_ended_at is None:
        return limit
    if at - state.last_round_ended_at >= brk:
        return limit
    used = at - state.play_started_at
    if used >= limit:
        raise errors.BREAK_REQUIRED(
            limit="play_time",
            value_minutes=int(limit.total_seconds() // 60),
            used_seconds=int(used.total_seconds()),
            break_minutes=int(brk.total_seconds() // 60),
            play_started_at=state.play_started_at,
            last_round_ended_at=state.last_round_ended_at,
            break_ends_at=state.last_round_ended_at + brk,
        )
    return limit - used


def _check_session_limits(player: Player, limits: dict[str, int | None], at: datetime) -> None:
    """GP §6(6)e-g during play: logins this month, logged-in time today, pause after the last logout."""
    pause = limits.get(LimitType.PAUSE_AFTER_LOGOUT)
    if pause:
        last = last_logout(player, at - timedelta(minutes=pause), at)
        if last is not None and last + timedelta(minutes=pause) > at:
            raise errors.PAUSE_AFTER_LOGOUT(
                limit=LimitType.PAUSE_AFTER_LOGOUT.value,
                value_minutes=pause,
                logged_out_at=last,
                ends_at=last + timedelta(minutes=pause),
            )
    logins = limits.get(LimitType.MONTHLY_LOGINS)
    if logins is not None:
        start, end = clock.month_bounds(at)
        used = logins_started(player, start, at)
        if used > logins:  # the current session is beyond the limit
            raise errors.MONTHLY_LOGINS_EXCEEDED(
                limit=LimitType.MONTHLY_LOGINS.value, value=logins, used=used, resets_at=end
            )
    minutes = limits.get(LimitType.DAILY_TIME)
    if minutes is not None:
        start, end = clock.day_bounds(at)
        used = logged_in_seconds(player, start, at)
        if used >= minutes * 60:
            raise errors.DAILY_TIME_EXCEEDED(
                limit=LimitType.DAILY_TIME.value, value_minutes=minutes, used_seconds=used, resets_at=end
            )


@dataclass
class StakeGate:
    """An allowed stake, decided under the (player, kind) state lock, not yet counted: the caller either counts
    it as placed (:func:`stake_placed`, a round that waits for the player) or as placed and decided at once
    (:func:`stake_decided_now`, a round that settles in the same transaction)."""

    player: Player
    kind: str
    stake: Money
    game_code: str
    now: datetime
    rules: KindRules
    read: GateState
    allowed: StakeAllowed


def stake_gate_and_place(
    *,
    player: Player,
    kind: str,
    stake: Money,
    game_code: str,
    game_max_bet: Money | None,
    now: datetime,
    round_ref: str = "",
) -> StakeAllowed:
    """May ``player`` stake ``stake`` on ``game_code`` now? Raises a limits DomainError when not.

    Run inside the caller's transaction after ``wallet.services.wallet_lock(player=)``. When allowed
    the stake is counted at once (stakes per day/month, the hourly buckets) and the open-round marker
    is set (GP §7(6)); both roll back with the caller's transaction if the bet is not placed after all.
    ``round_ref`` (optional) names the bet for kinds that may keep several bets open.
    Every refusal is recorded (StakeRefusal) so that it survives the caller's rollback.
    """
    gate = stake_gate(
        player=player,
        kind=kind,
        stake=stake,
        game_code=game_code,
        game_max_bet=game_max_bet,
        now=now,
        round_ref=round_ref,
    )
    return stake_placed(gate=gate, round_ref=round_ref)


def stake_gate(
    *,
    player: Player,
    kind: str,
    stake: Money,
    game_code: str,
    game_max_bet: Money | None,
    now: datetime,
    round_ref: str = "",
) -> StakeGate:
    """The decision of :func:`stake_gate_and_place` without counting the stake yet: the same checks in the same order on
    the state read by ONE locking statement (``kind_state_read_locked``). Raises (and records) a refusal."""
    stake = require_money(stake, "stake")
    try:
        with transaction.atomic(savepoint=False):
            return _stake_gate(
                player=player,
                kind=kind,
                stake=stake,
                game_code=game_code,
                game_max_bet=game_max_bet,
                now=now,
                round_ref=round_ref,
            )
    except DomainError as err:
        refusal_record(player=player, kind=kind, stake=stake, game_code=game_code, error=err, at=now)
        raise


def _check_locked_exclusions(read: GateState) -> None:
    """The panic button (48 hours) and a self-listing request in force refuse at once (read under the lock)."""
    if read.panic is not None:
        raise errors.PANIC_EXCLUSION(limit="panic_button", started_at=read.panic[0], ends_at=read.panic[1])
    if read.listing is not None:
        raise errors.SELF_LISTED(limit="self_listing", requested_at=read.listing[0], listed_until=read.listing[1])


def _stake_gate(
    *,
    player: Player,
    kind: str,
    stake: Money,
    game_code: str,
    game_max_bet: Money | None,
    now: datetime,
    round_ref: str,
) -> StakeGate:
    rules = kind_rules(kind)
    if game_max_bet is not None:
        game_max_bet = require_money(game_max_bet, "game_max_bet")
    grid = stake_grid_in_force(now)  # GP §8(1): the published version's (accounts' snapshot, no statement)
    round_max = check_stake_grid(stake, game_max_bet, rules, grid)
    check_account(player)
    read = kind_state_read_locked(player, kind, now)
    aml = aml_refusal(read.aml_restriction)  # a blocking AML case open or confirmed, read fresh under the lock
    if aml is not None:
        raise aml
    _check_locked_exclusions(read)
    open_bets = read.open_bets
    if open_bets and (rules.one_open_round or any(b.round_ref == round_ref for b in open_bets)):
        bet = open_bets[0]
        raise errors.ROUND_IN_PROGRESS(
            limit="open_round", game_code=bet.game_code, stake=Money(bet.stake), placed_at=bet.placed_at
        )
    left = play_left(read.state, now) if rules.play_break else None

    limits: dict[str, int | None] = {}
    for limit_type, value, has_pending, pending_value, pending_effective_at in read.self_limits:
        in_force = value_in_force(value, has_pending, pending_value, pending_effective_at, now)
        if in_force is not None:
            limits[limit_type] = in_force
    _check_session_limits(player, limits, now)
    open_stakes = sum(b.stake for b in open_bets)
    rooms = money_rooms(player, kind, limits, open_stakes, now, rules, totals=read.totals, hourly=read.hourly)
    max_now = grid_floor(min([round_max] + [r.room for r in rooms]), rules, grid)
    for r in rooms:
        if stake.amount > r.room:
            details: dict[str, Any] = dict(
                limit=r.limit,
                kind=kind,
                value=Money(r.value),
                used=Money(r.used),
                stake=stake,
                max_stake_now=Money(max_now),
            )
            if r.hourly is not None:
                details["retry_at"] = r.hourly.frees_at(stake.amount, now)
                details["window_minutes"] = HOURLY_WINDOW_MINUTES
            else:
                details["resets_at"] = r.resets_at
            raise r.error(**details)
    allowed = StakeAllowed(
        kind=kind,
        stake=stake,
        placed_at=now,
        play_seconds_left=int(left.total_seconds()) if left is not None else None,
        max_stake_now=Money(max_now),
    )
    return StakeGate(
        player=player, kind=kind, stake=stake, game_code=game_code, now=now, rules=rules, read=read, allowed=allowed
    )


def stake_placed(*, gate: StakeGate, round_ref: str = "") -> StakeAllowed:
    """Count an allowed stake as placed and set the open-round marker (GP §7(6)); the bet is decided later
    (``stake_settled``) or voided (``stake_voided``). The totals, the stake's bucket, the open bet and the state row
    in ONE statement (``counters.bet_placed``, limits/sql.py BET_PLACE)."""
    bet_placed(
        state=gate.read.state,
        rules=gate.rules,
        stake=gate.stake.amount,
        at=gate.now,
        round_ref=round_ref,
        game_code=gate.game_code,
    )
    return gate.allowed


def stake_placed_counted(*, gate: StakeGate, round_ref: str) -> BetCounters:
    """:func:`stake_placed`'s counters returned unwritten (:class:`BetCounters`): the caller writes them with the
    round's insert, in the same statement (games/sql.py ROUND_INSERT_PLACED: a round that waits for the player)."""
    return bet_counted(
        state=gate.read.state,
        rules=gate.rules,
        stake=gate.stake.amount,
        at=gate.now,
        round_ref=round_ref,
        game_code=gate.game_code,
    )


def stake_decided_now(
    *, gate: StakeGate, win: Money, settled_at: datetime, round_ref: str, game_code: str = ""
) -> BetCounters | None:
    """Count an allowed stake as placed AND decided (GP §6(7)) when its round settled in the same transaction:
    the same counters, settled-bet record and play-time marks as :func:`stake_placed` followed by
    ``stake_settled``, in ONE statement. Returns those counters unwritten (:class:`BetCounters`): the caller writes
    them with the settled round's insert, in the same statement (games/sql.py ROUND_INSERT_DECIDED, the one caller).
    Falls back to those two, written here, when the bet spans two minutes or an hourly bucket out of order (the
    general path keeps the bucket bound conservative); returns None then."""
    win = require_money(win, "win")
    state = gate.read.state
    minute = minute_of(gate.now)
    in_order = state.last_bucket_minute is None or minute >= state.last_bucket_minute
    if minute_of(settled_at) != minute or not in_order or settled_at < gate.now or win.amount < 0:
        stake_placed(gate=gate, round_ref=round_ref)
        stake_settled(
            player=gate.player,
            kind=gate.kind,
            stake=gate.stake,
            win=win,
            started_at=gate.now,
            settled_at=settled_at,
            round_ref=round_ref,
            game_code=game_code or gate.game_code,
        )
        return None
    return decided_now_record(
        gate=gate.read,
        stake=gate.stake.amount,
        win=win.amount,
        placed_at=gate.now,
        settled_at=settled_at,
        round_ref=round_ref,
        game_code=game_code or gate.game_code,
        hourly=gate.rules.hourly_loss,
        play_started_at=gate.now if opens_play_period(gate.rules, state, gate.now) else state.play_started_at,
    )
