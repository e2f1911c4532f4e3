"""Reads of the limits app (plain data and querysets).

The reads a stake decision needs (day/month totals, the hourly loss, the limits in force, the room under
each money limit, the panic button and self-listing in force) live here too: ``limits.services`` applies
them under the caller's lock, the API shows them to the player. Login-session figures are read from
accounts' ``LoginSession`` rows with index-bounded queries (see :data:`SESSION_LOOKBACK`).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.db import connection
from django.db.models import Q, QuerySet

from accounts import terms
from accounts.models import LoginSession, PersonalData, Player
from accounts.selectors import person_key
from core import clock, partitioning
from core.errors import ErrorDef
from core.money import Money
from limits import errors
from limits.kinds import TECHNICAL, KindRules, kind_rules
from limits.models import (
    HelpContact,
    LimitType,
    MinuteBucket,
    OpenBet,
    PanicExclusion,
    PeriodTotal,
    PlayerKindState,
    ResponsibleGamingText,
    SelfLimit,
    SelfLimitChange,
    SelfListingRequest,
    SettledBet,
)
from limits.rules import (
    HOURLY_WINDOW_MINUTES,
    LIMIT_UNITS,
    MINUTE,
    MONEY_LIMITS,
    break_length,
    day_key,
    gp,
    grid_floor,
    minute_of,
    month_key,
    play_limit,
)


# ---------------------------------------------------------------------------------------
# Self-limits (GP §6) --------------------------------------------------------------------------------------------------
def self_limits_decided(player: Player, kind: str = TECHNICAL) -> bool:
    """GP §4(4)e, §6(2): has the player set or individually declined every one of the seven self-limits of
    this kind? (The registration completion step.)"""
    decided = SelfLimit.objects.filter(player=player, kind=kind, decided_at__isnull=False).values_list(
        "limit_type", flat=True
    )
    return set(decided) >= set(LimitType.values)


def undecided_limits(player: Player, kind: str = TECHNICAL) -> list[str]:
    """The limit types of the kind the player has neither set nor declined yet, in GP §6(6) order."""
    decided = set(
        SelfLimit.objects.filter(player=player, kind=kind, decided_at__isnull=False).values_list(
            "limit_type", flat=True
        )
    )
    return [lt for lt in LimitType.values if lt not in decided]


def effective_limits(player: Player, kind: str, at: datetime) -> dict[str, int | None]:
    """{limit_type: value in force at ``at``} for the limits the player set (declined/undecided = absent)."""
    out: dict[str, int | None] = {}
    for row in SelfLimit.objects.filter(player=player, kind=kind):
        value = row.effective_value(at)
        if value is not None:
            out[row.limit_type] = value
    return out


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


def _limit_view(
    kind: str, limit_type: str, row: SelfLimit | None, now: datetime, used: int | None, resets: datetime | None
) -> LimitView:
    if row is None:
        return LimitView(
            kind=kind,
            limit_type=limit_type,
            unit=LIMIT_UNITS[LimitType(limit_type)],
            decided=False,
            declined=False,
            value=None,
            pending=False,
            pending_value=None,
            pending_requested_at=None,
            pending_effective_at=None,
            used=used,
            resets_at=resets,
            decided_at=None,
        )
    value = row.effective_value(now)
    pending = row.pending_at(now)
    return LimitView(
        kind=kind,
        limit_type=limit_type,
        unit=LIMIT_UNITS[LimitType(limit_type)],
        decided=bool(row.decided_at),
        declined=bool(row.decided_at and value is None),
        value=value,
        pending=pending,
        pending_value=row.pending_value if pending else None,
        pending_requested_at=row.pending_requested_at if pending else None,
        pending_effective_at=row.pending_effective_at if pending else None,
        used=used,
        resets_at=resets,
        decided_at=row.decided_at,
    )


def self_limits(player: Player, kind: str = TECHNICAL, now: datetime | None = None) -> list[LimitView]:
    """The seven limits of the kind in GP §6(6) order, with a pending loosening and current usage."""
    kind_rules(kind)
    now = now or clock.now()
    rows = {r.limit_type: r for r in SelfLimit.objects.filter(player=player, kind=kind)}
    totals = period_totals(player, kind, now)
    open_stakes = _open_stakes(player, kind)
    day_start, day_end = clock.day_bounds(now)
    month_start, month_end = clock.month_bounds(now)
    usage: dict[str, tuple[Any, datetime | None]] = {
        LimitType.DAILY_STAKE: (lambda: totals.day.stakes_placed, day_end),
        LimitType.MONTHLY_STAKE: (lambda: totals.month.stakes_placed, month_end),
        LimitType.DAILY_LOSS: (lambda: totals.day.net_loss + open_stakes, day_end),
        LimitType.MONTHLY_LOSS: (lambda: totals.month.net_loss + open_stakes, month_end),
        LimitType.MONTHLY_LOGINS: (lambda: logins_started(player, month_start, now), month_end),
        LimitType.DAILY_TIME: (lambda: logged_in_seconds(player, day_start, now) // 60, day_end),
        LimitType.PAUSE_AFTER_LOGOUT: (lambda: None, None),
    }
    out = []
    for lt in LimitType.values:
        used_fn, resets = usage[lt]
        out.append(_limit_view(kind, lt, rows.get(lt), now, used_fn(), resets))
    return out


def limit_history(player: Player, kind: str | None = None) -> QuerySet[SelfLimitChange]:
    """Every change of the player's self-limits (of one kind, or all), newest first."""
    qs = SelfLimitChange.objects.filter(player=player)
    if kind:
        qs = qs.filter(kind=kind)
    return qs.order_by("-requested_at", "-id")


