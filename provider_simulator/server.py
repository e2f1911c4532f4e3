"""The simulator's web server (stdlib WSGI, one thread per request):

``GET /play?token=...&game=...&lang=cs|en[&mode=...]``  the launch URL: exchanges the single-use launch token for a
    game session (``POST session``) and serves the game page (balance, stake selector, Spin); the page's script is
    a static file (a strict CSP: nothing inline, nothing from another origin)
``POST /spin``  ``{"stake": <haléře>}`` with the page's ``X-Sim-Session``: bet -> draw -> win (round_closed) through
    the platform's wallet; the result, or the platform's refusal in the player's language
``POST /api/round-cancelled``, ``POST /api/round-report``  the provider's endpoints the platform calls (its
    ``api_url`` is ``http://<here>/api``), signed by the platform with the same secret; checked here
``GET /journal``  what the simulator sent and was answered (JSON; a sandbox's window for people and tests)
``GET /health``

A misbehaving session: ``mode=`` on the launch URL (one of ``studio.MODES``), else the server's default
(``--mode`` / ``PROVIDER_SIM_MODE``).
"""

from __future__ import annotations

import html
import http.client
import json
import secrets
import socketserver
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from .client import WalletClient
from .journal import Journal
from .signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, verify
from .slot import GAME_NAME, STAKES, Slot, StakeError, stake_check
from .studio import MODES, Studio

STATIC = Path(__file__).resolve().parent / "static"
STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
MAX_BODY = 64 * 1024
TEXT = {
    "cs": {
        "balance": "Zůstatek",
        "stake": "Sázka",
        "spin": "Točit",
        "win": "Výhra",
        "lost": "Bez výhry",
        "refused": "Platforma odmítla",
        "title": "Simulátor poskytovatele",
        "mode": "Režim",
        "game": "Hra",
        "lobby": "Zpět do kasina",
    },
    "en": {
        "balance": "Balance",
        "stake": "Stake",
        "spin": "Spin",
        "win": "Win",
        "lost": "No win",
        "refused": "The platform refused",
        "title": "Provider simulator",
        "mode": "Mode",
        "game": "Game",
        "lobby": "Back to the casino",
    },
}

StartResponse = Callable[..., Any]


@dataclass
class PlayerSession:
    """One launched game: the platform's session and what the page needs."""

    platform_session: str
    player: str
    game: str
    lang: str
    mode: str
    balance: int | None
    lock: threading.Lock = field(default_factory=threading.Lock)  # one spin at a time per session


def czk(amount: int | None) -> str:
    if amount is None:
        return "?"
    return f"{amount // 100:,}.{amount % 100:02d} CZK".replace(",", " ")


