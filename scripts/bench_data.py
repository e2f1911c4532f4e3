"""The data of ``make bench``: funded players in bulk, and a long history of settled rounds in bulk.

Runs inside the bench process after ``django.setup()`` against the bench's own database (``platform_bench``), never
against a database anyone else uses.

Players (:func:`players_create`): active player accounts (registration completed: identity, AML, e-mail, first
password changed, consents, personal data), a full wallet funded by one balanced adjustment posting each, all seven
self-limits decided (a daily stake limit and a daily loss limit set, the others declined, with their history rows),
the limits state row a player who has played before has, and a login session with its API token, as the login
creates them. Rows are written with ``bulk_create`` in chunks, in one transaction per chunk: the ledger's deferred
triggers check every posting at commit.

History (:func:`history_load`): ``INSERT ... SELECT generate_series`` of settled rounds straight into the tables a
settled round writes: ``games_round``, ``limits_settledbet`` with the day and month totals built from the same rows
(so ``limits_reconcile`` still holds), the stake and win postings with their entries in ``wallet_ledgertransaction``
/ ``wallet_entry`` (running balances; the accounts' balances moved by the same sums, so ``ledger_check`` holds), and
the audit event of each round in ``core_auditevent`` (a round is its own idempotency record).
The JSON of each row is copied from a real round of the first run, so the rows have their real size. Historical
rounds lie more than 3 hours back and before today (Prague), spread over 400 days. They are records for size only:
their state does not replay (``round_verify`` would call them a mismatch), and interactive rounds have no action rows.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

LIMITS_KIND = "technical"
ROUND_ENDPOINT = "POST api/v1/games/rounds"
HISTORY_DAYS = 400


@dataclass(frozen=True)
class BenchPlayer:
    player_id: int
    user_id: int
    token: str


def players_create(
    n: int, *, fund: int, daily_stake: int, daily_loss: int, chunk: int = 500, say: Callable[[str], None] = print
) -> list[BenchPlayer]:
    """Create ``n`` funded players ready to stake real money; returns their ids and raw API tokens."""
    from wallet.ledger import operator_account

    now = timezone.now()
    with transaction.atomic():
        adjustments = operator_account("adjustments").pk
    out: list[BenchPlayer] = []
    for first in range(0, n, chunk):
        with transaction.atomic():
            out += _players_chunk(
                range(first, min(n, first + chunk)),
                now=now,
                fund=fund,
                daily_stake=daily_stake,
                daily_loss=daily_loss,
                adjustments_id=adjustments,
            )
        say(f"   {len(out):>6,} players")
    _audit("bench.players_created", players=len(out), fund=fund, daily_stake=daily_stake, daily_loss=daily_loss)
    return out


def _players_chunk(
    numbers: range, *, now: datetime, fund: int, daily_stake: int, daily_loss: int, adjustments_id: int
) -> list[BenchPlayer]:
    from accounts.models import User

    users = User.objects.bulk_create(
        [
            User(
                username=f"bench{i:06d}",
                email=f"bench{i:06d}@bench.example",
                password="!bench-no-password",
                date_joined=now,
                must_change_password=False,
            )
            for i in numbers
        ]
    )
    players = _accounts_rows(users, numbers, now=now)
    _wallet_rows(players, now=now, fund=fund, adjustments_id=adjustments_id)
    _limits_rows(players, now=now, daily_stake=daily_stake, daily_loss=daily_loss)
    return _login_rows(players, now=now)


def _accounts_rows(users: list[Any], numbers: range, *, now: datetime) -> list[Any]:
    """Active players whose registration is complete (GP §4): personal data, checks done, consents given."""
    from accounts.demo_people import applicant_data
    from accounts.models import Consent, PersonalData, Player
    from accounts.validation import derived_keys, validate_personal_data

    done = now - timedelta(days=40)
    players = Player.objects.bulk_create(
        [
            Player(
                user=user,
                status=Player.Status.ACTIVE,
                created_at=done,
                status_changed_at=done,
                identity_verified_at=done,
                aml_identified_at=done,
                temporary_activated_at=done,
                temporary_expires_at=done + timedelta(days=30),
                completed_at=done,
                email_confirmed_at=done,
                first_password_sent_at=done,
                exclusion_checked_at=now,
            )
            for user in users
        ]
    )
    today = timezone.localdate(now)
    personal = []
    for player, i in zip(players, numbers, strict=True):
        clean = validate_personal_data(applicant_data(n=100_000 + i, email=f"bench{i:06d}@bench.example"), today=today)
        personal.append(PersonalData(player=player, **clean, **derived_keys(clean), updated_at=done))
    PersonalData.objects.bulk_create(personal)
    versions = {
        "terms": settings.ACCOUNTS_TERMS_VERSION,
        "data_processing": settings.ACCOUNTS_DATA_PROCESSING_VERSION,
        "game_plan": settings.ACCOUNTS_GAME_PLAN_VERSION,
    }
    Consent.objects.bulk_create(
        [
            Consent(player=p, kind=kind, version=versions[kind], given_at=done)
            for p in players
            for kind in Consent.MANDATORY
        ]
    )
    return players


def _wallet_rows(players: list[Any], *, now: datetime, fund: int, adjustments_id: int) -> None:
    """A full wallet with its three accounts, and one balanced adjustment posting of ``fund`` each."""
    from wallet.ledger import player_account_code
    from wallet.models import Entry, LedgerAccount, LedgerTransaction, Wallet

    Wallet.objects.bulk_create([Wallet(player=p, mode=Wallet.Mode.FULL, created_at=now) for p in players])
    accounts = LedgerAccount.objects.bulk_create(
        [
            LedgerAccount(
                code=player_account_code(p.pk, kind),
                kind=kind,
                player=p,
                tracks_balance=True,
                balance=fund if kind == LedgerAccount.Kind.PLAYER_MAIN else 0,
                created_at=now,
            )
            for p in players
            for kind in LedgerAccount.PLAYER_KINDS
        ]
    )
    main = {a.player_id: a for a in accounts if a.kind == LedgerAccount.Kind.PLAYER_MAIN}
    txns = LedgerTransaction.objects.bulk_create(
        [
            LedgerTransaction(
                kind=LedgerTransaction.Kind.ADJUSTMENT,
                reference=f"bench-fund-{p.pk}",
                player=p,
                amount=fund,
                memo="bench funding",
                created_at=now,
                actor_label="system:bench",
            )
            for p in players
        ]
    )
    Entry.objects.bulk_create(
        [
            entry
            for txn in txns
            for entry in (
                Entry(transaction=txn, account_id=adjustments_id, amount=-fund, created_at=now),
                Entry(transaction=txn, account=main[txn.player_id], amount=fund, balance_after=fund, created_at=now),
            )
        ]
    )


def _limits_rows(players: list[Any], *, now: datetime, daily_stake: int, daily_loss: int) -> None:
    """All seven self-limits decided (GP §4(4)e, §6): daily stake and daily loss set, the rest declined."""
    from limits.models import LimitType, PlayerKindState, SelfLimit, SelfLimitChange

    decided = now - timedelta(days=40)
    values: dict[str, int | None] = {t: None for t in LimitType.values}
    values[LimitType.DAILY_STAKE] = daily_stake
    values[LimitType.DAILY_LOSS] = daily_loss
    SelfLimit.objects.bulk_create(
        [
            SelfLimit(player=p, kind=LIMITS_KIND, limit_type=t, value=v, decided_at=decided, updated_at=decided)
            for p in players
            for t, v in values.items()
        ]
    )
    SelfLimitChange.objects.bulk_create(
        [
            SelfLimitChange(
                player=p,
                kind=LIMITS_KIND,
                limit_type=t,
                new_value=v,
                requested_at=decided,
                effective_from=decided,
                actor_type="player",
                actor_id=str(p.pk),
                actor_label="bench",
                action=SelfLimitChange.Action.SET if v is not None else SelfLimitChange.Action.DECLINED,
            )
            for p in players
            for t, v in values.items()
        ]
    )
    PlayerKindState.objects.bulk_create([PlayerKindState(player=p, kind=LIMITS_KIND) for p in players])


def _login_rows(players: list[Any], *, now: datetime) -> list[BenchPlayer]:
    """A login session and its token per player, the shape ``POST auth/login`` creates."""
    from accounts.models import AuthToken, LoginSession

    sessions = LoginSession.objects.bulk_create(
        [
            LoginSession(player=p, started_at=now, last_seen_at=now, ip_address="127.0.0.1", user_agent="bench")
            for p in players
        ]
    )
    keys = [secrets.token_urlsafe(32) for _ in players]
    AuthToken.objects.bulk_create(
        [
            AuthToken(user_id=p.user_id, key_hash=AuthToken.hash_key(key), created_at=now, session=s)
            for p, s, key in zip(players, sessions, keys, strict=True)
        ]
    )
    return [BenchPlayer(p.pk, p.user_id, key) for p, key in zip(players, keys, strict=True)]


def sessions_refresh(player_ids: list[int]) -> int:
    """The players are still logged in: their sessions were seen now (the idle timeout counts from here)."""
    from accounts.models import LoginSession

    return LoginSession.objects.filter(player_id__in=player_ids, ended_at__isnull=True).update(
        last_seen_at=timezone.now()
    )


def _audit(action: str, **details: Any) -> None:
    from core.audit import Actor, audit_record

    with transaction.atomic():
        audit_record(actor=Actor.system("bench"), action=action, **details)


# --- history ---------------------------------------------------------------------------------------------------------
_TEMPLATE_SQL = """
SELECT r.id, r.bet_request, r.bet_params, r.draws, r.state, i.response_body, i.request_hash,
       (SELECT new_values FROM core_auditevent WHERE object_type = 'games.round' AND object_id = r.id::text
        AND action = 'games.round_played' LIMIT 1),
       (SELECT details FROM core_auditevent WHERE object_type = 'games.round' AND object_id = r.id::text
        AND action = 'games.round_played' LIMIT 1),
       (SELECT new_values FROM core_auditevent WHERE object_type = 'games.round' AND object_id = r.id::text
        AND action = 'games.round_played' LIMIT 1),
       (SELECT details FROM core_auditevent WHERE object_type = 'games.round' AND object_id = r.id::text
        AND action = 'games.round_played' LIMIT 1)
