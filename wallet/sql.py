"""The wallet's hot statements (the round path), as the SQL they are (see core/sql.py).

* :data:`LOCK_LIVE`: the player's wallet row and its live account, both locked (``FOR NO KEY UPDATE OF w, a``, in
  the house order: the wallet first), in ONE statement; replaces ``wallet_lock`` + ``live_account`` (2 statements).
  The account row is locked too so that a read that waited for the wallet lock sees the balance the holder wrote
  (a joined row that is not locked keeps the version of the statement's snapshot).
* :data:`POST_WITH_OPERATOR`: one balanced transaction between the live account and an operator account (created
  on first use), the balance update and both entries in ONE statement; replaces the ORM's 5-7 (transaction
  insert in a savepoint, operator account read, balance update, entries). The operator account is read first and
  inserted only when missing: an existing one (every posting but the first) costs one key lookup, not an insert
  attempt that draws a sequence number and probes the unique index before it is skipped. Its parts
  (:func:`posting_ctes`, the one definition) are also carried by another statement: games/sql.py
  ROUND_INSERT_DECIDED_WIN posts a round's win in the round's insert (``wallet.ledger.DeferredPosting``).
* :data:`BALANCE_ADD`: ``balance = balance + x RETURNING balance`` of a player account (the general posting).
* :data:`CARRY_ENTRIES`, :data:`CARRY_TRANSACTIONS`: an archived month's totals carried forward
  (``wallet.archived_totals``, the hooks of ``core.partitions_archive``), not on the round path.

Pinned by ``games/tests/platform/test_round_cost.py`` (the statement count of a round) and
``tests/test_sql_contracts.py`` (columns against the models, ``EXPLAIN`` without a sequential scan).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from django.db import IntegrityError
from django.db.models import Model, UniqueConstraint

from core.sql import cursor, execute, instance, register
from wallet.models import Entry, LedgerAccount, LedgerTransaction, Wallet
from wallet.models_carried import ArchivedLedgerMonth, CarriedEntries

W, A, T, E = Wallet, LedgerAccount, LedgerTransaction, Entry
_WALLET_FIELDS = (
    "id",
    "player_id",
    "mode",
    "created_at",
    "converted_at",
    "method_missing_since",
    "debt_flagged_at",
    "method_term_flagged_at",
)
_ACCOUNT_FIELDS = ("id", "code", "kind", "player_id", "tracks_balance", "balance", "debt")

#: the live-account join and columns (the wallet's every field, then the account's ``_ACCOUNT_FIELDS``), shared with
#: the statements of the apps above that lock a wallet with rows of their own in ONE statement (games/sql.py
#: ROUND_LOCK); map the columns back with :func:`live_from_row`
LIVE_COLUMNS = """w.id, w.player_id, w.mode, w.created_at, w.converted_at, w.method_missing_since, w.debt_flagged_at,
       w.method_term_flagged_at, a.id, a.code, a.kind, a.player_id, a.tracks_balance, a.balance, a.debt"""
LIVE_WIDTH = len(_WALLET_FIELDS) + len(_ACCOUNT_FIELDS)
LIVE_FROM = """wallet_wallet w
JOIN wallet_ledgeraccount a ON a.player_id = w.player_id
  AND a.kind = CASE WHEN w.mode = %(temporary_mode)s THEN %(temporary_kind)s ELSE %(main_kind)s END"""
LIVE_PARAMS: dict[str, type | tuple[type, ...]] = {"temporary_mode": str, "temporary_kind": str, "main_kind": str}
LIVE_FIELDS: dict[type[Model], tuple[str, ...]] = {W: _WALLET_FIELDS, A: _ACCOUNT_FIELDS}


def live_params() -> dict[str, str]:
    """The enum values the live-account join takes (never literals in the SQL)."""
    return {
        "temporary_mode": W.Mode.TEMPORARY,
        "temporary_kind": A.Kind.PLAYER_TEMPORARY,
        "main_kind": A.Kind.PLAYER_MAIN,
    }


def live_from_row(values: Sequence[Any]) -> tuple[Wallet, LedgerAccount]:
    n = len(_WALLET_FIELDS)
    return instance(W, _WALLET_FIELDS, values[:n]), instance(A, _ACCOUNT_FIELDS, values[n:LIVE_WIDTH])


LOCK_LIVE = register(
    "wallet.lock_live",
    f"""SELECT {LIVE_COLUMNS}
FROM {LIVE_FROM}
WHERE w.player_id = %(player)s
FOR NO KEY UPDATE OF w, a""",
    columns=LIVE_FIELDS,
    params={**LIVE_PARAMS, "player": int},
)


def lock_live(player_id: int) -> tuple[Wallet, LedgerAccount] | None:
    """The wallet and its live account, locked; None before the wallet's first use."""
    with cursor() as cur:
        execute(cur, LOCK_LIVE, {**live_params(), "player": player_id})
        row = cur.fetchone()
    return None if row is None else live_from_row(row)


