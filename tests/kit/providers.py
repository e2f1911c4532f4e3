"""Test helpers of the providers (also for the simulator's engineer): a test client that signs each call the way a
provider does (the wire contract), and a small local HTTP server standing in for a provider's own API."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rest_framework.test import APIClient

from core.audit import Actor
from games.models import Game
from games.services import game_approve, remote_game_upsert
from providers.models import Provider
from providers.services import provider_save
from providers.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, signature, signature_valid
from tests.kit.accounts import login_session_for

BASE = "/api/v1/providers"


class SignedClient:
    """Calls ``/api/v1/providers/<provider>/<operation>`` signed with ``secret`` through a Django test client (or
    any client with ``post(path, data, content_type=..., **headers)``). ``timestamp`` overrides the clock's;
    ``forge`` signs with another secret."""

    def __init__(self, client: Any, provider: str, secret: str, *, remote_addr: str = "127.0.0.1") -> None:
        self.client, self.provider, self.secret, self.remote_addr = client, provider, secret, remote_addr

    def raw(
        self,
        operation: str,
        body: bytes,
        *,
        timestamp: int | None = None,
        secret: str | None = None,
        signed: bool = True,
    ) -> Any:
        from core import clock

        ts = int(clock.now().timestamp()) if timestamp is None else timestamp
        headers = {f"HTTP_{TIMESTAMP_HEADER.upper().replace('-', '_')}": str(ts)}
        if signed:
            headers[f"HTTP_{SIGNATURE_HEADER.upper().replace('-', '_')}"] = signature(secret or self.secret, ts, body)
        return self.client.post(
            f"{BASE}/{self.provider}/{operation}",
            data=body,
            content_type="application/json",
            REMOTE_ADDR=self.remote_addr,
            **headers,
        )

    def call(self, operation: str, payload: dict[str, Any], **kw: Any) -> Any:
        return self.raw(operation, json.dumps(payload).encode(), **kw)


class ProviderServer:
    """A provider's own API on 127.0.0.1 (a real HTTP server in a thread): records every signed POST it receives
    (operation, JSON body, whether the signature verified) and answers with ``answer(operation, body)`` -> (status,
    JSON). Use as a context manager; ``url`` is its api_url."""

    def __init__(self, secret: str, answer: Callable[[str, dict[str, Any]], tuple[int, dict[str, Any]]] | None = None):
        self.secret = secret
        self.answer = answer or (lambda op, body: (200, {"status": "RS_OK"}))
        self.calls: list[tuple[str, dict[str, Any], bool]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                ok = signature_valid(
                    server.secret, self.headers.get(TIMESTAMP_HEADER, ""), raw, self.headers.get(SIGNATURE_HEADER, "")
                )
                body = json.loads(raw or b"{}")
                op = self.path.rsplit("/", 1)[-1]
                server.calls.append((op, body, ok))
                status, answer = server.answer(op, body) if ok else (401, {"status": "RS_ERROR_INVALID_SIGNATURE"})
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/api"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> ProviderServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def wait_for(self, n: int, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while len(self.calls) < n and time.monotonic() < deadline:
            time.sleep(0.02)


START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)
SECRET = "test-provider-secret-0123456789-abcdefghij"
CODE = "sim"


def make_provider(code: str = CODE, **kw: Any) -> Provider:
    fields = {
        "name": "Sim",
        "enabled": True,
        "launch_url": "http://127.0.0.1:8300/play",
        "api_url": "http://127.0.0.1:8300/api",
        "allowed_sources": ["127.0.0.1/32"],
        **kw,
    }
    return provider_save(provider=Provider(code=code, **fields), new_secret=SECRET, actor=Actor.system("tests"))


def make_game(
    provider: str = CODE, slug: str = "wild", *, approved: bool = True, max_bet: int = 100_000, deadline_days: int = 90
) -> Game:
    row = remote_game_upsert(
        provider=provider,
        provider_game_id=slug,
        name=f"Game {slug}",
        kind="slot",
        rtp=Decimal("96.00"),
        min_bet=10,
        max_bet=max_bet,
        max_win=5_000_000,
        avg_hourly_loss=max_bet * 4 * 1800 // 100,
        unfinished_deadline_days=deadline_days,
        actor=Actor.system("tests"),
    )
    if approved:
        row = game_approve(game=row, plan_version="test", reference="TEST-1", actor=Actor.system("tests"))
    return row


def player_client(player: Any) -> APIClient:
    """The player's API client, signed in through a login session (a studio's game session belongs to it)."""
    c = APIClient(raise_request_exception=False)
    c.credentials(HTTP_AUTHORIZATION=f"Token {login_session_for(player)[1]}")
    return c


def open_session(player: Any, signed: SignedClient, game: str = f"{CODE}_wild") -> str:
    launch = player_client(player).post(
        f"/api/v1/providers/{signed.provider}/launch", {"game": game, "lang": "cs"}, format="json"
    )
    assert launch.status_code == 201, launch.content
    answer = signed.call("session", {"launch_token": launch.json()["launch_token"]})
    assert answer.status_code == 200, answer.content
    return str(answer.json()["session"])