FROM games_round r
JOIN accounts_player p ON p.id = r.player_id
LEFT JOIN core_idempotencyrecord i ON i.scope = 'user:' || p.user_id AND i.key = r.idempotency_key
WHERE r.game_code = %s AND r.status = 'finished' AND NOT r.play_money AND r.actions = '[]'::jsonb
ORDER BY r.id DESC LIMIT 1
"""
_TEMPLATE_KEYS = (
    "bet_request",
    "bet_params",
    "draws",
    "state",
    "response_body",
    "request_hash",
    "started_new",
    "started_details",
    "settled_new",
    "settled_details",
)


def _templates(games: dict[str, tuple[int, int, int]]) -> dict[str, dict[str, Any]]:
    """The JSON of a real settled round of each game (first run), so historical rows have their real size."""
    import json

    out: dict[str, dict[str, Any]] = {}
    with connection.cursor() as cur:
        for code in games:
            cur.execute(_TEMPLATE_SQL, [code])
            row = cur.fetchone()
            values = dict(zip(_TEMPLATE_KEYS, row[1:], strict=True)) if row else {}
            fallback: dict[str, Any] = {
                "bet_request": {},
                "bet_params": {},
                "draws": [],
                "response_body": {},
                "state": {"status": "finished", "win": 0, "steps": []},
                "request_hash": "0" * 64,
                "started_new": {},
                "started_details": {},
                "settled_new": {},
                "settled_details": {},
            }
            out[code] = {
                k: json.dumps(v if v is not None else fallback[k]) if k != "request_hash" else (v or fallback[k])
                for k, v in {**fallback, **values}.items()
            }
    return out


def _history_end(now: datetime) -> datetime:
    """Historical rounds end before today (Prague) and more than 3 hours ago (outside the hourly-loss buckets)."""
    from core.clock import day_bounds

    today_start, _ = day_bounds(now)
    return min(today_start, now - timedelta(hours=3)) - timedelta(minutes=1)


_ROUNDS_SQL = """
INSERT INTO games_round (player_id, game_id, game_code, game_version, play_money, forced_outcome, forced_draws_left,
    idempotency_key, status, bet_request, bet_params, stake, currency, draws, actions, state, win_engine, win,
    jackpot_win, win_capped, balance_before, balance_after, jackpot_events, void_reason, void_detail, started_at,
    last_activity_at, settled_at, deadline, provider_round_id)
