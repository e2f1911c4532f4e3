"""The gatekeeper's writes: stake decisions, settled bets, self-limit changes, exclusions.

Hot path (every bet): :func:`stake_check` and :func:`stake_settled`. Both run inside the caller's
transaction, after the caller took ``wallet.services.wallet_lock(player=)``; each also locks its own
(player, kind) state row (``SELECT ... FOR UPDATE``) so two stakes of one player and kind are decided
one after the other even if a caller forgot the wallet lock. They read and write a fixed number of
rows whatever the player's history (see models.py and docs/limits.md "Counters").

Refused stakes are recorded in :class:`~limits.models.StakeRefusal` on a separate database
connection (autocommit), because the refusal is raised inside the caller's transaction and rolls it
back: a row written on the caller's connection would vanish with it.
"""
from __future__ import annotations

import copy
import json
import logging
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.conf import settings
from django.db import connection, connections, transaction
from django.db.models import F, Q
from django.db.utils import load_backend

from core import clock
from core.audit import Actor, audit_record
from core.errors import DomainError
from core.logging import get_request_id
from core.money import Money
from limits import accounts_bridge, errors
from limits.kinds import TECHNICAL, KindRules, kind_rules
from limits.models import (
    ClosingSnapshot,
    ExclusionSweep,
    ExclusionWatch,
    LimitType,
    MinuteBucket,
    OpenBet,
    PanicExclusion,
    PeriodTotal,
    PlayerKindState,
    SelfLimit,
    SelfLimitChange,
    SelfListingRequest,
    SettledBet,
)

logger = logging.getLogger("platform.limits")

MINUTE = timedelta(minutes=1)
HOURLY_WINDOW_MINUTES = 60
PANIC_DURATION = timedelta(hours=48)
LOOSENING_DELAY_DAYS = 7  # GP §6(4)
REREGISTRATION_DAYS = 7  # ZHH §14a
BUCKET_RETENTION = timedelta(hours=2)

MONEY_LIMITS = (LimitType.DAILY_STAKE, LimitType.MONTHLY_STAKE, LimitType.DAILY_LOSS, LimitType.MONTHLY_LOSS)
LIMIT_UNITS = {
    LimitType.DAILY_STAKE: "CZK_minor", LimitType.MONTHLY_STAKE: "CZK_minor",
    LimitType.DAILY_LOSS: "CZK_minor", LimitType.MONTHLY_LOSS: "CZK_minor",
    LimitType.MONTHLY_LOGINS: "count", LimitType.DAILY_TIME: "minutes", LimitType.PAUSE_AFTER_LOGOUT: "minutes",
}
# Allowed values (inclusive); None = no limit is always allowed.
LIMIT_RANGES = {
    LimitType.DAILY_STAKE: (0, 10**12), LimitType.MONTHLY_STAKE: (0, 10**12),
    LimitType.DAILY_LOSS: (0, 10**12), LimitType.MONTHLY_LOSS: (0, 10**12),
    LimitType.MONTHLY_LOGINS: (1, 100_000), LimitType.DAILY_TIME: (1, 24 * 60),
    LimitType.PAUSE_AFTER_LOGOUT: (1, 366 * 24 * 60),
}


def _gp(key: str):
    return settings.GP[key]


def play_limit() -> timedelta:
    return timedelta(minutes=_gp("PLAY_BEFORE_BREAK_MINUTES"))


def break_length() -> timedelta:
    return timedelta(minutes=_gp("BREAK_MINUTES"))


def _money(value, name: str) -> Money:
    if not isinstance(value, Money):
        raise TypeError(f"{name} must be core.money.Money, got {type(value).__name__}")
    if value.currency != settings.PLATFORM_CURRENCY:
        raise ValueError(f"{name} must be in {settings.PLATFORM_CURRENCY}")
    return value


def _minute(dt: datetime) -> datetime:
    return dt.replace(second=0, microsecond=0)


def _day_key(dt: datetime) -> date:
    return clock.business_date(dt)


def _month_key(dt: datetime) -> date:
    return clock.business_date(dt).replace(day=1)


# ---------------------------------------------------------------------------------------
# Limit comparisons
# ---------------------------------------------------------------------------------------
def is_stricter_or_equal(limit_type: str, new: int | None, old: int | None) -> bool:
    """True when ``new`` is at least as strict as ``old`` (None = no limit, the mildest).

    For every limit a smaller number is stricter, except the pause after logout (g) where a longer
    pause is stricter."""
    if new is None:
        return old is None
    if old is None:
        return True
    if limit_type == LimitType.PAUSE_AFTER_LOGOUT:
        return new >= old
    return new <= old


def _validate_limit(limit_type: str, value) -> int | None:
    if limit_type not in LimitType.values:
        raise errors.UNKNOWN_LIMIT(limit_type=limit_type, known=list(LimitType.values))
    if value is None:
        return None
    if isinstance(value, Money):
        if limit_type not in MONEY_LIMITS:
            raise errors.INVALID_LIMIT_VALUE(limit_type=limit_type, reason="not a money limit")
        value = value.amount
    if isinstance(value, bool) or not isinstance(value, int):
        raise errors.INVALID_LIMIT_VALUE(limit_type=limit_type, reason="must be an integer or null")
    lo, hi = LIMIT_RANGES[limit_type]
    if not lo <= value <= hi:
        raise errors.INVALID_LIMIT_VALUE(limit_type=limit_type, minimum=lo, maximum=hi, value=value,
                                         unit=LIMIT_UNITS[limit_type])
    return value


def _display(limit_type: str, value: int | None):
    """A limit value as details/JSON show it: Money for money limits, the plain number otherwise."""
    if value is None:
        return None
    return Money(value) if limit_type in MONEY_LIMITS else value


# ---------------------------------------------------------------------------------------
# Locks and counters
# ---------------------------------------------------------------------------------------
def _lock_state(player, kind: str) -> PlayerKindState:
    """Lock (creating if needed) the (player, kind) state row: every limit decision of the kind waits here."""
    qs = PlayerKindState.objects.select_for_update()
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


def _bump_periods(player_id: int, kind: str, at: datetime, *, stakes_placed=0, bets_placed=0,
                  stakes_decided=0, wins_decided=0, bets_decided=0) -> None:
    """Add to the day and month totals of the Prague day/month containing ``at`` (one statement)."""
    figures = [stakes_placed, bets_placed, stakes_decided, wins_decided, bets_decided]
    params = [player_id, kind, "day", _day_key(at), *figures, player_id, kind, "month", _month_key(at), *figures]
    row = "(%s, %s, %s, %s, %s, %s, %s, %s, %s)"
    with connection.cursor() as cur:
        cur.execute(_PERIOD_UPSERT.format(values=f"{row}, {row}"), params)


