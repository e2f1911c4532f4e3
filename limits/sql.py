"""The limits' hot statements (the stake gate and the counters), as the SQL they are (see core/sql.py).

* ``PERIOD_ON_CONFLICT``: adding to the day and month totals (``PeriodTotal.FIGURES``), part of every statement
  below that writes them.
* ``BUCKET_ON_CONFLICT`` with ``BUCKET_ORDERED_SET`` / ``BUCKET_CONSERVATIVE_SET``: the hourly-loss minute bucket's
  upsert and its peak update (GP §8(5), ``counters.bucket_row``), part of every statement below that writes a bucket.
* :data:`GATE_STATE`: everything a stake decision reads, under the (player, kind) state lock, in ONE statement
  (the state row, open bets, self-limits, the two totals, the window's buckets, the panic button / self-listing in
  force and the AML restriction); every row arrives as a ``json_build_object`` keyed by the fields' ``attname``
  and becomes a model instance (``core.sql.instance_from_json``); replaces 7-8 ORM reads.
* :data:`DECIDED_NOW`: a bet placed and decided in the same transaction, counted in ONE statement (totals, bucket,
  settled bet, state row); replaces 5.
* :data:`BET_PLACE`: a stake counted as placed (totals, the stake's bucket, the open bet, the state row), in ONE
  statement: the gate's ``stake_placed`` and ``stake_settled`` of a bet that was never placed.
* :data:`BET_RESTAKE`: an open bet corrected before it is decided (another stake: the placement counters by the
  difference; the ``round_ref`` it is settled under), in ONE statement.
* :data:`BET_SETTLE`: an open bet decided, in ONE statement: the open bet deleted, the totals of the decision, the
  win's bucket, the settled bet, the state row. The only settlement: ``stake_settled`` runs it on the open bet of
  ``round_ref`` at once, and otherwise first places (BET_PLACE) or corrects (BET_RESTAKE) the open bet.
* :data:`BET_VOID`: an open bet's stake returned, in ONE statement: the open bet deleted, its stake out of the
  placement totals and its minute bucket (a stake taken back: the conservative rule), the voided settled bet, the
  state row. ``stake_voided`` runs it on the open bet read under the gate's locking read (GATE_STATE).
* :data:`SETTLED_VOID`: a decided bet declared void (GP §3(6)), in ONE statement: the bet marked voided, its
  placement and its decision out of the day and month totals, its stake and win out of the minute buckets still
  kept (each peak the lower of two upper bounds, one of them the minute's events as the ledger now tells them).
  ``settled_bet_voided`` runs it under the same lock.
* :data:`CARRY_SETTLED`: an archived month of settled bets carried forward into the day and month keys
  ``limits_reconcile`` compares (``limits.archived_totals``, the hook of ``core.partitions_archive``), not on the round path.

Pinned by the limits tests, ``games/tests/platform/test_round_cost.py`` / ``test_action_cost.py`` (statement
counts), ``limits_reconcile`` (the counters equal the ledger of settled bets) and ``tests/test_sql_contracts.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.db import connection

from accounts.models import PersonalData, Player
from core.sql import execute, field_of, instance, instance_from_json, register, values_from_json
from limits.models import (
    CarriedBetTotals,
    ExclusionWatch,
    MinuteBucket,
    OpenBet,
    PanicExclusion,
    PeriodTotal,
    PlayerKindState,
    SelfLimit,
    SelfListingRequest,
    SettledBet,
)
from limits.rules import MINUTE

P, B, S, OB, L, X = PeriodTotal, MinuteBucket, SettledBet, OpenBet, SelfLimit, PlayerKindState
FIGURES = P.FIGURES
_PERIOD_KEY = ("player", "kind", "period", "start")
_BUCKET_FIELDS = ("player", "kind", "minute", "stakes", "wins", "peak")

#: adding a row's figures to the day and month totals (``PeriodTotal.FIGURES``): the tail of every INSERT into them
PERIOD_ON_CONFLICT = """ON CONFLICT (player_id, kind, period, start) DO UPDATE SET
        stakes_placed = limits_periodtotal.stakes_placed + EXCLUDED.stakes_placed,
        bets_placed = limits_periodtotal.bets_placed + EXCLUDED.bets_placed,
        stakes_decided = limits_periodtotal.stakes_decided + EXCLUDED.stakes_decided,
        wins_decided = limits_periodtotal.wins_decided + EXCLUDED.wins_decided,
        bets_decided = limits_periodtotal.bets_decided + EXCLUDED.bets_decided"""

#: the hourly-loss minute bucket's upsert (GP §8(5), ``counters.bucket_row``): the new events added to the bucket's
#: stakes and wins; its peak follows (BUCKET_ORDERED_SET or BUCKET_CONSERVATIVE_SET)
BUCKET_ON_CONFLICT = """ON CONFLICT (player_id, kind, minute) DO UPDATE SET
        stakes = limits_minutebucket.stakes + EXCLUDED.stakes, wins = limits_minutebucket.wins + EXCLUDED.wins,
        peak ="""
# In time order: the new events follow the bucket's earlier ones, so every earlier tail grows by their net.
BUCKET_ORDERED_SET = "GREATEST(EXCLUDED.peak, limits_minutebucket.peak + EXCLUDED.stakes - EXCLUDED.wins)"
# Out of order (an older minute, or a stake taken back): the peak may only grow, by the stakes added.
BUCKET_CONSERVATIVE_SET = "limits_minutebucket.peak + EXCLUDED.peak"
_PANIC = ("started_at", "ends_at")
_LISTING = ("requested_at", "listed_until")
_BUCKET_READ = ("minute", "stakes", "wins", "peak")


GATE_STATE = register(
    "limits.gate_state",
    """SELECT json_build_object('id', s.id, 'player_id', s.player_id, 'kind', s.kind,
      'play_started_at', s.play_started_at, 'last_round_ended_at', s.last_round_ended_at,
      'last_bucket_minute', s.last_bucket_minute, 'updated_at', s.updated_at),
  (SELECT json_agg(json_build_object('id', o.id, 'player_id', o.player_id, 'kind', o.kind, 'round_ref', o.round_ref,
          'game_code', o.game_code, 'stake', o.stake, 'placed_at', o.placed_at) ORDER BY o.id)
    FROM limits_openbet o WHERE o.player_id = s.player_id AND o.kind = s.kind),
  (SELECT json_agg(json_build_object('id', l.id, 'player_id', l.player_id, 'kind', l.kind, 'limit_type', l.limit_type,
          'value', l.value, 'decided_at', l.decided_at, 'has_pending', l.has_pending,
          'pending_value', l.pending_value, 'pending_requested_at', l.pending_requested_at,
          'pending_effective_at', l.pending_effective_at, 'updated_at', l.updated_at))
    FROM limits_selflimit l WHERE l.player_id = s.player_id AND l.kind = s.kind),
  (SELECT json_agg(json_build_object('id', p.id, 'player_id', p.player_id, 'kind', p.kind, 'period', p.period,
          'start', p.start, 'stakes_placed', p.stakes_placed, 'bets_placed', p.bets_placed,
          'stakes_decided', p.stakes_decided, 'wins_decided', p.wins_decided, 'bets_decided', p.bets_decided))
    FROM limits_periodtotal p WHERE p.player_id = s.player_id AND p.kind = s.kind
      AND ((p.period = %(day_period)s AND p.start = %(day)s)
        OR (p.period = %(month_period)s AND p.start = %(month)s))),
  (SELECT json_agg(json_build_object('minute', b.minute, 'stakes', b.stakes, 'wins', b.wins, 'peak', b.peak)
          ORDER BY b.minute DESC)
    FROM limits_minutebucket b
    WHERE b.player_id = s.player_id AND b.kind = s.kind AND b.minute >= %(lo)s AND b.minute <= %(hi)s),
  (SELECT json_build_object('started_at', e.started_at, 'ends_at', e.ends_at) FROM limits_panicexclusion e
    WHERE (e.player_id = s.player_id
           OR e.person_key = (SELECT pd.person_key FROM accounts_personaldata pd WHERE pd.player_id = s.player_id))
      AND e.started_at <= %(at)s AND e.ends_at > %(at)s
    ORDER BY e.ends_at DESC LIMIT 1),
  (SELECT json_build_object('requested_at', r.requested_at, 'listed_until', r.listed_until)
    FROM limits_selflistingrequest r
    WHERE r.player_id = s.player_id AND r.requested_at <= %(at)s AND r.listed_until > %(at)s
    ORDER BY r.listed_until DESC LIMIT 1),
  (SELECT p.aml_restriction FROM accounts_player p WHERE p.id = s.player_id)
