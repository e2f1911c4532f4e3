"""The load client of ``make bench``: real HTTP/1.1 against the player API, asyncio, keep-alive, stdlib only.

Each of ``connections`` connections serves its own share of the players round-robin: it starts the round of the
player whose turn is due, finishes a Kobushi round that waits for the player through the actions endpoint, and
never starts a player's next round less than 2 s after the previous one started (GP §7(9); the round's
``started_at`` is the server's clock, which is this machine's clock). A connection the server closes (``sync``
workers close after every response, an idle keep-alive times out) is opened again; a request that failed before
any answer arrived is sent once more with the same ``Idempotency-Key`` (a replay moves nothing).

Only 127.0.0.1 is ever contacted. Every loop is bounded in time: no round starts after ``seconds``; rounds already
started are finished within ``grace`` seconds more.
"""

from __future__ import annotations

import asyncio
import heapq
import json
import math
import os
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

HOST = "127.0.0.1"
ROULETTE = "european_roulette"
KOBUSHI = "kobushi"
BETS: dict[str, dict[str, Any]] = {
    # amounts as Money objects, the API's one convention (docs/player-api.md)
    ROULETTE: {"bets": [{"type": "red", "amount": {"amount": 100, "currency": "CZK"}}]},  # 1 CZK on red
    KOBUSHI: {"lines": 30, "coins": 1, "coin_value": {"amount": 10, "currency": "CZK"}},  # 3 CZK (max bet 10 CZK)
}
MIN_ROUND_SECONDS = 2.0  # GP §7(9)
MARGIN_SECONDS = 0.01  # on top of the 2 s, against rounding of the server's timestamps
REQUEST_TIMEOUT = 60.0
MAX_ACTIONS = 500  # a Kobushi round needs at most a few dozen


class HttpError(Exception):
    """The connection broke or timed out before a whole answer arrived."""


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    @property
    def sql(self) -> int | None:
        raw = self.headers.get("x-sql-count")
        return int(raw) if raw is not None and raw.isdigit() else None


