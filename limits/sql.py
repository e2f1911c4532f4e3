"""The limits' hot statements (the stake gate and the counters), built from the models (see core/sql.py).

* :data:`PERIOD_UPSERT`: add to the day and month totals (``PeriodTotal.FIGURES``), one statement.
* :data:`BUCKET_UPSERT_ORDERED` / :data:`BUCKET_UPSERT_CONSERVATIVE`: hourly-loss minute buckets (GP §8(5)).
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

Pinned by the limits tests, ``games/tests/platform/test_round_cost.py`` / ``test_action_cost.py`` (statement
counts), ``limits_reconcile`` (the counters equal the ledger of settled bets) and ``tests/test_sql_contracts.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.db import connection

from accounts.models import PersonalData, Player
from core.sql import cast_type, col, cols, field_of, instance, instance_from_json, json_object, register, table
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

# Adding to the day/month totals (shared by the general path and the one-statement paths).
PERIOD_ON_CONFLICT = (f"ON CONFLICT ({cols(P, _PERIOD_KEY)}) DO UPDATE SET "
                      + ", ".join(f'"{col(P, f)}" = {table(P)}."{col(P, f)}" + EXCLUDED."{col(P, f)}"'
                                  for f in FIGURES))
_PERIOD_ROW = "(" + ", ".join(["%s"] * (len(_PERIOD_KEY) + len(FIGURES))) + ")"

PERIOD_UPSERT = register(
    "limits.period_upsert",
    f"INSERT INTO {table(P)} ({cols(P, (*_PERIOD_KEY, *FIGURES))}) VALUES {_PERIOD_ROW}, {_PERIOD_ROW} "
    + PERIOD_ON_CONFLICT,
    columns={P: (*_PERIOD_KEY, *FIGURES)}, inserts=(P,),
    positional=[int, str, str, date, int, int, int, int, int] * 2,
)


def periods_add(player_id: int, kind: str, day: date, month: date, figures: tuple[int, ...]) -> None:
    """Add ``figures`` (in ``FIGURES`` order) to the day and month totals (one statement)."""
    with connection.cursor() as cur:
        cur.execute(PERIOD_UPSERT.sql, [player_id, kind, P.Period.DAY, day, *figures,
                                        player_id, kind, P.Period.MONTH, month, *figures])


def _bucket(name: str, peak: str) -> str:
    """The bucket upsert with ``peak`` as its peak update (``{peak}``: the bucket's, ``{x_peak}``, ``{x_stakes}``,
    ``{x_wins}``: the new events'); ``{values}`` stays for the rows."""
    old = {f: f'{table(B)}."{col(B, f)}"' for f in ("stakes", "wins", "peak")}
    new = {f"x_{f}": f'EXCLUDED."{col(B, f)}"' for f in ("stakes", "wins", "peak")}
    return (f"INSERT INTO {table(B)} ({cols(B, _BUCKET_FIELDS)}) VALUES {{values}} "
            f"ON CONFLICT ({cols(B, ('player', 'kind', 'minute'))}) DO UPDATE SET "
            f'"{col(B, "stakes")}" = {old["stakes"]} + {new["x_stakes"]}, '
            f'"{col(B, "wins")}" = {old["wins"]} + {new["x_wins"]}, '
            f'"{col(B, "peak")}" = ' + peak.format(peak=old["peak"], **new))


# In time order: the new events follow the bucket's earlier ones, so every earlier tail grows by their net.
BUCKET_ORDERED_SET = "GREATEST({x_peak}, {peak} + {x_stakes} - {x_wins})"
# Out of order (an older minute, or a stake taken back): the peak may only grow, by the stakes added.
BUCKET_CONSERVATIVE_SET = "{peak} + {x_peak}"
_BUCKET_ROW = "(%s, %s, %s, %s, %s, %s)"
BUCKET_UPSERT_ORDERED = register(
    "limits.bucket_upsert_ordered", _bucket("ordered", BUCKET_ORDERED_SET).format(values=_BUCKET_ROW),
    columns={B: _BUCKET_FIELDS}, inserts=(B,), positional=[int, str, datetime, int, int, int])
BUCKET_UPSERT_CONSERVATIVE = register(
    "limits.bucket_upsert_conservative", _bucket("conservative", BUCKET_CONSERVATIVE_SET).format(values=_BUCKET_ROW),
    columns={B: _BUCKET_FIELDS}, inserts=(B,), positional=[int, str, datetime, int, int, int])


def buckets_add(rows: list[tuple[int, str, datetime, int, int, int]], *, ordered: bool) -> None:
    """Upsert minute buckets ``(player, kind, minute, stakes, wins, peak)`` (one statement)."""
    if not rows:
        return
    template = _bucket("", BUCKET_ORDERED_SET if ordered else BUCKET_CONSERVATIVE_SET)
    with connection.cursor() as cur:
        cur.execute(template.format(values=", ".join([_BUCKET_ROW] * len(rows))), [v for r in rows for v in r])


_PANIC = ("started_at", "ends_at")
_LISTING = ("requested_at", "listed_until")
_BUCKET_READ = ("minute", "stakes", "wins", "peak")


def _of_state(model: type[Any], alias: str) -> str:
    return (f"{alias}.{col(model, 'player')} = s.{col(X, 'player')} AND {alias}.{col(model, 'kind')} = "
            f"s.{col(X, 'kind')}")


GATE_STATE = register(
    "limits.gate_state",
    f"""SELECT {json_object(X, 's')},
  (SELECT json_agg({json_object(OB, 'o')} ORDER BY o.id) FROM {table(OB)} o WHERE {_of_state(OB, 'o')}),
  (SELECT json_agg({json_object(L, 'l')}) FROM {table(L)} l WHERE {_of_state(L, 'l')}),
  (SELECT json_agg({json_object(P, 'p')}) FROM {table(P)} p WHERE {_of_state(P, 'p')}
      AND ((p.{col(P, 'period')} = %(day_period)s AND p.{col(P, 'start')} = %(day)s)
        OR (p.{col(P, 'period')} = %(month_period)s AND p.{col(P, 'start')} = %(month)s))),
  (SELECT json_agg({json_object(B, 'b', _BUCKET_READ)} ORDER BY b.{col(B, 'minute')} DESC)
     FROM {table(B)} b WHERE {_of_state(B, 'b')} AND b.{col(B, 'minute')} >= %(lo)s AND b.{col(B, 'minute')} <= %(hi)s),
  (SELECT {json_object(PanicExclusion, 'e', _PANIC)} FROM {table(PanicExclusion)} e
    WHERE (e.{col(PanicExclusion, 'player')} = s.{col(X, 'player')}
           OR e.{col(PanicExclusion, 'person_key')} = (SELECT pd.{col(PersonalData, 'person_key')}
                FROM {table(PersonalData)} pd WHERE pd.{col(PersonalData, 'player')} = s.{col(X, 'player')}))
      AND e.{col(PanicExclusion, 'started_at')} <= %(at)s AND e.{col(PanicExclusion, 'ends_at')} > %(at)s
    ORDER BY e.{col(PanicExclusion, 'ends_at')} DESC LIMIT 1),
  (SELECT {json_object(SelfListingRequest, 'r', _LISTING)} FROM {table(SelfListingRequest)} r
    WHERE r.{col(SelfListingRequest, 'player')} = s.{col(X, 'player')}
      AND r.{col(SelfListingRequest, 'requested_at')} <= %(at)s AND r.{col(SelfListingRequest, 'listed_until')} > %(at)s
    ORDER BY r.{col(SelfListingRequest, 'listed_until')} DESC LIMIT 1),
  (SELECT p.{col(Player, 'aml_restriction')} FROM {table(Player)} p WHERE p.id = s.{col(X, 'player')})
FROM {table(X)} s
WHERE s.{col(X, 'player')} = %(player)s AND s.{col(X, 'kind')} = %(kind)s
FOR NO KEY UPDATE OF s""",
    columns={X: tuple(f.attname for f in X._meta.concrete_fields), OB: tuple(f.attname for f in OB._meta.concrete_fields),
             L: tuple(f.attname for f in L._meta.concrete_fields), P: tuple(f.attname for f in P._meta.concrete_fields),
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
        cur.execute(GATE_STATE.sql, params)
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
        buckets=[(b.minute, b.stakes, b.wins, b.peak) for b in (instance_from_json(B, x) for x in buckets or [])],
        panic=instance_from_json(PanicExclusion, panic) if panic else None,
        listing=instance_from_json(SelfListingRequest, listing) if listing else None,
        aml_restriction=aml or "",
    )


_SETTLED_INSERT = ("player", "kind", "game_code", "round_ref", "stake", "win", "placed_at", "started_at",
                   "settled_at", "voided")
_STATE_SET = ("play_started_at", "last_round_ended_at", "last_bucket_minute", "updated_at")


def _cast(model: type[Any], name: str) -> str:
    return cast_type(field_of(model, name))


_DECIDED = ("0", "0", "%(stake)s", "%(win)s", "1")  # FIGURES of a decided bet: placed 0; the stake, the win, one bet
_RESTAKED = ("%(diff)s", "0", "0", "0", "0")  # FIGURES of an open bet's stake corrected: placed stakes by the difference


def _typed_row(key: tuple[str, str, str, str], figures: tuple[str, ...] = _DECIDED) -> str:
    """A row of the totals (by default a decided bet's), each value cast to its column's type (a VALUES list under
    INSERT ... SELECT is typed by its values)."""
    values = [f"%({key[0]})s", f"%({key[1]})s", f"%({key[2]})s", f"%({key[3]})s", *figures]
    return "(" + ", ".join(f"CAST({v} AS {_cast(P, f)})" for v, f in zip(values, (*_PERIOD_KEY, *FIGURES),
                                                                         strict=True)) + ")"


DECIDED_NOW = register(
    "limits.decided_now",
    f"""WITH periods AS (
    INSERT INTO {table(P)} ({cols(P, (*_PERIOD_KEY, *FIGURES))})
    VALUES (%(player)s, %(kind)s, %(day_period)s, %(day)s, %(stake)s, 1, %(stake)s, %(win)s, 1),
           (%(player)s, %(kind)s, %(month_period)s, %(month)s, %(stake)s, 1, %(stake)s, %(win)s, 1)
    {PERIOD_ON_CONFLICT}
    RETURNING 1
), bucket AS (
    {_bucket("", BUCKET_ORDERED_SET).replace(
        "VALUES {values}", "SELECT %(player)s, %(kind)s, %(minute)s, %(stake)s, %(win)s, %(peak)s WHERE %(hourly)s")}
    RETURNING 1
), settled AS (
    INSERT INTO {table(S)} ({cols(S, _SETTLED_INSERT)})
    VALUES (%(player)s, %(kind)s, %(game_code)s, %(round_ref)s, %(stake)s, %(win)s, %(placed_at)s, %(placed_at)s,
            %(settled_at)s, false)
    RETURNING 1
)
UPDATE {table(X)} SET "{col(X, 'play_started_at')}" = %(play_started_at)s,
       "{col(X, 'last_round_ended_at')}" = %(last_round_ended_at)s,
       "{col(X, 'last_bucket_minute')}" = %(last_bucket_minute)s, "{col(X, 'updated_at')}" = %(settled_at)s
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
        cur.execute(DECIDED_NOW.sql, {"day_period": P.Period.DAY, "month_period": P.Period.MONTH, **params})
        row = cur.fetchone()
    return None if row is None else (int(row[0]), int(row[1]), int(row[2]))


_LAST_MINUTE = (f"COALESCE((SELECT x.{col(X, 'last_bucket_minute')} FROM {table(X)} x "
                f"WHERE x.{col(X, 'player')} = %(player)s AND x.{col(X, 'kind')} = %(kind)s), '-infinity')")

BET_SETTLE = register(
    "limits.bet_settle",
    f"""WITH bet AS (
    DELETE FROM {table(OB)} WHERE {col(OB, 'player')} = %(player)s AND {col(OB, 'kind')} = %(kind)s
        AND {col(OB, 'round_ref')} = %(round_ref)s AND {col(OB, 'stake')} = %(stake)s
    RETURNING {cols(OB, ('placed_at', 'game_code'))}
), periods AS (
    INSERT INTO {table(P)} ({cols(P, (*_PERIOD_KEY, *FIGURES))})
    SELECT v.* FROM (VALUES {_typed_row(("player", "kind", "day_period", "day"))},
                            {_typed_row(("player", "kind", "month_period", "month"))}) AS v
    WHERE EXISTS (SELECT 1 FROM bet)
    {PERIOD_ON_CONFLICT}
    RETURNING 1
), bucket AS (
    {_bucket("", "CASE WHEN %(in_order)s AND %(minute)s >= " + _LAST_MINUTE + " THEN " + BUCKET_ORDERED_SET
             + " ELSE " + BUCKET_CONSERVATIVE_SET + " END").replace(
        "VALUES {values}", "SELECT %(player)s, %(kind)s, %(minute)s, 0, %(win)s, 0 FROM bet WHERE %(hourly)s")}
    RETURNING 1
), settled AS (
    INSERT INTO {table(S)} ({cols(S, _SETTLED_INSERT)})
    SELECT %(player)s, %(kind)s, COALESCE(NULLIF(%(game_code)s, ''), bet.{col(OB, 'game_code')}), %(round_ref)s,
           %(stake)s, %(win)s, bet.{col(OB, 'placed_at')}, %(started_at)s, %(settled_at)s, false FROM bet
    RETURNING id, {col(S, 'placed_at')}, {col(S, 'game_code')}
), state AS (
    UPDATE {table(X)} SET
        "{col(X, 'last_round_ended_at')}" = GREATEST("{col(X, 'last_round_ended_at')}", %(settled_at)s),
        "{col(X, 'last_bucket_minute')}" = CASE WHEN %(hourly)s
            THEN GREATEST("{col(X, 'last_bucket_minute')}", %(minute)s) ELSE "{col(X, 'last_bucket_minute')}" END,
        "{col(X, 'updated_at')}" = %(settled_at)s
    WHERE {col(X, 'player')} = %(player)s AND {col(X, 'kind')} = %(kind)s AND EXISTS (SELECT 1 FROM bet)
    RETURNING 1
)
SELECT (SELECT id FROM settled), (SELECT {col(S, 'placed_at')} FROM settled), (SELECT {col(S, 'game_code')} FROM settled),
       (SELECT count(*) FROM periods), (SELECT count(*) FROM state)""",
    columns={OB: ("player", "kind", "round_ref", "stake", "placed_at", "game_code"), P: (*_PERIOD_KEY, *FIGURES),
             B: _BUCKET_FIELDS, S: ("id", *_SETTLED_INSERT),
             X: ("player", "kind", "last_round_ended_at", "last_bucket_minute", "updated_at")},
    inserts=(P, B, S),
    params={"player": int, "kind": str, "round_ref": str, "stake": int, "win": int, "day_period": str, "day": date,
            "month_period": str, "month": date, "minute": datetime, "hourly": bool, "in_order": bool,
            "game_code": str, "started_at": datetime, "settled_at": datetime},
)


def bet_settle(*, player_id: int, kind: str, round_ref: str, stake: int, win: int, day: date, month: date,
               minute: datetime, hourly: bool, game_code: str, started_at: datetime, settled_at: datetime,
               in_order: bool = True) -> SettledBet | None:
    """Run :data:`BET_SETTLE`; the settled bet (its other fields deferred), or None when there was no open bet of
    this ``round_ref`` and stake (nothing was written: ``stake_settled`` places or corrects the open bet, then runs
    it again). ``in_order=False``: the win's minute bucket takes the conservative update even when its minute is
    not older than the newest written (a stake taken back in the same minute, ``counters.bucket_row``)."""
    params: dict[str, Any] = {"player": player_id, "kind": kind, "round_ref": round_ref, "stake": stake, "win": win,
              "day_period": P.Period.DAY, "day": day, "month_period": P.Period.MONTH, "month": month,
              "minute": minute, "hourly": hourly, "in_order": in_order, "game_code": game_code,
              "started_at": started_at, "settled_at": settled_at}
    with connection.cursor() as cur:
        cur.execute(BET_SETTLE.sql, params)
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
    UPDATE {table(OB)} SET "{col(OB, 'stake')}" = %(stake)s, "{col(OB, 'round_ref')}" = %(round_ref)s
    WHERE id = %(bet)s AND {col(OB, 'player')} = %(player)s AND {col(OB, 'kind')} = %(kind)s
    RETURNING 1
), periods AS (
    INSERT INTO {table(P)} ({cols(P, (*_PERIOD_KEY, *FIGURES))})
    SELECT v.* FROM (VALUES {_typed_row(("player", "kind", "day_period", "day"), _RESTAKED)},
                            {_typed_row(("player", "kind", "month_period", "month"), _RESTAKED)}) AS v
    WHERE %(diff)s <> 0 AND EXISTS (SELECT 1 FROM bet)
    {PERIOD_ON_CONFLICT}
    RETURNING 1
), bucket AS (
    {_bucket("", "CASE WHEN %(in_order)s THEN " + BUCKET_ORDERED_SET + " ELSE " + BUCKET_CONSERVATIVE_SET
             + " END").replace(
        "VALUES {values}",
        "SELECT %(player)s, %(kind)s, %(minute)s, %(diff)s, 0, %(peak)s WHERE %(hourly)s AND EXISTS (SELECT 1 FROM bet)")}
    RETURNING 1
)
UPDATE {table(X)} SET "{col(X, 'last_bucket_minute')}" = %(last_bucket_minute)s
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
        cur.execute(BET_RESTAKE.sql, params)
        row = cur.fetchone()
    if row is None or row[0] != 1 or row[1] != (2 if diff else 0):
        raise RuntimeError(f"limits open bet {bet_id} not corrected: {row}")


_WATCH_INSERT = ("player", "failures", "last_context", "last_error")
WATCH_ALL = register(
    "limits.watch_all",
    f"""INSERT INTO {table(ExclusionWatch)} ({cols(ExclusionWatch, _WATCH_INSERT)})
SELECT p.id, %(failures)s, %(context)s, %(error)s FROM {table(Player)} p WHERE p.{col(Player, 'status')} = ANY(%(statuses)s)
ON CONFLICT ({col(ExclusionWatch, 'player')}) DO NOTHING""",
    columns={ExclusionWatch: _WATCH_INSERT, Player: ("id", "status")}, inserts=(ExclusionWatch,),
    params={"failures": int, "context": str, "error": str, "statuses": (list, str)},
)


def watch_all(statuses: list[str]) -> None:
    """A watch row (the model's defaults) for every player in ``statuses`` who has none yet, set-based."""
    defaults = {n: field_of(ExclusionWatch, n).get_default() for n in ("failures", "last_context", "last_error")}
    with connection.cursor() as cur:
        cur.execute(WATCH_ALL.sql, {"failures": defaults["failures"], "context": defaults["last_context"],
                                    "error": defaults["last_error"], "statuses": statuses})


_OPEN_INSERT = ("player", "kind", "round_ref", "game_code", "stake", "placed_at")

BET_PLACE = register(
    "limits.bet_place",
    f"""WITH periods AS (
    INSERT INTO {table(P)} ({cols(P, (*_PERIOD_KEY, *FIGURES))})
    VALUES (%(player)s, %(kind)s, %(day_period)s, %(day)s, %(stake)s, 1, 0, 0, 0),
           (%(player)s, %(kind)s, %(month_period)s, %(month)s, %(stake)s, 1, 0, 0, 0)
    {PERIOD_ON_CONFLICT}
    RETURNING 1
), bucket AS (
    {_bucket("", BUCKET_ORDERED_SET).replace(
        "VALUES {values}", "SELECT %(player)s, %(kind)s, %(minute)s, %(stake)s, 0, %(stake)s WHERE %(hourly)s")}
    RETURNING 1
), bet AS (
    INSERT INTO {table(OB)} ({cols(OB, _OPEN_INSERT)})
    VALUES (%(player)s, %(kind)s, %(round_ref)s, %(game_code)s, %(stake)s, %(now)s)
    RETURNING 1
)
UPDATE {table(X)} SET "{col(X, 'play_started_at')}" = %(play_started_at)s,
       "{col(X, 'last_bucket_minute')}" = %(last_bucket_minute)s, "{col(X, 'updated_at')}" = %(now)s
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
        cur.execute(BET_PLACE.sql, params)
        row = cur.fetchone()
    if row is None or row[0] != 2 or row[1] != 1:
        raise RuntimeError(f"limits counters for {round_ref} not written: {row}")
