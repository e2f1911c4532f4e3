"""The limits' hot statements that take a bet back (see core/sql.py and ``limits.sql``, whose fragments they share).

* :data:`BET_VOID`: an open bet's stake returned, in ONE statement: the open bet deleted, its stake out of the
  placement totals and its minute bucket (a stake taken back: the conservative rule), the voided settled bet, the
  state row. ``stake_voided`` runs it on the open bet read under the gate's locking read (GATE_STATE).
* :data:`SETTLED_VOID`: a decided bet declared void (GP §3(6)), in ONE statement: the bet marked voided, its
  placement and its decision out of the day and month totals, its stake and win out of the minute buckets still
  kept (each peak the lower of two upper bounds, one of them the minute's events as the ledger now tells them).
  ``settled_bet_voided`` runs it under the same lock.

Pinned by ``limits/tests/test_one_void.py``, ``limits_reconcile`` and ``tests/test_sql_contracts.py``.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.db import connection

from core.sql import execute, instance, register
from limits.models import MinuteBucket, OpenBet, PeriodTotal, PlayerKindState, SettledBet
from limits.rules import MINUTE
from limits.sql import (
    _BUCKET_FIELDS,
    _PERIOD_KEY,
    _SETTLED_INSERT,
    BUCKET_CONSERVATIVE_SET,
    BUCKET_ON_CONFLICT,
    FIGURES,
    PERIOD_ON_CONFLICT,
)

P, B, S, OB, X = PeriodTotal, MinuteBucket, SettledBet, OpenBet, PlayerKindState

_VOIDED_INSERT = (*_SETTLED_INSERT, "voided_at")

BET_VOID = register(
    "limits.bet_void",
    f"""WITH bet AS (
    DELETE FROM limits_openbet WHERE id = %(bet)s AND player_id = %(player)s AND kind = %(kind)s
    RETURNING 1
), periods AS (
    INSERT INTO limits_periodtotal (player_id, kind, period, start, stakes_placed, bets_placed, stakes_decided,
                                    wins_decided, bets_decided)
    SELECT v.* FROM (VALUES
        (CAST(%(player)s AS bigint), CAST(%(kind)s AS varchar), CAST(%(day_period)s AS varchar),
         CAST(%(day)s AS date), CAST(%(minus_stake)s AS bigint), CAST(-1 AS integer), CAST(0 AS bigint),
         CAST(0 AS bigint), CAST(0 AS integer)),
        (CAST(%(player)s AS bigint), CAST(%(kind)s AS varchar), CAST(%(month_period)s AS varchar),
         CAST(%(month)s AS date), CAST(%(minus_stake)s AS bigint), CAST(-1 AS integer), CAST(0 AS bigint),
         CAST(0 AS bigint), CAST(0 AS integer))) AS v
    WHERE EXISTS (SELECT 1 FROM bet)
    {PERIOD_ON_CONFLICT}
    RETURNING 1
), bucket AS (
    INSERT INTO limits_minutebucket (player_id, kind, minute, stakes, wins, peak)
    SELECT %(player)s, %(kind)s, %(minute)s, %(minus_stake)s, 0, 0 WHERE %(hourly)s AND EXISTS (SELECT 1 FROM bet)
    {BUCKET_ON_CONFLICT} {BUCKET_CONSERVATIVE_SET}
    RETURNING 1
), settled AS (
    INSERT INTO limits_settledbet (player_id, kind, game_code, round_ref, stake, win, placed_at, started_at, settled_at,
                                   voided, voided_at)
    SELECT %(player)s, %(kind)s, %(game_code)s, %(round_ref)s, %(stake)s, 0, %(placed_at)s, %(placed_at)s, %(at)s,
           true, %(at)s FROM bet
    RETURNING id
)
UPDATE limits_playerkindstate SET
    last_round_ended_at = GREATEST(last_round_ended_at, %(placed_at)s),
    last_bucket_minute = CASE WHEN %(hourly)s
        THEN GREATEST(last_bucket_minute, %(minute)s) ELSE last_bucket_minute END