def _bump_buckets(state: PlayerKindState, entries: list[tuple[datetime, int, int]]) -> None:
    """Record hourly-loss events ``(at, stakes, wins)``, given in the order they happened, in minute buckets.

    Events of a minute not older than the newest minute written so far are "in order": the bucket's peak
    (largest tail loss) stays exact. Events into an older minute, or stakes taken back (negative), update the
    totals but may only raise the peak (by the stakes added): never below the real figure. Updates
    ``state.last_bucket_minute``; the caller saves the state row. One statement (two at most)."""
    groups: dict[datetime, list[tuple[int, int]]] = {}
    for at, stakes, wins in entries:
        if stakes or wins:
            groups.setdefault(_minute(at), []).append((stakes, wins))
    if not groups:
        return
    newest = state.last_bucket_minute
    ordered, conservative = [], []
    for minute, events in sorted(groups.items()):
        stakes = sum(e[0] for e in events)
        wins = sum(e[1] for e in events)
        if (newest is None or minute >= newest) and all(e[0] >= 0 for e in events):
            acc = peak = 0
            for st, wi in reversed(events):  # the largest tail (the empty tail counts as 0)
                acc -= wi
                peak = max(peak, acc)
                acc += st
                peak = max(peak, acc)
            ordered.append((minute, stakes, wins, peak))
        else:
            conservative.append((minute, stakes, wins, sum(max(0, e[0]) for e in events)))
    for sql, rows in ((_BUCKET_UPSERT_ORDERED, ordered), (_BUCKET_UPSERT_CONSERVATIVE, conservative)):
        if not rows:
            continue
        params: list = []
        for minute, stakes, wins, peak in rows:
            params += [state.player_id, state.kind, minute, stakes, wins, peak]
        with connection.cursor() as cur:
            cur.execute(sql.format(values=", ".join(["(%s, %s, %s, %s, %s, %s)"] * len(rows))), params)
    top = max(groups)
    if newest is None or top > newest:
        state.last_bucket_minute = top


@dataclass(frozen=True)
class Totals:
    day: PeriodTotal
    month: PeriodTotal


def period_totals(player, kind: str, at: datetime) -> Totals:
    """The day and month totals containing ``at`` (zero rows when nothing was counted yet). One query."""
    day_key, month_key = _day_key(at), _month_key(at)
    rows = {(r.period, r.start): r for r in PeriodTotal.objects.filter(
        player=player, kind=kind, period__in=("day", "month"), start__in=(day_key, month_key))}
    day = rows.get(("day", day_key)) or PeriodTotal(player_id=player.pk, kind=kind, period="day", start=day_key)
    month = rows.get(("month", month_key)) or PeriodTotal(player_id=player.pk, kind=kind, period="month",
                                                          start=month_key)
    return Totals(day=day, month=month)


def effective_limits(player, kind: str, at: datetime) -> dict[str, int | None]:
    """{limit_type: value in force at ``at``} for the limits the player set (declined/undecided = absent)."""
    out: dict[str, int | None] = {}
    for row in SelfLimit.objects.filter(player=player, kind=kind):
        value = row.effective_value(at)
        if value is not None:
            out[row.limit_type] = value
    return out


# ---------------------------------------------------------------------------------------
# Hourly loss (GP §8(5), ZHH §53)
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HourlyLoss:
    used: int  # the largest net loss of any rolling 60 minutes that contain ``at`` (>= 0)
    cap: int
    bound_by_bucket: list[tuple[datetime, int]]  # (bucket minute, bound of windows starting in it), oldest first

    def room(self) -> int:
        return max(0, self.cap - self.used)

    def frees_at(self, stake: int, at: datetime) -> datetime | None:
        """First minute boundary after ``at`` from which ``stake`` fits (None if it never can)."""
        if stake > self.cap:
            return None
        now_minute = _minute(at)
        bounds = self.bound_by_bucket
        for shift in range(1, HOURLY_WINDOW_MINUTES + 2):
            horizon = now_minute + (shift - HOURLY_WINDOW_MINUTES) * MINUTE
            used = max([0] + [b for m, b in bounds if m >= horizon])
            if used + stake <= self.cap:
                return now_minute + shift * MINUTE
        return None  # pragma: no cover - after 61 minutes every bucket has left the window


def hourly_loss(player, kind: str, at: datetime) -> HourlyLoss:
    """Net loss (stakes placed minus wins credited) over any rolling 60 minutes containing ``at``.

    Buckets are UTC minutes. A 60-minute window containing ``at`` starts in one of the 61 buckets
    ``[minute(at) - 60 min, minute(at)]``; the loss of a window starting inside bucket k is at most
    ``peak(k) + sum of (stakes - wins) of the later buckets``, where ``peak(k)`` is the largest loss of a
    tail of bucket k's events (exact for events recorded in order). ``used`` is the largest of these
    bounds: exact for windows starting in a full minute, and never less than the real figure for the
    oldest, partly covered minute, so the cap is never exceeded. Reads at most 61 rows.
    """
    now_minute = _minute(at)
    lo = now_minute - HOURLY_WINDOW_MINUTES * MINUTE
    rows = list(MinuteBucket.objects.filter(player=player, kind=kind, minute__gte=lo, minute__lte=now_minute)
                .order_by("-minute").values_list("minute", "stakes", "wins", "peak"))
    suffix = 0
    used = 0
    bounds = []
    for minute, stakes, wins, peak in rows:  # newest first
        bound = peak + suffix
        bounds.append((minute, bound))
        used = max(used, bound)
        suffix += stakes - wins
    bounds.reverse()
    return HourlyLoss(used=used, cap=_gp("MAX_HOURLY_LOSS"), bound_by_bucket=bounds)


# ---------------------------------------------------------------------------------------
# Stake check
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StakeAllowed:
    """What stake_check returns when the stake may be placed."""

    kind: str
    stake: Money
    placed_at: datetime
    play_seconds_left: int | None  # GP §7(4) play left before the break (None: no break rule for the kind)
    max_stake_now: Money  # the largest stake the limits allowed at this moment (before this stake)