# ---------------------------------------------------------------------------------------
# Counters: day/month totals and the hourly loss -----------------------------------------------------------------------
@dataclass(frozen=True)
class Totals:
    day: PeriodTotal
    month: PeriodTotal


def period_totals(player: Player, kind: str, at: datetime) -> Totals:
    """The day and month totals containing ``at`` (zero rows when nothing was counted yet). One query."""
    day, month = day_key(at), month_key(at)
    rows = {
        (r.period, r.start): r
        for r in PeriodTotal.objects.filter(
            player=player, kind=kind, period__in=("day", "month"), start__in=(day, month)
        )
    }
    return Totals(
        day=rows.get(("day", day)) or PeriodTotal(player_id=player.pk, kind=kind, period="day", start=day),
        month=rows.get(("month", month)) or PeriodTotal(player_id=player.pk, kind=kind, period="month", start=month),
    )


@dataclass(frozen=True)
class HourlyLoss:
    """GP §8(5), ZHH §53: the net loss over the rolling 60 minutes and the cap."""

    used: int  # the largest net loss of any rolling 60 minutes that contain ``at`` (>= 0)
    cap: int
    bound_by_bucket: list[tuple[datetime, int]]  # (bucket minute, bound of windows starting in it), oldest first

    def room(self) -> int:
        return max(0, self.cap - self.used)

    def frees_at(self, stake: int, at: datetime) -> datetime | None:
        """First minute boundary after ``at`` from which ``stake`` fits (None if it never can)."""
        if stake > self.cap:
            return None
        now_minute = minute_of(at)
        bounds = self.bound_by_bucket
        for shift in range(1, HOURLY_WINDOW_MINUTES + 2):
            horizon = now_minute + (shift - HOURLY_WINDOW_MINUTES) * MINUTE
            used = max([0] + [b for m, b in bounds if m >= horizon])
            if used + stake <= self.cap:
                return now_minute + shift * MINUTE
        return None  # pragma: no cover - after 61 minutes every bucket has left the window


def hourly_loss(player: Player, kind: str, at: datetime) -> HourlyLoss:
    """Net loss (stakes placed minus wins credited) over any rolling 60 minutes containing ``at``.

    Buckets are UTC minutes. A 60-minute window containing ``at`` starts in one of the 61 buckets
    ``[minute(at) - 60 min, minute(at)]``; the loss of a window starting inside bucket k is at most
    ``peak(k) + sum of (stakes - wins) of the later buckets``, where ``peak(k)`` is the largest loss of a
    tail of bucket k's events (exact for events recorded in order). ``used`` is the largest of these
    bounds: exact for windows starting in a full minute, and never less than the real figure for the
    oldest, partly covered minute, so the cap is never exceeded. Reads at most 61 rows.
    """
    lo, hi = hourly_window(at)
    rows = list(
        MinuteBucket.objects.filter(player=player, kind=kind, minute__gte=lo, minute__lte=hi)
        .order_by("-minute")
        .values_list("minute", "stakes", "wins", "peak")
    )
    return hourly_loss_from_buckets(rows)


