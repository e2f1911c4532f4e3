"""The limits' hot statements (the stake gate and the counters), as the SQL they are (see core/sql.py).

* ``PERIOD_ON_CONFLICT``: adding to the day and month totals (``PeriodTotal.FIGURES``), part of every statement
  below that writes them.
* ``BUCKET_ON_CONFLICT`` with ``BUCKET_ORDERED_SET`` / ``BUCKET_CONSERVATIVE_SET``: the hourly-loss minute bucket's
  upsert and its peak update (GP §8(5), ``counters.bucket_row``), part of every statement below that writes a bucket.
* :data:`GATE_STATE`: everything a stake decision reads, under the (player, kind) state lock, in ONE statement
  (the state row, open bets, self-limits, the two totals, the window's buckets, the panic button / self-listing in
  force and the AML restriction); the state row, the panic button and the self-listing arrive as a
  ``json_build_object`` keyed by the fields' ``attname`` (``core.sql.instance_from_json``), the rows of which there
  can be many as a ``json_build_array`` of their fields in a fixed order (:func:`figures_from_json`): an open bet
  and a period total whole (``_OPEN_BET_READ``, ``_PERIOD_READ``, model instances), a self-limit and a bucket only
  the figures the decision reads (``LIMIT_READ``, ``_BUCKET_READ``, tuples); replaces 7-8 ORM reads.
* ``DECIDED_NOW_CTES`` / ``DECIDED_NOW_STATE``: a bet placed and decided in the same transaction (totals, bucket,
  settled bet, state row), written by the round's insert in the same statement (games/sql.py
  ROUND_INSERT_DECIDED); replaces 5.
* :data:`BET_PLACE`: a stake counted as placed (totals, the stake's bucket, the open bet, the state row), in ONE
  statement: the gate's ``stake_placed`` and ``stake_settled`` of a bet that was never placed.
* :data:`BET_RESTAKE`: an open bet corrected before it is decided (another stake: the placement counters by the
  difference; the ``round_ref`` it is settled under), in ONE statement.
* :data:`BET_SETTLE`: an open bet decided, in ONE statement: the open bet deleted, the totals of the decision, the
  win's bucket, the settled bet, the state row. The only settlement: ``stake_settled`` runs it on the open bet of
  ``round_ref`` at once, and otherwise first places (BET_PLACE) or corrects (BET_RESTAKE) the open bet.
* ``limits.sql_voids``: BET_VOID (an open bet's stake returned) and SETTLED_VOID (a decided bet declared void),
  in ONE statement each, built on the fragments above; ``limits.sql_archive``: CARRY_SETTLED (an archived month
  carried forward, not on the round path).

Pinned by the limits tests, ``games/tests/platform/test_round_cost.py`` / ``test_action_cost.py`` (statement
counts), ``limits_reconcile`` (the counters equal the ledger of settled bets) and ``tests/test_sql_contracts.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, TypeVar

from django.db.models import Model

from accounts.models import PersonalData, Player
from core.sql import cursor, execute, field_of, instance, instance_from_json, register
from limits.models import (
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
#: the whole rows of an open bet and a period total, as the gate sends them (a ``json_build_array`` in this order)
_OPEN_BET_READ = ("id", "player_id", "kind", "round_ref", "game_code", "stake", "placed_at")
_PERIOD_READ = (
    "id",
    "player_id",
    "kind",
    "period",
    "start",
    "stakes_placed",
    "bets_placed",
    "stakes_decided",
    "wins_decided",
    "bets_decided",
)
#: what the stake gate reads of a self-limit (``limits.models.value_in_force``'s figures), as a tuple: no model
#: instance for each of the player's ~7 limits on every stake. The gate's statement sends these fields only, as a
#: ``json_build_array`` in this order (a bucket's ``_BUCKET_READ`` too): the server looks up the type of every
#: argument of ``json_build_object`` and ``json_build_array`` in its catalogue caches per row, a text key four times.
LIMIT_READ = ("limit_type", "value", "has_pending", "pending_value", "pending_effective_at")


def _array(alias: str, names: tuple[str, ...]) -> str:
    """``json_build_array`` of ``alias``'s columns ``names`` in that order: the text is made from the tuple the rows
    are read back by (``figures_from_json``, ``_row_from_json``), so the two cannot disagree on the order."""
    return f"json_build_array({', '.join(f'{alias}.{name}' for name in names)})"


LimitFigures = tuple[str, int | None, bool, int | None, datetime | None]


# The statement is wrapped in ``SELECT * FROM (...) gate``: PostgreSQL copies the outer query's target list on every
# EXECUTE to describe the result (``FetchPreparedStatementTargetList``); wrapped, that list is the subquery's column
# references instead of the trees of its eight subqueries (~0.1 M instructions an EXECUTE, docs/bench.md). The plan
# is the same (the row lock stays on the state row inside).
GATE_STATE = register(
    "limits.gate_state",
    """SELECT * FROM (
SELECT json_build_object('id', s.id, 'player_id', s.player_id, 'kind', s.kind,
      'play_started_at', s.play_started_at, 'last_round_ended_at', s.last_round_ended_at,
      'last_bucket_minute', s.last_bucket_minute, 'updated_at', s.updated_at),
  (SELECT json_agg("""
    + _array("o", _OPEN_BET_READ)
    + """
          ORDER BY o.id)
    FROM limits_openbet o WHERE o.player_id = s.player_id AND o.kind = s.kind),
  (SELECT json_agg("""
    + _array("l", LIMIT_READ)
    + """)
    FROM limits_selflimit l WHERE l.player_id = s.player_id AND l.kind = s.kind),
  (SELECT json_agg("""
    + _array("p", _PERIOD_READ)
    + """)
    FROM limits_periodtotal p WHERE p.player_id = s.player_id AND p.kind = s.kind
      AND ((p.period = %(day_period)s AND p.start = %(day)s)
        OR (p.period = %(month_period)s AND p.start = %(month)s))),
  (SELECT json_agg("""
    + _array("b", _BUCKET_READ)
    + """ ORDER BY b.minute DESC)
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
FOR NO KEY UPDATE OF s
) gate""",
    columns={
        X: ("id", "player_id", "kind", "play_started_at", "last_round_ended_at", "last_bucket_minute", "updated_at"),
        OB: _OPEN_BET_READ,
        L: ("player", "kind", *LIMIT_READ),
        P: _PERIOD_READ,
        B: ("player", "kind", *_BUCKET_READ),
        PanicExclusion: ("player", "person_key", *_PANIC),
        SelfListingRequest: ("player", *_LISTING),
        PersonalData: ("player", "person_key"),
        Player: ("id", "aml_restriction"),
    },
    params={
        "player": int,
        "kind": str,
        "day_period": str,
        "day": date,
        "month_period": str,
        "month": date,
        "lo": datetime,
        "hi": datetime,
        "at": datetime,
    },
)


@functools.cache
def _figure_parsers(model: type[Model], names: tuple[str, ...]) -> tuple[Any, ...]:
    kinds = {"DateTimeField": datetime.fromisoformat, "DateField": date.fromisoformat}
    return tuple(kinds.get(field_of(model, n).get_internal_type()) for n in names)


def figures_from_json(model: type[Model], values: Sequence[Any], names: tuple[str, ...]) -> tuple[Any, ...]:
    """The values of a ``json_build_array`` of ``model``'s fields ``names`` (in that order), each converted back by
    its field's type (a datetime or date from its JSON text), as a tuple."""
    return tuple(
        p(v) if p is not None and v is not None else v
        for p, v in zip(_figure_parsers(model, names), values, strict=True)
    )


M = TypeVar("M", bound=Model)


def _row_from_json(model: type[M], values: Sequence[Any], names: tuple[str, ...]) -> M:
    """A model instance from a ``json_build_array`` of its fields ``names`` (``core.sql.instance``: the others
    deferred)."""
    return instance(model, names, figures_from_json(model, values, names))


@dataclass
class GateRows:
    """The rows :data:`GATE_STATE` read, as model instances (a missing total is an unsaved zero row)."""

    state: PlayerKindState
    open_bets: list[OpenBet]
    self_limits: list[LimitFigures]  # LIMIT_READ of each
    day: PeriodTotal
    month: PeriodTotal
    buckets: list[tuple[datetime, int, int, int]]
    panic: PanicExclusion | None
    listing: SelfListingRequest | None
    aml_restriction: str


def gate_state(
    *, player_id: int, kind: str, day: date, month: date, lo: datetime, hi: datetime, at: datetime
) -> GateRows | None:
    """Run :data:`GATE_STATE`; None when the (player, kind) state row does not exist yet."""
    params: dict[str, Any] = {
        "player": player_id,
        "kind": kind,
        "day_period": P.Period.DAY,
        "day": day,
        "month_period": P.Period.MONTH,
        "month": month,
        "lo": lo,
        "hi": hi,
        "at": at,
    }
    with cursor() as cur:
        execute(cur, GATE_STATE, params)
        row = cur.fetchone()
    if row is None:
        return None
    state, open_bets, self_limits, totals, buckets, panic, listing, aml = row
    periods = {(t.period, t.start): t for t in (_row_from_json(P, x, _PERIOD_READ) for x in totals or [])}

    def total(period: str, start: date) -> PeriodTotal:
        return periods.get((period, start)) or P(player_id=player_id, kind=kind, period=period, start=start)

    return GateRows(
        state=instance_from_json(X, state),
        open_bets=[_row_from_json(OB, o, _OPEN_BET_READ) for o in open_bets or []],
        self_limits=[figures_from_json(L, x, LIMIT_READ) for x in self_limits or []],
        day=total(P.Period.DAY, day),
        month=total(P.Period.MONTH, month),
        buckets=[figures_from_json(B, x, _BUCKET_READ) for x in buckets or []],  # (minute, stakes, wins, peak)
        panic=instance_from_json(PanicExclusion, panic) if panic else None,
        listing=instance_from_json(SelfListingRequest, listing) if listing else None,
        aml_restriction=aml or "",
    )


_SETTLED_INSERT = (
    "player",
    "kind",
    "game_code",
    "round_ref",
    "stake",
    "win",
    "placed_at",
    "started_at",
    "settled_at",
    "voided",
)
_STATE_SET = ("play_started_at", "last_round_ended_at", "last_bucket_minute", "updated_at")


#: a bet placed and decided in the same transaction (a round settled at its start), counted in ONE statement: the
#: day and month totals, the minute bucket, the settled bet (``DECIDED_NOW_CTES``) and the state row
#: (``DECIDED_NOW_STATE``, returning how many totals, buckets and settled bets were written). Not a statement of its
#: own: the round's insert carries it (games/sql.py ROUND_INSERT_DECIDED, one round trip for both), so its
#: parameters, columns and inserted tables are given here for that statement's registration.
DECIDED_NOW_CTES = f"""periods AS (
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
)"""
DECIDED_NOW_STATE = """UPDATE limits_playerkindstate SET play_started_at = %(play_started_at)s,
       last_round_ended_at = %(last_round_ended_at)s,
       last_bucket_minute = %(last_bucket_minute)s, updated_at = %(settled_at)s
WHERE id = %(state)s
RETURNING (SELECT count(*) FROM periods) AS n_periods, (SELECT count(*) FROM bucket) AS n_buckets,
          (SELECT count(*) FROM settled) AS n_settled"""
DECIDED_NOW_COLUMNS = {P: (*_PERIOD_KEY, *FIGURES), B: _BUCKET_FIELDS, S: _SETTLED_INSERT, X: ("id", *_STATE_SET)}
DECIDED_NOW_INSERTS = (P, B, S)
DECIDED_NOW_PARAMS: dict[str, type] = {
    "player": int,
    "kind": str,
    "day_period": str,
    "day": date,
    "month_period": str,
    "month": date,
    "stake": int,
    "win": int,
    "minute": datetime,
    "peak": int,
    "hourly": bool,
    "game_code": str,
    "round_ref": str,
    "placed_at": datetime,
    "settled_at": datetime,
    "play_started_at": datetime,
    "last_round_ended_at": datetime,
    "last_bucket_minute": datetime,
    "state": int,
}


def decided_now_params(params: dict[str, Any]) -> dict[str, Any]:
    """The parameters of ``DECIDED_NOW_CTES`` / ``DECIDED_NOW_STATE`` for ``params`` (the periods' names added)."""
    return {"day_period": P.Period.DAY, "month_period": P.Period.MONTH, **params}


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
    columns={
        OB: ("player", "kind", "round_ref", "stake", "placed_at", "game_code"),
        P: (*_PERIOD_KEY, *FIGURES),
        B: _BUCKET_FIELDS,
        S: ("id", *_SETTLED_INSERT),
        X: ("player", "kind", "last_round_ended_at", "last_bucket_minute", "updated_at"),
    },
    inserts=(P, B, S),
    params={
        "player": int,
        "kind": str,
        "round_ref": str,
        "stake": int,
        "win": int,
        "day_period": str,
        "day": date,
        "month_period": str,
        "month": date,
        "minute": datetime,
        "hourly": bool,
        "in_order": bool,
        "game_code": str,
        "started_at": datetime,
        "settled_at": datetime,
        "play_ended_at": datetime,
    },
)