def _grid_floor(amount: int, rules: KindRules) -> int:
    """The largest stake <= amount that the stake grid allows (0 when none)."""
    if amount <= 0:
        return 0
    if not rules.stake_grid:
        return amount
    lo, step, hi = _gp("MIN_STAKE"), _gp("STAKE_STEP"), _gp("MAX_STAKE")
    amount = min(amount, hi)
    if amount < lo:
        return 0
    return lo + ((amount - lo) // step) * step


def _check_stake_grid(stake: Money, game_max_bet: Money | None, rules: KindRules) -> int:
    """GP §8(1)-(2) and the game's own max bet; returns the max stake per round for this game."""
    if stake.amount <= 0:
        raise errors.STAKE_BELOW_MINIMUM(stake=stake, minimum=Money(_gp("MIN_STAKE") if rules.stake_grid else 1))
    plan_max = _gp("MAX_STAKE") if rules.stake_grid else None
    game_max = game_max_bet.amount if game_max_bet is not None else None
    caps = [c for c in (plan_max, game_max) if c is not None]
    maximum = min(caps) if caps else None
    if rules.stake_grid:
        lo, step = _gp("MIN_STAKE"), _gp("STAKE_STEP")
        if stake.amount < lo:
            raise errors.STAKE_BELOW_MINIMUM(stake=stake, minimum=Money(lo))
        if (stake.amount - lo) % step:
            lower = lo + ((stake.amount - lo) // step) * step
            raise errors.STAKE_NOT_IN_STEPS(stake=stake, minimum=Money(lo), step=Money(step),
                                            nearest_lower=Money(lower))
    if maximum is not None and stake.amount > maximum:
        raise errors.STAKE_ABOVE_MAXIMUM(
            stake=stake, maximum=Money(maximum),
            plan_maximum=Money(plan_max) if plan_max is not None else None,
            game_maximum=game_max_bet, max_stake_now=Money(_grid_floor(maximum, rules)),
        )
    return maximum if maximum is not None else stake.amount


def active_panic(player, at: datetime) -> PanicExclusion | None:
    return PanicExclusion.objects.filter(player=player, started_at__lte=at, ends_at__gt=at).order_by("-ends_at").first()


def active_self_listing(player, at: datetime) -> SelfListingRequest | None:
    return (SelfListingRequest.objects.filter(player=player, requested_at__lte=at, listed_until__gt=at)
            .order_by("-listed_until").first())


def _check_exclusions(player, at: datetime) -> None:
    """Panic button, a self-listing request, and (while accounts has no betting_refusal) the last
    register check of the scheduled jobs."""
    panic = active_panic(player, at)
    if panic is not None:
        raise errors.PANIC_EXCLUSION(limit="panic_button", started_at=panic.started_at, ends_at=panic.ends_at)
    listing = active_self_listing(player, at)
    if listing is not None:
        raise errors.SELF_LISTED(limit="self_listing", requested_at=listing.requested_at,
                                 listed_until=listing.listed_until)
    if not accounts_bridge.has_betting_refusal():
        watch = ExclusionWatch.objects.filter(player=player).values_list("last_listed", "last_checked_at").first()
        if watch and watch[0]:
            raise errors.EXCLUDED(limit="exclusion_register", checked_at=watch[1])


def _check_account(player) -> None:
    refusal = accounts_bridge.betting_refusal(player)
    if refusal is not None:
        raise refusal


def _play_left(state: PlayerKindState, at: datetime) -> timedelta:
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
            limit="play_time", value_minutes=int(limit.total_seconds() // 60),
            used_seconds=int(used.total_seconds()), break_minutes=int(brk.total_seconds() // 60),
            play_started_at=state.play_started_at, last_round_ended_at=state.last_round_ended_at,
            break_ends_at=state.last_round_ended_at + brk,
        )
    return limit - used


@dataclass(frozen=True)
class _Room:
    limit: str
    error: object
    value: int
    used: int
    resets_at: datetime | None
    hourly: HourlyLoss | None = None

    @property
    def room(self) -> int:
        return self.value - self.used


def _money_rooms(player, kind: str, limits: dict, open_stakes: int, at: datetime, rules: KindRules) -> list[_Room]:
    """Room left under each money limit, in the order the refusals are reported."""
    rooms: list[_Room] = []
    if any(lt in limits for lt in MONEY_LIMITS):
        totals = period_totals(player, kind, at)
        day_end = clock.day_bounds(at)[1]
        month_end = clock.month_bounds(at)[1]
        spec = [
            (LimitType.DAILY_STAKE, errors.DAILY_STAKE_EXCEEDED, totals.day.stakes_placed, day_end),
            (LimitType.MONTHLY_STAKE, errors.MONTHLY_STAKE_EXCEEDED, totals.month.stakes_placed, month_end),
            # GP §6(7): decided bets only, plus the undecided stakes assumed lost.
            (LimitType.DAILY_LOSS, errors.DAILY_LOSS_EXCEEDED, totals.day.net_loss + open_stakes, day_end),
            (LimitType.MONTHLY_LOSS, errors.MONTHLY_LOSS_EXCEEDED, totals.month.net_loss + open_stakes, month_end),
        ]
        for lt, err, used, resets in spec:
            if lt in limits:
                rooms.append(_Room(str(lt), err, limits[lt], used, resets))
    if rules.hourly_loss:
        hl = hourly_loss(player, kind, at)
        rooms.append(_Room("hourly_loss", errors.HOURLY_LOSS_EXCEEDED, hl.cap, hl.used, None, hourly=hl))
    return rooms


def _check_session_limits(player, kind: str, limits: dict, at: datetime) -> None:
    """GP §6(6)e-g during play: logins this month, logged-in time today, pause after the last logout."""
    pause = limits.get(LimitType.PAUSE_AFTER_LOGOUT)
    if pause:
        last = accounts_bridge.last_logout(player, at - timedelta(minutes=pause), at)
        if last is not None and last + timedelta(minutes=pause) > at:
            raise errors.PAUSE_AFTER_LOGOUT(limit=LimitType.PAUSE_AFTER_LOGOUT.value, value_minutes=pause,
                                            logged_out_at=last, ends_at=last + timedelta(minutes=pause))
    logins = limits.get(LimitType.MONTHLY_LOGINS)
    if logins is not None:
        start, end = clock.month_bounds(at)
        used = accounts_bridge.logins_started(player, start, at)
        if used > logins:  # the current session is beyond the limit
            raise errors.MONTHLY_LOGINS_EXCEEDED(limit=LimitType.MONTHLY_LOGINS.value, value=logins, used=used,
                                                 resets_at=end)
    minutes = limits.get(LimitType.DAILY_TIME)
    if minutes is not None:
        start, end = clock.day_bounds(at)
        used = accounts_bridge.logged_in_seconds(player, start, at)
        if used >= minutes * 60:
            raise errors.DAILY_TIME_EXCEEDED(limit=LimitType.DAILY_TIME.value, value_minutes=minutes,
                                             used_seconds=used, resets_at=end)


def stake_check(*, player, kind: str, stake: Money, game_code: str, game_max_bet: Money | None,
                now: datetime, round_ref: str = "") -> StakeAllowed:
    """May ``player`` stake ``stake`` on ``game_code`` now? Raises a limits DomainError when not.

    Run inside the caller's transaction after ``wallet.services.wallet_lock(player=)``. When allowed
    the stake is counted at once (stakes per day/month, the hourly buckets) and the open-round marker
    is set (GP §7(6)); both roll back with the caller's transaction if the bet is not placed after all.
    ``round_ref`` (optional) names the bet for kinds that may keep several bets open.
    Every refusal is recorded (StakeRefusal) so that it survives the caller's rollback.
    """
    stake = _money(stake, "stake")
    try:
        with transaction.atomic(savepoint=False):
            return _stake_check(player=player, kind=kind, stake=stake, game_code=game_code,
                                game_max_bet=game_max_bet, now=now, round_ref=round_ref)
    except DomainError as err:
        refusal_record(player=player, kind=kind, stake=stake, game_code=game_code, error=err, at=now)
        raise


def _stake_check(*, player, kind, stake, game_code, game_max_bet, now, round_ref) -> StakeAllowed:
    rules = kind_rules(kind)
    if game_max_bet is not None:
        game_max_bet = _money(game_max_bet, "game_max_bet")
    round_max = _check_stake_grid(stake, game_max_bet, rules)
    _check_account(player)
    _check_exclusions(player, now)

    state = _lock_state(player, kind)
    open_bets = list(OpenBet.objects.filter(player=player, kind=kind))
    if open_bets and (rules.one_open_round or any(b.round_ref == round_ref for b in open_bets)):
        bet = open_bets[0]
        raise errors.ROUND_IN_PROGRESS(limit="open_round", game_code=bet.game_code, stake=Money(bet.stake),
                                       placed_at=bet.placed_at)
    play_left = _play_left(state, now) if rules.play_break else None

    limits = effective_limits(player, kind, now)
    _check_session_limits(player, kind, limits, now)
    open_stakes = sum(b.stake for b in open_bets)
    rooms = _money_rooms(player, kind, limits, open_stakes, now, rules)
    max_now = _grid_floor(min([round_max] + [r.room for r in rooms]), rules)
    for r in rooms:
        if stake.amount > r.room:
            details = dict(limit=r.limit, kind=kind, value=Money(r.value), used=Money(r.used), stake=stake,
                           max_stake_now=Money(max_now))
            if r.limit == "hourly_loss":
                details["retry_at"] = r.hourly.frees_at(stake.amount, now)
                details["window_minutes"] = HOURLY_WINDOW_MINUTES
            else:
                details["resets_at"] = r.resets_at
            raise r.error(**details)

    # Allowed: count the placement and set the open-round marker.
    _bump_periods(player.pk, kind, now, stakes_placed=stake.amount, bets_placed=1)
    if rules.hourly_loss:
        _bump_buckets(state, [(now, stake.amount, 0)])
    OpenBet.objects.create(player=player, kind=kind, round_ref=round_ref or "", game_code=game_code or "",
                           stake=stake.amount, placed_at=now)
    if rules.play_break and (state.last_round_ended_at is None or state.play_started_at is None
                             or now - state.last_round_ended_at >= break_length()):
        state.play_started_at = now  # this stake opens a new play period
    state.updated_at = now
    state.save(update_fields=["play_started_at", "last_bucket_minute", "updated_at"])
    return StakeAllowed(kind=kind, stake=stake, placed_at=now,
                        play_seconds_left=int(play_left.total_seconds()) if play_left is not None else None,
                        max_stake_now=Money(max_now))


# ---------------------------------------------------------------------------------------
# Settled / voided bets
# ---------------------------------------------------------------------------------------
def _find_open_bet(player, kind: str, round_ref: str, rules: KindRules) -> OpenBet | None:
    bets = list(OpenBet.objects.filter(player=player, kind=kind))
    for b in bets:
        if b.round_ref == (round_ref or ""):
            return b
    if rules.one_open_round and len(bets) == 1:
        return bets[0]
    return None


def stake_settled(*, player, kind: str, stake: Money, win: Money, started_at: datetime, settled_at: datetime,
                  round_ref: str = "", game_code: str = "") -> SettledBet:
    """Record a decided bet: counters for GP §6(7) net loss, the hourly loss and play time; clears the marker.

    Run inside the caller's transaction under the wallet lock. With a ``round_ref`` the call is
    idempotent (a replay returns the first record and counts nothing). A bet whose stake_check was not
    called is counted as placed at ``started_at``.
    """
    stake = _money(stake, "stake")
    win = _money(win, "win")
    if stake.amount < 0 or win.amount < 0:
        raise ValueError("stake and win must not be negative")
    if settled_at < started_at:
        raise ValueError("settled_at is before started_at")
    rules = kind_rules(kind)
    with transaction.atomic(savepoint=False):
        state = _lock_state(player, kind)
        if round_ref:
            existing = SettledBet.objects.filter(player=player, kind=kind, round_ref=round_ref).first()
            if existing is not None:
                return existing
        bet = _find_open_bet(player, kind, round_ref, rules)
        buckets: list[tuple[datetime, int, int]] = []
        if bet is not None:
            placed_at = bet.placed_at
            game_code = game_code or bet.game_code
            diff = stake.amount - bet.stake
            if diff:  # the game settled a different stake than it checked: correct the placement counters
                _bump_periods(player.pk, kind, placed_at, stakes_placed=diff)
                buckets.append((placed_at, diff, 0))
            bet.delete()
        else:
            placed_at = started_at
            _bump_periods(player.pk, kind, placed_at, stakes_placed=stake.amount, bets_placed=1)
            buckets.append((placed_at, stake.amount, 0))
            if rules.play_break and (state.last_round_ended_at is None or state.play_started_at is None
                                     or started_at - state.last_round_ended_at >= break_length()):
                state.play_started_at = started_at
        _bump_periods(player.pk, kind, settled_at, stakes_decided=stake.amount, wins_decided=win.amount,
                      bets_decided=1)
        buckets.append((settled_at, 0, win.amount))
        if rules.hourly_loss:
            _bump_buckets(state, buckets)
        if state.last_round_ended_at is None or settled_at > state.last_round_ended_at:
            state.last_round_ended_at = settled_at
        state.updated_at = settled_at
        state.save(update_fields=["play_started_at", "last_round_ended_at", "last_bucket_minute", "updated_at"])
        return SettledBet.objects.create(player=player, kind=kind, game_code=game_code or "",
                                         round_ref=round_ref or "", stake=stake.amount, win=win.amount,
                                         placed_at=placed_at, started_at=started_at, settled_at=settled_at)


def stake_voided(*, player, kind: str, at: datetime, round_ref: str = "", reason: str = "") -> SettledBet | None:
    """The open bet's stake was returned (e.g. GP §7(8)b: unfinished round past its deadline).

    Clears the open-round marker and takes the stake back out of the placement counters; the bet is
    neither a stake nor a decided bet for the limits. Idempotent: no open bet, nothing done (None)."""
    rules = kind_rules(kind)
    with transaction.atomic(savepoint=False):
        state = _lock_state(player, kind)
        bet = _find_open_bet(player, kind, round_ref, rules)
        if bet is None:
            return None
        _bump_periods(player.pk, kind, bet.placed_at, stakes_placed=-bet.stake, bets_placed=-1)
        if rules.hourly_loss:
            _bump_buckets(state, [(bet.placed_at, -bet.stake, 0)])
        bet.delete()
        if state.last_round_ended_at is None or bet.placed_at > state.last_round_ended_at:
            state.last_round_ended_at = bet.placed_at
        state.save(update_fields=["last_round_ended_at", "last_bucket_minute"])
        return SettledBet.objects.create(player=player, kind=kind, game_code=bet.game_code, round_ref=bet.round_ref,
                                         stake=bet.stake, win=0, placed_at=bet.placed_at, started_at=bet.placed_at,
                                         settled_at=at, voided=True)


def win_cap(*, win: Money) -> tuple[Money, bool]:
    """GP §8(3): (the win to credit, whether it was capped) under settings.GP["MAX_WIN_PER_ROUND"]."""
    win = _money(win, "win")
    cap = _gp("MAX_WIN_PER_ROUND")
    if win.amount > cap:
        return Money(cap, win.currency), True
    return win, False


# ---------------------------------------------------------------------------------------
# Refusal log (survives the caller's rollback)
# ---------------------------------------------------------------------------------------
_REFUSAL_INSERT = """
INSERT INTO limits_stakerefusal (player_id, kind, game_code, stake, code, details, refused_at, request_id)
VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s, %s)
"""


def refusal_record(*, player, kind: str, stake: Money, game_code: str, error: DomainError, at: datetime) -> None:
    """Record a refused stake so staff can see why.

    Inside a transaction the row is written on a separate, short-lived autocommit connection: the
    caller's transaction is about to roll back (the refusal is raised through it) and would take a row
    written on its own connection with it. Outside a transaction the ordinary connection is used.
    A failure to log never hides the refusal itself.
    """
    details = error.as_dict()["details"]
    params = [player.pk, kind[:32], (game_code or "")[:64], stake.amount, error.code[:64],
              json.dumps(details), at, (get_request_id() or "")[:64]]
    try:
        if not connection.in_atomic_block:
            with connection.cursor() as cur:
                cur.execute(_REFUSAL_INSERT, params)
            return
        settings_dict = copy.deepcopy(connections["default"].settings_dict)
        backend = load_backend(settings_dict["ENGINE"])
        own = backend.DatabaseWrapper(settings_dict, alias="limits_refusal_log")
        try:
            with own.cursor() as cur:
                cur.execute(_REFUSAL_INSERT, params)
        finally:
            own.close()
    except Exception:  # noqa: BLE001 - the refusal stands even if its log line cannot be written
        logger.exception("could not record stake refusal %s for player %s", error.code, player.pk)


# ---------------------------------------------------------------------------------------
# Self-limits (GP §6)
# ---------------------------------------------------------------------------------------
def _history(*, row: SelfLimit, action: str, old, new, at: datetime, effective_from: datetime, actor: Actor,
             note: str = "") -> SelfLimitChange:
    return SelfLimitChange.objects.create(
        player_id=row.player_id, kind=row.kind, limit_type=row.limit_type, action=action, old_value=old,
        new_value=new, requested_at=at, effective_from=effective_from, actor_type=actor.type, actor_id=actor.id,
        actor_label=actor.label[:150], note=note[:200],
    )


def _materialise_due(row: SelfLimit, at: datetime, actor: Actor) -> bool:
    """Write a due pending loosening into ``value`` (with its history line). The row must be locked."""
    if row.has_pending and row.pending_effective_at is not None and at >= row.pending_effective_at:
        old = row.value
        row.value = row.pending_value
        effective = row.pending_effective_at
        row.has_pending = False
        row.pending_value = row.pending_requested_at = row.pending_effective_at = None
        row.updated_at = at
        row.save()
        _history(row=row, action=SelfLimitChange.Action.LOOSENING_APPLIED, old=old, new=row.value, at=at,
                 effective_from=effective, actor=actor)
        audit_record(actor=actor, action="limits.self_limit_loosening_applied", obj=row,
                     old={"value": old}, new={"value": row.value}, kind=row.kind, limit_type=row.limit_type)
        return True
    return False


def _closing_floor(player, kind: str, limit_type: str, at: datetime) -> tuple[int | None, datetime] | None:
    """ZHH §14a: the strictest value of this limit in force when an earlier account of the same person was
    closed within the last 7 days, with that closing instant (None when there is no such closing).

    Earlier accounts are found by the person key (accounts.selectors.person_key): the snapshots taken by
    :func:`limits_account_closed`, and closed accounts found through accounts' personal data, whose limit
    rows give the value in force at ``closed_at``."""
    since = at - timedelta(days=REREGISTRATION_DAYS)
    found: list[tuple[int | None, datetime]] = []
    key = accounts_bridge.person_key(player)
    if key:
        for snap in ClosingSnapshot.objects.filter(person_key=key, closed_at__gte=since,
                                                   closed_at__lte=at).exclude(player=player):
            if kind in snap.limits:
                found.append((snap.limits[kind].get(limit_type), snap.closed_at))
    for other_id, closed_at in accounts_bridge.closed_accounts_of_person(player, since, at):
        row = SelfLimit.objects.filter(player_id=other_id, kind=kind, limit_type=limit_type,
                                       decided_at__isnull=False).first()
        if row is not None:
            found.append((row.effective_value(closed_at), closed_at))
    best = None
    for value, closed_at in found:
        if best is None or is_stricter_or_equal(limit_type, value, best[0]):
            best = (value, closed_at)
    return best


def self_limit_set(*, player, kind: str, limit_type: str, value: int | Money | None, actor: Actor,
                   now: datetime | None = None) -> SelfLimit:
    """Set, decline, tighten, loosen or remove one self-limit (GP §6). ``value`` None = no limit.

    * First decision (registration, GP §4(4)e, §6(2)): in force at once, set or declined.
    * ZHH §14a: within 7 days of closing an earlier account of the same person, neither a first decision
      nor a loosening may be milder than the limit in force at that closing.
    * Tightening (or keeping the value): in force at once (GP §6(5)) and cancels a pending loosening.
    * Loosening or removal: pending, in force 7 x 24 h after the request (GP §6(4)); a newer loosening
      replaces a pending one and takes its own date.
    """
    now = now or clock.now()
    kind_rules(kind)
    value = _validate_limit(limit_type, value)
    with transaction.atomic():
        SelfLimit.objects.bulk_create(
            [SelfLimit(player=player, kind=kind, limit_type=limit_type, updated_at=now)], ignore_conflicts=True)
        row = SelfLimit.objects.select_for_update().get(player=player, kind=kind, limit_type=limit_type)
        _materialise_due(row, now, Actor.system("limits.loosening_due"))
        current = row.value
        A = SelfLimitChange.Action
        if row.decided_at is None or not is_stricter_or_equal(limit_type, value, current):
            floor = _closing_floor(player, kind, limit_type, now)
            if floor is not None and not is_stricter_or_equal(limit_type, value, floor[0]):
                raise errors.MILDER_THAN_AT_CLOSING(limit=limit_type, kind=kind, value=_display(limit_type, value),
                                                    value_at_closing=_display(limit_type, floor[0]),
                                                    closed_at=floor[1])
        if row.decided_at is None:
            row.value = value
            row.decided_at = now
            row.updated_at = now
            row.save()
            _history(row=row, action=A.DECLINED if value is None else A.SET, old=None, new=value, at=now,
                     effective_from=now, actor=actor)
            action = "limits.self_limit_declined" if value is None else "limits.self_limit_set"
        elif is_stricter_or_equal(limit_type, value, current):
            if row.has_pending:
                _history(row=row, action=A.LOOSENING_CANCELLED, old=row.pending_value, new=current, at=now,
                         effective_from=now, actor=actor, note="replaced by a newer tightening or keeping")
                row.has_pending = False
                row.pending_value = row.pending_requested_at = row.pending_effective_at = None
            elif value == current:
                return row  # nothing to change
            if value != current:
                _history(row=row, action=A.TIGHTENED, old=current, new=value, at=now, effective_from=now,
                         actor=actor)
            row.value = value
            row.updated_at = now
            row.save()
            action = "limits.self_limit_tightened"
        else:
            if row.has_pending and row.pending_value == value:
                return row  # the same loosening is already pending
            effective = clock.add_days(now, LOOSENING_DELAY_DAYS)
            if row.has_pending:
                _history(row=row, action=A.LOOSENING_CANCELLED, old=row.pending_value, new=current, at=now,
                         effective_from=now, actor=actor, note="replaced by a newer loosening")
            row.has_pending = True
            row.pending_value = value
            row.pending_requested_at = now
            row.pending_effective_at = effective
            row.updated_at = now
            row.save()
            _history(row=row, action=A.LOOSENING_REQUESTED, old=current, new=value, at=now, effective_from=effective,
                     actor=actor)
            action = "limits.self_limit_loosening_requested"
        audit_record(actor=actor, action=action, obj=row, old={"value": current},
                     new={"value": value, "pending_effective_at": row.pending_effective_at},
                     kind=kind, limit_type=limit_type)
        return row


def self_limits_decide(*, player, kind: str, decisions: dict[str, int | Money | None], actor: Actor,
                       now: datetime | None = None) -> list[SelfLimit]:
    """Several limits at once (the registration step): ``{limit_type: value or None (declined)}``; all or none."""
    now = now or clock.now()
    with transaction.atomic():
        return [self_limit_set(player=player, kind=kind, limit_type=lt, value=v, actor=actor, now=now)
                for lt, v in decisions.items()]


def pending_limits_apply(*, now: datetime | None = None, batch: int = 200, ids: list[int] | None = None,
                         actor: Actor | None = None) -> int:
    """Sweeper: write due loosenings into ``value`` (readers already treat them as in force at their instant).
    Claims rows with SKIP LOCKED, each in its own transaction; safe to run twice or on two workers."""
    now = now or clock.now()
    done = 0
    actor = actor or Actor.system("limits.pending_limits_apply")
    while True:
        with transaction.atomic():
            qs = SelfLimit.objects.select_for_update(skip_locked=True).filter(has_pending=True,
                                                                              pending_effective_at__lte=now)
            if ids is not None:
                qs = qs.filter(pk__in=ids)
            row = qs.order_by("pending_effective_at", "pk").first()
            if row is None:
                return done
            _materialise_due(row, now, actor)
            done += 1
        if done >= batch:
            return done


def limits_account_closed(*, player, actor: Actor, closed_at: datetime | None = None) -> ClosingSnapshot | None:
    """Keep the self-limits in force at closing for ZHH §14a (accounts calls it when an account closes).
    Idempotent (one snapshot per player). None when the person cannot be keyed."""
    closed_at = closed_at or clock.now()
    key = accounts_bridge.person_key(player)
    if not key:
        logger.warning("no person key for player %s; ZHH §14a floor not kept", player.pk)
        return None
    with transaction.atomic():
        existing = ClosingSnapshot.objects.filter(player=player).first()
        if existing is not None:
            return existing
        limits: dict[str, dict[str, int | None]] = {}
        for row in SelfLimit.objects.filter(player=player, decided_at__isnull=False):
            limits.setdefault(row.kind, {})[row.limit_type] = row.effective_value(closed_at)
        snap = ClosingSnapshot.objects.create(player=player, person_key=key, closed_at=closed_at, limits=limits)
        audit_record(actor=actor, action="limits.closing_snapshot", obj=snap, new={"limits": limits})
        return snap


# ---------------------------------------------------------------------------------------
# Login check (GP §6(6)e-g, panic button, self-listing)
# ---------------------------------------------------------------------------------------
def _login_blocker(player, kind: str, now: datetime) -> DomainError | None:
    limits = effective_limits(player, kind, now)
    pause = limits.get(LimitType.PAUSE_AFTER_LOGOUT)
    if pause:
        last = accounts_bridge.last_logout(player, now - timedelta(minutes=pause), now)
        if last is not None and last + timedelta(minutes=pause) > now:
            return errors.PAUSE_AFTER_LOGOUT(limit=LimitType.PAUSE_AFTER_LOGOUT.value, kind=kind, value_minutes=pause,
                                             logged_out_at=last, ends_at=last + timedelta(minutes=pause))
    logins = limits.get(LimitType.MONTHLY_LOGINS)
    if logins is not None:
        start, end = clock.month_bounds(now)
        used = accounts_bridge.logins_started(player, start, now)
        if used >= logins:
            return errors.MONTHLY_LOGINS_EXCEEDED(limit=LimitType.MONTHLY_LOGINS.value, kind=kind, value=logins,
                                                  used=used, resets_at=end)
    minutes = limits.get(LimitType.DAILY_TIME)
    if minutes is not None:
        start, end = clock.day_bounds(now)
        used = accounts_bridge.logged_in_seconds(player, start, now)
        if used >= minutes * 60:
            return errors.DAILY_TIME_EXCEEDED(limit=LimitType.DAILY_TIME.value, kind=kind, value_minutes=minutes,
                                              used_seconds=used, resets_at=end)
    return None


def login_check(*, player, now: datetime) -> None:
    """Raise when a login is not allowed now: the panic button, a self-listing request, or the self-limits
    (e) logins per month, (f) logged-in time today, (g) pause after logout.

    The account is shared by all kinds (GP §5(3)) while the limits are per kind: a login is refused when
    every kind the operator offers is blocked (today: technical games only); stake_check enforces each
    kind's own limits during play. The register of excluded persons is checked by accounts at login."""
    from limits.kinds import offered_kinds

    _check_exclusions(player, now)
    blockers = [_login_blocker(player, kind, now) for kind in offered_kinds()]
    if blockers and all(b is not None for b in blockers):
        raise blockers[0]


def daily_time_logout_sweep(*, now: datetime | None = None) -> int:
    """GP §6(6)f "then automatic logout": log out every logged-in player whose daily logged-in time limit is
    used up in every offered kind. Returns how many were logged out. Safe to run twice."""
    from limits.kinds import offered_kinds

    now = now or clock.now()
    player_ids = accounts_bridge.active_session_player_ids()
    if not player_ids:
        return 0
    candidates = set(SelfLimit.objects.filter(player_id__in=player_ids, limit_type=LimitType.DAILY_TIME,
                                              kind__in=offered_kinds())
                     .exclude(value__isnull=True, has_pending=False).values_list("player_id", flat=True))
    from accounts.models import Player

    done = 0
    start, _ = clock.day_bounds(now)
    for player in Player.objects.filter(pk__in=candidates):
        used = accounts_bridge.logged_in_seconds(player, start, now)
        blocked = []
        for kind in offered_kinds():
            minutes = effective_limits(player, kind, now).get(LimitType.DAILY_TIME)
            blocked.append(minutes is not None and used >= minutes * 60)
        if blocked and all(blocked):
            with transaction.atomic():
                if accounts_bridge.force_logout(player=player, reason="daily_time_limit",
                                                actor=Actor.system("limits.daily_time_logout")):
                    done += 1
    return done


# ---------------------------------------------------------------------------------------
# Panic button and self-listing (2024 amendment)
# ---------------------------------------------------------------------------------------
def panic_press(*, player, actor: Actor, now: datetime | None = None) -> PanicExclusion:
    """Exclude the player from all gambling for 48 hours from now (again and again: each press starts a new
    48 hours). Stakes are refused at once, logins too (login_check), and the player is logged out."""
    now = now or clock.now()
    with transaction.atomic():
        panic = PanicExclusion.objects.create(player=player, started_at=now, ends_at=now + PANIC_DURATION)
        audit_record(actor=actor, action="limits.panic_button", obj=panic, new={"ends_at": panic.ends_at},
                     player_id=player.pk)
        accounts_bridge.force_logout(player=player, reason="panic_button", actor=actor)
    return panic


def _add_years(dt: datetime, years: int) -> datetime:
    try:
        return dt.replace(year=dt.year + years)
    except ValueError:  # 29 February
        return dt.replace(year=dt.year + years, month=3, day=1)


def self_listing_request(*, player, actor: Actor, years: int = 1, now: datetime | None = None) -> SelfListingRequest:
    """The player asks to be listed in the register of excluded persons for ``years`` (at least 1 year before
    removal). Refused at once from now (stakes and logins); the request is sent to the register by
    :func:`self_listing_send` after commit and retried by a sweeper until the register takes it."""

    now = now or clock.now()
    if isinstance(years, bool) or not isinstance(years, int) or years < 1:
        raise errors.SELF_LISTING_TOO_SHORT(minimum_years=1, years=years)
    with transaction.atomic():
        req = SelfListingRequest.objects.create(player=player, requested_at=now, listed_until=_add_years(now, years),
                                                next_attempt_at=now)
        audit_record(actor=actor, action="limits.self_listing_requested", obj=req,
                     new={"listed_until": req.listed_until}, player_id=player.pk)
        accounts_bridge.force_logout(player=player, reason="self_listing", actor=actor)
        from limits.tasks import self_listing_send_task

        self_listing_send_task.delay_on_commit(req.pk)
    return req


def self_listing_send(*, request_id: int, now: datetime | None = None, force: bool = False,
                      actor: Actor | None = None) -> SelfListingRequest | None:
    """Pass one request to the register (accounts adapter). Claimed by a guarded update, the network call is
    made with no transaction open; a failure is recorded and retried later with a growing delay.
    ``force`` (staff "send now") ignores the retry delay."""
    now = now or clock.now()
    actor = actor or Actor.system("limits.self_listing_send")
    qs = SelfListingRequest.objects.filter(pk=request_id, status=SelfListingRequest.Status.PENDING)
    if not force:
        qs = qs.filter(next_attempt_at__lte=now)
    claimed = qs.update(next_attempt_at=now + timedelta(minutes=5), attempts=F("attempts") + 1)
    if not claimed:
        return None
    req = SelfListingRequest.objects.select_related("player").get(pk=request_id)
    try:
        register = accounts_bridge.exclusion_register()
        register.request_self_listing(accounts_bridge.register_identity(req.player), req.listed_until)
    except Exception as exc:  # noqa: BLE001 - any failure is retried
        delay = timedelta(minutes=min(60, 2 ** min(req.attempts, 6)))
        SelfListingRequest.objects.filter(pk=req.pk).update(
            last_error=f"{exc.__class__.__name__}: {exc}"[:300], next_attempt_at=now + delay)
        logger.warning("self-listing request %s not sent: %s", req.pk, exc)
        req.refresh_from_db()
        return req
    with transaction.atomic():
        SelfListingRequest.objects.filter(pk=req.pk).update(status=SelfListingRequest.Status.SENT, sent_at=now,
                                                            next_attempt_at=None, last_error="")
        req.refresh_from_db()
        audit_record(actor=actor, action="limits.self_listing_sent", obj=req,
                     new={"listed_until": req.listed_until}, attempts=req.attempts)
    return req


def self_listing_send_due(*, now: datetime | None = None, batch: int = 100) -> int:
    now = now or clock.now()
    ids = list(SelfListingRequest.objects.filter(status=SelfListingRequest.Status.PENDING, next_attempt_at__lte=now)
               .order_by("next_attempt_at").values_list("pk", flat=True)[:batch])
    sent = 0
    for pk in ids:
        req = self_listing_send(request_id=pk, now=now)
        if req is not None and req.status == SelfListingRequest.Status.SENT:
            sent += 1
    return sent


# ---------------------------------------------------------------------------------------
# Scheduled exclusion checks
# ---------------------------------------------------------------------------------------
SESSION_RECHECK = timedelta(minutes=9)  # run every 5 minutes -> each logged-in player checked 10 (<= 15) min apart
DAILY_RECHECK = timedelta(hours=23)
CLAIM_FOR = timedelta(minutes=5)
ACTIVE_STATUSES = ("temporary", "active")


def exclusion_sweep(*, context: str, now: datetime | None = None, limit: int = 5000) -> ExclusionSweep:
    """Check players in the register of excluded persons through ``accounts.services.exclusion_check`` (which
    records each result and logs a listed player out).

    ``context="session"``: every player with an active login session not checked in the last 9 minutes (the
    task runs every 5 minutes, so a logged-in player is checked every 10 minutes, never 15 apart).
    ``context="daily"``: every temporary or active player not checked in the last 23 hours (``limit`` a run;
    the task runs hourly). Players are claimed by a guarded
    update (``claimed_until``), so two workers never check one player twice; no transaction is held open
    during the call to the register."""
    from accounts.models import Player

    now = now or clock.now()
    sweep = ExclusionSweep.objects.create(context=context, started_at=now)
    if context == "session":
        candidates = accounts_bridge.active_session_player_ids()
        threshold = now - SESSION_RECHECK
        ExclusionWatch.objects.bulk_create([ExclusionWatch(player_id=pk) for pk in candidates],
                                           ignore_conflicts=True)
        watched = ExclusionWatch.objects.filter(player_id__in=candidates)
    elif context == "daily":
        threshold = now - DAILY_RECHECK
        with connection.cursor() as cur:  # a watch row for every active player who has none yet (set-based)
            cur.execute(
                f"""INSERT INTO {ExclusionWatch._meta.db_table} (player_id, failures, last_context, last_error)
                    SELECT p.id, 0, '', '' FROM {Player._meta.db_table} p WHERE p.status = ANY(%s)
                    ON CONFLICT (player_id) DO NOTHING""",
                [list(ACTIVE_STATUSES)],
            )
        watched = ExclusionWatch.objects.filter(player__status__in=ACTIVE_STATUSES)
    else:
        raise ValueError(f"unknown context {context!r}")
    due = list(watched.filter(Q(last_checked_at__isnull=True) | Q(last_checked_at__lte=threshold))
               .order_by(F("last_checked_at").asc(nulls_first=True)).values_list("player_id", flat=True)[:limit])
    actor = Actor.system(f"limits.exclusion_sweep_{context}")
    checked = listed = failed = 0
    note = ""
    for pid in due:
        claimed = (ExclusionWatch.objects.filter(player_id=pid)
                   .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
                   .filter(Q(last_checked_at__isnull=True) | Q(last_checked_at__lte=threshold))
                   .update(claimed_until=now + CLAIM_FOR))
        if not claimed:
            continue
        player = Player.objects.get(pk=pid)
        try:
            result = accounts_bridge.exclusion_check(player=player, actor=actor, context=f"periodic_{context}")
        except Exception as exc:  # noqa: BLE001 - register down or accounts missing: recorded, retried next run
            failed += 1
            note = f"{exc.__class__.__name__}: {exc}"[:300]
            ExclusionWatch.objects.filter(player_id=pid).update(
                claimed_until=None, failures=F("failures") + 1, last_error=note)
            continue
        checked += 1
        listed += int(result)
        ExclusionWatch.objects.filter(player_id=pid).update(
            last_checked_at=now, last_listed=result, last_context=context, last_error="", failures=0,
            claimed_until=None)
    ExclusionSweep.objects.filter(pk=sweep.pk).update(finished_at=clock.now(), checked=checked, listed=listed,
                                                      failed=failed, note=note)
    sweep.refresh_from_db()
    return sweep


def minute_buckets_prune(*, now: datetime | None = None) -> int:
    """Delete minute buckets older than 2 hours (the hourly-loss check reads the last 61 minutes)."""
    now = now or clock.now()
    deleted, _ = MinuteBucket.objects.filter(minute__lt=_minute(now) - BUCKET_RETENTION).delete()
    return deleted


__all__ = [
    "stake_check", "stake_settled", "stake_voided", "win_cap", "login_check", "self_limit_set", "self_limits_decide",
    "pending_limits_apply", "limits_account_closed", "panic_press", "self_listing_request", "self_listing_send",
    "self_listing_send_due", "exclusion_sweep", "daily_time_logout_sweep", "minute_buckets_prune",
    "refusal_record", "StakeAllowed", "TECHNICAL",
]