SELECT s.player_id, s.game_id, s.code, s.version, false, false, '[]'::jsonb, 'hist-' || s.g, 'finished',
       s.bet_request, s.bet_params, s.stake, 'CZK', s.draws, '[]'::jsonb, s.state, s.win, s.win, 0, false,
       %(fund)s, %(fund)s - s.stake + s.win, '[]'::jsonb, '', '', s.t, s.t + s.secs, s.t + s.secs,
       s.t + interval '180 days', ''  -- provider_round_id: an engine round
FROM (
    SELECT g, players[1 + (g - 1) %% cardinality(players)] AS player_id,
           %(end)s - ((g - 1)::float8 / %(n)s) * %(days)s * interval '1 day' AS t,
           CASE WHEN g %% 2 = 0 THEN %(r_id)s ELSE %(k_id)s END AS game_id,
           CASE WHEN g %% 2 = 0 THEN %(r_code)s ELSE %(k_code)s END AS code,
           CASE WHEN g %% 2 = 0 THEN %(r_version)s ELSE %(k_version)s END AS version,
           CASE WHEN g %% 2 = 0 THEN %(r_stake)s ELSE %(k_stake)s END AS stake,
           CASE WHEN g %% 2 = 0 THEN (CASE WHEN (g * 7) %% 37 BETWEEN 1 AND 18 THEN 2 * %(r_stake)s ELSE 0 END)
                ELSE (ARRAY[5, 2, 1, 1, 0, 0, 0, 0, 0, 0])[1 + (g * 13) %% 10] * %(k_stake)s
                     + CASE WHEN (g * 13) %% 10 = 4 THEN %(k_stake)s / 2 ELSE 0 END END AS win,
           CASE WHEN g %% 2 = 0 THEN interval '0 seconds' ELSE interval '1 second' END AS secs,
           CASE WHEN g %% 2 = 0 THEN %(r_bet)s::jsonb ELSE %(k_bet)s::jsonb END AS bet_request,
           CASE WHEN g %% 2 = 0 THEN %(r_params)s::jsonb ELSE %(k_params)s::jsonb END AS bet_params,
           CASE WHEN g %% 2 = 0 THEN %(r_draws)s::jsonb ELSE %(k_draws)s::jsonb END AS draws,
           CASE WHEN g %% 2 = 0 THEN %(r_state)s::jsonb ELSE %(k_state)s::jsonb END AS state
    FROM generate_series(1, %(n)s) AS g, (SELECT %(players)s::bigint[] AS players) AS p
) AS s
ORDER BY s.g
"""

_SETTLED_SQL = """
INSERT INTO limits_settledbet (player_id, kind, game_code, round_ref, stake, win, placed_at, started_at, settled_at,
                               voided)