def bet_settle(
    *,
    player_id: int,
    kind: str,
    round_ref: str,
    stake: int,
    win: int,
    day: date,
    month: date,
    minute: datetime,
    hourly: bool,
    game_code: str,
    started_at: datetime,
    settled_at: datetime,
    in_order: bool = True,
    play_ended_at: datetime | None = None,
) -> SettledBet | None:
    """Run :data:`BET_SETTLE`; the settled bet (its other fields deferred), or None when there was no open bet of
    this ``round_ref`` and stake (nothing was written: ``stake_settled`` places or corrects the open bet, then runs
    it again). ``in_order=False``: the win's minute bucket takes the conservative update even when its minute is
    not older than the newest written (a stake taken back in the same minute, ``counters.bucket_row``)."""
    params: dict[str, Any] = {
        "player": player_id,
        "kind": kind,
        "round_ref": round_ref,
        "stake": stake,
        "win": win,
        "day_period": P.Period.DAY,
        "day": day,
        "month_period": P.Period.MONTH,
        "month": month,
        "minute": minute,
        "hourly": hourly,
        "in_order": in_order,
        "game_code": game_code,
        "started_at": started_at,
        "settled_at": settled_at,
        "play_ended_at": play_ended_at if play_ended_at is not None else settled_at,
    }
    with cursor() as cur:
        execute(cur, BET_SETTLE, params)
        row = cur.fetchone()
    if row is None or row[0] is None:
        return None
    if row[3] != 2 or row[4] != 1:  # the open bet was there but a counter was not written: roll it all back
        raise RuntimeError(f"limits counters for {round_ref} not written: {row}")
    values = {
        "id": row[0],
        "player_id": player_id,
        "kind": kind,
        "game_code": row[2],
        "round_ref": round_ref,
        "stake": stake,
        "win": win,
        "placed_at": row[1],
        "started_at": started_at,
        "settled_at": settled_at,
        "voided": False,
    }
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
    columns={
        OB: ("id", "player", "kind", "stake", "round_ref"),
        P: (*_PERIOD_KEY, *FIGURES),
        B: _BUCKET_FIELDS,
        X: ("id", "last_bucket_minute"),
    },
    inserts=(P, B),
    params={
        "player": int,
        "kind": str,
        "bet": int,
        "stake": int,
        "diff": int,
        "round_ref": str,
        "day_period": str,
        "day": date,
        "month_period": str,
        "month": date,
        "minute": datetime,
        "hourly": bool,
        "peak": int,
        "in_order": bool,
        "last_bucket_minute": datetime,
        "state": int,
    },
)