FROM limits_playerkindstate s
WHERE s.player_id = %(player)s AND s.kind = %(kind)s
FOR NO KEY UPDATE OF s""",
    columns={X: ("id", "player_id", "kind", "play_started_at", "last_round_ended_at", "last_bucket_minute",
                 "updated_at"),
             OB: ("id", "player_id", "kind", "round_ref", "game_code", "stake", "placed_at"),
             L: ("id", "player_id", "kind", "limit_type", "value", "decided_at", "has_pending", "pending_value",
                 "pending_requested_at", "pending_effective_at", "updated_at"),
             P: ("id", "player_id", "kind", "period", "start", "stakes_placed", "bets_placed", "stakes_decided",
                 "wins_decided", "bets_decided"),
             B: ("player", "kind", *_BUCKET_READ), PanicExclusion: ("player", "person_key", *_PANIC),
             SelfListingRequest: ("player", *_LISTING), PersonalData: ("player", "person_key"),
             Player: ("id", "aml_restriction")},
    params={"player": int, "kind": str, "day_period": str, "day": date, "month_period": str, "month": date,
            "lo": datetime, "hi": datetime, "at": datetime},
)


@dataclass
class GateRows:
    """The rows :data:`GATE_STATE` read, as model instances (a missing total is an unsaved zero row)."""

    state: PlayerKindState
    open_bets: list[OpenBet]
    self_limits: list[SelfLimit]
    day: PeriodTotal
    month: PeriodTotal
    buckets: list[tuple[datetime, int, int, int]]
    panic: PanicExclusion | None
    listing: SelfListingRequest | None
    aml_restriction: str


def gate_state(*, player_id: int, kind: str, day: date, month: date, lo: datetime, hi: datetime,
               at: datetime) -> GateRows | None:
    """Run :data:`GATE_STATE`; None when the (player, kind) state row does not exist yet."""
    params: dict[str, Any] = {"player": player_id, "kind": kind, "day_period": P.Period.DAY, "day": day,
              "month_period": P.Period.MONTH, "month": month, "lo": lo, "hi": hi, "at": at}
    with connection.cursor() as cur:
        execute(cur, GATE_STATE, params)
        row = cur.fetchone()
    if row is None:
        return None
    state, open_bets, self_limits, totals, buckets, panic, listing, aml = row
    periods = {(t.period, t.start): t for t in (instance_from_json(P, x) for x in totals or [])}

    def total(period: str, start: date) -> PeriodTotal:
        return periods.get((period, start)) or P(player_id=player_id, kind=kind, period=period, start=start)

    return GateRows(
        state=instance_from_json(X, state),
        open_bets=[instance_from_json(OB, o) for o in open_bets or []],
        self_limits=[instance_from_json(L, x) for x in self_limits or []],
        day=total(P.Period.DAY, day), month=total(P.Period.MONTH, month),
        buckets=[values_from_json(B, x, _BUCKET_READ) for x in buckets or []],  # (minute, stakes, wins, peak)
        panic=instance_from_json(PanicExclusion, panic) if panic else None,
        listing=instance_from_json(SelfListingRequest, listing) if listing else None,
        aml_restriction=aml or "",
    )


_SETTLED_INSERT = ("player", "kind", "game_code", "round_ref", "stake", "win", "placed_at", "started_at",
                   "settled_at", "voided")
_STATE_SET = ("play_started_at", "last_round_ended_at", "last_bucket_minute", "updated_at")


DECIDED_NOW = register(
    "limits.decided_now",
    f"""WITH periods AS (
    INSERT INTO limits_periodtotal (player_id, kind, period, start, stakes_placed, bets_placed, stakes_decided,
                                    wins_decided, bets_decided)
    VALUES (%(player)s, %(kind)s, %(day_period)s, %(day)s, %(stake)s, 1, %(stake)s, %(win)s, 1),
           (%(player)s, %(kind)s, %(month_period)s, %(month)s, %(stake)s, 1, %(stake)s, %(win)s, 1)
    {PERIOD_ON_CONFLICT}
    RETURNING 1
), bucket AS (
    INSERT INTO limits_minutebucket (player_id, kind, minute, stakes, wins, peak)
    SELECT %(player)s, %(kind)s, %(minute)s, %(stake)s, %(win)s, %(peak)s WHERE %(hourly)s
    {BUCKET_ON_CONFLICT} {BUCKET_ORDERED_SET}
    RETURNING 1
), settled AS (
    INSERT INTO limits_settledbet (player_id, kind, game_code, round_ref, stake, win, placed_at, started_at, settled_at,
                                   voided)
    VALUES (%(player)s, %(kind)s, %(game_code)s, %(round_ref)s, %(stake)s, %(win)s, %(placed_at)s, %(placed_at)s,
            %(settled_at)s, false)
    RETURNING 1
)
UPDATE limits_playerkindstate SET play_started_at = %(play_started_at)s,
       last_round_ended_at = %(last_round_ended_at)s,
       last_bucket_minute = %(last_bucket_minute)s, updated_at = %(settled_at)s