class SimulatorApp:
    def __init__(
        self,
        *,
        platform: str,
        provider: str,
        secret: str,
        journal: Journal | None = None,
        mode: str = "normal",
        slot: Slot | None = None,
        clock: Callable[[], float] = time.time,
        late_seconds: float = 0.0,
        lobby: str | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self.secret, self.mode, self.clock = secret, mode, clock
        # where "back to the casino" leads: the platform's player client (its lobby), unless told otherwise
        self.lobby = lobby or f"{platform.rstrip('/')}/play#/games"
        self.journal = journal or Journal()
        self.client = WalletClient(platform, provider, secret, journal=self.journal, clock=clock)
        self.studio = Studio(self.client, slot, late_seconds=late_seconds)
        self.sessions: dict[str, PlayerSession] = {}
        self._lock = threading.Lock()

    # --- WSGI ----------------------------------------------------------------------------------------------------
    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        method, path = environ.get("REQUEST_METHOD", "GET"), environ.get("PATH_INFO", "/")
        routes: dict[tuple[str, str], Callable[[dict[str, Any]], tuple[int, dict[str, str], bytes]]] = {
            ("GET", "/play"): self.play,
            ("POST", "/spin"): self.spin,
            ("POST", "/api/round-cancelled"): self.round_cancelled,
            ("POST", "/api/round-report"): self.round_report,
            ("GET", "/journal"): self.journal_view,
            ("GET", "/health"): lambda e: _json(200, {"status": "ok"}),
        }
        try:
            if path.startswith("/static/") and method == "GET":
                status, headers, body = self.static(path.removeprefix("/static/"))
            elif (method, path) in routes:
                status, headers, body = routes[(method, path)](environ)
            elif any(p == path for _, p in routes):
                status, headers, body = _json(405, {"error": "method not allowed"})
            else:
                status, headers, body = _json(404, {"error": "not found"})
        except BadRequest as exc:
            status, headers, body = _json(400, {"error": str(exc)})
        except (OSError, http.client.HTTPException) as exc:  # the platform did not answer (refused, timed out)
            status, headers, body = _json(502, {"error": f"the platform did not answer: {type(exc).__name__}"})
        start_response(
            f"{status} {_REASONS.get(status, 'Status')}", [*headers.items(), ("Content-Length", str(len(body)))]
        )
        return [body]

    # --- the player's side ---------------------------------------------------------------------------------------
    def play(self, environ: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        query = {k: v[0] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}
        lang = "en" if query.get("lang") == "en" else "cs"
        mode = query.get("mode") or self.mode
        if mode not in MODES:
            return _page(400, lang, f"<p class='refused'>unknown mode {html.escape(mode)}</p>")
        token = query.get("token", "")
        if not token:
            return _page(400, lang, "<p class='refused'>token?</p>")
        back = f"<p><a id='lobby' href='{html.escape(self.lobby)}'>{html.escape(TEXT[lang]['lobby'])}</a></p>"
        reply = self.studio.session(token)
        if not reply.ok:
            return _page(
                reply.status if 400 <= reply.status < 600 else 502,
                lang,
                f"<p class='refused' id='refusal'>{html.escape(TEXT[lang]['refused'])}: "
                f"{html.escape(reply.message(lang))}</p>{back}",
            )
        sid = secrets.token_urlsafe(24)
        player = PlayerSession(
            platform_session=str(reply.body.get("session")),
            player=str(reply.body.get("player")),
            game=str(reply.body.get("game") or query.get("game") or ""),
            lang=lang,
            mode=mode,
            balance=reply.balance,
        )
        with self._lock:
            self.sessions[sid] = player
        t = TEXT[lang]
        options = "".join(
            f"<option value='{s}'{' selected' if s == 100 else ''}>{html.escape(czk(s))}</option>" for s in STAKES
        )
        body = (
            f"<main id='game' data-sid='{html.escape(sid)}' data-lang='{lang}'>"
            f"<h1>{html.escape(GAME_NAME)}</h1>"
            f"<p>{t['balance']}: <output id='balance'>{html.escape(czk(player.balance))}</output></p>"
            "<div id='reels' class='reels'>"
            + "".join(f"<span class='cell' id='cell-{r}-{c}'>?</span>" for r in range(3) for c in range(3))
            + "</div>"
            f"<p><label>{t['stake']} <select id='stake'>{options}</select></label> "
            f"<button id='spin' type='button'>{t['spin']}</button></p>"
            "<p id='result' role='status'></p>"
            f"<p class='mode'>{t['game']}: {html.escape(player.game)} · {t['mode']}: {html.escape(mode)}</p>"
            f"{back}</main>"
        )
        return _page(200, lang, body)

    def spin(self, environ: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        sid = environ.get("HTTP_X_SIM_SESSION", "")
        with self._lock:
            player = self.sessions.get(sid)
        if player is None:
            return _json(401, {"error": "no such game session"})
        body = _read_json(environ)
        stake = body.get("stake")
        try:
            stake_check(stake)
        except StakeError as exc:
            return _json(400, {"error": str(exc)})
        assert isinstance(stake, int)
        with player.lock:
            result = self.studio.play_round(player.platform_session, stake, mode=player.mode, game=player.game)
            if result.balance is not None:
                player.balance = result.balance
            answer = result.as_json(player.lang)
            answer["balance_text"] = czk(player.balance)
        return _json(200, answer)

    # --- the platform's calls ------------------------------------------------------------------------------------
    def _signed(self, environ: dict[str, Any]) -> tuple[dict[str, Any] | None, tuple[int, dict[str, str], bytes]]:
        raw = _read(environ)
        why = verify(
            self.secret,
            timestamp=environ.get("HTTP_" + TIMESTAMP_HEADER.upper().replace("-", "_")),
            signature_value=environ.get("HTTP_" + SIGNATURE_HEADER.upper().replace("-", "_")),
            body=raw,
            now=self.clock(),
        )
        if why is not None:
            return None, _json(
                401,
                {
                    "status": "RS_ERROR_INVALID_SIGNATURE",
                    "error": {
                        "code": "simulator.invalid_signature",
                        "message": f"signature refused: {why}",
                        "details": {},
                    },
                },
            )
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return None, _json(
                400,
                {
                    "status": "RS_ERROR_WRONG_SYNTAX",
                    "error": {"code": "simulator.wrong_syntax", "message": "a JSON object is expected", "details": {}},
                },
            )
        return body, (200, {}, b"")

    def round_cancelled(self, environ: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        body, refused = self._signed(environ)
        if body is None:
            return refused
        self.journal.cancelled_record(at=self.clock(), body=body)
        return _json(200, {"status": "RS_OK"})

    def round_report(self, environ: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        body, refused = self._signed(environ)
        if body is None:
            return refused
        day = str(body.get("day") or "")
        if len(day) != 10 or day[4] != "-" or day[7] != "-" or not day.replace("-", "").isdigit():
            return _json(
                400,
                {
                    "status": "RS_ERROR_WRONG_SYNTAX",
                    "error": {"code": "simulator.wrong_syntax", "message": "day: YYYY-MM-DD", "details": {}},
                },
            )
        return _json(200, {"status": "RS_OK", "day": day, "transactions": self.journal.report(day)})

    def journal_view(self, environ: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        return _json(
            200,
            {
                "calls": [
                    {
                        "at": c.at,
                        "op": c.op,
                        "transaction_id": c.transaction_id,
                        "round_id": c.round_id,
                        "amount": c.amount,
                        "mode": c.mode,
                        "note": c.note,
                        "status_code": c.status_code,
                        "provider_status": c.provider_status,
                    }
                    for c in self.journal.calls()
                ],
                "cancelled": self.journal.cancelled(),
            },
        )

    def static(self, name: str) -> tuple[int, dict[str, str], bytes]:
        path = (STATIC / name).resolve()
        if path.parent != STATIC or path.suffix not in STATIC_TYPES or not path.is_file():
            return _json(404, {"error": "not found"})
        return 200, {"Content-Type": STATIC_TYPES[path.suffix], "Cache-Control": "no-cache"}, path.read_bytes()


class BadRequest(Exception):
    pass


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Payload Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


def _read(environ: dict[str, Any]) -> bytes:
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise BadRequest("bad Content-Length") from None
    if length < 0 or length > MAX_BODY:
        raise BadRequest("body too large")
    return environ["wsgi.input"].read(length) if length else b""


def _read_json(environ: dict[str, Any]) -> dict[str, Any]:
    try:
        body = json.loads(_read(environ) or b"{}")
    except ValueError:
        raise BadRequest("a JSON object is expected") from None
    if not isinstance(body, dict):
        raise BadRequest("a JSON object is expected")
    return body


def _json(status: int, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json", "Cache-Control": "no-store"}, json.dumps(body).encode()


def _page(status: int, lang: str, main: str) -> tuple[int, dict[str, str], bytes]:
    page = (
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<link rel='icon' href='data:,'>"
        f"<title>{html.escape(TEXT[lang]['title'])}</title><link rel='stylesheet' href='/static/sim.css'>"
        f"<script type='module' src='/static/sim.js'></script></head><body>{main}</body></html>"
    )
    return (
        status,
        {
            "Content-Type": "text/html; charset=utf-8",
            "Content-Security-Policy": CSP,
            "Referrer-Policy": "no-referrer",
            "Cache-Control": "no-store",
        },
        page.encode(),
    )


# --- serving ----------------------------------------------------------------------------------------------------------
class ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        if getattr(self.server, "verbose", False):
            super().log_message(format, *args)


def make(app: SimulatorApp, host: str = "127.0.0.1", port: int = 0, *, verbose: bool = False) -> WSGIServer:
    server = make_server(host, port, app, server_class=ThreadingWSGIServer, handler_class=QuietHandler)
    server.verbose = verbose  # type: ignore[attr-defined]  # our flag on the server, read by QuietHandler
    return server


class Running:
    """A simulator serving in a thread of this process (tests): ``url``, ``app``, ``stop()``."""

    def __init__(self, app: SimulatorApp, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = app
        self.server = make(app, host, port)
        self.url = f"http://{host}:{self.server.server_address[1]}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, name="provider-simulator", daemon=True
        )
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)
