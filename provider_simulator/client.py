"""The wallet-API client of the simulator: one signed ``POST`` per call, JSON in and out, stdlib only.

Each call is signed as the contract says (HMAC-SHA256 of ``f"{timestamp}."`` + the raw body, headers
``X-Provider-Timestamp`` and ``X-Provider-Signature``) with the simulator's clock (``clock``, default
``time.time``: under time-machine it follows the patched clock, as the platform's does) and answered as
``Reply(status code, JSON)``. Connections are HTTP/1.1 keep-alive, one per thread. Every call and its answer go to
the journal when one is given.

Misbehaviour hooks for tests and the misbehaving modes (``provider_simulator.studio``): ``secret=`` signs with
another secret (a forged signature), ``timestamp=`` sends a given timestamp (a stale one), ``drop_answer=True``
sends the call and throws the answer away (the answer "timed out": the journal keeps what the platform said, the
caller gets ``None``).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .journal import Journal
from .signing import signed_headers

OPS = ("session", "balance", "bet", "win", "rollback", "round-end")


def money(amount: int) -> dict[str, Any]:
    """The house shape of an amount of haléře."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise TypeError("amounts are integer haléře")
    return {"amount": amount, "currency": "CZK"}


@dataclass(frozen=True)
class Reply:
    status: int  # HTTP status
    body: dict[str, Any] = field(default_factory=dict)  # the JSON answer ({} when not a JSON object)

    @property
    def ok(self) -> bool:
        return self.status == 200 and self.body.get("status") == "RS_OK"

    @property
    def provider_status(self) -> str:
        return str(self.body.get("status") or "")

    @property
    def error(self) -> dict[str, Any]:
        error = self.body.get("error")
        return error if isinstance(error, dict) else {}

    @property
    def code(self) -> str:
        return str(self.error.get("code") or "")

    @property
    def balance(self) -> int | None:
        """The balance in haléře, from a success or from ``error.details.balance``."""
        found = self.body.get("balance")
        if not isinstance(found, dict):
            details = self.error.get("details")
            found = details.get("balance") if isinstance(details, dict) else None
        amount = found.get("amount") if isinstance(found, dict) else None
        return amount if isinstance(amount, int) and not isinstance(amount, bool) else None

    def message(self, lang: str = "cs") -> str:
        """The refusal as the player reads it (Czech or English)."""
        error = self.error
        return str(error.get(f"message_{lang}") or error.get("message") or self.provider_status or self.status)


class WalletClient:
    def __init__(
        self,
        platform: str,
        provider: str,
        secret: str,
        *,
        journal: Journal | None = None,
        clock: Callable[[], float] = time.time,
        timeout: float = 30.0,
    ) -> None:
        parts = urlsplit(platform.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) address: {platform!r}")
        self.scheme, self.host = parts.scheme, parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.prefix = f"{parts.path}/api/v1/providers/{provider}/"
        self.provider, self.secret = provider, secret
        self.journal, self.clock, self.timeout = journal, clock, timeout
        self._local = threading.local()

    # --- the wire ------------------------------------------------------------------------------------------------
    def _connection(self) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
            conn = cls(self.host, self.port, timeout=self.timeout)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _post(self, path: str, raw: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        for attempt in (1, 2):
            conn = self._connection()
            reused = conn.sock is not None
            try:
                conn.request("POST", path, body=raw, headers=headers)
                response = conn.getresponse()
                data = response.read()
                if response.will_close:
                    self.close()
                return response.status, data
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.close()
                # a kept-alive connection the server had closed meanwhile: once more on a new one (a repeat of a
                # money call is a replay that moves nothing; the contract's exactly-once)
                if attempt == 2 or not reused:
                    raise
        raise AssertionError("unreachable")

    def call(
        self,
        op: str,
        body: dict[str, Any],
        *,
        secret: str | None = None,
        timestamp: int | None = None,
        drop_answer: bool = False,
        amount: int | None = None,
        mode: str = "",
        note: str = "",
    ) -> Reply | None:
        """Send one signed call; its ``Reply``, or None when ``drop_answer`` (the answer is journalled only)."""
        if op not in OPS:
            raise ValueError(f"unknown operation {op!r}")
        raw = json.dumps(body, separators=(",", ":")).encode()
        now = self.clock()
        ts = int(now) if timestamp is None else timestamp
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Accept-Language": "cs",
            **signed_headers(self.secret if secret is None else secret, ts, raw),
        }
        status, data = self._post(self.prefix + op, raw, headers)
        try:
            answer = json.loads(data) if data else {}
        except ValueError:
            answer = {"raw": data[:500].decode("utf-8", "replace")}
        if not isinstance(answer, dict):
            answer = {"raw": answer}
        if self.journal is not None:
            if amount is None and isinstance(body.get("amount"), dict):
                amount = body["amount"].get("amount")
            self.journal.record(
                at=now,
                op=op,
                request=body,
                status_code=status,
                answer=answer,
                amount=amount,
                mode=mode,
                note=", ".join(filter(None, [note, "answer dropped" if drop_answer else ""])),
            )
        return None if drop_answer else Reply(status, answer)

    def _must(self, reply: Reply | None) -> Reply:
        assert reply is not None
        return reply

    # --- the operations ------------------------------------------------------------------------------------------
    def session(self, launch_token: str, **kw: Any) -> Reply:
        return self._must(self.call("session", {"launch_token": launch_token}, **kw))

    def balance(self, session: str, **kw: Any) -> Reply:
        return self._must(self.call("balance", {"session": session}, **kw))

    def bet(
        self,
        session: str,
        *,
        transaction_id: str,
        round_id: str,
        game: str,
        amount: int,
        round_closed: bool = False,
        **kw: Any,
    ) -> Reply | None:
        return self.call(
            "bet",
            {
                "session": session,
                "transaction_id": transaction_id,
                "round_id": round_id,
                "game": game,
                "amount": money(amount),
                "round_closed": round_closed,
            },
            **kw,
        )

    def win(
        self,
        session: str,
        *,
        transaction_id: str,
        bet_transaction_id: str,
        round_id: str,
        amount: int,
        round_closed: bool = True,
        round_detail: dict[str, Any] | None = None,
        **kw: Any,
    ) -> Reply | None:
        """``round_detail``: the studio's record of the round, sent with the call that closes it."""
        body = {
            "session": session,
            "transaction_id": transaction_id,
            "bet_transaction_id": bet_transaction_id,
            "round_id": round_id,
            "amount": money(amount),
            "round_closed": round_closed,
        }
        if round_detail is not None:
            body["round_detail"] = round_detail
        return self.call("win", body, **kw)

    def rollback(
        self, session: str, *, transaction_id: str, bet_transaction_id: str, round_id: str, **kw: Any
    ) -> Reply | None:
        """``amount=`` (the bet's, journal only: the report names what was cancelled) is not sent."""
        return self.call(
            "rollback",
            {
                "session": session,
                "transaction_id": transaction_id,
                "bet_transaction_id": bet_transaction_id,
                "round_id": round_id,
            },
            **kw,
        )

    def round_end(
        self, session: str, *, round_id: str, transaction_id: str, round_detail: dict[str, Any] | None = None, **kw: Any
    ) -> Reply | None:
        body: dict[str, Any] = {"session": session, "round_id": round_id, "transaction_id": transaction_id}
        if round_detail is not None:
            body["round_detail"] = round_detail
        return self.call("round-end", body, **kw)