class Connection:
    """One HTTP/1.1 connection to 127.0.0.1:port, kept alive while the server allows it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.opened = 0

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except OSError:
                pass
        self.reader = self.writer = None

    async def request(
        self,
        method: str,
        path: str,
        *,
        token: str | None,
        body: Any = None,
        key: str | None = None,
        raw_body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        """``token``: the player's (None: a provider's signed call, its ``headers`` and exact ``raw_body``)."""
        payload = (
            raw_body
            if raw_body is not None
            else (b"" if body is None else json.dumps(body, separators=(",", ":")).encode())
        )
        head = [
            f"{method} {path} HTTP/1.1",
            f"Host: {HOST}:{self.port}",
            "Accept: application/json",
            "Accept-Language: en",
            f"Content-Length: {len(payload)}",
        ]
        if token is not None:
            head.append(f"Authorization: Token {token}")
        if body is not None or raw_body is not None:
            head.append("Content-Type: application/json")
        if key is not None:
            head.append(f"Idempotency-Key: {key}")
        head += [f"{name}: {value}" for name, value in (headers or {}).items()]
        raw = ("\r\n".join(head) + "\r\n\r\n").encode() + payload
        for attempt in (1, 2):
            reused = self.writer is not None
            try:
                return await asyncio.wait_for(self._exchange(raw), REQUEST_TIMEOUT)
            except (HttpError, OSError, asyncio.IncompleteReadError) as exc:  # TimeoutError is an OSError
                await self.close()
                # A kept-alive connection the server had closed meanwhile: send once more on a new one. Safe: the
                # same Idempotency-Key makes a repeat a replay that moves nothing. A timeout is not repeated.
                if attempt == 2 or not reused or isinstance(exc, TimeoutError):
                    raise HttpError(f"{type(exc).__name__}: {exc}") from None
        raise AssertionError("unreachable")

    async def _exchange(self, raw: bytes) -> Response:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
            self.opened += 1
        assert self.reader is not None
        self.writer.write(raw)
        await self.writer.drain()
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            raise HttpError("closed before answering") from None
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = await self._chunked()
        else:  # the body ends with the connection
            body = await self.reader.read()
            headers["connection"] = "close"
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return Response(status, headers, body)

    async def _chunked(self) -> bytes:
        assert self.reader is not None
        parts: list[bytes] = []
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await self.reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)


@dataclass
class Player:
    player_id: int
    token: str
    next_at: float = 0.0  # wall clock (the server's started_at is wall clock too)


@dataclass
class Stats:
    """What the load saw; merged over the connections."""

    round_ms: list[float] = field(default_factory=list)  # POST /rounds
    action_ms: list[float] = field(default_factory=list)  # POST /rounds/{id}/actions
    settled_sql: list[int] = field(default_factory=list)  # statements of a settled round (start + its actions)
    settled_sql_by_kind: dict[str, list[int]] = field(default_factory=dict)
    settled_ms: list[float] = field(default_factory=list)  # start of the round to its settlement (all requests)
    settled: Counter[str] = field(default_factory=Counter)  # by game
    outcomes: Counter[str] = field(default_factory=Counter)  # status of every answer: 201, 200, or the error code
    errors: Counter[str] = field(default_factory=Counter)  # error codes (and transport failures)
    started_rounds: int = 0
    actions: int = 0
    connections_opened: int = 0
    first_start: float = 0.0
    last_end: float = 0.0

    def merge(self, other: Stats) -> None:
        self.round_ms += other.round_ms
        self.action_ms += other.action_ms
        self.settled_sql += other.settled_sql
        for kind, values in other.settled_sql_by_kind.items():
            self.settled_sql_by_kind.setdefault(kind, []).extend(values)
        self.settled_ms += other.settled_ms
        self.settled.update(other.settled)
        self.outcomes.update(other.outcomes)
        self.errors.update(other.errors)
        self.started_rounds += other.started_rounds
        self.actions += other.actions
        self.connections_opened += other.connections_opened


def _error_code(response: Response) -> str:
    body = response.json()
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("code") or f"http_{response.status}")
    return f"http_{response.status}"


def _started_at(body: dict[str, Any], fallback: float) -> float:
    try:
        return datetime.fromisoformat(str(body["started_at"]).replace("Z", "+00:00")).timestamp()
    except (KeyError, ValueError):
        return fallback


def _choose(options: list[Any]) -> Any:
    """Collect a gamble offer; a lone option (free spins) played through in one request, as the reference client does;
    else the first option (a pick)."""
    if len(options) == 1:
        return {"type": "play_through"}
    for option in options:
        if option == {"type": "collect"}:
            return option
    return options[0]


class Driver:
    """One connection and its players."""

    def __init__(
        self, port: int, players: list[Player], *, mix: float, rng: random.Random, stop_at: float, hard_stop_at: float
    ) -> None:
        self.conn = Connection(port)
        self.players = players
        self.mix = mix
        self.rng = rng
        self.stop_at = stop_at
        self.hard_stop_at = hard_stop_at
        self.stats = Stats()

    async def run(self) -> Stats:
        try:
            await play_when_due(self.players, self.play, self.stop_at)
        finally:
            self.stats.connections_opened = self.conn.opened
            await self.conn.close()
        return self.stats

    def _since(self) -> float | None:
        """Where a round start's latency counts from (``time.perf_counter``): None, its send (closed loop); an
        open-loop driver (``bench_open``) gives the start's due time."""
        return None

    async def _post(
        self, path: str, player: Player, body: dict[str, Any], timings: list[float], since: float | None = None
    ) -> Response | None:
        started = time.perf_counter() if since is None else since
        try:
            response = await self.conn.request("POST", path, token=player.token, body=body, key=os.urandom(12).hex())
        except HttpError as exc:
            self.stats.errors[f"transport:{str(exc).split(':')[0]}"] += 1
            self.stats.outcomes["transport_error"] += 1
            return None
        timings.append((time.perf_counter() - started) * 1000)
        if response.status >= 300:
            code = _error_code(response)
            self.stats.errors[code] += 1
            self.stats.outcomes[code] += 1
        else:
            self.stats.outcomes[str(response.status)] += 1
        return response

    async def play(self, player: Player) -> None:
        game = KOBUSHI if self.rng.random() < self.mix else ROULETTE
        since = self._since()
        began = time.perf_counter() if since is None else since
        self.stats.started_rounds += 1
        response = await self._post(
            "/api/v1/games/rounds", player, {"game": game, "bet": BETS[game]}, self.stats.round_ms, since
        )
        now = time.time()
        if response is None:
            player.next_at = now + MIN_ROUND_SECONDS
            return
        body = response.json()
        if response.status >= 300 or not isinstance(body, dict):
            await self._after_refusal(player, response, body, now)
            return
        player.next_at = _started_at(body, now) + MIN_ROUND_SECONDS + MARGIN_SECONDS
        sql = [response.sql or 0]
        first = (body.get("pending") or {}).get("type") if body.get("status") == "in_progress" else None
        body = await self._finish(player, body, sql)
        if body is not None and body.get("status") == "finished":
            self.stats.settled[game] += 1
            self.stats.settled_sql.append(sum(sql))
            # a Kobushi round by what it waited for first: its free spins, its pick bonus, a gamble
            kind = game if first is None else f"{game}+{first}"
            self.stats.settled_sql_by_kind.setdefault(kind, []).append(sum(sql))
            self.stats.settled_ms.append((time.perf_counter() - began) * 1000)
        elif body is not None:
            self.stats.errors[f"round_{body.get('status')}"] += 1

    async def _finish(self, player: Player, body: dict[str, Any], sql: list[int]) -> dict[str, Any] | None:
        """Answer the round's pending actions until it ends (bounded by count and by the hard stop)."""
        for _ in range(MAX_ACTIONS):
            if body.get("status") != "in_progress":
                return body
            if time.time() > self.hard_stop_at:
                self.stats.errors["round_left_open_at_stop"] += 1
                return None
            options = (body.get("pending") or {}).get("options") or []
            if not options:
                self.stats.errors["round_without_options"] += 1
                return None
            self.stats.actions += 1
            response = await self._post(
                f"/api/v1/games/rounds/{body['id']}/actions", player, {"action": _choose(options)}, self.stats.action_ms
            )
            if response is None or response.status >= 300:
                return None
            sql.append(response.sql or 0)
            answer = response.json()
            if not isinstance(answer, dict):
                return None
            body = answer
        self.stats.errors["round_too_many_actions"] += 1
        return None

    async def _after_refusal(self, player: Player, response: Response, body: Any, now: float) -> None:
        """A refused start: wait as the server says; a round left open is finished first."""
        error = body.get("error", {}) if isinstance(body, dict) else {}
        details = error.get("details") or {}
        player.next_at = now + MIN_ROUND_SECONDS
        if error.get("code") == "game.round_too_soon" and details.get("retry_after_ms"):
            player.next_at = now + details["retry_after_ms"] / 1000 + MARGIN_SECONDS
        elif error.get("code") == "game.round_in_progress" and details.get("round_id"):
            started = time.perf_counter()
            try:
                opened = await self.conn.request(
                    "GET", f"/api/v1/games/rounds/{int(details['round_id'])}", token=player.token
                )
            except HttpError:
                return
            self.stats.round_ms.append((time.perf_counter() - started) * 1000)
            if opened.status == 200 and isinstance(opened.json(), dict):
                await self._finish(player, opened.json(), [])