def hourly_window(at: datetime) -> tuple[datetime, datetime]:
    """The first and last bucket minute a 60-minute window containing ``at`` may start in."""
    now_minute = minute_of(at)
    return now_minute - HOURLY_WINDOW_MINUTES * MINUTE, now_minute


def hourly_loss_from_buckets(rows: list[tuple[datetime, int, int, int]]) -> HourlyLoss:
    """:func:`hourly_loss` from the window's buckets ``(minute, stakes, wins, peak)``, newest first."""
    suffix = 0
    used = 0
    bounds = []
    for minute, stakes, wins, peak in rows:  # newest first
        bound = peak + suffix
        bounds.append((minute, bound))
        used = max(used, bound)
        suffix += stakes - wins
    bounds.reverse()
    return HourlyLoss(used=used, cap=gp("MAX_HOURLY_LOSS"), bound_by_bucket=bounds)


def _open_stakes(player: Player, kind: str) -> int:
    return sum(OpenBet.objects.filter(player=player, kind=kind).values_list("stake", flat=True))


@dataclass(frozen=True)
class Room:
    """What is left under one money limit: ``value`` minus ``used``; ``error`` is its refusal."""

    limit: str
    error: ErrorDef
    value: int
    used: int
    resets_at: datetime | None
    hourly: HourlyLoss | None = None

    @property
    def room(self) -> int:
        return self.value - self.used


def money_rooms(
    player: Player,
    kind: str,
    limits: dict[str, int | None],
    open_stakes: int,
    at: datetime,
    rules: KindRules,
    *,
    totals: Totals | None = None,
    hourly: HourlyLoss | None = None,
) -> list[Room]:
    """Room left under each money limit, in the order the refusals are reported. ``totals`` and ``hourly``, when
    given (read already by the stake gate's one locking statement), are used instead of reading them again."""
    rooms: list[Room] = []
    if any(lt in limits for lt in MONEY_LIMITS):
        totals = totals or period_totals(player, kind, at)
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
            value = limits.get(lt)
            if value is not None:
                rooms.append(Room(str(lt), err, value, used, resets))
    if rules.hourly_loss:
        hl = hourly or hourly_loss(player, kind, at)
        rooms.append(Room("hourly_loss", errors.HOURLY_LOSS_EXCEEDED, hl.cap, hl.used, None, hourly=hl))
    return rooms


def stake_grid_in_force(at: datetime) -> tuple[int, int]:
    """GP §8(1): (the minimum stake, its step) in force at ``at``: the figures of the published version of the game
    plan and terms in force, so a change applies only when a version announced ahead takes effect; before the first
    version the settings' ``GP_MIN_STAKE`` / ``GP_STAKE_STEP`` (``accounts.terms.stake_grid``, from the process's
    snapshot of the published versions: no statement on the stake path)."""
    grid = terms.stake_grid(at)
    return grid.min_stake, grid.step


def money_limit_room(player: Player, kind: str = TECHNICAL, now: datetime | None = None) -> Money:
    """The largest stake the money limits (self-limits and the hourly loss) would allow now (a hint for games)."""
    now = now or clock.now()
    rules = kind_rules(kind)
    rooms = money_rooms(player, kind, effective_limits(player, kind, now), _open_stakes(player, kind), now, rules)
    cap = gp("MAX_STAKE") if rules.stake_grid else 10**12
    return Money(grid_floor(min([cap] + [r.room for r in rooms]), rules, stake_grid_in_force(now)))


