"""The reports' SQL over the ledger (read-only; on the read alias): the day's game postings by game version and kind
(the tax base) and the players' day-end balances."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import connections

from games.models import Round
from jackpots.models import Award
from wallet.models import Entry, LedgerAccount, LedgerTransaction


def _ledger_game_sql() -> str:
    """Per game version and kind of posting: what the day's game postings moved on the players' own accounts
    (temporary, player and held accounts), each posting on the Prague day it was written. The round a posting belongs
    to is read from the wallet reference the games and jackpots write (``games:round:<id>:...``,
    ``jackpot:<award>:paid``; a hold's ``hold:`` prefix read through); a posting tied to no round (a carried bonus
    paid out, a staff deduction naming no round) has no game (NULL)."""
    t, e, a = LedgerTransaction._meta.db_table, Entry._meta.db_table, LedgerAccount._meta.db_table
    r, aw = Round._meta.db_table, Award._meta.db_table
    return f"""
    WITH m AS (
        SELECT t.id, t.kind, regexp_replace(t.reference, '^hold:', '') AS ref, SUM(e.amount) AS net
        FROM {t} t JOIN {e} e ON e.transaction_id = t.id JOIN {a} a ON a.id = e.account_id AND a.player_id IS NOT NULL
        WHERE t.created_at >= %(start)s AND t.created_at < %(end)s AND t.kind = ANY(%(kinds)s)
        GROUP BY t.id
    ), g AS (
        SELECT m.*, CASE
            WHEN m.ref ~ '^games:round:[0-9]+:' THEN split_part(m.ref, ':', 3)::bigint
            WHEN m.ref ~ '^jackpot:[0-9]+:paid$' THEN (SELECT aw.round_id FROM {aw} aw
                                                         WHERE aw.id = split_part(m.ref, ':', 2)::bigint)
        END AS round_id, m.ref ~ '^jackpot:' AS jackpot
        FROM m WHERE m.net <> 0
    )
    SELECT r.game_code, r.game_version, g.kind, g.jackpot, SUM(g.net)
    FROM g LEFT JOIN {r} r ON r.id = g.round_id
    GROUP BY 1, 2, 3, 4"""


def ledger_game_rows(alias: str, start: datetime, end: datetime, kinds: list[str]) -> list[tuple[Any, ...]]:
    """(game code, game version, posting kind, a jackpot award?, net on the players' accounts) of the postings of
    ``kinds`` written in [start, end)."""
    with connections[alias].cursor() as cur:
        cur.execute(_ledger_game_sql(), {"start": start, "end": end, "kinds": kinds})
        return list(cur.fetchall())


def player_balance_rows(alias: str, end: datetime) -> list[tuple[int, int, str, int]]:
    """Each player ledger account's balance at ``end``: the balance after its last entry before it (one index probe
    per account on ``(account, created_at)``). Accounts with no entry before ``end`` are left out (balance 0)."""
    e, a = Entry._meta.db_table, LedgerAccount._meta.db_table
    with connections[alias].cursor() as cur:
        cur.execute(
            f"""
            SELECT a.id, a.player_id, a.kind, last.balance_after FROM {a} a
            CROSS JOIN LATERAL (SELECT x.balance_after FROM {e} x WHERE x.account_id = a.id AND x.created_at < %s
                                ORDER BY x.created_at DESC, x.id DESC LIMIT 1) last
            WHERE a.player_id IS NOT NULL ORDER BY a.id""",
            [end],
        )
        return [(int(r[0]), int(r[1]), str(r[2]), int(r[3] or 0)) for r in cur.fetchall()]