SELECT player_id, %(kind)s, game_code, 'games:round:' || id || ':bet', stake, win, started_at, started_at, settled_at,
       false
FROM games_round WHERE id > %(after)s AND idempotency_key LIKE 'hist-%%' ORDER BY id
"""

_PERIOD_SQL = """
INSERT INTO limits_periodtotal AS pt (player_id, kind, period, start, stakes_placed, bets_placed, stakes_decided,
                                      wins_decided, bets_decided)
SELECT player_id, kind, %(period)s, k, SUM(sp), SUM(np), SUM(sd), SUM(wd), SUM(nd) FROM (
    SELECT player_id, kind, {placed} AS k, stake AS sp, 1 AS np, 0 AS sd, 0 AS wd, 0 AS nd
    FROM limits_settledbet WHERE id > %(after)s
    UNION ALL
    SELECT player_id, kind, {settled}, 0, 0, stake, win, 1 FROM limits_settledbet WHERE id > %(after)s
) AS u GROUP BY player_id, kind, k
ON CONFLICT (player_id, kind, period, start) DO UPDATE SET
    stakes_placed = pt.stakes_placed + EXCLUDED.stakes_placed, bets_placed = pt.bets_placed + EXCLUDED.bets_placed,
    stakes_decided = pt.stakes_decided + EXCLUDED.stakes_decided,
    wins_decided = pt.wins_decided + EXCLUDED.wins_decided, bets_decided = pt.bets_decided + EXCLUDED.bets_decided