WHERE id = %(state)s
RETURNING (SELECT count(*) FROM periods), (SELECT count(*) FROM bucket), (SELECT count(*) FROM settled)""",
    columns={P: (*_PERIOD_KEY, *FIGURES), B: _BUCKET_FIELDS, S: _SETTLED_INSERT, X: ("id", *_STATE_SET)},
    inserts=(P, B, S),
    params={"player": int, "kind": str, "day_period": str, "day": date, "month_period": str, "month": date,
            "stake": int, "win": int, "minute": datetime, "peak": int, "hourly": bool, "game_code": str,
            "round_ref": str, "placed_at": datetime, "settled_at": datetime, "play_started_at": datetime,
            "last_round_ended_at": datetime, "last_bucket_minute": datetime, "state": int},
)


def decided_now(params: dict[str, Any]) -> tuple[int, int, int] | None:
    with connection.cursor() as cur:
        execute(cur, DECIDED_NOW, {"day_period": P.Period.DAY, "month_period": P.Period.MONTH, **params})
        row = cur.fetchone()
    return None if row is None else (int(row[0]), int(row[1]), int(row[2]))


BET_SETTLE = register(
    "limits.bet_settle",
    f"""WITH bet AS (
    DELETE FROM limits_openbet WHERE player_id = %(player)s AND kind = %(kind)s
        AND round_ref = %(round_ref)s AND stake = %(stake)s
    RETURNING placed_at, game_code
), periods AS (
    INSERT INTO limits_periodtotal (player_id, kind, period, start, stakes_placed, bets_placed, stakes_decided,
                                    wins_decided, bets_decided)
    SELECT v.* FROM (VALUES
        (CAST(%(player)s AS bigint), CAST(%(kind)s AS varchar), CAST(%(day_period)s AS varchar),
         CAST(%(day)s AS date), CAST(0 AS bigint), CAST(0 AS integer), CAST(%(stake)s AS bigint),
         CAST(%(win)s AS bigint), CAST(1 AS integer)),
        (CAST(%(player)s AS bigint), CAST(%(kind)s AS varchar), CAST(%(month_period)s AS varchar),
         CAST(%(month)s AS date), CAST(0 AS bigint), CAST(0 AS integer), CAST(%(stake)s AS bigint),
         CAST(%(win)s AS bigint), CAST(1 AS integer))) AS v
    WHERE EXISTS (SELECT 1 FROM bet)
    {PERIOD_ON_CONFLICT}
    RETURNING 1
), bucket AS (
    INSERT INTO limits_minutebucket (player_id, kind, minute, stakes, wins, peak)
    SELECT %(player)s, %(kind)s, %(minute)s, 0, %(win)s, 0 FROM bet WHERE %(hourly)s
    {BUCKET_ON_CONFLICT} CASE WHEN %(in_order)s AND %(minute)s >= COALESCE((SELECT x.last_bucket_minute
            FROM limits_playerkindstate x WHERE x.player_id = %(player)s AND x.kind = %(kind)s), '-infinity')
        THEN {BUCKET_ORDERED_SET} ELSE {BUCKET_CONSERVATIVE_SET} END
    RETURNING 1
), settled AS (
    INSERT INTO limits_settledbet (player_id, kind, game_code, round_ref, stake, win, placed_at, started_at, settled_at,
                                   voided)
    SELECT %(player)s, %(kind)s, COALESCE(NULLIF(%(game_code)s, ''), bet.game_code), %(round_ref)s,
           %(stake)s, %(win)s, bet.placed_at, %(started_at)s, %(settled_at)s, false FROM bet
    RETURNING id, placed_at, game_code
), state AS (
    UPDATE limits_playerkindstate SET
        last_round_ended_at = GREATEST(last_round_ended_at, %(play_ended_at)s),
        last_bucket_minute = CASE WHEN %(hourly)s
            THEN GREATEST(last_bucket_minute, %(minute)s) ELSE last_bucket_minute END,
        updated_at = %(settled_at)s
    WHERE player_id = %(player)s AND kind = %(kind)s AND EXISTS (SELECT 1 FROM bet)
    RETURNING 1
)
SELECT (SELECT id FROM settled), (SELECT placed_at FROM settled), (SELECT game_code FROM settled),
       (SELECT count(*) FROM periods), (SELECT count(*) FROM state)""",
    columns={OB: ("player", "kind", "round_ref", "stake", "placed_at", "game_code"), P: (*_PERIOD_KEY, *FIGURES),
             B: _BUCKET_FIELDS, S: ("id", *_SETTLED_INSERT),
             X: ("player", "kind", "last_round_ended_at", "last_bucket_minute", "updated_at")},
    inserts=(P, B, S),
    params={"player": int, "kind": str, "round_ref": str, "stake": int, "win": int, "day_period": str, "day": date,
            "month_period": str, "month": date, "minute": datetime, "hourly": bool, "in_order": bool,
            "game_code": str, "started_at": datetime, "settled_at": datetime, "play_ended_at": datetime},
)


def bet_settle(*, player_id: int, kind: str, round_ref: str, stake: int, win: int, day: date, month: date,
               minute: datetime, hourly: bool, game_code: str, started_at: datetime, settled_at: datetime,
               in_order: bool = True, play_ended_at: datetime | None = None) -> SettledBet | None:
    """Run :data:`BET_SETTLE`; the settled bet (its other fields deferred), or None when there was no open bet of
    this ``round_ref`` and stake (nothing was written: ``stake_settled`` places or corrects the open bet, then runs
    it again). ``in_order=False``: the win's minute bucket takes the conservative update even when its minute is
    not older than the newest written (a stake taken back in the same minute, ``counters.bucket_row``)."""
    params: dict[str, Any] = {"player": player_id, "kind": kind, "round_ref": round_ref, "stake": stake, "win": win,
              "day_period": P.Period.DAY, "day": day, "month_period": P.Period.MONTH, "month": month,
              "minute": minute, "hourly": hourly, "in_order": in_order, "game_code": game_code,
              "started_at": started_at, "settled_at": settled_at,
              "play_ended_at": play_ended_at if play_ended_at is not None else settled_at}
    with connection.cursor() as cur:
        execute(cur, BET_SETTLE, params)
        row = cur.fetchone()
    if row is None or row[0] is None:
        return None
    if row[3] != 2 or row[4] != 1:  # the open bet was there but a counter was not written: roll it all back
        raise RuntimeError(f"limits counters for {round_ref} not written: {row}")
    values = {"id": row[0], "player_id": player_id, "kind": kind, "game_code": row[2], "round_ref": round_ref,
              "stake": stake, "win": win, "placed_at": row[1], "started_at": started_at, "settled_at": settled_at,
              "voided": False}
    return instance(S, list(values), list(values.values()))


BET_RESTAKE = register(
    "limits.bet_restake",
    f"""WITH bet AS (
    UPDATE limits_openbet SET stake = %(stake)s, round_ref = %(round_ref)s
    WHERE id = %(bet)s AND player_id = %(player)s AND kind = %(kind)s
    RETURNING 1
), periods AS (
    INSERT INTO limits_periodtotal (player_id, kind, period, start, stakes_placed, bets_placed, stakes_decided,
                                    wins_decided, bets_decided)
    SELECT v.* FROM (VALUES
        (CAST(%(player)s AS bigint), CAST(%(kind)s AS varchar), CAST(%(day_period)s AS varchar),
         CAST(%(day)s AS date), CAST(%(diff)s AS bigint), CAST(0 AS integer), CAST(0 AS bigint), CAST(0 AS bigint),
         CAST(0 AS integer)),
        (CAST(%(player)s AS bigint), CAST(%(kind)s AS varchar), CAST(%(month_period)s AS varchar),
         CAST(%(month)s AS date), CAST(%(diff)s AS bigint), CAST(0 AS integer), CAST(0 AS bigint), CAST(0 AS bigint),
         CAST(0 AS integer))) AS v
    WHERE %(diff)s <> 0 AND EXISTS (SELECT 1 FROM bet)
    {PERIOD_ON_CONFLICT}
    RETURNING 1
), bucket AS (
    INSERT INTO limits_minutebucket (player_id, kind, minute, stakes, wins, peak)
    SELECT %(player)s, %(kind)s, %(minute)s, %(diff)s, 0, %(peak)s WHERE %(hourly)s AND EXISTS (SELECT 1 FROM bet)
    {BUCKET_ON_CONFLICT} CASE WHEN %(in_order)s THEN {BUCKET_ORDERED_SET} ELSE {BUCKET_CONSERVATIVE_SET} END
    RETURNING 1
)
UPDATE limits_playerkindstate SET last_bucket_minute = %(last_bucket_minute)s
WHERE id = %(state)s AND EXISTS (SELECT 1 FROM bet)
RETURNING (SELECT count(*) FROM bet), (SELECT count(*) FROM periods)""",
    columns={OB: ("id", "player", "kind", "stake", "round_ref"), P: (*_PERIOD_KEY, *FIGURES), B: _BUCKET_FIELDS,
             X: ("id", "last_bucket_minute")},
    inserts=(P, B),
    params={"player": int, "kind": str, "bet": int, "stake": int, "diff": int, "round_ref": str, "day_period": str,
            "day": date, "month_period": str, "month": date, "minute": datetime, "hourly": bool, "peak": int,
            "in_order": bool, "last_bucket_minute": datetime, "state": int},
)


def bet_restake(*, state_id: int, bet_id: int, player_id: int, kind: str, stake: int, diff: int, round_ref: str,
                day: date, month: date, minute: datetime, hourly: bool, peak: int, in_order: bool,
                last_bucket_minute: datetime | None) -> None:
    """Run :data:`BET_RESTAKE`: an open bet's stake set to ``stake`` and its ``round_ref`` to the one it is settled
    under, the placement counters of its ``placed_at`` (``day``, ``month``, the bucket of ``minute``) corrected by
    ``diff`` (the bucket's ``peak`` and rule as ``counters.bucket_row`` gives them) and the state row's newest
    bucket minute, in ONE statement."""
    params: dict[str, Any] = {
        "player": player_id, "kind": kind, "bet": bet_id, "stake": stake, "diff": diff, "round_ref": round_ref,
        "day_period": P.Period.DAY, "day": day, "month_period": P.Period.MONTH, "month": month, "minute": minute,
        "hourly": hourly, "peak": peak, "in_order": in_order, "last_bucket_minute": last_bucket_minute,
        "state": state_id}
    with connection.cursor() as cur:
        execute(cur, BET_RESTAKE, params)
        row = cur.fetchone()
    if row is None or row[0] != 1 or row[1] != (2 if diff else 0):
        raise RuntimeError(f"limits open bet {bet_id} not corrected: {row}")


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
    columns={OB: ("id", "player", "kind"), P: (*_PERIOD_KEY, *FIGURES), B: _BUCKET_FIELDS, S: ("id", *_VOIDED_INSERT),
             X: ("id", "last_round_ended_at", "last_bucket_minute")},
    inserts=(P, B, S),
    params={"player": int, "kind": str, "bet": int, "stake": int, "minus_stake": int, "day_period": str,
            "day": date, "month_period": str, "month": date, "minute": datetime, "hourly": bool, "game_code": str,
            "round_ref": str, "placed_at": datetime, "at": datetime, "state": int},
)


def bet_void(*, state_id: int, bet: OpenBet, day: date, month: date, minute: datetime, hourly: bool,
             at: datetime) -> SettledBet:
    """Run :data:`BET_VOID`: an open bet's stake returned, in ONE statement: the open bet deleted, its stake and
    count out of the placement counters of its ``placed_at`` (``day``, ``month``; the bucket of ``minute`` when
    ``hourly``, by the conservative rule of a stake taken back: the totals lower, the peak stays), the voided
    settled bet (``settled_at = voided_at = at``, no win) and the state row (the round ended at the stake's
    instant at the latest; the newest bucket minute). ``bet`` is the open bet read under the (player, kind) state
    lock; returns the settled bet written."""
    values = {"player_id": bet.player_id, "kind": bet.kind, "game_code": bet.game_code, "round_ref": bet.round_ref,
              "stake": bet.stake, "win": 0, "placed_at": bet.placed_at, "started_at": bet.placed_at,
              "settled_at": at, "voided": True, "voided_at": at}
    params: dict[str, Any] = {
        "player": bet.player_id, "kind": bet.kind, "bet": bet.pk, "stake": bet.stake, "minus_stake": -bet.stake,
        "day_period": P.Period.DAY, "day": day, "month_period": P.Period.MONTH, "month": month, "minute": minute,
        "hourly": hourly, "game_code": bet.game_code, "round_ref": bet.round_ref, "placed_at": bet.placed_at,
        "at": at, "state": state_id}
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
    columns={S: ("id", "player", "kind", "voided", "voided_at", "stake", "win", "placed_at", "settled_at"),
             P: (*_PERIOD_KEY, *FIGURES), B: ("player", "kind", "minute", "stakes", "wins", "peak"),
             OB: ("player", "kind", "stake", "placed_at")},
    inserts=(P,),
    params={"player": int, "kind": str, "bet": int, "at": datetime, "stake": int, "win": int, "minus_stake": int,
            "minus_win": int, "day_period": str, "month_period": str, "placed_day": date, "placed_month": date,
            "settled_day": date, "settled_month": date, "hourly": bool, "placed_minute": datetime,
            "placed_minute_end": datetime, "settled_minute": datetime, "settled_minute_end": datetime},
)


def settled_void(*, bet: SettledBet, at: datetime, placed_day: date, placed_month: date, settled_day: date,
                 settled_month: date, hourly: bool, placed_minute: datetime, settled_minute: datetime) -> None:
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
        "player": bet.player_id, "kind": bet.kind, "bet": bet.pk, "at": at, "stake": bet.stake, "win": bet.win,
        "minus_stake": -bet.stake, "minus_win": -bet.win, "day_period": P.Period.DAY, "month_period": P.Period.MONTH,
        "placed_day": placed_day, "placed_month": placed_month, "settled_day": settled_day,
        "settled_month": settled_month, "hourly": hourly, "placed_minute": placed_minute,
        "placed_minute_end": placed_minute + MINUTE, "settled_minute": settled_minute,
        "settled_minute_end": settled_minute + MINUTE}
    periods = len({(P.Period.DAY, placed_day), (P.Period.MONTH, placed_month), (P.Period.DAY, settled_day),
                   (P.Period.MONTH, settled_month)})
    with connection.cursor() as cur:
        execute(cur, SETTLED_VOID, params)
        row = cur.fetchone()
    if row is None or row[0] != 1 or row[1] != periods:
        raise RuntimeError(f"limits settled bet {bet.pk} not voided: {row}")


_WATCH_INSERT = ("player", "failures", "last_context", "last_error")
WATCH_ALL = register(
    "limits.watch_all",
    """INSERT INTO limits_exclusionwatch (player_id, failures, last_context, last_error)
SELECT p.id, %(failures)s, %(context)s, %(error)s FROM accounts_player p WHERE p.status = ANY(%(statuses)s)
ON CONFLICT (player_id) DO NOTHING""",
    columns={ExclusionWatch: _WATCH_INSERT, Player: ("id", "status")}, inserts=(ExclusionWatch,),
    params={"failures": int, "context": str, "error": str, "statuses": (list, str)},
)


def watch_all(statuses: list[str]) -> None:
    """A watch row (the model's defaults) for every player in ``statuses`` who has none yet, set-based."""
    defaults = {n: field_of(ExclusionWatch, n).get_default() for n in ("failures", "last_context", "last_error")}
    with connection.cursor() as cur:
        execute(cur, WATCH_ALL, {"failures": defaults["failures"], "context": defaults["last_context"],
                                    "error": defaults["last_error"], "statuses": statuses})


_OPEN_INSERT = ("player", "kind", "round_ref", "game_code", "stake", "placed_at")

BET_PLACE = register(
    "limits.bet_place",
    f"""WITH periods AS (
    INSERT INTO limits_periodtotal (player_id, kind, period, start, stakes_placed, bets_placed, stakes_decided,
                                    wins_decided, bets_decided)
    VALUES (%(player)s, %(kind)s, %(day_period)s, %(day)s, %(stake)s, 1, 0, 0, 0),
           (%(player)s, %(kind)s, %(month_period)s, %(month)s, %(stake)s, 1, 0, 0, 0)
    {PERIOD_ON_CONFLICT}
    RETURNING 1
), bucket AS (
    INSERT INTO limits_minutebucket (player_id, kind, minute, stakes, wins, peak)
    SELECT %(player)s, %(kind)s, %(minute)s, %(stake)s, 0, %(stake)s WHERE %(hourly)s
    {BUCKET_ON_CONFLICT} {BUCKET_ORDERED_SET}
    RETURNING 1
), bet AS (
    INSERT INTO limits_openbet (player_id, kind, round_ref, game_code, stake, placed_at)
    VALUES (%(player)s, %(kind)s, %(round_ref)s, %(game_code)s, %(stake)s, %(now)s)
    RETURNING 1
)
UPDATE limits_playerkindstate SET play_started_at = %(play_started_at)s,
       last_bucket_minute = %(last_bucket_minute)s, updated_at = %(now)s
WHERE id = %(state)s
RETURNING (SELECT count(*) FROM periods), (SELECT count(*) FROM bet)""",
    columns={P: (*_PERIOD_KEY, *FIGURES), B: _BUCKET_FIELDS, OB: _OPEN_INSERT,
             X: ("id", "play_started_at", "last_bucket_minute", "updated_at")},
    inserts=(P, B, OB),
    params={"player": int, "kind": str, "day_period": str, "day": date, "month_period": str, "month": date,
            "stake": int, "minute": datetime, "hourly": bool, "round_ref": str, "game_code": str, "now": datetime,
            "play_started_at": datetime, "last_bucket_minute": datetime, "state": int},
)


def bet_place(*, state_id: int, player_id: int, kind: str, stake: int, day: date, month: date, minute: datetime,
              hourly: bool, round_ref: str, game_code: str, now: datetime, play_started_at: datetime | None,
              last_bucket_minute: datetime | None) -> None:
    """Run :data:`BET_PLACE`: an allowed stake counted as placed (totals, the stake's bucket: a single stake's
    peak update is the same in or out of order), its open bet and the state row, in ONE statement."""
    params: dict[str, Any] = {
        "player": player_id, "kind": kind, "day_period": P.Period.DAY, "day": day, "month_period": P.Period.MONTH,
        "month": month, "stake": stake, "minute": minute, "hourly": hourly, "round_ref": round_ref,
        "game_code": game_code, "now": now, "play_started_at": play_started_at,
        "last_bucket_minute": last_bucket_minute, "state": state_id}
    with connection.cursor() as cur:
        execute(cur, BET_PLACE, params)
        row = cur.fetchone()
    if row is None or row[0] != 2 or row[1] != 1:
        raise RuntimeError(f"limits counters for {round_ref} not written: {row}")


# The archived months (core.partitions_archive, limits/archived_totals.py) ----------------------------------------------------

CB = CarriedBetTotals
_CARRIED = ("player_id", "kind", "period", "start", "month", *FIGURES, "archived_at")


#: one month of settled bets (``id >= low AND id < high``: that month's partition, read four times, whole) summed into
#: the placement (by ``placed_at``) and the decision (by ``settled_at``) of each player's day and month, not voided
CARRY_SETTLED = register(
    "limits.carry_settled",
    """WITH keyed AS (
    SELECT b.player_id AS p, b.kind AS k, %(period_day)s AS period, ((b.placed_at AT TIME ZONE %(tz)s)::date) AS s,
           b.stake AS sp, 1 AS np, 0 AS sd, 0 AS wd, 0 AS nd
    FROM limits_settledbet b WHERE b.id >= %(low)s AND b.id < %(high)s AND NOT b.voided
    UNION ALL
    SELECT b.player_id AS p, b.kind AS k, %(period_day)s AS period, ((b.settled_at AT TIME ZONE %(tz)s)::date) AS s,
           0 AS sp, 0 AS np, b.stake AS sd, b.win AS wd, 1 AS nd
    FROM limits_settledbet b WHERE b.id >= %(low)s AND b.id < %(high)s AND NOT b.voided
    UNION ALL
    SELECT b.player_id AS p, b.kind AS k, %(period_month)s AS period, (date_trunc('month', (b.placed_at AT TIME ZONE %(tz)s))::date) AS s,
           b.stake AS sp, 1 AS np, 0 AS sd, 0 AS wd, 0 AS nd
    FROM limits_settledbet b WHERE b.id >= %(low)s AND b.id < %(high)s AND NOT b.voided
    UNION ALL
    SELECT b.player_id AS p, b.kind AS k, %(period_month)s AS period, (date_trunc('month', (b.settled_at AT TIME ZONE %(tz)s))::date) AS s,
           0 AS sp, 0 AS np, b.stake AS sd, b.win AS wd, 1 AS nd
    FROM limits_settledbet b WHERE b.id >= %(low)s AND b.id < %(high)s AND NOT b.voided
), carried AS (
    INSERT INTO limits_carriedbettotals (player_id, kind, period, start, month, stakes_placed, bets_placed,
                                         stakes_decided, wins_decided, bets_decided, archived_at)
    SELECT p, k, period, s, %(archived_month)s, sum(sp), sum(np), sum(sd), sum(wd), sum(nd), %(at)s
    FROM keyed GROUP BY p, k, period, s
    RETURNING period, bets_decided
)
SELECT count(*), COALESCE(sum(bets_decided) FILTER (WHERE period = %(period_day)s), 0)
FROM carried""",
    columns={S: ("id", "player_id", "kind", "stake", "win", "placed_at", "settled_at", "voided"), CB: _CARRIED},
    inserts=(CB,),
    params={"tz": str, "period_day": str, "period_month": str, "archived_month": date, "low": int, "high": int,
            "at": datetime},
)


def carry_settled(*, month: date, low: int, high: int, at: datetime, tz: str) -> tuple[int, int]:
    """Run :data:`CARRY_SETTLED`: (keys carried, bets decided in the month: not voided)."""
    with connection.cursor() as cur:
        execute(cur, CARRY_SETTLED, {"tz": tz, "period_day": P.Period.DAY, "period_month": P.Period.MONTH,
                                        "archived_month": month, "low": low, "high": high, "at": at})
        keys, decided = cur.fetchone()
    return int(keys), int(decided)