def bet_restake(
    *,
    state_id: int,
    bet_id: int,
    player_id: int,
    kind: str,
    stake: int,
    diff: int,
    round_ref: str,
    day: date,
    month: date,
    minute: datetime,
    hourly: bool,
    peak: int,
    in_order: bool,
    last_bucket_minute: datetime | None,
) -> None:
    """Run :data:`BET_RESTAKE`: an open bet's stake set to ``stake`` and its ``round_ref`` to the one it is settled
    under, the placement counters of its ``placed_at`` (``day``, ``month``, the bucket of ``minute``) corrected by
    ``diff`` (the bucket's ``peak`` and rule as ``counters.bucket_row`` gives them) and the state row's newest
    bucket minute, in ONE statement."""
    params: dict[str, Any] = {
        "player": player_id,
        "kind": kind,
        "bet": bet_id,
        "stake": stake,
        "diff": diff,
        "round_ref": round_ref,
        "day_period": P.Period.DAY,
        "day": day,
        "month_period": P.Period.MONTH,
        "month": month,
        "minute": minute,
        "hourly": hourly,
        "peak": peak,
        "in_order": in_order,
        "last_bucket_minute": last_bucket_minute,
        "state": state_id,
    }
    with cursor() as cur:
        execute(cur, BET_RESTAKE, params)
        row = cur.fetchone()
    if row is None or row[0] != 1 or row[1] != (2 if diff else 0):
        raise RuntimeError(f"limits open bet {bet_id} not corrected: {row}")