"""
_PERIOD_KEYS = {
    "day": ("(placed_at AT TIME ZONE 'Europe/Prague')::date", "(settled_at AT TIME ZONE 'Europe/Prague')::date"),
    "month": (
        "date_trunc('month', placed_at AT TIME ZONE 'Europe/Prague')::date",
        "date_trunc('month', settled_at AT TIME ZONE 'Europe/Prague')::date",
    ),
}

_TXN_SQL = """
INSERT INTO wallet_ledgertransaction (kind, reference, player_id, amount, currency, memo, created_at, actor_label)
SELECT k.kind, 'games:round:' || r.id || ':' || k.kind, r.player_id,
       CASE WHEN k.kind = 'stake' THEN r.stake ELSE r.win END, 'CZK', '',
       CASE WHEN k.kind = 'stake' THEN r.started_at ELSE r.settled_at END, 'player:bench' || r.player_id
FROM games_round r CROSS JOIN (VALUES (1, 'stake'), (2, 'win')) AS k(o, kind)
WHERE r.id > %(after)s AND r.idempotency_key LIKE 'hist-%%' AND (k.kind = 'stake' OR r.win > 0)
ORDER BY r.id, k.o
"""

_ENTRY_SQL = """
WITH txn AS (
    SELECT id, kind, player_id, amount, created_at FROM wallet_ledgertransaction WHERE id > %(after)s
), legs AS (
    SELECT txn.id AS tid, a.id AS account_id, CASE WHEN txn.kind = 'stake' THEN -txn.amount ELSE txn.amount END
           AS amount, true AS player_leg, txn.created_at
    FROM txn JOIN wallet_ledgeraccount a ON a.player_id = txn.player_id AND a.kind = 'player_main'
    UNION ALL
    SELECT txn.id, %(house)s, CASE WHEN txn.kind = 'stake' THEN txn.amount ELSE -txn.amount END, false,
           txn.created_at
    FROM txn
)
INSERT INTO wallet_entry (transaction_id, account_id, amount, balance_after, created_at)
SELECT legs.tid, legs.account_id, legs.amount,
       CASE WHEN legs.player_leg THEN a.balance + SUM(legs.amount) OVER (PARTITION BY legs.account_id
                                                                         ORDER BY legs.tid) END,
       legs.created_at
FROM legs JOIN wallet_ledgeraccount a ON a.id = legs.account_id
ORDER BY legs.tid, legs.player_leg DESC
"""

_BALANCE_SQL = """
UPDATE wallet_ledgeraccount a SET balance = a.balance + s.total
FROM (SELECT account_id, SUM(amount) AS total FROM wallet_entry WHERE id > %(after)s GROUP BY account_id) AS s
WHERE a.id = s.account_id AND a.tracks_balance
"""

_AUDIT_SQL = """
INSERT INTO core_auditevent (occurred_at, actor_type, actor_id, actor_label, actor_role, action, object_type,
                             object_id, old_values, new_values, details, request_id)
SELECT CASE WHEN a.o = 1 THEN r.started_at ELSE r.settled_at END, 'player', r.player_id::text,
       'bench' || r.player_id, '', a.action, 'games.round', r.id::text, NULL,
       CASE WHEN a.o = 1 THEN (CASE WHEN r.game_code = %(r_code)s THEN %(r_started_new)s::jsonb
                                    ELSE %(k_started_new)s::jsonb END)
            ELSE (CASE WHEN r.game_code = %(r_code)s THEN %(r_settled_new)s::jsonb
                       ELSE %(k_settled_new)s::jsonb END) END,
       CASE WHEN a.o = 1 THEN %(r_started_details)s::jsonb ELSE %(r_settled_details)s::jsonb END,
       md5(r.idempotency_key)
