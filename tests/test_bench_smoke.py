"""The seams of `make bench`: the SQL counter of config/sqlcount.py counts what Django's CaptureQueriesContext counts
and is off unless SQL_COUNT=1; the load client (scripts/bench_load.py) keeps its connection alive, finishes a round
that waits for the player through the actions endpoint and never starts a player's rounds less than 2 s apart
(GP §7(9)). Speed itself is measured by the bench, never asserted here."""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys
import threading
import wsgiref.util
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import bench_load  # noqa: E402  (scripts/ is a folder of scripts, not a package)
import bench_open  # noqa: E402

from tests.kit.games import api_bet  # noqa: E402


# --- the SQL counter --------------------------------------------------------------------------------------------------
def test_without_sql_count_1_the_application_is_djangos_own_untouched():
    import config.sqlcount as sqlcount

    if os.environ.get("SQL_COUNT") == "1":
        pytest.skip("the suite runs with SQL_COUNT=1")
    assert sqlcount.application is sqlcount.django_application


def _wsgi_post(app, path: str, body: dict, headers: dict[str, str]) -> tuple[str, dict[str, str], bytes]:
    """One POST through a WSGI application, as gunicorn calls it."""
    from django.core import signals
    from django.db import close_old_connections

    raw = json.dumps(body).encode()
    environ: dict[str, Any] = {}
    wsgiref.util.setup_testing_defaults(environ)
    environ.update(
        {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": path,
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(raw)),
            "wsgi.input": io.BytesIO(raw),
            **headers,
        }
    )
    seen: dict[str, Any] = {}

    def start_response(status, response_headers, exc_info=None):
        seen["status"], seen["headers"] = status, dict(response_headers)
        return lambda data: None

    # As Django's test client does: the test's transaction must survive the end of the request.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        result = app(environ, start_response)
        content = b"".join(result)
        getattr(result, "close", lambda: None)()
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
    return seen["status"], seen["headers"], content


@pytest.mark.django_db
def test_x_sql_count_of_a_settled_round_is_what_capture_queries_context_counts():
    from django.db import connection, connections
    from django.test.utils import CaptureQueriesContext

    from config.sqlcount import HEADER, counting, django_application, uninstrument
    from games.services import games_sync
    from tests.kit.accounts import token_for
    from tests.kit.platform import RED_100, ROULETTE, funded_player

    games_sync()
    player = funded_player(100_000)
    app = counting(django_application)
    headers = {"HTTP_AUTHORIZATION": f"Token {token_for(player.user)}", "HTTP_IDEMPOTENCY_KEY": "bench-sql-1"}
    try:
        with CaptureQueriesContext(connection) as captured:
            status, response_headers, content = _wsgi_post(
                app, "/api/v1/games/rounds", {"game": ROULETTE, "bet": api_bet(RED_100)}, headers
            )
    finally:
        for alias in connections:
            uninstrument(connections[alias])
    assert status.startswith("201"), content
    assert json.loads(content)["status"] == "finished"
    assert int(response_headers[HEADER]) == len(captured.captured_queries) > 10


# --- the load client against a stub of the rounds API -----------------------------------------------------------------
class StubApi:
    """Answers POST rounds (a Kobushi round waits for one action) and POST actions on 127.0.0.1, keep-alive,
    recording when each player's rounds started."""

    def __init__(self, *, close_each: bool = False, delay: float = 0.0) -> None:
        self.close_each = close_each
        self.delay = delay  # seconds before each answer (one connection answers one request at a time)
        self.starts: dict[str, list[float]] = {}
        self.connections = 0
        self.port = 0
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._next_id = 0

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode().split("\r\n")
                method, path, _ = lines[0].split(" ")
                fields = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
                body = json.loads(await reader.readexactly(int(fields["Content-Length"])) or b"null")
                token = fields["Authorization"].split()[1]
                if self.delay:
                    await asyncio.sleep(self.delay)
                now = datetime.now(UTC)
                if path == "/api/v1/games/rounds":
                    self._next_id += 1
                    self.starts.setdefault(token, []).append(now.timestamp())
                    waits = body["game"] == bench_load.KOBUSHI
                    answer = {
                        "id": self._next_id,
                        "status": "in_progress" if waits else "finished",
                        "started_at": now.isoformat().replace("+00:00", "Z"),
                        "pending": {"type": "free_spin", "options": [{"type": "spin"}]} if waits else None,
                    }
                    status, sql = "201 Created", 30
                else:
                    answer = {"id": int(path.split("/")[5]), "status": "finished", "pending": None}
                    status, sql = "200 OK", 20
                payload = json.dumps(answer).encode()
                close = self.close_each
                head_lines = [
                    f"HTTP/1.1 {status}",
                    "Content-Type: application/json",
                    f"X-SQL-Count: {sql}",
                    f"Content-Length: {len(payload)}",
                    *(["Connection: close"] if close else []),
                ]
                writer.write(("\r\n".join(head_lines) + "\r\n\r\n").encode() + payload)
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def _serve(self) -> None:
        async def main() -> None:
            server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
            self.port = server.sockets[0].getsockname()[1]
            self._loop = asyncio.get_running_loop()
            self._ready.set()
            async with server:
                await asyncio.sleep(30)  # bounded: the test is over long before

        asyncio.run(main())

    def start(self) -> None:
        threading.Thread(target=self._serve, daemon=True).start()
        assert self._ready.wait(10)