_OP_INSERT = ("code", "kind", "player_id", "currency", "tracks_balance", "balance", "debt", "created_at")
_TXN_INSERT = ("kind", "reference", "player_id", "amount", "currency", "memo", "created_at", "actor_label")
_ENTRY_INSERT = ("transaction_id", "account_id", "amount", "balance_after", "created_at")


#: the posting's parts, ONE definition: the common table expressions (named ``op_old``, ``op_new``, ``op``, ``txn``,
#: ``acc``, ``entries``) with their parameters named ``<prefix><name>`` (:data:`POSTING_PARAMS`), and what the
#: statement returns of them (the transaction id, the balance after, the entries written). :data:`POST_WITH_OPERATOR`
#: is them alone; games/sql.py ROUND_INSERT_DECIDED_WIN carries them in a settled round's insert (a round's win when
#: it is a plain posting: ``wallet.ledger.DeferredPosting``), under the prefix ``w_`` there.
def posting_ctes(prefix: str = "") -> str:
    """The posting's common table expressions, their parameters named ``<prefix><name>``."""
    return f"""op_old AS (
    SELECT id FROM wallet_ledgeraccount WHERE code = CAST(%({prefix}op_code)s AS varchar)
), op_new AS (
    INSERT INTO wallet_ledgeraccount (code, kind, player_id, currency, tracks_balance, balance, debt, created_at)
    SELECT CAST(%({prefix}op_code)s AS varchar), CAST(%({prefix}op_kind)s AS varchar), NULL,
           CAST(%({prefix}currency)s AS varchar), false, 0, 0, CAST(%({prefix}now)s AS timestamp with time zone)
    WHERE NOT EXISTS (SELECT 1 FROM op_old)
    ON CONFLICT (code) DO NOTHING RETURNING id
), op AS (
    SELECT id FROM op_old UNION ALL SELECT id FROM op_new LIMIT 1
), txn AS (
    INSERT INTO wallet_ledgertransaction (kind, reference, player_id, amount, currency, memo, created_at, actor_label)
    SELECT %({prefix}kind)s, %({prefix}reference)s, %({prefix}player_id)s, %({prefix}amount)s, %({prefix}currency)s,
           %({prefix}memo)s, %({prefix}now)s, %({prefix}actor)s FROM op
    RETURNING id
), acc AS (
    UPDATE wallet_ledgeraccount SET balance = balance + %({prefix}delta)s
    WHERE id = %({prefix}account_id)s AND EXISTS (SELECT 1 FROM op) RETURNING balance
), entries AS (
    INSERT INTO wallet_entry (transaction_id, account_id, amount, balance_after, created_at)
    SELECT txn.id, %({prefix}account_id)s, %({prefix}delta)s, acc.balance, %({prefix}now)s FROM txn, acc
    UNION ALL
    SELECT txn.id, op.id, -%({prefix}delta)s, NULL, %({prefix}now)s FROM txn, op
    RETURNING 1
)"""


#: the parameters' prefix of a posting carried by another statement (``wallet.ledger.DeferredPosting``; games/sql.py
#: ROUND_INSERT_DECIDED_WIN): its names would meet the limits' there (``kind``)
DEFERRED_PREFIX = "w_"
POSTING_RETURNS = "(SELECT id FROM txn), (SELECT balance FROM acc), (SELECT count(*) FROM entries)"
POSTING_COLUMNS: dict[type[Model], tuple[str, ...]] = {
    A: (*_OP_INSERT, "id"),
    T: (*_TXN_INSERT, "id"),
    E: _ENTRY_INSERT,
}
POSTING_INSERTS: tuple[type[Model], ...] = (A, T, E)
POSTING_PARAMS: dict[str, type | tuple[type, ...]] = {
    "op_code": str,
    "op_kind": str,
    "currency": str,
    "now": datetime,
    "kind": str,
    "reference": str,
    "player_id": int,
    "amount": int,
    "memo": str,
    "actor": str,
    "delta": int,
    "account_id": int,
}


def posting_params(params: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The posting's parameters (the currency and memo the model's defaults unless given), named with ``prefix``."""
    full = {
        "currency": T._meta.get_field("currency").get_default(),
        "memo": T._meta.get_field("memo").get_default(),
        **params,
    }
    return {f"{prefix}{k}": v for k, v in full.items()} if prefix else full


POST_WITH_OPERATOR = register(
    "wallet.post_with_operator",
    f"""WITH {posting_ctes()}
