"""The games platform's hot statements (a round's start and its actions), as the SQL they are (see core/sql.py).

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
* :data:`ROUND_INSERT`: a new round inserted with its audit event, in ONE statement; replaces 2 (the ORM's insert
  of the round and of the event, each compiled and planned per call). :data:`ROUND_INSERT_DECIDED`: the same for a
  round settled at its start, with the limits' counters of its bet (``limits/sql.py`` DECIDED_NOW_CTES) in the
  same statement; :data:`ROUND_INSERT_DECIDED_WIN` with its win posting too (``wallet/sql.py`` posting_ctes), when
  the win is a plain posting (``wallet.services.round_win_deferred``).

Every value is passed through its model field (``get_db_prep_save``) and cast to the field's database type (a
changed field type fails ``tests/test_sql_contracts.py`` until the cast follows it). Pinned by
``games/tests/platform/test_round_cost.py`` and
``test_action_cost.py`` (statement counts) and ``tests/test_sql_contracts.py`` (columns, ``EXPLAIN``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import DEFAULT_DB_ALIAS, IntegrityError
from django.db.models import Model
from django.db.models.query import QuerySet

from core.models import AuditEvent
from core.sql import cursor, execute, instance, instance_from_json, params_of, register
from games.models import Game, Round, RoundAction
from limits import sql as limits_sql
from wallet import sql as wallet_sql
from wallet.models import LedgerAccount, Wallet

if TYPE_CHECKING:
    from limits.services import BetCounters
    from wallet.services import DeferredPosting

_GAME_FIELDS = ("id", "code", "version", "enabled", "name", "name_cs", "kind", "approval_state")

# The key and the round in progress are read from their claim tables (core/partitioning.py CLAIMS:
# games_round_unique_player_key_claim, games_round_one_open_per_player_claim). The last start is looked for in the
# months a start within GP §7(9)'s seconds can have been written in: this one and the one before (a round's id
# encodes the month of the database's clock when it was written in its top bits, ``<< 40``: core/partitioning.py
# MONTH_BITS); the other partitions are pruned when the statement runs. ``tests/test_sql_contracts.py`` checks both
# against core/partitioning.py.
# Wrapped in ``SELECT * FROM (...) context`` so that the target list PostgreSQL copies on every EXECUTE to describe
# the result is the subquery's column references, not the trees of its subqueries (limits/sql.py GATE_STATE).
START_CONTEXT = register(
    "games.start_context",
    """SELECT * FROM (SELECT
  (SELECT json_build_object('id', g.id, 'code', g.code, 'version', g.version, 'enabled', g.enabled, 'name', g.name,
          'name_cs', g.name_cs, 'kind', g.kind, 'approval_state', g.approval_state)
    FROM games_game g WHERE g.code = %(code)s AND g.version = %(version)s),
  (SELECT c.row_id FROM games_round_unique_player_key_claim c
    WHERE c.player_id = %(player)s AND c.idempotency_key = %(key)s),
  (SELECT c.row_id FROM games_round_one_open_per_player_claim c
    WHERE c.player_id = %(player)s AND c.play_money = %(play_money)s),
  (SELECT r.started_at FROM games_round r
    WHERE r.player_id = %(player)s AND NOT r.play_money
      AND r.id >= ((platform_month_index(now()) - 1) << 40) AND r.id < ((platform_month_index(now()) + 1) << 40)
    ORDER BY r.started_at DESC LIMIT 1),
  nextval(pg_get_serial_sequence('games_round', 'id'))) context""",
    columns={Game: _GAME_FIELDS, Round: ("id", "player", "idempotency_key", "play_money", "started_at")},
    params={"code": str, "version": int, "player": int, "key": str, "play_money": bool},
)


def start_context(
    *, code: str, version: int, player_id: int, key: str, play_money: bool
) -> tuple[Game | None, int | None, int | None, datetime | None, int]:
    """(the game's row, the round with this key, the round in progress, the last real-money start, the new id)."""
    with cursor() as cur:
        execute(
            cur,
            START_CONTEXT,
            {"code": code, "version": version, "player": player_id, "key": key, "play_money": play_money},
        )
        game, keyed_id, open_id, last_started, new_id = cur.fetchone()
    return (instance_from_json(Game, game) if game else None), keyed_id, open_id, last_started, int(new_id)


#: every field of a round, in the order the statements below name them
_ROUND_FIELDS = (
    "id",
    "player_id",
    "game_id",
    "game_code",
    "game_version",
    "play_money",
    "forced_outcome",
    "forced_draws_left",
    "idempotency_key",
    "status",
    "bet_request",
    "bet_params",
    "stake",
    "currency",
    "draws",
    "actions",
    "state",
    "win_engine",
    "win",
    "jackpot_win",
    "win_capped",
    "balance_before",
    "balance_after",
    "jackpot_events",
    "void_reason",
    "void_detail",
    "started_at",
    "last_activity_at",
    "settled_at",
    "voided_at",
    "deadline",
    "provider_round_id",
)
_ROUND_GAME_FIELDS = ("id", "code", "version", "name", "name_cs", "kind")
_KEYED_FIELDS = ("id", "seq", "action", "idempotency_key")
_LOG_FIELDS = ("id", "seq", "created_at")

ROUND_LOCK = register(
    "games.round_lock",
    f"""SELECT {wallet_sql.LIVE_COLUMNS},
       r.id, r.player_id, r.game_id, r.game_code, r.game_version, r.play_money, r.forced_outcome, r.forced_draws_left,
       r.idempotency_key, r.status, r.bet_request, r.bet_params, r.stake, r.currency, r.draws, r.actions, r.state,
       r.win_engine, r.win, r.jackpot_win, r.win_capped, r.balance_before, r.balance_after, r.jackpot_events,
       r.void_reason, r.void_detail, r.started_at, r.last_activity_at, r.settled_at, r.voided_at, r.deadline,
       r.provider_round_id,
  json_build_object('id', g.id, 'code', g.code, 'version', g.version, 'name', g.name, 'name_cs', g.name_cs,
                    'kind', g.kind),
  (SELECT json_build_object('id', k.id, 'seq', k.seq, 'action', k.action, 'idempotency_key', k.idempotency_key)
    FROM games_roundaction k WHERE k.round_id = r.id AND k.idempotency_key = %(key)s),
  (SELECT json_agg(json_build_object('id', l.id, 'seq', l.seq, 'created_at', l.created_at) ORDER BY l.seq)
    FROM games_roundaction l WHERE l.round_id = r.id)
FROM {wallet_sql.LIVE_FROM}
JOIN games_round r ON r.player_id = w.player_id AND NOT r.play_money
JOIN games_game g ON g.id = r.game_id
WHERE r.id = %(round)s AND (r.player_id = %(player)s OR %(any_player)s)
FOR NO KEY UPDATE OF w, a, r""",
    columns={
        **wallet_sql.LIVE_FIELDS,
        Round: _ROUND_FIELDS,
        Game: _ROUND_GAME_FIELDS,
        RoundAction: (*_KEYED_FIELDS, *_LOG_FIELDS, "round"),
    },
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
    qs._prefetch_done = True  # type: ignore[attr-defined]  # Django's private prefetch flag
    rnd._prefetched_objects_cache = {"action_log": qs}  # type: ignore[attr-defined]  # Django's private cache


def action_log_append(rnd: Round, action: RoundAction) -> None:
    """Keep the loaded action log current after an action (the answer shows every action's time)."""
    cache = getattr(rnd, "_prefetched_objects_cache", {}).get("action_log")
    if cache is not None:
        cache._result_cache.append(action)


def round_lock(
    round_id: int, *, player_id: int | None, key: str = "", skip_locked: bool = False
) -> RoundLockRow | None:
    """Run :data:`ROUND_LOCK`; None when there is no such real-money round (of this player, when given) or, with
    ``skip_locked``, when another transaction holds one of its rows."""
    params: dict[str, Any] = {
        **wallet_sql.live_params(),
        "key": key,
        "round": round_id,
        "player": player_id or 0,
        "any_player": player_id is None,
    }
    with cursor() as cur:
        if skip_locked:  # the deadline sweeper's form: its text
            cur.execute(ROUND_LOCK.sql + " SKIP LOCKED", params)
        else:
            execute(cur, ROUND_LOCK, params)
        row = cur.fetchone()
    if row is None:
        return None
    wallet, account = wallet_sql.live_from_row(row)
    n = wallet_sql.LIVE_WIDTH
    rnd = instance(Round, _ROUND_FIELDS, row[n : n + len(_ROUND_FIELDS)])
    game, keyed, log = row[n + len(_ROUND_FIELDS) :]
    rnd._state.fields_cache["game"] = instance_from_json(Game, game)
    _action_log(rnd, [instance_from_json(RoundAction, a) for a in log or []])
    return RoundLockRow(
        round=rnd, wallet=wallet, account=account, keyed=instance_from_json(RoundAction, keyed) if keyed else None
    )


# The rows written whole (every field but the id the database gives); each value is passed through its model field
# (``get_db_prep_save``) as the parameter ``<prefix><attname>`` and cast to its column's type
# (``core.sql.cast_type``: ``tests/test_sql_contracts.py`` checks every cast against the field).
_ROUND_SET = _ROUND_FIELDS[1:]
_ACTION_INSERT = ("round_id", "seq", "action", "idempotency_key", "draws_before", "draws_after", "created_at")
_AUDIT_INSERT = (
    "occurred_at",
    "actor_type",
    "actor_id",
    "actor_label",
    "actor_role",
    "action",
    "object_type",
    "object_id",
    "old_values",
    "new_values",
    "details",
    "request_id",
)
#: the parameter prefixes of the rows written whole, by model (the contract test's check of the casts)
PREFIXES = {"r_": Round, "a_": RoundAction, "e_": AuditEvent}

ROUND_WRITE = register(
    "games.round_write",
    """WITH act AS (
    INSERT INTO games_roundaction (round_id, seq, action, idempotency_key, draws_before, draws_after, created_at)
    SELECT CAST(%(a_round_id)s AS bigint), CAST(%(a_seq)s AS integer), CAST(%(a_action)s AS jsonb),
           CAST(%(a_idempotency_key)s AS varchar), CAST(%(a_draws_before)s AS integer),
           CAST(%(a_draws_after)s AS integer), CAST(%(a_created_at)s AS timestamp with time zone)
    WHERE %(with_action)s
    RETURNING id
), audit AS (
    INSERT INTO core_auditevent (occurred_at, actor_type, actor_id, actor_label, actor_role, action, object_type,
                                 object_id, old_values, new_values, details, request_id)
    SELECT CAST(%(e_occurred_at)s AS timestamp with time zone), CAST(%(e_actor_type)s AS varchar),
           CAST(%(e_actor_id)s AS varchar), CAST(%(e_actor_label)s AS varchar), CAST(%(e_actor_role)s AS varchar),
           CAST(%(e_action)s AS varchar), CAST(%(e_object_type)s AS varchar), CAST(%(e_object_id)s AS varchar),
           CAST(%(e_old_values)s AS jsonb), CAST(%(e_new_values)s AS jsonb), CAST(%(e_details)s AS jsonb),
           CAST(%(e_request_id)s AS varchar)
    WHERE %(with_audit)s
    RETURNING id
)
UPDATE games_round SET
    player_id = CAST(%(r_player_id)s AS bigint), game_id = CAST(%(r_game_id)s AS bigint),
    game_code = CAST(%(r_game_code)s AS varchar), game_version = CAST(%(r_game_version)s AS integer),
    play_money = CAST(%(r_play_money)s AS boolean), forced_outcome = CAST(%(r_forced_outcome)s AS boolean),
    forced_draws_left = CAST(%(r_forced_draws_left)s AS jsonb),
    idempotency_key = CAST(%(r_idempotency_key)s AS varchar), status = CAST(%(r_status)s AS varchar),
    bet_request = CAST(%(r_bet_request)s AS jsonb), bet_params = CAST(%(r_bet_params)s AS jsonb),
    stake = CAST(%(r_stake)s AS bigint), currency = CAST(%(r_currency)s AS varchar),
    draws = CAST(%(r_draws)s AS jsonb), actions = CAST(%(r_actions)s AS jsonb), state = CAST(%(r_state)s AS jsonb),
    win_engine = CAST(%(r_win_engine)s AS bigint), win = CAST(%(r_win)s AS bigint),
    jackpot_win = CAST(%(r_jackpot_win)s AS bigint), win_capped = CAST(%(r_win_capped)s AS boolean),
    balance_before = CAST(%(r_balance_before)s AS bigint), balance_after = CAST(%(r_balance_after)s AS bigint),
    jackpot_events = CAST(%(r_jackpot_events)s AS jsonb), void_reason = CAST(%(r_void_reason)s AS varchar),
    void_detail = CAST(%(r_void_detail)s AS text), started_at = CAST(%(r_started_at)s AS timestamp with time zone),
    last_activity_at = CAST(%(r_last_activity_at)s AS timestamp with time zone),
    settled_at = CAST(%(r_settled_at)s AS timestamp with time zone),
    voided_at = CAST(%(r_voided_at)s AS timestamp with time zone),
    deadline = CAST(%(r_deadline)s AS timestamp with time zone),
    provider_round_id = CAST(%(r_provider_round_id)s AS varchar)
WHERE id = %(round)s
RETURNING (SELECT id FROM act), (SELECT id FROM audit)""",
    columns={Round: ("id", *_ROUND_SET), RoundAction: ("id", *_ACTION_INSERT), AuditEvent: ("id", *_AUDIT_INSERT)},
    inserts=(RoundAction, AuditEvent),
    params={
        "with_action": bool,
        "with_audit": bool,
        "round": int,
        **{f"a_{n}": Model for n in _ACTION_INSERT},
        **{f"e_{n}": Model for n in _AUDIT_INSERT},
        **{f"r_{n}": Model for n in _ROUND_SET},
    },
)


def round_write(rnd: Round, *, action: RoundAction | None = None, audit: AuditEvent | None = None) -> None:
    """Save every field of the round (as ``Round.save()``), with the applied action and the audit event, in ONE
    statement (:data:`ROUND_WRITE`); the ids the database gave are set on ``action`` and ``audit``."""
    params: dict[str, Any] = {
        "with_action": action is not None,
        "with_audit": audit is not None,
        "round": rnd.pk,
        **params_of(Round, rnd, _ROUND_SET, "r_"),
    }
    params.update(
        params_of(RoundAction, action, _ACTION_INSERT, "a_")
        if action is not None
        else {f"a_{n}": None for n in _ACTION_INSERT}
    )
    params.update(
        params_of(AuditEvent, audit, _AUDIT_INSERT, "e_")
        if audit is not None
        else {f"e_{n}": None for n in _AUDIT_INSERT}
    )
    with cursor() as cur:
        execute(cur, ROUND_WRITE, params)
        row = cur.fetchone()
    if row is None:
        raise RuntimeError(f"round {rnd.pk} not written")
    for obj, pk in ((action, row[0]), (audit, row[1])):
        if obj is not None:
            obj.pk = pk
            obj._state.adding = False


_ROUND_INSERT = _ROUND_FIELDS  # with its id, which the round context took (START_CONTEXT)

_ROUND_INSERT_AUDIT = """audit AS (
    INSERT INTO core_auditevent (occurred_at, actor_type, actor_id, actor_label, actor_role, action, object_type,
                                 object_id, old_values, new_values, details, request_id)
    SELECT CAST(%(e_occurred_at)s AS timestamp with time zone), CAST(%(e_actor_type)s AS varchar),
           CAST(%(e_actor_id)s AS varchar), CAST(%(e_actor_label)s AS varchar), CAST(%(e_actor_role)s AS varchar),
           CAST(%(e_action)s AS varchar), CAST(%(e_object_type)s AS varchar), CAST(%(e_object_id)s AS varchar),
           CAST(%(e_old_values)s AS jsonb), CAST(%(e_new_values)s AS jsonb), CAST(%(e_details)s AS jsonb),
           CAST(%(e_request_id)s AS varchar)
    RETURNING id
)"""
_ROUND_INSERT_ROW = """INSERT INTO games_round (
    id, player_id, game_id, game_code, game_version, play_money, forced_outcome, forced_draws_left, idempotency_key,
    status, bet_request, bet_params, stake, currency, draws, actions, state, win_engine, win, jackpot_win, win_capped,
    balance_before, balance_after, jackpot_events, void_reason, void_detail, started_at, last_activity_at, settled_at,
    voided_at, deadline, provider_round_id)
SELECT CAST(%(r_id)s AS bigint), CAST(%(r_player_id)s AS bigint), CAST(%(r_game_id)s AS bigint),
       CAST(%(r_game_code)s AS varchar), CAST(%(r_game_version)s AS integer), CAST(%(r_play_money)s AS boolean),
       CAST(%(r_forced_outcome)s AS boolean), CAST(%(r_forced_draws_left)s AS jsonb),
       CAST(%(r_idempotency_key)s AS varchar), CAST(%(r_status)s AS varchar), CAST(%(r_bet_request)s AS jsonb),
       CAST(%(r_bet_params)s AS jsonb), CAST(%(r_stake)s AS bigint), CAST(%(r_currency)s AS varchar),
       CAST(%(r_draws)s AS jsonb), CAST(%(r_actions)s AS jsonb), CAST(%(r_state)s AS jsonb),
       CAST(%(r_win_engine)s AS bigint), CAST(%(r_win)s AS bigint), CAST(%(r_jackpot_win)s AS bigint),
       CAST(%(r_win_capped)s AS boolean), CAST(%(r_balance_before)s AS bigint), CAST(%(r_balance_after)s AS bigint),
       CAST(%(r_jackpot_events)s AS jsonb), CAST(%(r_void_reason)s AS varchar), CAST(%(r_void_detail)s AS text),
       CAST(%(r_started_at)s AS timestamp with time zone), CAST(%(r_last_activity_at)s AS timestamp with time zone),
       CAST(%(r_settled_at)s AS timestamp with time zone), CAST(%(r_voided_at)s AS timestamp with time zone),
       CAST(%(r_deadline)s AS timestamp with time zone), CAST(%(r_provider_round_id)s AS varchar)"""

ROUND_INSERT = register(
    "games.round_insert",
    f"""WITH {_ROUND_INSERT_AUDIT}
{_ROUND_INSERT_ROW}
RETURNING (SELECT id FROM audit)""",
    columns={Round: _ROUND_INSERT, AuditEvent: ("id", *_AUDIT_INSERT)},
    inserts=(Round, AuditEvent),
    params={**{f"e_{n}": Model for n in _AUDIT_INSERT}, **{f"r_{n}": Model for n in _ROUND_INSERT}},
)

#: a new round's insert with its audit event (as ROUND_INSERT) and the limits' counters of its bet, in ONE statement:
#: one round trip and one ``EXECUTE`` fewer per round. ROUND_INSERT_DECIDED: a round settled at its start, its bet
#: placed and decided at once (``limits/sql.py`` DECIDED_NOW_CTES / DECIDED_NOW_STATE); ROUND_INSERT_PLACED: a round
#: that waits for the player, its bet placed (BET_PLACE_CTES / BET_PLACE_STATE). The parts write different tables and
#: none reads what another writes, so one snapshot for all is what the two statements saw one after the other under
#: the wallet lock; the round's insert returns the audit event's id, then what the counters wrote.
_ROUND_INSERT_WITH = {
    "decided_now": (limits_sql.DECIDED_NOW_CTES, limits_sql.DECIDED_NOW_STATE, ("n_periods", "n_buckets", "n_settled")),
    "bet_place": (limits_sql.BET_PLACE_CTES, limits_sql.BET_PLACE_STATE, ("n_periods", "n_bets")),
}
_WIN = wallet_sql.DEFERRED_PREFIX  # the win posting's parameters in ROUND_INSERT_DECIDED_WIN
_ROUND_INSERT_PARAMS = {**{f"e_{n}": Model for n in _AUDIT_INSERT}, **{f"r_{n}": Model for n in _ROUND_INSERT}}


def _round_insert_with(parts: str, *, win: bool = False) -> str:
    ctes, state, counts = _ROUND_INSERT_WITH[parts]
    returned = ", ".join(f"(SELECT {c} FROM counted)" for c in counts)
    posting = f"{wallet_sql.posting_ctes(_WIN)}, " if win else ""
    posted = f", {wallet_sql.POSTING_RETURNS}" if win else ""
    return f"""WITH {ctes}, counted AS (
{state}
), {posting}{_ROUND_INSERT_AUDIT}
{_ROUND_INSERT_ROW}
RETURNING (SELECT id FROM audit), {returned}{posted}"""


ROUND_INSERT_DECIDED = register(
    "games.round_insert_decided",
    _round_insert_with("decided_now"),
    columns={**limits_sql.DECIDED_NOW_COLUMNS, Round: _ROUND_INSERT, AuditEvent: ("id", *_AUDIT_INSERT)},
    inserts=(*limits_sql.DECIDED_NOW_INSERTS, Round, AuditEvent),
    params={**limits_sql.DECIDED_NOW_PARAMS, **_ROUND_INSERT_PARAMS},
)
#: ROUND_INSERT_DECIDED with the round's win posted in the same statement (``wallet/sql.py`` posting_ctes, the
#: posting's one definition, its parameters prefixed ``w_``): a round settled at its start that wins, when the win
#: is a plain posting (``wallet.services.round_win_deferred``: no debt to pay down first, GP §7(7); no jackpot
#: award to post beside it). The posting writes the ledger's tables only and reads none the other parts write, so
#: one snapshot for all is what the posting and the insert saw one after the other under the wallet lock; the
#: round's ``balance_after`` is the balance the posting leaves, computed under that lock and checked against what
#: the posting returns (``DeferredPosting.written``). One round trip fewer for every winning round.
ROUND_INSERT_DECIDED_WIN = register(
    "games.round_insert_decided_win",
    _round_insert_with("decided_now", win=True),
    columns={
        **limits_sql.DECIDED_NOW_COLUMNS,
        **wallet_sql.POSTING_COLUMNS,
        Round: _ROUND_INSERT,
        AuditEvent: ("id", *_AUDIT_INSERT),
    },
    inserts=(*limits_sql.DECIDED_NOW_INSERTS, *wallet_sql.POSTING_INSERTS, Round, AuditEvent),
    params={
        **limits_sql.DECIDED_NOW_PARAMS,
        **{f"{_WIN}{n}": t for n, t in wallet_sql.POSTING_PARAMS.items()},
        **_ROUND_INSERT_PARAMS,
    },
)
ROUND_INSERT_PLACED = register(
    "games.round_insert_placed",
    _round_insert_with("bet_place"),
    columns={**limits_sql.BET_PLACE_COLUMNS, Round: _ROUND_INSERT, AuditEvent: ("id", *_AUDIT_INSERT)},
    inserts=(*limits_sql.BET_PLACE_INSERTS, Round, AuditEvent),
    params={**limits_sql.BET_PLACE_PARAMS, **_ROUND_INSERT_PARAMS},
)
_ROUND_INSERT_COUNTED = {"decided_now": ROUND_INSERT_DECIDED, "bet_place": ROUND_INSERT_PLACED}


def round_insert(
    rnd: Round, *, audit: AuditEvent, counters: BetCounters | None = None, win: DeferredPosting | None = None
) -> None:
    """Insert a new round (every field, its id given) with its audit event in ONE statement (:data:`ROUND_INSERT`);
    the id the database gave is set on ``audit``. ``counters``: the limits' counters of the round's bet, returned
    unwritten by ``limits.services.stake_decided_now`` or ``stake_placed_counted``, written by the same statement
    (:data:`ROUND_INSERT_DECIDED` / :data:`ROUND_INSERT_PLACED`) and what it wrote handed to ``counters.written``.
    ``win``: the round's win posting returned unwritten by ``wallet.services.round_win_deferred``, written by the
    same statement with decided counters (:data:`ROUND_INSERT_DECIDED_WIN`) and checked by ``win.written``; with
    any other form it is posted alone first (``win.post``)."""
    if rnd.pk is None:
        raise ValueError("round_insert: the round's id is taken first (START_CONTEXT)")
    if win is not None and (counters is None or counters.parts != "decided_now"):
        win.post()  # no statement of this round's insert carries it: the posting alone, as before
        win = None
    params = {**params_of(Round, rnd, _ROUND_INSERT, "r_"), **params_of(AuditEvent, audit, _AUDIT_INSERT, "e_")}
    with cursor() as cur:
        if counters is None:
            execute(cur, ROUND_INSERT, params)
            audit.pk = cur.fetchone()[0]
        elif win is None:
            execute(cur, _ROUND_INSERT_COUNTED[counters.parts], {**counters.params, **params})
            audit.pk, *counts = cur.fetchone()
            counters.written(counts)
        else:
            try:
                execute(cur, ROUND_INSERT_DECIDED_WIN, {**counters.params, **win.params, **params})
            except IntegrityError as exc:
                win.refused(exc)  # the posting's own failure is refused as the posting alone refuses it
                raise
            audit.pk, *counts, txn_id, balance, entries = cur.fetchone()
            counters.written(counts)
            win.written((txn_id, balance, entries))
    audit._state.adding = False
    rnd._state.adding = False
    rnd._state.db = DEFAULT_DB_ALIAS
