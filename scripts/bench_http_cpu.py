"""What gunicorn and HTTP add to a settled round: the rounds of ``bench_round_cpu.py run``, served by gunicorn.

    DATABASE_URL=postgres://... python scripts/bench_round_cpu.py setup --players 400        # once, own database
    DATABASE_URL=postgres://... python scripts/bench_http_cpu.py --rounds 30 --warmup 20 --players 3 \
        --activity-ahead --offset N [--callgrind OUT] [--threads 4] [--access-log PATH|off] [--app wsgi|sqlcount]

Starts gunicorn with ``config/gunicorn.conf.py`` and one worker (``WEB_CONCURRENCY=1``, ``GUNICORN_MAX_REQUESTS=0``,
everything else as configured or as set with ``--env NAME=VALUE``), serving ``config.sqlcount:application`` with
``SQL_COUNT=1`` as ``make bench`` does (``--app wsgi``: ``config.wsgi:application``), and plays the rounds of
``bench_round_cpu.py run`` over one keep-alive HTTP/1.1 connection with the request of ``make bench``'s client
(``scripts/bench_load.py``): the same players (``--offset``), the same seeded draws (the worker's RNG is
``SeededRNG(--seed)`` from its start, ``scripts/bench_http_app.py``: the warm-up and counted rounds draw what the
in-process run draws), one request at a time, each player at most every 2 s (GP §7(9)).

It prints the worker's CPU per counted round (user and system, ``/proc``) and the statements (``X-SQL-Count``). With
``--callgrind OUT`` gunicorn runs under ``valgrind --tool=callgrind --instr-atstart=no --trace-children=yes`` and the
worker's instrumentation is switched on for the counted rounds only (``callgrind_control``): ``OUT.<worker pid>``
holds their instruction count (Ir) over every thread of the worker (the poller's and the pool's), which compares
with ``bench_round_cpu.py run``'s count of the same rounds in-process; the difference is what gunicorn, its HTTP and
its access log add (docs/bench.md, "What gunicorn adds to a round"). Callgrind counts user-space instructions only:
the system calls' kernel time shows in the ``/proc`` figures of a run without it.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import bench_round_cpu  # noqa: E402  (the players' tokens, their activity, the bets)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu(pid: int) -> tuple[float, float]:
    """utime, stime of a process (all its threads) in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def _switches(pid: int) -> int:
    """Context switches (voluntary and not) of every thread of a process so far."""
    total = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        try:
            text = status.read_text()
        except OSError:  # a thread that ended meanwhile
            continue
        total += sum(int(value) for name, _, value in (line.partition(":") for line in text.splitlines())
                     if name.endswith("ctxt_switches"))  # fmt: skip
    return total