SELECT {POSTING_RETURNS}""",
    columns=POSTING_COLUMNS,
    inserts=POSTING_INSERTS,
    params=POSTING_PARAMS,
)


def post_with_operator(params: dict[str, Any]) -> tuple[int | None, int | None, int]:
    """Run :data:`POST_WITH_OPERATOR`: (transaction id, balance after, entries written). The currency and memo
    are the model's defaults unless given."""
    with cursor() as cur:
        execute(cur, POST_WITH_OPERATOR, posting_params(params))
        txn_id, balance, entries = cur.fetchone()
    return txn_id, balance, int(entries)


BALANCE_ADD = register(
    "wallet.balance_add",
    "UPDATE wallet_ledgeraccount SET balance = balance + %(amount)s WHERE id = %(account)s RETURNING balance",
    columns={A: ("id", "balance")},
    params={"amount": int, "account": int},
)


def balance_add(account_id: int, amount: int) -> int:
    with cursor() as cur:
        execute(cur, BALANCE_ADD, {"amount": amount, "account": account_id})
        return int(cur.fetchone()[0])


#: the one constraint a posting may meet by design: the same (kind, reference) posted twice
REFERENCE_CONSTRAINT = next(
    c.name for c in T._meta.constraints if isinstance(c, UniqueConstraint) and tuple(c.fields) == ("kind", "reference")
)


def is_reference_conflict(exc: IntegrityError) -> bool:
    """Whether this IntegrityError is the unique (kind, reference) of a ledger transaction (psycopg's
    ``diag.constraint_name``); a balance, zero-sum or debt check is not."""
    diag = getattr(exc.__cause__, "diag", None)
    return getattr(diag, "constraint_name", None) == REFERENCE_CONSTRAINT


# The archived months (core.partitions_archive, wallet/archived_totals.py) -------------------------------------------

CE, AM = CarriedEntries, ArchivedLedgerMonth
_CARRIED = ("account_id", "month", "ids_from", "ids_to", "amount", "entries", "archived_at")
_ARCHIVED = ("table_name", "month", "ids_from", "ids_to", "row_count", "archived_at")

#: one archived month of entries: each account's sum and count carried, and the month recorded, in ONE statement.
#: ``id >= low AND id < high`` is the month's partition (the partition key): it reads that partition once, whole
CARRY_ENTRIES = register(
    "wallet.carry_entries",
    """WITH carried AS (
    INSERT INTO wallet_carriedentries (account_id, month, ids_from, ids_to, amount, entries, archived_at)
    SELECT e.account_id, %(month)s, %(low)s, %(high)s, sum(e.amount), count(*), %(at)s
    FROM wallet_entry e WHERE e.id >= %(low)s AND e.id < %(high)s GROUP BY e.account_id
    RETURNING amount, entries
), archived AS (
    INSERT INTO wallet_archivedledgermonth (table_name, month, ids_from, ids_to, row_count, archived_at)
    SELECT %(table)s, %(month)s, %(low)s, %(high)s, COALESCE(sum(entries), 0), %(at)s FROM carried
    RETURNING row_count
)
SELECT (SELECT count(*) FROM carried), (SELECT row_count FROM archived),
       (SELECT COALESCE(sum(amount), 0) FROM carried)""",
    columns={E: ("id", "account_id", "amount"), CE: _CARRIED, AM: _ARCHIVED},
    inserts=(CE, AM),
    params={"table": str, "month": date, "low": int, "high": int, "at": datetime},
)


def carry_entries(*, month: date, low: int, high: int, at: datetime) -> tuple[int, int, int]:
    """Run :data:`CARRY_ENTRIES`: (accounts carried, entries, their sum: 0 for balanced transactions)."""
    with cursor() as cur:
        execute(cur, CARRY_ENTRIES, {"table": AM.Table.ENTRIES, "month": month, "low": low, "high": high, "at": at})
        accounts, entries, total = cur.fetchone()
    return int(accounts), int(entries), int(total)


#: one archived month of transactions recorded (their entries' month was archived before: they point at them)
CARRY_TRANSACTIONS = register(
    "wallet.carry_transactions",
    """INSERT INTO wallet_archivedledgermonth (table_name, month, ids_from, ids_to, row_count, archived_at)
SELECT %(table)s, %(month)s, %(low)s, %(high)s, count(*), %(at)s FROM wallet_ledgertransaction t
WHERE t.id >= %(low)s AND t.id < %(high)s RETURNING row_count""",
    columns={T: ("id",), AM: _ARCHIVED},
    inserts=(AM,),
    params={"table": str, "month": date, "low": int, "high": int, "at": datetime},
)


def carry_transactions(*, month: date, low: int, high: int, at: datetime) -> int:
    """Run :data:`CARRY_TRANSACTIONS`: the month's transactions."""
    with cursor() as cur:
        execute(
            cur,
            CARRY_TRANSACTIONS,
            {"table": AM.Table.TRANSACTIONS, "month": month, "low": low, "high": high, "at": at},
        )
        return int(cur.fetchone()[0])