@pytest.fixture
def stub() -> Iterator[StubApi]:
    api = StubApi()
    api.start()
    yield api


def test_the_load_client_keeps_the_connection_and_starts_each_players_rounds_2_s_apart(stub):
    stats = bench_load.run_load(stub.port, [(1, "tok-a"), (2, "tok-b")], connections=1, seconds=2.6, mix=0.0)
    assert stub.connections == 1 and stats.connections_opened == 1  # keep-alive
    for starts in stub.starts.values():
        assert len(starts) == 2
        assert starts[1] - starts[0] >= bench_load.MIN_ROUND_SECONDS
    assert sum(stats.settled.values()) == 4 and stats.settled_sql == [30, 30, 30, 30]
    assert not stats.errors and len(stats.round_ms) == 4


def test_the_load_client_finishes_a_waiting_round_through_its_actions_and_counts_all_its_statements(stub):
    stats = bench_load.run_load(stub.port, [(1, "tok-k")], connections=1, seconds=1.0, mix=1.0)
    assert stats.settled[bench_load.KOBUSHI] == 1 and stats.actions == 1
    assert stats.settled_sql == [30 + 20] and stats.settled_sql_by_kind == {f"{bench_load.KOBUSHI}+free_spin": [50]}


def test_the_load_client_opens_a_new_connection_when_the_server_closes_after_each_answer():
    api = StubApi(close_each=True)
    api.start()
    stats = bench_load.run_load(api.port, [(1, "tok-a"), (2, "tok-b")], connections=1, seconds=1.0, mix=0.0)
    assert sum(stats.settled.values()) == 2 and not stats.errors
    assert api.connections == stats.connections_opened == 2


def test_percentiles_are_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert bench_load.percentile(values, 50) == 50.0
    assert bench_load.percentile(values, 99) == 99.0
    assert bench_load.percentile(values, 100) == 100.0
    assert bench_load.percentile([], 50) == 0.0


# --- the open-loop client and the capacity search ------------------------------------------------------------------
def _players(n: int) -> list[bench_load.Player]:
    return [bench_load.Player(i, f"tok-{i}") for i in range(1, n + 1)]


def test_the_open_loop_client_sends_on_its_timetable_and_keeps_each_players_starts_2_s_apart(stub):
    players = _players(30)
    stats, step = bench_open.run_open_loop(stub.port, players, rate=10, seconds=2.0, connections=4, mix=0.0)
    assert step.due == 20 and step.sent == 20 and step.no_player == 0 and step.sustained, step.describe()
    assert sum(stats.settled.values()) == 20 and len(stats.round_ms) == 20 and not stats.errors
    # a second run with the same players: nobody starts again less than 2 s after their previous start
    bench_open.run_open_loop(stub.port, players, rate=10, seconds=1.0, connections=4, mix=0.0)
    for starts in stub.starts.values():
        assert all(b - a >= bench_load.MIN_ROUND_SECONDS for a, b in zip(starts, starts[1:], strict=False))


def test_a_due_start_without_a_player_free_to_start_is_counted_not_sent(stub):
    stats, step = bench_open.run_open_loop(stub.port, _players(3), rate=10, seconds=1.0, connections=2, mix=0.0)
    assert step.sent == 3 and step.no_player == 7 and not step.sustained
    assert sum(stats.settled.values()) == 3


def test_open_loop_latency_counts_the_queue_from_the_due_time():
    """One connection answering in 100 ms offered 20 starts a second: the waiting shows in the latency (measured
    from each start's due time, not from its send) and the step is not sustained."""
    api = StubApi(delay=0.1)
    api.start()
    stats, step = bench_open.run_open_loop(api.port, _players(60), rate=20, seconds=1.5, connections=1, mix=0.0)
    assert not step.sustained and step.last_third_p50 > 2 * step.first_third_p50
    assert max(stats.round_ms) >= 1000  # the 30th start waited for the 29 before it (~3 s), not 100 ms


def test_the_capacity_search_stops_at_the_rate_the_players_allow(stub):
    players = _players(22)  # 22 / 2.2 s = 10 starts a second at most (GP §7(9))
    cap = bench_open.capacity_search(
        stub.port, players, step_seconds=1.0, connections=4, mix=0.0, start_rate=5, say=lambda line: None
    )
    assert cap.player_bound and cap.rate == pytest.approx(10.0) and all(s.sustained for s in cap.steps)
    assert [round(s.rate, 1) for s in cap.steps] == [5.0, 7.5, 10.0]


def test_the_capacity_search_bisects_below_a_slow_server():
    api = StubApi(delay=0.1)  # one connection: 10 answers a second at most
    api.start()
    cap = bench_open.capacity_search(
        api.port,
        _players(200),
        step_seconds=1.5,
        connections=1,
        mix=0.0,
        start_rate=4,
        max_steps=6,
        say=lambda line: None,
    )
    assert not cap.player_bound and 0 < cap.rate < 10.5
    assert any(not s.sustained for s in cap.steps)