async def _drive(
    port: int, players: list[Player], *, connections: int, seconds: float, mix: float, seed: int, grace: float
) -> Stats:
    start = time.time()
    stop_at, hard_stop_at = start + seconds, start + seconds + grace
    shares = [players[i::connections] for i in range(connections)]
    drivers = [
        Driver(port, share, mix=mix, rng=random.Random(seed + i), stop_at=stop_at, hard_stop_at=hard_stop_at)
        for i, share in enumerate(shares)
        if share
    ]
    results = await asyncio.gather(*(d.run() for d in drivers))
    total = Stats(first_start=start)
    for result in results:
        total.merge(result)
    total.first_start, total.last_end = start, time.time()
    return total


def run_load(
    port: int,
    players: list[tuple[int, str]],
    *,
    connections: int = 32,
    seconds: float = 60.0,
    mix: float = 0.5,
    seed: int = 1,
    grace: float = 30.0,
) -> Stats:
    """Drive the API on 127.0.0.1:``port`` with ``players`` [(player id, token)] for ``seconds``; ``mix`` is the
    share of Kobushi rounds (the rest roulette)."""
    return asyncio.run(
        _drive(
            port,
            [Player(pid, token) for pid, token in players],
            connections=connections,
            seconds=seconds,
            mix=mix,
            seed=seed,
            grace=grace,
        )
    )


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100), nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered))))
    return ordered[rank - 1]


async def play_when_due(players: Sequence[Any], play: Callable[[Any], Awaitable[None]], stop_at: float) -> None:
    """The bench clients' one scheduling loop: each player plays when due (its ``next_at``, which ``play`` moves on),
    in time order, until ``stop_at``."""
    due = [(p.next_at, i) for i, p in enumerate(players)]
    heapq.heapify(due)
    while due and time.time() < stop_at:
        next_at, i = due[0]
        wait = next_at - time.time()
        if wait > 0:
            await asyncio.sleep(min(wait, max(0.0, stop_at - time.time())))
            continue
        heapq.heappop(due)
        await play(players[i])
        heapq.heappush(due, (players[i].next_at, i))


class FloorDriver(Driver):
    """The bench's floor (config/bench_floor.py): one POST /bench/floor per player turn, paced as the rounds are."""

    async def play(self, player: Player) -> None:
        began = time.time()
        response = await self._post("/bench/floor", player, {"player": player.player_id}, self.stats.round_ms)
        player.next_at = began + MIN_ROUND_SECONDS + MARGIN_SECONDS
        self.stats.started_rounds += 1
        if response is not None and response.status == 201:
            self.stats.settled["floor"] += 1
            self.stats.settled_sql.append(response.sql or 0)


async def _drive_floor(port: int, players: list[Player], *, connections: int, seconds: float) -> Stats:
    start = time.time()
    shares = [players[i::connections] for i in range(connections)]
    drivers = [
        FloorDriver(
            port, share, mix=0.0, rng=random.Random(i), stop_at=start + seconds, hard_stop_at=start + seconds + 10
        )
        for i, share in enumerate(shares)
        if share
    ]
    total = Stats(first_start=start)
    for result in await asyncio.gather(*(d.run() for d in drivers)):
        total.merge(result)
    total.first_start, total.last_end = start, time.time()
    return total


def run_floor(port: int, players: list[tuple[int, str]], *, connections: int = 32, seconds: float = 60.0) -> Stats:
    """Drive the floor view with the same players, connections and pacing as :func:`run_load`."""
    return asyncio.run(
        _drive_floor(port, [Player(pid, token) for pid, token in players], connections=connections, seconds=seconds)
    )