class Client:
    """One keep-alive HTTP/1.1 connection sending ``make bench``'s request (scripts/bench_load.py)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def post(self, path: str, payload: object, token: str) -> tuple[int, dict[str, str], bytes]:
        body = json.dumps(payload, separators=(",", ":")).encode()
        head = [
            f"POST {path} HTTP/1.1",
            f"Host: 127.0.0.1:{self.port}",
            "Accept: application/json",
            "Accept-Language: en",
            f"Content-Length: {len(body)}",
            f"Authorization: Token {token}",
            "Content-Type: application/json",
            f"Idempotency-Key: {secrets.token_hex(12)}",
        ]
        self.sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        while b"\r\n\r\n" not in self.buf:
            self._recv()
        raw, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = raw.decode("latin-1").split("\r\n")
        headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        length = int(headers.get("content-length", "0"))
        while len(self.buf) < length:
            self._recv()
        data, self.buf = self.buf[:length], self.buf[length:]
        return int(lines[0].split()[1]), headers, data

    def _recv(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buf += chunk


def _play(client: Client, token: str, game: str) -> tuple[str, int]:
    """One round and, for a round waiting for the player, its actions: the final status and the statements."""
    bet = bench_round_cpu.KOBUSHI if game == "kobushi" else bench_round_cpu.ROULETTE
    code, headers, raw = client.post("/api/v1/games/rounds", {"game": game, "bet": bet}, token)
    sql = int(headers.get("x-sql-count", "0"))
    body = json.loads(raw) if raw and code < 500 else {}
    for _ in range(100):
        if body.get("status") != "in_progress":
            break
        options = body["pending"]["options"]
        action = {"type": "collect"} if {"type": "collect"} in options else options[0]
        code, headers, raw = client.post(f"/api/v1/games/rounds/{body['id']}/actions", {"action": action}, token)
        sql += int(headers.get("x-sql-count", "0"))
        body = json.loads(raw) if raw and code < 500 else {}
    return str(body.get("status") or (body.get("error") or {}).get("code") or code), sql


def _arguments() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--mix", type=float, default=0.0, help="share of Kobushi rounds (the rest roulette)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--offset", type=int, default=0)
    p.add_argument("--activity-ahead", action="store_true")
    p.add_argument("--threads", type=int, default=None, help="GUNICORN_THREADS (default: the config's)")
    p.add_argument("--access-log", default=None, help="a path, or 'off' (default: a file in /tmp)")
    p.add_argument(
        "--app",
        choices=("sqlcount", "wsgi", "stub", "stub-sqlcount"),
        default="sqlcount",
        help="stub: a round-sized answer without Django (gunicorn's own cost per request; --rounds requests)",
    )
    p.add_argument("--env", action="append", default=[], help="NAME=VALUE for gunicorn's environment")
    p.add_argument("--strace", metavar="OUT", help="count the worker's system calls of the counted rounds (strace -c)")
    p.add_argument("--profile", metavar="OUT", help="cProfile of each worker thread in OUT.<pid>.<n>")
    p.add_argument("--callgrind", metavar="OUT", help="run gunicorn under callgrind, the worker's counts in OUT.<pid>")
    return p.parse_args()


def _command(a: argparse.Namespace, port: int) -> tuple[list[str], dict[str, str]]:
    """gunicorn's command line and environment: one worker, nothing recycled, the run's app and options."""
    access_log = a.access_log or f"/tmp/bench_http_cpu-{os.getpid()}-access.log"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_ENV": os.environ.get("DJANGO_ENV", "development"),
        "DEBUG": "0",
        "CONN_MAX_AGE": "86400",
        "SQL_COUNT": "1",
        "BENCH_HTTP_APP": a.app,
        "BENCH_HTTP_SEED": str(a.seed),
        "BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "1",
        "GUNICORN_MAX_REQUESTS": "0",
        "GUNICORN_ACCESS_LOG": "" if access_log == "off" else access_log,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if a.app == "stub":
        env["GUNICORN_WARM_DB"] = "0"  # the stub loads no Django: no URLconf or connections to warm
    if a.callgrind:
        env["JACKPOTS_CONFIG_TTL_SECONDS"] = env.get("JACKPOTS_CONFIG_TTL_SECONDS", "3600")  # as bench_round_cpu
    if a.profile:
        env["BENCH_HTTP_PROFILE"] = a.profile
    if a.threads is not None:
        env["GUNICORN_THREADS"] = str(a.threads)
    env.update(dict(item.split("=", 1) for item in a.env))
    cmd = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "config" / "gunicorn.conf.py")]
    cmd += ["--pythonpath", str(ROOT / "scripts"), "bench_http_app:application"]
    if a.callgrind:
        valgrind = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--trace-children=yes"]
        cmd = [*valgrind, f"--callgrind-out-file={a.callgrind}.%p", *cmd]
    return cmd, env


def _worker(master: subprocess.Popen[bytes], port: int, log: str) -> tuple[Client, int]:
    """A connection to the server once it serves, and its one worker's pid."""
    import psutil

    deadline = time.monotonic() + 600
    client = None
    while client is None:
        if master.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"gunicorn did not start; see {log}")
        try:
            client = Client(port)
        except OSError:
            time.sleep(0.5)
    workers = psutil.Process(master.pid).children()
    while not workers:  # the master's socket accepts before its worker is forked
        time.sleep(0.5)
        workers = psutil.Process(master.pid).children()
    assert len(workers) == 1, workers
    return client, workers[0].pid


