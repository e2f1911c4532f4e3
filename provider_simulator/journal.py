"""The simulator's own journal: every call it sent to the platform and the answer it got (or that it dropped), and
every round the platform told it was cancelled. In memory (``:memory:``, tests) or a small SQLite file
(``.data/provider-sim.sqlite3`` under ``python -m provider_simulator``).

The daily round report (``POST {api_url}/round-report``) is read from here: the bets, wins and rollbacks the platform
acknowledged (RS_OK) on that Prague day, each transaction once however often it was sent.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

PRAGUE = ZoneInfo("Europe/Prague")
MONEY_OPS = ("bet", "win", "rollback")

SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,               -- unix seconds when sent (the simulator's clock)
    day TEXT NOT NULL,              -- the Prague operating day of ``at``
    op TEXT NOT NULL,               -- session | balance | bet | win | rollback | round-end
    transaction_id TEXT,
    bet_transaction_id TEXT,
    round_id TEXT,
    amount INTEGER,                 -- haléře: the bet's or the win's amount; a rollback's: the bet it cancels
    mode TEXT NOT NULL DEFAULT '',  -- the misbehaviour this call was part of (empty: none)
    note TEXT NOT NULL DEFAULT '',  -- e.g. 'answer dropped', 'duplicate', 'forged signature'
    request TEXT NOT NULL,
    status_code INTEGER,            -- HTTP status (NULL: no answer at all)
    provider_status TEXT,           -- RS_OK, RS_ERROR_...
    answer TEXT
);
CREATE INDEX IF NOT EXISTS calls_day ON calls (day);
CREATE TABLE IF NOT EXISTS cancelled (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    round_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    refunded INTEGER NOT NULL,
    body TEXT NOT NULL
);
"""


def prague_day(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).astimezone(PRAGUE).date().isoformat()


@dataclass(frozen=True)
class Call:
    id: int
    at: float
    day: str
    op: str
    transaction_id: str | None
    bet_transaction_id: str | None
    round_id: str | None
    amount: int | None
    mode: str
    note: str
    request: dict[str, Any]
    status_code: int | None
    provider_status: str | None
    answer: dict[str, Any] | None


class Journal:
    def __init__(self, path: str | Path = ":memory:") -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.executescript(SCHEMA)

    def record(
        self,
        *,
        at: float,
        op: str,
        request: dict[str, Any],
        status_code: int | None,
        answer: dict[str, Any] | None,
        amount: int | None = None,
        mode: str = "",
        note: str = "",
    ) -> int:
        provider_status = answer.get("status") if isinstance(answer, dict) else None
        with self._lock:
            cursor = self._db.execute(
                "INSERT INTO calls (at, day, op, transaction_id, bet_transaction_id, round_id, amount, mode, note,"
                " request, status_code, provider_status, answer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    at,
                    prague_day(at),
                    op,
                    request.get("transaction_id"),
                    request.get("bet_transaction_id"),
                    request.get("round_id"),
                    amount,
                    mode,
                    note,
                    json.dumps(request),
                    status_code,
                    provider_status if isinstance(provider_status, str) else None,
                    None if answer is None else json.dumps(answer),
                ),
            )
            return int(cursor.lastrowid or 0)

    def calls(self, *, round_id: str | None = None, op: str | None = None) -> list[Call]:
        where, params = [], []
        if round_id is not None:
            where.append("round_id = ?")
            params.append(round_id)
        if op is not None:
            where.append("op = ?")
            params.append(op)
        sql = "SELECT * FROM calls" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id"
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        return [
            Call(
                id=r[0],
                at=r[1],
                day=r[2],
                op=r[3],
                transaction_id=r[4],
                bet_transaction_id=r[5],
                round_id=r[6],
                amount=r[7],
                mode=r[8],
                note=r[9],
                request=json.loads(r[10]),
                status_code=r[11],
                provider_status=r[12],
                answer=None if r[13] is None else json.loads(r[13]),
            )
            for r in rows
        ]

    def report(self, day: date | str) -> list[dict[str, Any]]:
        """The transactions of the round report: bets, wins and rollbacks acknowledged RS_OK on ``day``, each
        transaction id once (its first acknowledged call), in the order they were made."""
        with self._lock:
            rows = self._db.execute(
                "SELECT transaction_id, op, round_id, amount FROM calls WHERE day = ? AND op IN ('bet', 'win',"
                " 'rollback') AND provider_status = 'RS_OK' AND status_code = 200 ORDER BY id",
                (str(day),),
            ).fetchall()
        seen: set[str] = set()
        out = []
        for transaction_id, op, round_id, amount in rows:
            if transaction_id in seen:
                continue
            seen.add(transaction_id)
            out.append(
                {
                    "transaction_id": transaction_id,
                    "type": op,
                    "round_id": round_id,
                    "amount": {"amount": int(amount or 0), "currency": "CZK"},
                }
            )
        return out

    def cancelled_record(self, *, at: float, body: dict[str, Any]) -> None:
        refunded = body.get("refunded")
        amount = refunded.get("amount") if isinstance(refunded, dict) else None
        with self._lock:
            self._db.execute(
                "INSERT INTO cancelled (at, round_id, reason, refunded, body) VALUES (?, ?, ?, ?, ?)",
                (
                    at,
                    str(body.get("round_id")),
                    str(body.get("reason")),
                    amount if isinstance(amount, int) else 0,
                    json.dumps(body),
                ),
            )

    def cancelled(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT at, round_id, reason, refunded FROM cancelled ORDER BY id").fetchall()
        return [
            {"at": at, "round_id": round_id, "reason": reason, "refunded": refunded}
            for at, round_id, reason, refunded in rows
        ]

    def close(self) -> None:
        with self._lock:
            self._db.close()