FROM games_round r CROSS JOIN (VALUES (1, 'games.round_played')) AS a(o, action)
WHERE r.id > %(after)s AND r.idempotency_key LIKE 'hist-%%'
ORDER BY r.id, a.o
"""


HISTORY_TABLES = (
    "games_round",
    "limits_settledbet",
    "limits_periodtotal",
    "wallet_ledgertransaction",
    "wallet_entry",
    "core_auditevent",
)


def _bulk_session(cur: Any) -> None:
    """Settings of a loading session (its own connection: Django's connections are per thread)."""
    from django.db import DatabaseError

    try:
        # Bulk load: the ledger triggers would re-sum each transaction once per entry (millions of times); the
        # rows are built balanced and ``manage.py ledger_check`` proves them after the load. Needs a superuser;
        # without one the triggers run (slower, same result).
        cur.execute("SET session_replication_role = replica")
    except DatabaseError:
        pass
    cur.execute("SET work_mem = '256MB'")


def _max_id(cur: Any, table: str) -> int:
    cur.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}")  # table names are constants of this module
    return int(cur.fetchone()[0])


def history_load(
    *, player_ids: list[int], rounds: int, fund: int, roulette: str, kobushi: str, say: Callable[[str], None] = print
) -> dict[str, Any]:
    """Load ``rounds`` settled historical rounds for ``player_ids`` (alternately roulette and Kobushi)."""
    from games.models import Game
    from wallet.ledger import operator_account

    if rounds <= 0:
        return {"rounds": 0, "seconds": 0.0}
    started = time.monotonic()
    rows = {g.code: (g.pk, g.version) for g in Game.objects.filter(code__in=[roulette, kobushi], current=True)}
    if set(rows) != {roulette, kobushi}:
        raise RuntimeError(f"games missing from the catalogue: {sorted({roulette, kobushi} - set(rows))}")
    stakes = {roulette: 100, kobushi: 300}
    games = {code: (rows[code][0], rows[code][1], stakes[code]) for code in (roulette, kobushi)}
    tpl = _templates(games)
    with transaction.atomic():
        house = operator_account("house").pk
    params: dict[str, Any] = {
        "n": rounds,
        "players": sorted(player_ids),
        "fund": fund,
        "kind": LIMITS_KIND,
        "end": _history_end(timezone.now()),
        "days": HISTORY_DAYS,
        "house": house,
        "endpoint": ROUND_ENDPOINT,
    }
    for prefix, code in (("r", roulette), ("k", kobushi)):
        game_id, version, stake = games[code]
        t = tpl[code]
        params.update(
            {
                f"{prefix}_id": game_id,
                f"{prefix}_code": code,
                f"{prefix}_version": version,
                f"{prefix}_stake": stake,
                f"{prefix}_bet": t["bet_request"],
                f"{prefix}_params": t["bet_params"],
                f"{prefix}_draws": t["draws"],
                f"{prefix}_state": t["state"],
                f"{prefix}_response": t["response_body"],
                f"{prefix}_started_new": t["started_new"],
                f"{prefix}_settled_new": t["settled_new"],
                f"{prefix}_started_details": t["started_details"],
                f"{prefix}_settled_details": t["settled_details"],
            }
        )
    try:
        with connection.cursor() as cur:
            _bulk_session(cur)
            after = {t: _max_id(cur, t) for t in HISTORY_TABLES if t != "limits_periodtotal"}
            t0 = time.monotonic()
            with transaction.atomic():
                cur.execute(_ROUNDS_SQL, {**params, "after": after["games_round"]})
            say(f"   games_round: {rounds:,} rows in {time.monotonic() - t0:.1f} s")
    finally:
        connection.close()  # the session settings end with it
    jobs: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = [
        (
            "limits",
            [(_SETTLED_SQL, {**params, "after": after["games_round"]})]
            + [
                (
                    _PERIOD_SQL.format(placed=placed, settled=settled),
                    {"period": period, "after": after["limits_settledbet"]},
                )
                for period, (placed, settled) in _PERIOD_KEYS.items()
            ],
        ),
        (
            "wallet",
            [
                (_TXN_SQL, {**params, "after": after["games_round"]}),
                (_ENTRY_SQL, {**params, "after": after["wallet_ledgertransaction"]}),
                (_BALANCE_SQL, {"after": after["wallet_entry"]}),
            ],
        ),
        ("audit", [(_AUDIT_SQL, {**params, "after": after["games_round"]})]),
    ]
    _run_parallel(jobs, threads=2, say=say)
    with connection.cursor() as cur:
        t0 = time.monotonic()
        for table in HISTORY_TABLES:
            cur.execute(f"ANALYZE {table}")
        say(f"   ANALYZE in {time.monotonic() - t0:.1f} s")
        cur.execute("SELECT pg_size_pretty(pg_database_size(current_database()))")
        size = cur.fetchone()[0]
    seconds = time.monotonic() - started
    _audit("bench.history_loaded", rounds=rounds, players=len(player_ids), seconds=round(seconds, 1))
    return {"rounds": rounds, "seconds": seconds, "database_size": size}