_WATCH_INSERT = ("player", "failures", "last_context", "last_error")
WATCH_ALL = register(
    "limits.watch_all",
    """INSERT INTO limits_exclusionwatch (player_id, failures, last_context, last_error)
SELECT p.id, %(failures)s, %(context)s, %(error)s FROM accounts_player p WHERE p.status = ANY(%(statuses)s)
ON CONFLICT (player_id) DO NOTHING""",
    columns={ExclusionWatch: _WATCH_INSERT, Player: ("id", "status")},
    inserts=(ExclusionWatch,),
    params={"failures": int, "context": str, "error": str, "statuses": (list, str)},
)


def watch_all(statuses: list[str]) -> None:
    """A watch row (the model's defaults) for every player in ``statuses`` who has none yet, set-based."""
    defaults = {n: field_of(ExclusionWatch, n).get_default() for n in ("failures", "last_context", "last_error")}
    with cursor() as cur:
        execute(
            cur,
            WATCH_ALL,
            {
                "failures": defaults["failures"],
                "context": defaults["last_context"],
                "error": defaults["last_error"],
                "statuses": statuses,
            },
        )


_OPEN_INSERT = ("player", "kind", "round_ref", "game_code", "stake", "placed_at")

#: an allowed stake counted as placed (the day and month totals, the stake's bucket, the open bet:
#: ``BET_PLACE_CTES``) and the state row (``BET_PLACE_STATE``, returning how many totals and open bets were written).
#: :data:`BET_PLACE` runs them; a round that waits for the player carries them in its insert instead
#: (games/sql.py ROUND_INSERT_PLACED, one round trip for both).
BET_PLACE_CTES = f"""periods AS (
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
)"""
BET_PLACE_STATE = """UPDATE limits_playerkindstate SET play_started_at = %(play_started_at)s,
       last_bucket_minute = %(last_bucket_minute)s, updated_at = %(now)s
WHERE id = %(state)s
RETURNING (SELECT count(*) FROM periods) AS n_periods, (SELECT count(*) FROM bet) AS n_bets"""
BET_PLACE_COLUMNS = {
    P: (*_PERIOD_KEY, *FIGURES),
    B: _BUCKET_FIELDS,
    OB: _OPEN_INSERT,
    X: ("id", "play_started_at", "last_bucket_minute", "updated_at"),
}
BET_PLACE_INSERTS = (P, B, OB)
BET_PLACE_PARAMS: dict[str, type] = {
    "player": int,
    "kind": str,
    "day_period": str,
    "day": date,
    "month_period": str,
    "month": date,
    "stake": int,
    "minute": datetime,
    "hourly": bool,
    "round_ref": str,
    "game_code": str,
    "now": datetime,
    "play_started_at": datetime,
    "last_bucket_minute": datetime,
    "state": int,
}
BET_PLACE = register(
    "limits.bet_place",
    f"""WITH {BET_PLACE_CTES}
{BET_PLACE_STATE}""",
    columns=BET_PLACE_COLUMNS,
    inserts=BET_PLACE_INSERTS,
    params=BET_PLACE_PARAMS,
)


