"""The games platform's hot statements (a round's start and its actions), built from the models (see core/sql.py).

* :data:`START_CONTEXT`: the game's row, a round with this key, the round in progress, the last real-money start
  and the new round's id, in ONE statement (each an index lookup); replaces 4-5 ORM reads. The key and the round in
  progress are read from their claim tables (core/partitioning.py ``CLAIMS``: one index of all months), the last
  start from the partitions of this month and the one before.
* :data:`ROUND_LOCK`: the one round-lock prelude of a real-money round (an action, a staff remedy, the deadline
  sweeper): the player's wallet and live account and the round, locked in the house order (``FOR NO KEY UPDATE OF
  w, a, r``: the wallet first), with the game's names, the action of this Idempotency-Key (a replay) and the
  action log's times the answer shows, in ONE statement; replaces 5-7 (the head read, the wallet lock, the
  account, the round lock, the key lookup, the log and the game read of the answer).
* :data:`ROUND_WRITE`: the round's update with the action it applied and its audit event, in ONE statement;
  replaces 2-3 (the action insert, ``Round.save()``, the audit insert).
* :data:`ROUND_INSERT`: a round settled at once inserted with its audit event, in ONE statement; replaces 2 (the
  ORM's insert of the round and of the event, each compiled and planned per call).

Every value is passed through its model field (``get_db_prep_save``) and cast to the field's database type, so a
changed field type changes the statement with it. Pinned by ``games/tests/platform/test_round_cost.py`` and
``test_action_cost.py`` (statement counts) and ``tests/test_sql_contracts.py`` (columns, ``EXPLAIN``).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Model
from django.db.models.query import QuerySet

from core.models import AuditEvent
from core.partitioning import CLAIMS, MONTH_BITS
from core.sql import (
    attnames,
    cast_type,
    col,
    cols,
    execute,
    field_of,
    instance,
    instance_from_json,
    json_object,
    register,
    table,
)
from games.models import Game, Round, RoundAction
from wallet import sql as wallet_sql
from wallet.models import LedgerAccount, Wallet

_GAME_FIELDS = ("id", "code", "version", "enabled", "name", "name_cs", "kind", "approval_state")

_KEY_CLAIM = next(c for c in CLAIMS if c.name == "games_round_unique_player_key").claim_table
_OPEN_CLAIM = next(c for c in CLAIMS if c.name == "games_round_one_open_per_player").claim_table
# The months a start within GP §7(9)'s seconds can have been written in: this one and the one before (a round's id
# encodes the month of the database's clock when it was written, core/partitioning.py); the other partitions are
# pruned when the statement runs.
_RECENT_IDS = (f"r.id >= ((platform_month_index(now()) - 1) << {MONTH_BITS}) "
               f"AND r.id < ((platform_month_index(now()) + 1) << {MONTH_BITS})")

START_CONTEXT = register(
    "games.start_context",
    f"""SELECT
  (SELECT {json_object(Game, 'g', _GAME_FIELDS)} FROM {table(Game)} g
    WHERE g.{col(Game, 'code')} = %(code)s AND g.{col(Game, 'version')} = %(version)s),
  (SELECT c.row_id FROM {_KEY_CLAIM} c WHERE c.{col(Round, 'player')} = %(player)s
      AND c.{col(Round, 'idempotency_key')} = %(key)s),
  (SELECT c.row_id FROM {_OPEN_CLAIM} c WHERE c.{col(Round, 'player')} = %(player)s
      AND c.{col(Round, 'play_money')} = %(play_money)s),
  (SELECT r.{col(Round, 'started_at')} FROM {table(Round)} r WHERE r.{col(Round, 'player')} = %(player)s
      AND NOT r.{col(Round, 'play_money')} AND {_RECENT_IDS} ORDER BY r.{col(Round, 'started_at')} DESC LIMIT 1),
  nextval(pg_get_serial_sequence('{table(Round)}', '{col(Round, 'id')}'))""",
    columns={Game: _GAME_FIELDS, Round: ("id", "player", "idempotency_key", "play_money", "started_at")},
    params={"code": str, "version": int, "player": int, "key": str, "play_money": bool},
)


def start_context(*, code: str, version: int, player_id: int, key: str,
                  play_money: bool) -> tuple[Game | None, int | None, int | None, datetime | None, int]:
    """(the game's row, the round with this key, the round in progress, the last real-money start, the new id)."""
    with connection.cursor() as cur:
        execute(cur, START_CONTEXT, {"code": code, "version": version, "player": player_id, "key": key,
                                     "play_money": play_money})
        game, keyed_id, open_id, last_started, new_id = cur.fetchone()
    return (instance_from_json(Game, game) if game else None), keyed_id, open_id, last_started, int(new_id)


_ROUND_FIELDS = attnames(Round)
_ROUND_GAME_FIELDS = ("id", "code", "version", "name", "name_cs", "kind")
_KEYED_FIELDS = ("id", "seq", "action", "idempotency_key")
_LOG_FIELDS = ("id", "seq", "created_at")
_LOCK_TAIL = "FOR NO KEY UPDATE OF w, a, r"

ROUND_LOCK = register(
    "games.round_lock",
    f"""SELECT {wallet_sql.LIVE_COLUMNS}, {cols(Round, _ROUND_FIELDS, alias='r')},
  {json_object(Game, 'g', _ROUND_GAME_FIELDS)},
  (SELECT {json_object(RoundAction, 'k', _KEYED_FIELDS)} FROM {table(RoundAction)} k
    WHERE k.{col(RoundAction, 'round')} = r.id AND k.{col(RoundAction, 'idempotency_key')} = %(key)s),
  (SELECT json_agg({json_object(RoundAction, 'l', _LOG_FIELDS)} ORDER BY l.{col(RoundAction, 'seq')})
    FROM {table(RoundAction)} l WHERE l.{col(RoundAction, 'round')} = r.id)
FROM {wallet_sql.LIVE_FROM}
JOIN {table(Round)} r ON r.{col(Round, 'player')} = w.{col(Wallet, 'player')} AND NOT r.{col(Round, 'play_money')}
JOIN {table(Game)} g ON g.id = r.{col(Round, 'game')}
WHERE r.id = %(round)s AND (r.{col(Round, 'player')} = %(player)s OR %(any_player)s)
{_LOCK_TAIL}""",
    columns={**wallet_sql.LIVE_FIELDS, Round: _ROUND_FIELDS, Game: _ROUND_GAME_FIELDS,
             RoundAction: (*_KEYED_FIELDS, *_LOG_FIELDS, "round")},
    params={**wallet_sql.LIVE_PARAMS, "key": str, "round": int, "player": int, "any_player": bool},
)


@dataclass
class RoundLockRow:
    """A real-money round locked by :data:`ROUND_LOCK`: the round (its game's names and action log loaded), the
    player's wallet as ``wallet.ledger.LockedWallet`` takes it, and the action already applied under the
    Idempotency-Key asked for (a replay), if any."""

    round: Round
    wallet: Wallet
    account: LedgerAccount
    keyed: RoundAction | None


def _action_log(rnd: Round, rows: Sequence[RoundAction]) -> None:
    """The round's action log as if prefetched (``rnd.action_log.all()`` answers without a statement)."""
    qs: QuerySet[RoundAction] = rnd.action_log.all()
    qs._result_cache = list(rows)  # the prefetch cache Django itself fills
    qs._prefetch_done = True  # type: ignore[attr-defined]
    rnd._prefetched_objects_cache = {"action_log": qs}  # type: ignore[attr-defined]


def action_log_append(rnd: Round, action: RoundAction) -> None:
    """Keep the loaded action log current after an action (the answer shows every action's time)."""
    cache = getattr(rnd, "_prefetched_objects_cache", {}).get("action_log")
    if cache is not None:
        cache._result_cache.append(action)


def round_lock(round_id: int, *, player_id: int | None, key: str = "", skip_locked: bool = False) -> RoundLockRow | None:
    """Run :data:`ROUND_LOCK`; None when there is no such real-money round (of this player, when given) or, with
    ``skip_locked``, when another transaction holds one of its rows."""
    params: dict[str, Any] = {**wallet_sql.live_params(), "key": key, "round": round_id, "player": player_id or 0,
              "any_player": player_id is None}
    with connection.cursor() as cur:
        if skip_locked:  # the deadline sweeper's form: its text
            cur.execute(ROUND_LOCK.sql + " SKIP LOCKED", params)
        else:
            execute(cur, ROUND_LOCK, params)
        row = cur.fetchone()
    if row is None:
        return None
    wallet, account = wallet_sql.live_from_row(row)
    n = wallet_sql.LIVE_WIDTH
    rnd = instance(Round, _ROUND_FIELDS, row[n:n + len(_ROUND_FIELDS)])
    game, keyed, log = row[n + len(_ROUND_FIELDS):]
    rnd._state.fields_cache["game"] = instance_from_json(Game, game)
    _action_log(rnd, [instance_from_json(RoundAction, a) for a in log or []])
    return RoundLockRow(round=rnd, wallet=wallet, account=account,
                       keyed=instance_from_json(RoundAction, keyed) if keyed else None)


def _typed(model: type[Model], name: str, prefix: str) -> str:
    f = field_of(model, name)
    return f"CAST(%({prefix}{f.attname})s AS {cast_type(f)})"


def _prep(model: type[Model], obj: Model, names: Sequence[str], prefix: str) -> dict[str, Any]:
    out = {}
    for name in names:
        f = field_of(model, name)
        out[f"{prefix}{f.attname}"] = f.get_db_prep_save(getattr(obj, f.attname), connection)
    return out


_ROUND_SET = attnames(Round, exclude=("id",))
_ACTION_INSERT = attnames(RoundAction, exclude=("id",))
_AUDIT_INSERT = attnames(AuditEvent, exclude=("id",))

ROUND_WRITE = register(
    "games.round_write",
    f"""WITH act AS (
    INSERT INTO {table(RoundAction)} ({cols(RoundAction, _ACTION_INSERT)})
    SELECT {", ".join(_typed(RoundAction, n, "a_") for n in _ACTION_INSERT)} WHERE %(with_action)s
    RETURNING id
), audit AS (
    INSERT INTO {table(AuditEvent)} ({cols(AuditEvent, _AUDIT_INSERT)})
    SELECT {", ".join(_typed(AuditEvent, n, "e_") for n in _AUDIT_INSERT)} WHERE %(with_audit)s
    RETURNING id
)
UPDATE {table(Round)} SET {", ".join(f'"{col(Round, n)}" = {_typed(Round, n, "r_")}' for n in _ROUND_SET)}
WHERE id = %(round)s
RETURNING (SELECT id FROM act), (SELECT id FROM audit)""",
    columns={Round: ("id", *_ROUND_SET), RoundAction: ("id", *_ACTION_INSERT), AuditEvent: ("id", *_AUDIT_INSERT)},
    inserts=(RoundAction, AuditEvent),
    params={"with_action": bool, "with_audit": bool, "round": int,
            **{f"a_{n}": Model for n in _ACTION_INSERT}, **{f"e_{n}": Model for n in _AUDIT_INSERT},
            **{f"r_{n}": Model for n in _ROUND_SET}},
)


def round_write(rnd: Round, *, action: RoundAction | None = None, audit: AuditEvent | None = None) -> None:
    """Save every field of the round (as ``Round.save()``), with the applied action and the audit event, in ONE
    statement (:data:`ROUND_WRITE`); the ids the database gave are set on ``action`` and ``audit``."""
    params: dict[str, Any] = {"with_action": action is not None, "with_audit": audit is not None, "round": rnd.pk,
                              **_prep(Round, rnd, _ROUND_SET, "r_")}
    params.update(_prep(RoundAction, action, _ACTION_INSERT, "a_") if action is not None
                  else {f"a_{n}": None for n in _ACTION_INSERT})
    params.update(_prep(AuditEvent, audit, _AUDIT_INSERT, "e_") if audit is not None
                  else {f"e_{n}": None for n in _AUDIT_INSERT})
    with connection.cursor() as cur:
        execute(cur, ROUND_WRITE, params)
        row = cur.fetchone()
    if row is None:
        raise RuntimeError(f"round {rnd.pk} not written")
    for obj, pk in ((action, row[0]), (audit, row[1])):
        if obj is not None:
            obj.pk = pk
            obj._state.adding = False


_ROUND_INSERT = attnames(Round)  # with its id, which the round context took (START_CONTEXT)

ROUND_INSERT = register(
    "games.round_insert",
    f"""WITH audit AS (
    INSERT INTO {table(AuditEvent)} ({cols(AuditEvent, _AUDIT_INSERT)})
    SELECT {", ".join(_typed(AuditEvent, n, "e_") for n in _AUDIT_INSERT)}
    RETURNING id
)
INSERT INTO {table(Round)} ({cols(Round, _ROUND_INSERT)})
SELECT {", ".join(_typed(Round, n, "r_") for n in _ROUND_INSERT)}
RETURNING (SELECT id FROM audit)""",
    columns={Round: _ROUND_INSERT, AuditEvent: ("id", *_AUDIT_INSERT)},
    inserts=(Round, AuditEvent),
    params={**{f"e_{n}": Model for n in _AUDIT_INSERT}, **{f"r_{n}": Model for n in _ROUND_INSERT}},
)


def round_insert(rnd: Round, *, audit: AuditEvent) -> None:
    """Insert a new round (every field, its id given) with its audit event in ONE statement (:data:`ROUND_INSERT`);
    the id the database gave is set on ``audit``."""
    if rnd.pk is None:
        raise ValueError("round_insert: the round's id is taken first (START_CONTEXT)")
    params = {**_prep(Round, rnd, _ROUND_INSERT, "r_"), **_prep(AuditEvent, audit, _AUDIT_INSERT, "e_")}
    with connection.cursor() as cur:
        execute(cur, ROUND_INSERT, params)
        audit.pk = cur.fetchone()[0]
    audit._state.adding = False
    rnd._state.adding = False
    rnd._state.db = connection.alias