def _run_parallel(
    jobs: list[tuple[str, list[tuple[str, dict[str, Any]]]]], *, threads: int, say: Callable[[str], None]
) -> None:
    """Run each job (its statements in order, one transaction) on its own connection, ``threads`` at a time;
    the first failure is raised here."""

    def run(name: str, statements: list[tuple[str, dict[str, Any]]]) -> None:
        t0 = time.monotonic()
        try:  # this thread's own Django connection
            with connection.cursor() as cur:
                _bulk_session(cur)
                with transaction.atomic():
                    for sql, params in statements:
                        cur.execute(sql, params)
        finally:
            connection.close()
        say(f"   {name}: done in {time.monotonic() - t0:.1f} s")

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="history") as pool:
        for future in [pool.submit(run, name, statements) for name, statements in jobs]:
            future.result()


# --- profile ---------------------------------------------------------------------------------------------------------
def _play_in_process(client: Any, token: str, game: str) -> str:
    """One round through Django's full request stack, its actions included; returns its final status or error."""
    import json

    bet = (
        {"lines": 30, "coins": 1, "coin_value": {"amount": 10, "currency": "CZK"}}
        if game == "kobushi"
        else {"bets": [{"type": "red", "amount": {"amount": 100, "currency": "CZK"}}]}
    )
    headers = {"Authorization": f"Token {token}"}
    response = client.post(
        "/api/v1/games/rounds",
        data=json.dumps({"game": game, "bet": bet}),
        content_type="application/json",
        headers={**headers, "Idempotency-Key": secrets.token_hex(12)},
    )
    body = response.json() if response.status_code < 500 else {}
    for _ in range(100):  # a round waiting for the player: its actions (bounded)
        if body.get("status") != "in_progress":
            break
        options = body["pending"]["options"]
        action = {"type": "collect"} if {"type": "collect"} in options else options[0]
        response = client.post(
            f"/api/v1/games/rounds/{body['id']}/actions",
            data=json.dumps({"action": action}),
            content_type="application/json",
            headers={**headers, "Idempotency-Key": secrets.token_hex(12)},
        )
        body = response.json() if response.status_code < 500 else {}
    return str(body.get("status") or (body.get("error") or {}).get("code") or response.status_code)