def bet_place_params(
    *,
    state_id: int,
    player_id: int,
    kind: str,
    stake: int,
    day: date,
    month: date,
    minute: datetime,
    hourly: bool,
    round_ref: str,
    game_code: str,
    now: datetime,
    play_started_at: datetime | None,
    last_bucket_minute: datetime | None,
) -> dict[str, Any]:
    """The parameters of ``BET_PLACE_CTES`` / ``BET_PLACE_STATE``: an allowed stake counted as placed (totals, the
    stake's bucket: a single stake's peak update is the same in or out of order), its open bet and the state row."""
    return {
        "player": player_id,
        "kind": kind,
        "day_period": P.Period.DAY,
        "day": day,
        "month_period": P.Period.MONTH,
        "month": month,
        "stake": stake,
        "minute": minute,
        "hourly": hourly,
        "round_ref": round_ref,
        "game_code": game_code,
        "now": now,
        "play_started_at": play_started_at,
        "last_bucket_minute": last_bucket_minute,
        "state": state_id,
    }


def bet_place(params: dict[str, Any]) -> tuple[int | None, ...]:
    """Run :data:`BET_PLACE` with :func:`bet_place_params`: (totals written, open bets written), or (None, None)
    when the state row was not found."""
    with cursor() as cur:
        execute(cur, BET_PLACE, params)
        row = cur.fetchone()
    return (None, None) if row is None else (int(row[0]), int(row[1]))
