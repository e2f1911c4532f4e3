"""Reads of the limits app (plain data and querysets)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from core import clock
from core.money import Money
from limits import accounts_bridge
from limits.kinds import TECHNICAL, kind_rules
from limits.models import LimitType, OpenBet, PlayerKindState, SelfLimit, SelfLimitChange, StakeRefusal


def self_limits_decided(player, kind: str = TECHNICAL) -> bool:
    """GP §4(4)e, §6(2): has the player set or individually declined every one of the seven self-limits of
    this kind? (The registration completion step.)"""
    decided = SelfLimit.objects.filter(player=player, kind=kind, decided_at__isnull=False).values_list(
        "limit_type", flat=True)
    return set(decided) >= set(LimitType.values)


def undecided_limits(player, kind: str = TECHNICAL) -> list[str]:
    decided = set(SelfLimit.objects.filter(player=player, kind=kind, decided_at__isnull=False)
                  .values_list("limit_type", flat=True))
    return [lt for lt in LimitType.values if lt not in decided]


@dataclass(frozen=True)
class LimitView:
    """One self-limit as the player sees it (including what is used of it now)."""

    kind: str
    limit_type: str
    unit: str
    decided: bool
    declined: bool
    value: int | None
    pending: bool
    pending_value: int | None
    pending_requested_at: datetime | None
    pending_effective_at: datetime | None
    used: int | None
    resets_at: datetime | None
    decided_at: datetime | None


def self_limits(player, kind: str = TECHNICAL, now: datetime | None = None) -> list[LimitView]:
    """The seven limits of the kind in GP §6(6) order, with a pending loosening and current usage."""
    from limits.services import LIMIT_UNITS, period_totals

    kind_rules(kind)
    now = now or clock.now()
    rows = {r.limit_type: r for r in SelfLimit.objects.filter(player=player, kind=kind)}
    totals = period_totals(player, kind, now)
    open_stakes = sum(OpenBet.objects.filter(player=player, kind=kind).values_list("stake", flat=True))
    day_start, day_end = clock.day_bounds(now)
    month_start, month_end = clock.month_bounds(now)
    usage = {
        LimitType.DAILY_STAKE: (lambda: totals.day.stakes_placed, day_end),
        LimitType.MONTHLY_STAKE: (lambda: totals.month.stakes_placed, month_end),
        LimitType.DAILY_LOSS: (lambda: totals.day.net_loss + open_stakes, day_end),
        LimitType.MONTHLY_LOSS: (lambda: totals.month.net_loss + open_stakes, month_end),
        LimitType.MONTHLY_LOGINS: (lambda: accounts_bridge.logins_started(player, month_start, now), month_end),
        LimitType.DAILY_TIME: (lambda: accounts_bridge.logged_in_seconds(player, day_start, now) // 60, day_end),
        LimitType.PAUSE_AFTER_LOGOUT: (lambda: None, None),
    }
    out = []
    for lt in LimitType.values:
        row = rows.get(lt)
        used_fn, resets = usage[LimitType(lt)]
        value = row.effective_value(now) if row else None
        pending = bool(row and row.pending_at(now))
        out.append(LimitView(
            kind=kind, limit_type=lt, unit=LIMIT_UNITS[LimitType(lt)],
            decided=bool(row and row.decided_at), declined=bool(row and row.decided_at and value is None),
            value=value, pending=pending,
            pending_value=row.pending_value if pending else None,
            pending_requested_at=row.pending_requested_at if pending else None,
            pending_effective_at=row.pending_effective_at if pending else None,
            used=used_fn(), resets_at=resets, decided_at=row.decided_at if row else None,
        ))
    return out


def limit_history(player, kind: str | None = None):
    qs = SelfLimitChange.objects.filter(player=player)
    if kind:
        qs = qs.filter(kind=kind)
    return qs.order_by("-requested_at", "-id")


def stake_refusals(player):
    return StakeRefusal.objects.filter(player_id=player.pk).order_by("-refused_at", "-id")


def play_status(player, now: datetime | None = None, kind: str = TECHNICAL) -> dict:
    """GP §7(4)-(5) as the player sees it: play time used and left, whether a break is due and when it ends.

    Same definition as the stake check (limits.services._play_left): play runs from the stake that opened
    the period; a gap of less than 15 minutes since the last round counts as play, 15 minutes or more
    ends the period (then the full 120 minutes are available again)."""
    from limits.services import break_length, play_limit

    now = now or clock.now()
    rules = kind_rules(kind)
    limit, brk = play_limit(), break_length()
    base = {"kind": kind, "play_limit_minutes": int(limit.total_seconds() // 60),
            "break_minutes": int(brk.total_seconds() // 60)}
    if not rules.play_break:
        return {**base, "applies": False, "round_open": False, "play_started_at": None,
                "play_seconds_used": 0, "play_seconds_left": None, "break_required": False,
                "break_ends_at": None, "pause_resets_at": None}
    state = PlayerKindState.objects.filter(player=player, kind=kind).first()
    bet = OpenBet.objects.filter(player=player, kind=kind).order_by("placed_at").first()
    started = state.play_started_at if state else None
    last_end = state.last_round_ended_at if state else None
    round_open = bet is not None
    in_period = started is not None and (round_open or (last_end is not None and now - last_end < brk))
    if not in_period:
        used = timedelta()
        started = None
    else:
        used = max(timedelta(), now - started)
    break_required = in_period and not round_open and used >= limit
    return {
        **base, "applies": True, "round_open": round_open, "play_started_at": started,
        "play_seconds_used": int(used.total_seconds()),
        "play_seconds_left": int(max(timedelta(), limit - used).total_seconds()),
        "break_required": break_required,
        "break_ends_at": last_end + brk if break_required else None,
        # when a pause that starts now would restart the 120 minutes (GP §7(5))
        "pause_resets_at": (last_end + brk) if (in_period and not round_open) else None,
    }


def money_limit_room(player, kind: str = TECHNICAL, now: datetime | None = None) -> Money:
    """The largest stake the money limits (self-limits and the hourly loss) would allow now (a hint for games)."""
    from limits.services import _grid_floor, _money_rooms, effective_limits

    now = now or clock.now()
    rules = kind_rules(kind)
    open_stakes = sum(OpenBet.objects.filter(player=player, kind=kind).values_list("stake", flat=True))
    rooms = _money_rooms(player, kind, effective_limits(player, kind, now), open_stakes, now, rules)
    from django.conf import settings

    cap = settings.GP["MAX_STAKE"] if rules.stake_grid else 10**12
    return Money(_grid_floor(min([cap] + [r.room for r in rooms]), rules))