def rounds_profile(players: list[tuple[int, str]], *, rounds: int, mix: float, top: int = 25) -> str:
    """Play rounds in this process through Django's full request stack (test client: middleware, DRF, the
    services, the engine, the request log), one per player so no round waits for the 2-second rule. The first half
    is timed as is (CPU, wall, time in SQL, statements per round); the second half runs under cProfile with a CPU
    clock, so the report says where the CPU of a round goes (self time by package, then by function)."""
    import cProfile
    import io
    import logging
    import os
    import pstats
    import random

    from django.db import connections
    from django.test import Client

    from config.sqlcount import instrument, uninstrument

    client = Client(HTTP_HOST="127.0.0.1", raise_request_exception=False)
    rng = random.Random(7)
    db_seconds = [0.0]

    def timed(execute: Any, sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        t0 = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            db_seconds[0] += time.perf_counter() - t0

    chosen = players[:rounds]
    timed_part, profiled_part = chosen[: len(chosen) // 2], chosen[len(chosen) // 2 :]
    conn = connections["default"]
    counter = instrument(conn)
    conn.execute_wrappers.append(timed)
    devnull = open(os.devnull, "w")  # closed in the finally below
    handlers = [h for h in logging.getLogger().handlers if isinstance(h, logging.StreamHandler)]
    streams = [h.setStream(devnull) for h in handlers]  # the request log is formatted and written, not shown
    profiler = cProfile.Profile(time.process_time)
    statuses: dict[str, int] = {}
    counter.count = 0
    try:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for _player_id, token in timed_part:
            status = _play_in_process(client, token, "kobushi" if rng.random() < mix else "european_roulette")
            statuses[status] = statuses.get(status, 0) + 1
        cpu, wall, statements = time.process_time() - cpu0, time.perf_counter() - wall0, counter.count
        in_sql = db_seconds[0]
        for _player_id, token in profiled_part:
            game = "kobushi" if rng.random() < mix else "european_roulette"
            status = profiler.runcall(_play_in_process, client, token, game)
            statuses[status] = statuses.get(status, 0) + 1
    finally:
        for handler, stream in zip(handlers, streams, strict=True):
            handler.setStream(stream)
        devnull.close()
        conn.execute_wrappers.remove(timed)
        uninstrument(conn)
        connections.close_all()
    n, n_profiled = max(1, len(timed_part)), max(1, len(profiled_part))
    by_package: dict[str, float] = {}
    # the type: ignore below: pstats.Stats.stats is not in typeshed
    for (filename, _line, name), (_cc, _nc, tottime, _ct, _callers) in pstats.Stats(profiler).stats.items():  # type: ignore[attr-defined]
        package = _package(filename, name)
        by_package[package] = by_package.get(package, 0.0) + tottime
    total = sum(by_package.values()) or 1.0
    out = io.StringIO()
    out.write(f"in-process, {len(chosen)} rounds {statuses}\n")
    out.write(
        f"per round, {n} rounds unprofiled: CPU {cpu * 1000 / n:.1f} ms, wall {wall * 1000 / n:.1f} ms, of which "
        f"waiting on SQL {in_sql * 1000 / n:.1f} ms (client side, {statements / n:.1f} statements)\n"
    )
    out.write(
        f"CPU self time by package, {n_profiled} rounds under cProfile (CPU clock; the profiler inflates it): "
        + ", ".join(
            f"{name} {secs * 1000 / n_profiled:.1f} ms ({secs / total:.0%})"
            for name, secs in sorted(by_package.items(), key=lambda kv: -kv[1])[:16]
        )
        + "\n"
    )
    listing = io.StringIO()
    pstats.Stats(profiler, stream=listing).sort_stats("tottime").print_stats(top)
    root = str(settings.BASE_DIR) + "/"
    out.write("top functions by CPU self time:\n")
    out.write(
        "\n".join(
            line.replace(root, "").replace(_site_packages(), "")
            for line in listing.getvalue().splitlines()
            if line.strip() and not line.startswith(("   Ordered by", "   List reduced"))
        )
    )
    return out.getvalue()


def _site_packages() -> str:
    import django

    return str(Path(django.__file__).parent.parent) + "/"


def _package(filename: str, name: str) -> str:
    """A profile entry's package: site-packages' top folder, the platform's app, a C call by its module, or the
    standard library module."""
    path = filename.replace("\\", "/")
    if path == "~":  # a C function: "<method 'join' of 'bytes' objects>", "<built-in method ...>"
        # psycopg 3's C parts (psycopg_binary, psycopg_c) are Cython functions, which cProfile does not see: their
        # time is their Python caller's, in the "psycopg" package; a C function that names psycopg is labelled its own
        return "C: psycopg" if "psycopg" in name else "C: builtins"
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1].split("/", 1)[0].removesuffix(".py")
    root = str(settings.BASE_DIR).replace("\\", "/") + "/"
    if path.startswith(root):
        parts = path[len(root) :].split("/")
        if parts[0] == "scripts":
            return "bench client"
        return f"app:{'/'.join(parts[:2]) if parts[:2] == ['games', 'engine'] else parts[0]}"
    return "stdlib:" + Path(path).stem
