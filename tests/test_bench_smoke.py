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
import time
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
        self.probes = 0  # GET requests (the idle probe)
        self.busy_until = 0.0  # time.monotonic() until which every answer takes 200 ms more
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
                if time.monotonic() < self.busy_until:  # a server still working off a queue
                    await asyncio.sleep(0.2)
                now = datetime.now(UTC)
                answer: dict[str, Any]
                if method == "GET":  # the capacity search's idle probe
                    self.probes += 1
                    answer, status, sql = {"round": None}, "200 OK", 2
                elif path == "/api/v1/games/rounds":
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
        stub.port, players, step_seconds=1.0, connections=4, mix=0.0, start_rate=5, pause=0.2, say=lambda line: None
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
        pause=0.2,
        say=lambda line: None,
    )
    assert not cap.player_bound and 0 < cap.rate < 10.5
    assert any(not s.sustained for s in cap.steps)
    # every step after the first waited for the server to be idle again (the pause, then 3 fast probes at least)
    assert all(s.idle_wait >= 0.2 and s.idle_reached for s in cap.steps[1:])
    assert api.probes >= 6 + 3 * (len(cap.steps) - 1)


def test_waiting_for_idle_lasts_until_the_probe_answers_as_fast_as_an_idle_server(stub):
    baseline = bench_open.idle_baseline(stub.port, "tok-1")
    assert stub.probes >= 5 and baseline < 100
    stub.busy_until = time.monotonic() + 1.5  # the queue an overloaded step left
    began = time.monotonic()
    assert bench_open.wait_idle(stub.port, "tok-1", baseline, pause=0.0, timeout=10)
    assert time.monotonic() - began >= 1.5
    stub.busy_until = time.monotonic() + 30
    assert not bench_open.wait_idle(stub.port, "tok-1", baseline, pause=0.0, timeout=1.0)  # bounded, and says so


# --- the capacity search's decisions, as pure functions of the steps run so far ------------------------------------
def _step(rate: float, *, ok: bool = True, first: float = 10.0, last: float = 10.0) -> bench_open.Step:
    """A step of 5 s at ``rate``: every start answered in time (``ok``) or a fifth of them late."""
    due = round(rate * 5)
    return bench_open.Step(
        rate=rate,
        seconds=5.0,
        due=due,
        sent=due,
        answered_in_time=due if ok else due * 4 // 5,
        first_third_p50=first,
        last_third_p50=last,
    )


def _search(capacity: float, *, limit: float = 1000.0, start: float = 25.0, flaky: frozenset[int] = frozenset()):
    """The search against a server that sustains every rate <= ``capacity``; the step numbers in ``flaky`` fail
    whatever their rate (a noisy machine)."""
    steps: list[bench_open.Step] = []
    while (rate := bench_open.search_next(steps, limit=limit, start_rate=start)) is not None:
        steps.append(_step(rate, ok=rate <= capacity and len(steps) + 1 not in flaky))
        assert len(steps) < 30
    return steps, bench_open.search_result(steps)[0]


def test_a_step_is_sustained_only_without_queue_growth_errors_or_late_answers():
    assert _step(100).sustained
    assert _step(100, first=12, last=17).sustained  # within 1.5 x
    assert _step(100, first=2, last=9).sustained  # under the 10 ms floor
    assert not _step(100, first=12, last=30).sustained and "latency grew" in _step(100, first=12, last=30).reasons[0]
    assert not _step(100, ok=False).sustained
    errors = _step(100)
    errors.errors = 11  # > 2 % of 500
    assert not errors.sustained


def test_the_search_goes_up_x1_5_then_bisects_and_confirms_the_rate_it_chooses():
    steps, capacity = _search(130.0, start=50.0)
    rates = [round(s.rate, 1) for s in steps]
    assert rates[:4] == [50.0, 75.0, 112.5, 168.8]  # up x1.5 until 168.75 fails
    assert 130.0 * 0.9 <= capacity <= 130.0
    assert rates[-1] == round(capacity, 1) and rates.count(rates[-1]) == 2  # the chosen rate, run once more last
    assert all(s.sustained for s in steps if s.rate <= capacity)


def test_a_failed_confirmation_moves_the_capacity_below_it():
    steps, _ = _search(130.0, start=50.0)
    n = len(steps)  # the confirming step's number
    flaky_steps, capacity = _search(130.0, start=50.0, flaky=frozenset({n}))
    assert not flaky_steps[n - 1].sustained
    assert capacity < steps[-1].rate  # the rate that failed once is never the capacity
    assert [s.rate for s in flaky_steps].count(capacity) == 2  # the lower one confirmed in turn


def test_a_rate_that_failed_once_bounds_the_capacity_even_if_a_higher_one_passed():
    steps = [_step(50), _step(75, ok=False), _step(100)]
    assert bench_open.search_result(steps) == (50, 75)


def test_the_search_stops_at_the_rate_the_players_allow_and_gives_up_below_1_per_second():
    steps, capacity = _search(1e9, limit=100.0, start=50.0)
    assert [s.rate for s in steps] == [50.0, 75.0, 100.0] and capacity == 100.0
    steps, capacity = _search(0.0, start=25.0)
    assert capacity == 0.0 and steps[-1].rate >= bench_open.MIN_RATE and steps[-1].rate / 2 < bench_open.MIN_RATE


def test_idle_means_the_last_probes_all_near_the_idle_servers_latency():
    assert bench_open.is_idle([50.0, 3.0, 4.0, 6.0], 3.0)  # within 3 + 5 ms
    assert not bench_open.is_idle([3.0, 9.0, 3.0], 3.0)
    assert not bench_open.is_idle([3.0, 3.0], 3.0)  # too few
    assert bench_open.is_idle([20.0, 19.0, 15.0], 10.0) and not bench_open.is_idle([21.0, 3.0, 3.0], 10.0)


def test_the_workers_that_began_during_a_run_and_the_slow_starts_around_them():
    def line(pid: int, end: float, ms: float) -> str:
        ts = datetime.fromtimestamp(end, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return json.dumps({"ts": ts, "pid": pid, "duration_ms": ms})

    t0 = 1_800_000_000.0
    lines = [line(1, t0 - 5, 4), line(2, t0 - 4, 4), line(1, t0 + 1, 4), line(3, t0 + 10.2, 200), line(3, t0 + 10.3, 9)]
    lines.append("not json")
    fresh = bench_open.new_workers(lines, t0, t0 + 20)
    assert [(w.pid, round(w.first_at - t0, 1), w.first_ms) for w in fresh] == [(3, 10.0, [200.0, 9.0])]
    step = bench_open.Step(rate=10, seconds=20, wall_t0=t0)
    step.timeline = [(1.0, 300.0, False), (9.8, 250.0, False), (11.0, 400.0, False), (15.0, 500.0, False)]
    step.timeline.append((10.1, 5.0, False))  # fast: not counted
    assert bench_open.slow_near(step, [t0 + 10.0], 200.0) == 2  # the starts due at +9.8 s and +11.0 s