def _player(a: argparse.Namespace, client: Client, tokens: list[str]) -> Callable[[int], tuple[str, int]]:
    """Round ``i`` as ``bench_round_cpu.py run`` plays it (the players in turn, each at most every 2 s), or the
    stub's request."""
    import random

    if a.app.startswith("stub"):

        def stub(i: int) -> tuple[str, int]:
            code, headers, _ = client.post("/api/v1/games/rounds", {"game": "stub", "bet": {}}, tokens[0])
            return str(code), int(headers.get("x-sql-count", "0"))

        return stub
    choice = random.Random(a.seed)
    games = ["kobushi" if choice.random() < a.mix else "european_roulette" for _ in range(a.warmup + a.rounds)]
    last: dict[int, float] = {}

    def play(i: int) -> tuple[str, int]:
        wait = last.get(i % len(tokens), -10.0) + 2.05 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        try:
            return _play(client, tokens[i % len(tokens)], games[i])
        finally:
            last[i % len(tokens)] = time.monotonic()

    return play


def _measure(a: argparse.Namespace, client: Client, worker: int, tokens: list[str]) -> None:
    play = _player(a, client, tokens)
    for i in range(a.warmup):
        play(i)
    if a.callgrind:
        subprocess.run(["callgrind_control", "--instr=on", str(worker)], check=True, capture_output=True)
    tracer = None
    if a.strace:
        tracer = subprocess.Popen(["strace", "-c", "-f", "-o", a.strace, "-p", str(worker)], stderr=subprocess.PIPE)
        time.sleep(1.0)  # attached to every thread
    statuses: dict[str, int] = {}
    sql = 0
    user0, sys0 = _cpu(worker)
    switches0 = _switches(worker)
    for i in range(a.warmup, a.warmup + a.rounds):
        status, count = play(i)
        statuses[status] = statuses.get(status, 0) + 1
        sql += count
    user, system = (x - y for x, y in zip(_cpu(worker), (user0, sys0), strict=True))
    switches = _switches(worker) - switches0
    if tracer is not None:
        tracer.send_signal(signal.SIGINT)
        tracer.wait(timeout=60)
    if a.callgrind:
        subprocess.run(["callgrind_control", "--instr=off", str(worker)], check=True, capture_output=True)
        subprocess.run(["callgrind_control", "--dump", str(worker)], check=True, capture_output=True)
    n = max(1, a.rounds)
    print(f"{a.rounds} rounds {statuses} (seed {a.seed}, warm-up {a.warmup}, players {a.offset}+{a.players})")
    print(
        f"per round: worker CPU {(user + system) * 1000 / n:.2f} ms (user {user * 1000 / n:.2f}, "
        f"system {system * 1000 / n:.2f}), statements {sql / n:.2f}, context switches {switches / n:.1f}"
    )
    if a.callgrind:
        print(f"callgrind: {a.callgrind}.{worker}* (the worker)")


def main() -> None:
    a = _arguments()
    stub = a.app.startswith("stub")  # no player: the stub answers without reading the token
    tokens = ["stub"] if stub else json.loads(bench_round_cpu._state().read_text())["tokens"][a.offset :][: a.players]
    if a.activity_ahead and not stub:
        bench_round_cpu._django()
        bench_round_cpu._activity_ahead(tokens)
        from django.db import connections

        connections.close_all()
    port = _free_port()
    cmd, env = _command(a, port)
    log = Path(f"/tmp/bench_http_cpu-{os.getpid()}-gunicorn.log")
    with log.open("wb") as out:
        master = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        client, worker = _worker(master, port, str(log))
        _measure(a, client, worker, tokens)
    finally:
        os.killpg(master.pid, signal.SIGTERM)
        try:
            master.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(master.pid, signal.SIGKILL)
            master.wait()


if __name__ == "__main__":
    main()
