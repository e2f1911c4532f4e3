"""A small stand-in of the platform's wallet API for the simulator's own tests: a real HTTP server on 127.0.0.1 that
checks the signature as the contract says and keeps the contract's rules of money (exactly once per transaction id,
a win needs its bet, a rollback of an unknown bet is a tombstone). It records every call it received, so a test
can say which calls a misbehaviour mode made. The simulator against the real platform: providers/tests/
test_simulator_contract.py."""

from __future__ import annotations

import json
import secrets
import threading
import time
from typing import Any
from wsgiref.simple_server import make_server

from provider_simulator.server import QuietHandler, ThreadingWSGIServer
from provider_simulator.signing import verify


def _money(amount: int) -> dict[str, Any]:
    return {"amount": amount, "currency": "CZK"}


class FakeWallet:
    def __init__(self, secret: str, *, balance: int = 100_000, provider: str = "simstudio") -> None:
        self.secret, self.balance, self.provider = secret, balance, provider
        self.tokens: set[str] = set()
        self.sessions: set[str] = set()
        self.bets: dict[str, dict[str, Any]] = {}
        self.tombstones: set[str] = set()
        self.answers: dict[str, tuple[str, int, dict[str, Any]]] = {}  # txn -> (body, status, answer)
        self.received: list[tuple[str, dict[str, Any], int]] = []  # (op, body, status answered)
        self.refusal: tuple[int, dict[str, Any]] | None = None  # the next bet is refused with this
        self.lock = threading.Lock()
        self.server = make_server("127.0.0.1", 0, self, server_class=ThreadingWSGIServer, handler_class=QuietHandler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def launch_token(self) -> str:
        token = secrets.token_urlsafe(32)
        self.tokens.add(token)
        return token

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def ops(self) -> list[str]:
        return [op for op, _, _ in self.received]

    # --- WSGI ----------------------------------------------------------------------------------------------------
    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        raw = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        op = environ["PATH_INFO"].removeprefix(f"/api/v1/providers/{self.provider}/")
        why = verify(
            self.secret,
            timestamp=environ.get("HTTP_X_PROVIDER_TIMESTAMP"),
            signature_value=environ.get("HTTP_X_PROVIDER_SIGNATURE"),
            body=raw,
            now=time.time(),
        )
        body = json.loads(raw)
        with self.lock:
            if why is not None:
                status, answer = 401, self._error("RS_ERROR_INVALID_SIGNATURE", "providers.invalid_signature")
            else:
                status, answer = self.answer(op, body, raw.decode())
            self.received.append((op, body, status))
        data = json.dumps(answer).encode()
        start_response(f"{status} X", [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
        return [data]

    def _error(self, status: str, code: str, **details: Any) -> dict[str, Any]:
        return {
            "status": status,
            "error": {
                "code": code,
                "message": code,
                "message_cs": f"{code} (cs)",
                "message_en": f"{code} (en)",
                "details": details,
            },
        }

    def _ok(self, **extra: Any) -> dict[str, Any]:
        return {"status": "RS_OK", "balance": _money(self.balance), **extra}

    def answer(self, op: str, body: dict[str, Any], raw: str) -> tuple[int, dict[str, Any]]:
        txn = body.get("transaction_id")
        if txn is not None and txn in self.answers:
            first_body, status, answer = self.answers[txn]
            if first_body != raw:
                return 409, self._error("RS_ERROR_DUPLICATE_TRANSACTION", "providers.duplicate_transaction")
            return status, answer
        status, answer = getattr(self, "op_" + op.replace("-", "_"))(body)
        if txn is not None and status == 200:
            self.answers[txn] = (raw, status, answer)
        return status, answer

    def op_session(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if body.get("launch_token") not in self.tokens:
            return 401, self._error("RS_ERROR_INVALID_TOKEN", "providers.invalid_token")
        self.tokens.discard(body["launch_token"])
        session = secrets.token_hex(8)
        self.sessions.add(session)
        return 200, self._ok(session=session, player="p-1", game="sim_fruits", currency="CZK")

    def op_balance(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return 200, self._ok()

    def op_bet(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        txn, amount = body["transaction_id"], body["amount"]["amount"]
        if txn in self.tombstones:
            return 409, self._error("RS_ERROR_TRANSACTION_ROLLED_BACK", "providers.transaction_rolled_back")
        if self.refusal is not None:
            (status, error), self.refusal = self.refusal, None
            return status, error
        if amount > self.balance:
            return 402, self._error(
                "RS_ERROR_NOT_ENOUGH_MONEY", "wallet.insufficient_funds", balance=_money(self.balance)
            )
        self.balance -= amount
        self.bets[txn] = {"round_id": body["round_id"], "amount": amount, "won": False, "rolled_back": False}
        return 200, self._ok(transaction_id=txn, platform_transaction_id=f"pt-{len(self.bets)}")

    def op_win(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        bet = self.bets.get(body["bet_transaction_id"])
        if bet is None:
            return 404, self._error("RS_ERROR_TRANSACTION_DOES_NOT_EXIST", "providers.transaction_does_not_exist")
        if bet["rolled_back"]:
            return 409, self._error("RS_ERROR_TRANSACTION_ROLLED_BACK", "providers.transaction_rolled_back")
        bet["won"] = True
        self.balance += body["amount"]["amount"]
        return 200, self._ok(transaction_id=body["transaction_id"])

    def op_rollback(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        bet = self.bets.get(body["bet_transaction_id"])
        if bet is None:
            self.tombstones.add(body["bet_transaction_id"])
            return 200, self._ok(transaction_id=body["transaction_id"])
        if bet["won"]:
            return 409, self._error("RS_ERROR_ROLLBACK_AFTER_WIN", "providers.rollback_after_win")
        if not bet["rolled_back"]:
            bet["rolled_back"] = True
            self.balance += bet["amount"]
        return 200, self._ok(transaction_id=body["transaction_id"])

    def op_round_end(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return 200, self._ok(transaction_id=body["transaction_id"])