WHERE id = %(state)s AND EXISTS (SELECT 1 FROM bet)
RETURNING (SELECT id FROM settled), (SELECT count(*) FROM periods), (SELECT count(*) FROM bucket)""",
    columns={
        OB: ("id", "player", "kind"),
        P: (*_PERIOD_KEY, *FIGURES),
        B: _BUCKET_FIELDS,
        S: ("id", *_VOIDED_INSERT),
        X: ("id", "last_round_ended_at", "last_bucket_minute"),
    },
    inserts=(P, B, S),
    params={
        "player": int,
        "kind": str,
        "bet": int,
        "stake": int,
        "minus_stake": int,
        "day_period": str,
        "day": date,
        "month_period": str,
        "month": date,
        "minute": datetime,
        "hourly": bool,
        "game_code": str,
        "round_ref": str,
        "placed_at": datetime,
        "at": datetime,
        "state": int,
    },
)


def bet_void(
    *, state_id: int, bet: OpenBet, day: date, month: date, minute: datetime, hourly: bool, at: datetime
) -> SettledBet:
    """Run :data:`BET_VOID`: an open bet's stake returned, in ONE statement: the open bet deleted, its stake and
    count out of the placement counters of its ``placed_at`` (``day``, ``month``; the bucket of ``minute`` when
    ``hourly``, by the conservative rule of a stake taken back: the totals lower, the peak stays), the voided
    settled bet (``settled_at = voided_at = at``, no win) and the state row (the round ended at the stake's
    instant at the latest; the newest bucket minute). ``bet`` is the open bet read under the (player, kind) state
    lock; returns the settled bet written."""
    values = {
        "player_id": bet.player_id,
        "kind": bet.kind,
        "game_code": bet.game_code,
        "round_ref": bet.round_ref,
        "stake": bet.stake,
        "win": 0,
        "placed_at": bet.placed_at,
        "started_at": bet.placed_at,
        "settled_at": at,
        "voided": True,
        "voided_at": at,
    }
    params: dict[str, Any] = {
        "player": bet.player_id,
        "kind": bet.kind,
        "bet": bet.pk,
        "stake": bet.stake,
        "minus_stake": -bet.stake,
        "day_period": P.Period.DAY,
        "day": day,
        "month_period": P.Period.MONTH,
        "month": month,
        "minute": minute,
        "hourly": hourly,
        "game_code": bet.game_code,
        "round_ref": bet.round_ref,
        "placed_at": bet.placed_at,
        "at": at,
        "state": state_id,
    }
    with connection.cursor() as cur:
        execute(cur, BET_VOID, params)
        row = cur.fetchone()
    if row is None or row[0] is None or row[1] != 2 or row[2] != (1 if hourly else 0):
        raise RuntimeError(f"limits open bet {bet.pk} not voided: {row}")
    return instance(S, ["id", *values], [row[0], *values.values()])


# The largest net loss of a tail of the minute ``c``'s events in time order, as the ledger now tells them (the bet
# being voided and voided bets left out; a stake counts 1 in ``typ``, a win 0, so events of the same instant come
# wins first, the order that gives the largest tails; ties of one kind at one instant give the same largest tail in
# any order): the suffix sums, read newest first.
_LEDGER_PEAK = """(SELECT GREATEST(0, max(e.tail)) FROM (
        SELECT sum(x.amt) OVER (ORDER BY x.at DESC, x.typ DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
            AS tail FROM (
            SELECT s1.placed_at AS at, 1 AS typ, s1.stake AS amt FROM limits_settledbet s1
            WHERE s1.player_id = %(player)s AND s1.kind = %(kind)s AND NOT s1.voided AND s1.id <> %(bet)s
              AND s1.placed_at >= c.minute AND s1.placed_at < c.minute_end
            UNION ALL SELECT s2.settled_at AS at, 0 AS typ, -s2.win AS amt FROM limits_settledbet s2
            WHERE s2.player_id = %(player)s AND s2.kind = %(kind)s AND NOT s2.voided AND s2.id <> %(bet)s
              AND s2.settled_at >= c.minute AND s2.settled_at < c.minute_end
            UNION ALL SELECT o.placed_at AS at, 1 AS typ, o.stake AS amt FROM limits_openbet o
            WHERE o.player_id = %(player)s AND o.kind = %(kind)s
              AND o.placed_at >= c.minute AND o.placed_at < c.minute_end) x) e)"""

SETTLED_VOID = register(
    "limits.settled_void",
    f"""WITH bet AS (
    UPDATE limits_settledbet SET voided = true, voided_at = %(at)s
    WHERE id = %(bet)s AND player_id = %(player)s AND kind = %(kind)s
        AND NOT voided
    RETURNING 1
), periods AS (
    INSERT INTO limits_periodtotal (player_id, kind, period, start, stakes_placed, bets_placed, stakes_decided,
                                    wins_decided, bets_decided)
    SELECT v.k1, v.k2, v.k3, v.k4, CAST(sum(v.f0) AS bigint), CAST(sum(v.f1) AS integer), CAST(sum(v.f2) AS bigint),
           CAST(sum(v.f3) AS bigint), CAST(sum(v.f4) AS integer)
    FROM (VALUES
        (CAST(%(player)s AS bigint), CAST(%(kind)s AS varchar), CAST(%(day_period)s AS varchar),
         CAST(%(placed_day)s AS date), CAST(%(minus_stake)s AS bigint), CAST(-1 AS integer), CAST(0 AS bigint),
         CAST(0 AS bigint), CAST(0 AS integer)),
        (CAST(%(player)s AS bigint), CAST(%(kind)s AS varchar), CAST(%(month_period)s AS varchar),
         CAST(%(placed_month)s AS date), CAST(%(minus_stake)s AS bigint), CAST(-1 AS integer), CAST(0 AS bigint),
         CAST(0 AS bigint), CAST(0 AS integer)),
        (CAST(%(player)s AS bigint), CAST(%(kind)s AS varchar), CAST(%(day_period)s AS varchar),
         CAST(%(settled_day)s AS date), CAST(0 AS bigint), CAST(0 AS integer), CAST(%(minus_stake)s AS bigint),
         CAST(%(minus_win)s AS bigint), CAST(-1 AS integer)),
        (CAST(%(player)s AS bigint), CAST(%(kind)s AS varchar), CAST(%(month_period)s AS varchar),
         CAST(%(settled_month)s AS date), CAST(0 AS bigint), CAST(0 AS integer), CAST(%(minus_stake)s AS bigint),
         CAST(%(minus_win)s AS bigint), CAST(-1 AS integer)))
        AS v(k1, k2, k3, k4, f0, f1, f2, f3, f4)
    WHERE EXISTS (SELECT 1 FROM bet)
    GROUP BY v.k1, v.k2, v.k3, v.k4
    {PERIOD_ON_CONFLICT}
    RETURNING 1
), changes AS (
    SELECT c.minute, c.minute_end, sum(c.stakes) AS stakes, sum(c.wins) AS wins
    FROM (VALUES
        (CAST(%(placed_minute)s AS timestamp with time zone), CAST(%(placed_minute_end)s AS timestamp with time zone),
         CAST(%(stake)s AS bigint), CAST(0 AS bigint)),
        (CAST(%(settled_minute)s AS timestamp with time zone), CAST(%(settled_minute_end)s AS timestamp with time zone),
         CAST(0 AS bigint), CAST(%(win)s AS bigint)))
        AS c(minute, minute_end, stakes, wins)
    WHERE %(hourly)s AND (c.stakes <> 0 OR c.wins <> 0) AND EXISTS (SELECT 1 FROM bet)
    GROUP BY c.minute, c.minute_end
), bucket AS (
    UPDATE limits_minutebucket b SET stakes = b.stakes - c.stakes,
        wins = b.wins - c.wins,
        peak = LEAST(b.peak + c.wins, {_LEDGER_PEAK})
    FROM changes c
    WHERE b.player_id = %(player)s AND b.kind = %(kind)s AND b.minute = c.minute
    RETURNING 1
)
SELECT (SELECT count(*) FROM bet), (SELECT count(*) FROM periods), (SELECT count(*) FROM bucket)""",
    columns={
        S: ("id", "player", "kind", "voided", "voided_at", "stake", "win", "placed_at", "settled_at"),
        P: (*_PERIOD_KEY, *FIGURES),
        B: ("player", "kind", "minute", "stakes", "wins", "peak"),
        OB: ("player", "kind", "stake", "placed_at"),
    },
    inserts=(P,),
    params={
        "player": int,
        "kind": str,
        "bet": int,
        "at": datetime,
        "stake": int,
        "win": int,
        "minus_stake": int,
        "minus_win": int,
        "day_period": str,
        "month_period": str,
        "placed_day": date,
        "placed_month": date,
        "settled_day": date,
        "settled_month": date,
        "hourly": bool,
        "placed_minute": datetime,
        "placed_minute_end": datetime,
        "settled_minute": datetime,
        "settled_minute_end": datetime,
    },
)


def settled_void(
    *,
    bet: SettledBet,
    at: datetime,
    placed_day: date,
    placed_month: date,
    settled_day: date,
    settled_month: date,
    hourly: bool,
    placed_minute: datetime,
    settled_minute: datetime,
) -> None:
    """Run :data:`SETTLED_VOID`: a decided bet declared void (GP §3(6)) in ONE statement: marked ``voided``
    (``voided_at = at``); its stake and count out of the day and month totals of its placement, its stake, win and
    count out of those of its decision; its stake out of the minute bucket of ``placed_minute`` and its win out of
    that of ``settled_minute`` where the bucket is still kept (``hourly``), each bucket's peak the lower of the old
    peak raised by the win taken out (a stake taken out only lowers tails; a win taken out raises each tail that held
    it by at most the win) and the peak of the minute's events as the ledger now tells them (``_LEDGER_PEAK``), so
    the hourly loss is never read below the real figure (GP §8(5)) and a void bet frees the room it used; a bucket
    already pruned stays gone, none is created. ``bet`` is the ledger's row read under the (player, kind) state
    lock."""
    params: dict[str, Any] = {
        "player": bet.player_id,
        "kind": bet.kind,
        "bet": bet.pk,
        "at": at,
        "stake": bet.stake,
        "win": bet.win,
        "minus_stake": -bet.stake,
        "minus_win": -bet.win,
        "day_period": P.Period.DAY,
        "month_period": P.Period.MONTH,
        "placed_day": placed_day,
        "placed_month": placed_month,
        "settled_day": settled_day,
        "settled_month": settled_month,
        "hourly": hourly,
        "placed_minute": placed_minute,
        "placed_minute_end": placed_minute + MINUTE,
        "settled_minute": settled_minute,
        "settled_minute_end": settled_minute + MINUTE,
    }
    periods = len(
        {
            (P.Period.DAY, placed_day),
            (P.Period.MONTH, placed_month),
            (P.Period.DAY, settled_day),
            (P.Period.MONTH, settled_month),
        }
    )
    with connection.cursor() as cur:
        execute(cur, SETTLED_VOID, params)
        row = cur.fetchone()
    if row is None or row[0] != 1 or row[1] != periods:
        raise RuntimeError(f"limits settled bet {bet.pk} not voided: {row}")