# ---------------------------------------------------------------------------------------
# Play time (GP §7(4)-(5)) ---------------------------------------------------------------------------------------------
def play_status(player: Player, now: datetime | None = None, kind: str = TECHNICAL) -> dict[str, Any]:
    """GP §7(4)-(5) as the player sees it: play time used and left, whether a break is due and when it ends.

    Same definition as the stake check (limits.services.gate.play_left): play runs from the stake that opened
    the period; a gap of less than 15 minutes since the last round counts as play, 15 minutes or more
    ends the period (then the full 120 minutes are available again)."""
    now = now or clock.now()
    rules = kind_rules(kind)
    limit, brk = play_limit(), break_length()
    base = {
        "kind": kind,
        "play_limit_minutes": int(limit.total_seconds() // 60),
        "break_minutes": int(brk.total_seconds() // 60),
    }
    if not rules.play_break:
        return {
            **base,
            "applies": False,
            "round_open": False,
            "play_started_at": None,
            "play_seconds_used": 0,
            "play_seconds_left": None,
            "break_required": False,
            "break_ends_at": None,
            "pause_resets_at": None,
        }
    state = PlayerKindState.objects.filter(player=player, kind=kind).first()
    round_open = OpenBet.objects.filter(player=player, kind=kind).exists()
    started = state.play_started_at if state else None
    last_end = state.last_round_ended_at if state else None
    used = timedelta()
    pause_resets_at = None
    if started is not None and round_open:
        used = max(timedelta(), now - started)
    elif started is not None and last_end is not None and now - last_end < brk:
        used = max(timedelta(), now - started)
        pause_resets_at = last_end + brk  # when a pause that starts now would restart the 120 minutes (GP §7(5))
    else:
        started = None
    break_required = pause_resets_at is not None and used >= limit
    return {
        **base,
        "applies": True,
        "round_open": round_open,
        "play_started_at": started,
        "play_seconds_used": int(used.total_seconds()),
        "play_seconds_left": int(max(timedelta(), limit - used).total_seconds()),
        "break_required": break_required,
        "break_ends_at": pause_resets_at if break_required else None,
        "pause_resets_at": pause_resets_at,
    }


# ---------------------------------------------------------------------------------------
# Panic button and self-listing in force -------------------------------------------------------------------------------
def active_panic(player: Player, at: datetime) -> PanicExclusion | None:
    """The panic-button exclusion of the person running at ``at`` (the one ending last), or None.

    The person's, not only this account's (2024 amendment, "from all gambling"): a press on an earlier account of
    the same person (``accounts.selectors.person_key``, as the ZHH §14a limits at re-registration) holds on a new
    one until it ends. The stake gate reads the same rows in its one locking statement
    (``limits.services.counters``)."""
    return (
        PanicExclusion.objects.filter(
            Q(player=player) | Q(person_key=person_key(player)), started_at__lte=at, ends_at__gt=at
        )
        .order_by("-ends_at")
        .first()
    )


def person_player_ids(player: Player) -> list[int]:
    """Every account of the person behind ``player`` (``person_key``), ``player`` included, in id order."""
    others = PersonalData.objects.filter(person_key=person_key(player)).values_list("player_id", flat=True)
    return sorted({player.pk, *others})


def active_self_listing(player: Player, at: datetime) -> SelfListingRequest | None:
    """The self-listing request in force at ``at`` (the one listed longest), or None."""
    return (
        SelfListingRequest.objects.filter(player=player, requested_at__lte=at, listed_until__gt=at)
        .order_by("-listed_until")
        .first()
    )


# ---------------------------------------------------------------------------------------
# From accounts: login sessions (GP §6(6)e-g) and earlier accounts of the person (ZHH §14a) ----------------------------
# A session that started more than this before a window and ended inside it is not looked for: the lookups
# then stay index range scans on accounts' (player, started_at) index, whatever the player's login history.
# (Sessions end after ACCOUNTS_SESSION_IDLE_MINUTES without activity; 7 days of uninterrupted activity is
# taken as impossible.)
SESSION_LOOKBACK = timedelta(days=7)


def sessions_between(player: Player, since: datetime, until: datetime) -> list[tuple[datetime, datetime | None]]:
    """(started_at, ended_at) of the player's login sessions overlapping [since, until]: the open ones (few,
    partial index of accounts) and the ended ones started within the lookback before ``since``."""
    open_rows = LoginSession.objects.filter(player=player, ended_at__isnull=True)
    ended_rows = LoginSession.objects.filter(
        player=player, started_at__gte=since - SESSION_LOOKBACK, started_at__lte=until, ended_at__gte=since
    )
    return list(open_rows.values_list("started_at", "ended_at")) + list(
        ended_rows.values_list("started_at", "ended_at")
    )


def logins_started(player: Player, since: datetime, until: datetime) -> int:
    """GP §6(6)e: how many logins (sessions) the player started within [since, until]."""
    return LoginSession.objects.filter(player=player, started_at__gte=since, started_at__lte=until).count()


def last_logout(player: Player, since: datetime, until: datetime) -> datetime | None:
    """GP §6(6)g: the latest end of a session of the player within [since, until]."""
    return (
        LoginSession.objects.filter(
            player=player,
            started_at__gte=since - SESSION_LOOKBACK,
            started_at__lte=until,
            ended_at__isnull=False,
            ended_at__gte=since,
            ended_at__lte=until,
        )
        .order_by("-ended_at")
        .values_list("ended_at", flat=True)
        .first()
    )


def logged_in_seconds(player: Player, since: datetime, until: datetime) -> int:
    """GP §6(6)f: logged-in time within [since, until]: the union of the sessions' intervals (two devices
    count once)."""
    intervals = []
    for started, ended in sessions_between(player, since, until):
        a = max(started, since)
        b = min(ended or until, until)
        if b > a:
            intervals.append((a, b))
    intervals.sort()
    total = timedelta()
    span: tuple[datetime, datetime] | None = None
    for a, b in intervals:
        if span is None:
            span = (a, b)
        elif a > span[1]:
            total += span[1] - span[0]
            span = (a, b)
        else:
            span = (span[0], max(span[1], b))
    if span is not None:
        total += span[1] - span[0]
    return int(total.total_seconds())


def active_session_player_ids() -> list[int]:
    """The players with an open login session."""
    return list(LoginSession.objects.filter(ended_at__isnull=True).values_list("player_id", flat=True).distinct())


def closed_accounts_of_person(
    player: Player, person_key: str, since: datetime, until: datetime
) -> list[tuple[int, datetime]]:
    """ZHH §14a: (player id, closed_at) of the *other* accounts of the person with ``person_key``
    (``accounts.selectors.person_key``) closed within [since, until]."""
    others = (
        PersonalData.objects.filter(person_key=person_key)
        .exclude(player_id=player.pk)
        .values_list("player_id", flat=True)
    )
    rows = Player.objects.filter(
        pk__in=list(others), status=Player.Status.CLOSED, closed_at__gte=since, closed_at__lte=until
    ).values_list("pk", "closed_at")
    return [(pk, closed_at) for pk, closed_at in rows if closed_at is not None]


# ---------------------------------------------------------------------------------------
# Responsible gaming (GP §13(4)): the published texts and help contacts, the player's own statistics -------------------
def responsible_gaming() -> dict[str, Any]:
    """The published responsible-gaming texts and help contacts (GP §13(4)), in Czech and English, in their
    order. Help contacts are what staff entered: none is built in."""
    return {
        "texts": list(ResponsibleGamingText.objects.filter(published=True).order_by("order", "id")),
        "help_contacts": list(HelpContact.objects.filter(published=True).order_by("order", "id")),
    }


STATISTICS_MAX_DAYS = 366  # one request covers at most this many Prague days (a leap year)


@dataclass(frozen=True)
class PlayFigures:
    """A period's figures of the player's play: logged-in time, and the bets decided in it (GP §6(7)) with their
    stakes, wins and net loss (stakes - wins; negative when the player won more than they staked)."""

    logged_in_seconds: int
    bets: int
    stakes: Money
    wins: Money

    @property
    def net_loss(self) -> Money:
        return self.stakes - self.wins


def _prague_day(d: date) -> tuple[datetime, datetime]:
    """[start, end) of the Prague day ``d`` as UTC instants (23 or 25 hours on the DST days)."""
    return clock.day_bounds(datetime.combine(d, time(12), tzinfo=clock.PRAGUE))


def _month_after(first: date) -> date:
    return (first.replace(day=1) + timedelta(days=32)).replace(day=1)


def logged_in_seconds_by_day(player: Player, first: date, last: date, now: datetime) -> dict[date, int]:
    """GP §6(6)f logged-in time of each Prague day from ``first`` to ``last``: the union of the player's login
    sessions (two devices count once), an open session up to ``now``. Reads the sessions of the window once
    (index range scans, :func:`sessions_between`)."""
    days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    bounds = [_prague_day(d) for d in days]
    since, until = bounds[0][0], min(bounds[-1][1], now)
    out = dict.fromkeys(days, 0)
    if until <= since:
        return out
    spans = sorted((max(a, since), min(b or until, until)) for a, b in sessions_between(player, since, until))
    merged: list[list[datetime]] = []
    for a, b in spans:
        if b <= a:
            continue
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    starts = [s for s, _ in bounds]
    for a, b in merged:
        i = max(0, bisect_right(starts, a) - 1)
        while i < len(days) and bounds[i][0] < b:
            overlap = min(b, bounds[i][1]) - max(a, bounds[i][0])
            if overlap > timedelta():
                out[days[i]] += int(overlap.total_seconds())
            i += 1
    return out


def play_statistics(player: Player, kind: str, first: date, last: date, now: datetime) -> dict[str, Any]:
    """The player's own play per Prague day from ``first`` to ``last`` and per calendar month touching them
    (GP §13(4)): logged-in time, and the stakes, wins and net loss of the bets decided in the period (GP §6(7)).

    From the counters, never the rounds: the day and month :class:`PeriodTotal` rows (one query, keyed by the
    Prague date) and the login sessions of the months (see :func:`logged_in_seconds_by_day`). Months are whole
    calendar months even where the range covers part of one. At most :data:`STATISTICS_MAX_DAYS` days."""
    kind_rules(kind)
    if last < first or (last - first).days + 1 > STATISTICS_MAX_DAYS:
        raise errors.INVALID_PERIOD(max_days=STATISTICS_MAX_DAYS, date_from=first, date_to=last)
    month_first, month_end = first.replace(day=1), _month_after(last)
    rows = PeriodTotal.objects.filter(player=player, kind=kind).filter(
        Q(period=PeriodTotal.Period.DAY, start__gte=first, start__lte=last)
        | Q(period=PeriodTotal.Period.MONTH, start__gte=month_first, start__lt=month_end)
    )
    totals = {(r.period, r.start): r for r in rows}
    seconds = logged_in_seconds_by_day(player, month_first, month_end - timedelta(days=1), now)

    def figures(row: PeriodTotal | None, logged_in: int) -> PlayFigures:
        if row is None:
            return PlayFigures(logged_in_seconds=logged_in, bets=0, stakes=Money(0), wins=Money(0))
        return PlayFigures(
            logged_in_seconds=logged_in,
            bets=row.bets_decided,
            stakes=Money(row.stakes_decided),
            wins=Money(row.wins_decided),
        )

    days = []
    for i in range((last - first).days + 1):
        d = first + timedelta(days=i)
        days.append({"date": d, **_figures_json(figures(totals.get(("day", d)), seconds[d]))})
    months = []
    m = month_first
    while m < month_end:
        nxt = _month_after(m)
        logged_in = sum(s for d, s in seconds.items() if m <= d < nxt)
        months.append(
            {
                "month": m.strftime("%Y-%m"),
                "first_day": m,
                "last_day": nxt - timedelta(days=1),
                **_figures_json(figures(totals.get(("month", m)), logged_in)),
            }
        )
        m = nxt
    total = PlayFigures(
        logged_in_seconds=sum(day["logged_in_seconds"] for day in days),
        bets=sum(day["bets"] for day in days),
        stakes=Money(sum(day["stakes"].amount for day in days)),
        wins=Money(sum(day["wins"].amount for day in days)),
    )
    return {
        "kind": kind,
        "date_from": first,
        "date_to": last,
        "time_zone": "Europe/Prague",
        "total": _figures_json(total),
        "days": days,
        "months": months,
    }


def _figures_json(f: PlayFigures) -> dict[str, Any]:
    return {
        "logged_in_seconds": f.logged_in_seconds,
        "bets": f.bets,
        "stakes": f.stakes,
        "wins": f.wins,
        "net_loss": f.net_loss,
    }


def settled_bet_archived(settled_at: datetime) -> bool:
    """Whether the decided bets settled at ``settled_at`` are archived (their month's partition moved to the archive
    schema, its totals carried forward): such a bet can no longer be taken out of the counters one by one."""
    month = partitioning.month_index(settled_at.astimezone(UTC).date())
    return month in partitioning.archived_months(connection, SettledBet._meta.db_table)
