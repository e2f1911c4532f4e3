"""The CPU a settled round costs, measured so that other load on the machine does not move the figure.

    DATABASE_URL=postgres://... python scripts/bench_round_cpu.py setup --players 3000
    DATABASE_URL=postgres://... python scripts/bench_round_cpu.py run --rounds 1000 [--profile] [--mix 0.5]
    BENCH_CALLGRIND=1 valgrind --tool=callgrind --instr-atstart=no python scripts/bench_round_cpu.py run --rounds 200

``setup`` creates funded players in bulk in the database of ``DATABASE_URL`` (``scripts/bench_data.py``, as
``make bench`` does: a daily stake and loss limit each, the demo's central jackpot levels over every game, the
games' versions approved) and keeps their API tokens in ``.data/bench_round_cpu-<database>.json``. Never point it at a
database anyone else uses.

``run`` plays rounds through the WSGI application in this process, as gunicorn calls it (``config.wsgi``: the API's
middleware, DRF, the services, the engine, the request log; no HTTP parsing), each with a fresh ``Idempotency-Key``, one
player after the other so no round waits for the 2-second rule (GP §7(9)), the draws from a seeded generator so two
runs play the same rounds. It prints per round: the web process's CPU (``time.process_time``), the PostgreSQL
backend's CPU (utime + stime of the connection's backend from ``/proc/<pid>/stat``, so the server's share of this
connection only), the statements (what ``CaptureQueriesContext`` counts, ``config/sqlcount.py``) and the wall time.
``--profile`` adds a cProfile (CPU clock) of the same rounds, by function.

The per-process snapshots a round reads, the jackpots' configuration (``JACKPOTS_CONFIG_TTL_SECONDS``, 1 s) and the
published terms (``ACCOUNTS_TERMS_SNAPSHOT_SECONDS``, 60 s), are kept for the whole run (3600 s, ``SNAPSHOTS``; the
environment may set others): a server process rereads them once per TTL for all the rounds it plays meanwhile, this
run plays one or two rounds a second, so with the settings' TTLs a third or more of its rounds would pay a reread (the
jackpots' ~4 million instructions, an ORM query). The run prints the TTLs it ran with and the ORM queries its
counted rounds ran (none: a settled round runs registered hot statements only). The statements per round count the
counted rounds' own, not the report's. The client's side of the counted rounds is kept small: the round starts'
bodies are encoded once, and an answer is parsed during the rounds only when it may be a round waiting for an action
(the others after them: parsing a round's ~2.5 KB answer with ``json`` and encoding its request cost ~3 % of the
instructions counted per round, the client's work).

Under ``valgrind --tool=callgrind --instr-atstart=no`` with ``BENCH_CALLGRIND=1`` the run switches the
instrumentation on for the counted rounds only (``callgrind_control``): the instruction count (Ir) of those rounds
does not depend on the other processes on the machine. ``--warmup`` rounds are played (and not counted) first so
the per-process caches are filled.

``--callgrind-backend`` does the same for the connection's PostgreSQL backend, on a server of the run's own whose
postmaster runs under ``valgrind --tool=callgrind --zero-before=pg_backend_pid --dump-before=pg_current_wal_lsn``
(docs/bench.md "The backend's instructions per round"): the backend's counts are zeroed right before the counted
rounds and dumped (``callgrind.out.<pid>.2``) right after them.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _state() -> Path:
    """The tokens of ``setup``'s players, one file per database (``DATABASE_URL``)."""
    import hashlib

    url = os.environ.get("DATABASE_URL", "")
    return ROOT / ".data" / f"bench_round_cpu-{hashlib.sha256(url.encode()).hexdigest()[:10]}.json"


# --callgrind-backend: the functions whose calls zero and dump the backend's callgrind counts (the server started under
# valgrind --tool=callgrind --zero-before=pg_backend_pid --dump-before=pg_current_wal_lsn; docs/bench.md)
BACKEND_ZERO, BACKEND_DUMP = "pg_backend_pid", "pg_current_wal_lsn"
ROULETTE = {"bets": [{"type": "red", "amount": {"amount": 100, "currency": "CZK"}}]}
# The per-process snapshots a round reads (jackpots/levels.py, accounts/terms.py), kept for the whole run: a server
# process rereads them once per TTL of wall time (1 s, 60 s) for all the rounds it plays in that time (at 100 rounds/s
# the jackpots' ~4 million instructions and a statement are <1 % of a round), where this run plays ~1.5 rounds/s (3
# players, the 2-second rule) and under valgrind ~1 round/s: with the settings' TTLs a third to all of its rounds would
# reread them, depending on the machine's load. Set either in the environment to measure another TTL.
SNAPSHOTS = {"JACKPOTS_CONFIG_TTL_SECONDS": "3600", "ACCOUNTS_TERMS_SNAPSHOT_SECONDS": "3600"}
KOBUSHI = {"lines": 30, "coins": 1, "coin_value": {"amount": 10, "currency": "CZK"}}


def _django() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_ENV", "development")
    os.environ.setdefault("DEBUG", "0")
    os.environ.setdefault("CONN_MAX_AGE", "86400")  # one backend for the whole run
    for name, seconds in SNAPSHOTS.items():
        os.environ.setdefault(name, seconds)
    import django

    django.setup()


def setup(players: int) -> None:
    _django()
    sys.path.insert(0, str(ROOT / "scripts"))
    import bench_data

    from core.audit import Actor
    from games.demo import demo_approvals
    from jackpots.demo import seed as jackpots_seed

    created = bench_data.players_create(players, fund=10_000_000, daily_stake=5_000_000, daily_loss=2_000_000)
    jackpots_seed(io.StringIO())
    demo_approvals(actor=Actor.system("bench"))
    state = _state()
    state.parent.mkdir(exist_ok=True)
    state.write_text(json.dumps({"tokens": [p.token for p in created]}))
    print(f"{len(created)} players, tokens in {state}")


def _backend_cpu(pid: int) -> float:
    """utime + stime of a local process in seconds (fields 14 and 15 of /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _activity_ahead(tokens: list[str]) -> None:
    """Date these players' token and session activity 10 minutes ahead, so no counted round writes it (it is
    written at most once a minute per player: under valgrind a run lasts minutes and would write it on some rounds
    and not others, depending on the machine's load). The figures are then those of a player who plays on."""
    from django.db import connection

    from accounts.models import AuthToken

    hashes = [AuthToken.hash_key(t) for t in tokens]
    with connection.cursor() as cur:
        cur.execute(
            "UPDATE accounts_authtoken SET last_used_at = now() + interval '10 minutes' WHERE key_hash = ANY(%s)",
            [hashes],
        )
        cur.execute(
            "UPDATE accounts_loginsession SET last_seen_at = now() + interval '10 minutes' WHERE id IN "
            "(SELECT session_id FROM accounts_authtoken WHERE key_hash = ANY(%s))",
            [hashes],
        )


def _wal_reset(connection: Any) -> int:
    """The WAL position now (a server of this run's own: the difference is this run's WAL), pg_stat_statements reset
    where it is loaded."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn, "
            "EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements')"
        )
        lsn, statements = cur.fetchone()
        if statements:
            cur.execute("SELECT pg_stat_statements_reset()")
    return int(lsn)


def _wal_report(connection: Any, wal0: int, rounds: int) -> str:
    """WAL bytes per round (of the whole server) and, with pg_stat_statements, per statement of this database."""
    n = max(1, rounds)
    with connection.cursor() as cur:
        cur.execute(f"SELECT {BACKEND_DUMP}() - '0/0'::pg_lsn")  # first after the rounds: --callgrind-backend's dump
        out = [f"server WAL per round: {(int(cur.fetchone()[0]) - wal0) / n:,.0f} bytes"]
        cur.execute("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements')")
        if cur.fetchone()[0]:
            cur.execute("""SELECT calls, total_exec_time, shared_blks_hit + shared_blks_read, shared_blks_dirtied,
                                  wal_records, wal_bytes, left(regexp_replace(query, '\\s+', ' ', 'g'), 70)
                           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database
                                                                 WHERE datname = current_database())
                           ORDER BY total_exec_time DESC LIMIT 14""")
            out.append("per round: calls  exec ms  buffers  dirtied  WAL recs  WAL bytes  statement")
            for calls, ms, bufs, dirtied, recs, wbytes, query in cur.fetchall():
                out.append(
                    f"        {calls / n:6.2f} {ms / n:8.3f} {bufs / n:8.1f} {dirtied / n:8.2f} {recs / n:9.1f}"
                    f" {int(wbytes) / n:10,.0f}  {query}"
                )
    return "\n".join(out)


class _OrmQueries:
    """Counts the ORM queries run (compiled and executed by Django's SQL compilers) between ``start`` and ``stop``, by
    compiler class: a settled round runs only registered hot statements (core/sql.py), so it should compile none."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}
        self._saved: list[tuple[Any, Any]] = []

    def start(self) -> _OrmQueries:
        from django.db.models.sql.compiler import SQLCompiler, SQLInsertCompiler  # after _django(): settings needed

        for cls in (SQLCompiler, SQLInsertCompiler):
            original = cls.__dict__["execute_sql"]
            self._saved.append((cls, original))
            cls.execute_sql = self._counted(original)  # type: ignore[method-assign]  # restored by stop()
        return self

    def _counted(self, original: Any) -> Any:
        def execute_sql(compiler: Any, *args: Any, **kwargs: Any) -> Any:
            name = type(compiler).__name__
            self.calls[name] = self.calls.get(name, 0) + 1
            return original(compiler, *args, **kwargs)

        return execute_sql

    def stop(self) -> None:
        for cls, original in self._saved:
            cls.execute_sql = original
        self._saved.clear()


def _environ(path: str, body: bytes, token: str) -> dict[str, Any]:
    return {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "HTTP_HOST": "127.0.0.1:8000",
        "HTTP_AUTHORIZATION": f"Token {token}",
        "HTTP_IDEMPOTENCY_KEY": secrets.token_hex(12),
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }


def _post(app: Any, path: str, body: bytes, token: str) -> tuple[int, bytes]:
    """The status code and body of one POST through the WSGI application (the body parsed by the caller)."""
    status: list[str] = []
    chunks = app(_environ(path, body, token), lambda s, h, e=None: status.append(s))
    answer = b"".join(chunks)
    if hasattr(chunks, "close"):
        chunks.close()
    return int(status[0].split()[0]), answer


def _parsed(code: int, body: bytes) -> dict[str, Any]:
    return json.loads(body) if body and code < 500 else {}


#: each game's round start, encoded once (the client's side of a request is not the server's cost)
START_BODIES = {
    game: json.dumps({"game": game, "bet": bet}).encode()
    for game, bet in (("kobushi", KOBUSHI), ("european_roulette", ROULETTE))
}


def _play(app: Any, token: str, game: str) -> tuple[int, bytes]:
    """One round and, for a round waiting for the player, its actions; the last answer (status code, body). An answer
    is parsed here only when it may be a round waiting for the player; the others after the counted rounds
    (:func:`_status`): parsing a round's answer (~2.5 KB) cost ~2 % of a round's instructions, the client's work."""
    code, body = _post(app, "/api/v1/games/rounds", START_BODIES[game], token)
    for _ in range(100):
        if b'"in_progress"' not in body:
            break
        data = _parsed(code, body)
        if data.get("status") != "in_progress":
            break
        options = data["pending"]["options"]
        action = {"type": "collect"} if {"type": "collect"} in options else options[0]
        path = f"/api/v1/games/rounds/{data['id']}/actions"
        code, body = _post(app, path, json.dumps({"action": action}).encode(), token)
    return code, body


def _status(answer: tuple[int, bytes]) -> str:
    """The final status of a round (or the error code, or the HTTP status) from its last answer."""
    body = _parsed(*answer)
    return str(body.get("status") or (body.get("error") or {}).get("code") or answer[0])


def run(
    rounds: int,
    warmup: int,
    mix: float,
    profile: bool,
    seed: int,
    show_sql: bool,
    players: int,
    offset: int = 0,
    activity_ahead: bool = False,
    callgrind_backend: bool = False,
) -> None:
    _django()
    import logging
    import random

    from django.db import connection

    from config.collector import settle_heap
    from config.sqlcount import instrument
    from core.rng import SeededRNG, use_rng

    tokens = json.loads(_state().read_text())["tokens"][offset : offset + players]
    if activity_ahead:
        _activity_ahead(tokens)
    last_round: dict[int, float] = {}

    def play(i: int, game: str) -> tuple[int, bytes]:
        """Round ``i``: the players take turns, each at most every 2 s (GP §7(9)); waiting costs no CPU."""
        wait = last_round.get(i % len(tokens), -10.0) + 2.05 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        try:
            return _play(app, tokens[i % len(tokens)], game)
        finally:  # from the answer: the round's start the server recorded lies before it
            last_round[i % len(tokens)] = time.monotonic()

    for handler in logging.getLogger().handlers:  # the request log is formatted and written, not shown
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(open(os.devnull, "w"))  # lives as long as the process
    from config.wsgi import application as app  # gunicorn's entry point: a cookieless API request's own handler

    settle_heap()  # the collector as a gunicorn worker runs it (frozen import, its youngest generation's threshold)

    choice = random.Random(seed)
    games = ["kobushi" if choice.random() < mix else "european_roulette" for _ in range(warmup + rounds + 1)]
    statuses: dict[str, int] = {}
    with use_rng(SeededRNG(seed)):
        for i in range(warmup):
            play(i, games[i])
        connection.ensure_connection()
        counter = instrument(connection)
        with connection.cursor() as cur:
            cur.execute("SELECT pg_backend_pid()")
            backend = cur.fetchone()[0]
        orm = _OrmQueries().start()
        profiler = None
        if profile:
            import cProfile

            profiler = cProfile.Profile(time.process_time)
            profiler.enable()
        _callgrind("on")
        wal0 = _wal_reset(connection)
        if callgrind_backend:
            _callgrind_backend_mark(connection)
        counter.count = 0
        db0, cpu0, wall0 = _backend_cpu(backend), time.process_time(), time.perf_counter()
        answers = [play(i, games[i]) for i in range(warmup, warmup + rounds)]
        cpu, wall, db = time.process_time() - cpu0, time.perf_counter() - wall0, _backend_cpu(backend) - db0
        _callgrind("off")
        statements = counter.count
        if profiler is not None:
            profiler.disable()
        orm.stop()
        for answer in answers:
            status = _status(answer)
            statuses[status] = statuses.get(status, 0) + 1
        wal = _wal_report(connection, wal0, rounds)
        if show_sql:
            from django.test.utils import CaptureQueriesContext

            from core.sql import readable

            with CaptureQueriesContext(connection) as ctx:
                play(warmup + rounds, games[-1])
            for q in ctx.captured_queries:
                print(f"-- {float(q['time']) * 1000:.2f} ms\n{readable(q['sql'])}")
    n = max(1, rounds)
    print(f"{rounds} rounds {statuses} (mix {mix}, seed {seed}, warm-up {warmup})")
    print(
        f"per round: web CPU {cpu * 1000 / n:.2f} ms, PostgreSQL backend CPU {db * 1000 / n:.2f} ms, "
        f"statements {statements / n:.2f}, wall {wall * 1000 / n:.2f} ms"
    )
    print(
        "snapshots kept for the run: "
        + ", ".join(f"{name} {os.environ[name]} s" for name in SNAPSHOTS)
        + f"; ORM queries in the counted rounds: {sum(orm.calls.values())} {orm.calls or ''}".rstrip()
    )
    print(wal)
    if profiler is not None:
        _profile_print(profiler)


def _callgrind(state: str) -> None:
    """Under ``valgrind --tool=callgrind --instr-atstart=no`` with BENCH_CALLGRIND=1: instrumentation on or off."""
    if os.environ.get("BENCH_CALLGRIND"):
        import subprocess

        subprocess.run(["callgrind_control", f"--instr={state}", str(os.getpid())], check=True, capture_output=True)


def _callgrind_backend_mark(connection: Any) -> None:
    """``--callgrind-backend``: the start of the counted rounds in the backend's callgrind profile. The server runs
    under ``valgrind --tool=callgrind --zero-before=pg_backend_pid --dump-before=pg_current_wal_lsn`` (docs/bench.md
    "The backend's instructions per round"): this statement zeroes the backend's counts, ``_wal_report``'s first
    statement after the rounds dumps them. No statement of the platform calls either function
    (tests/test_bench_round_cpu.py); switching the instrumentation with ``callgrind_control`` instead waits for the
    idle backend to poll, which it never does (and crashed it)."""
    with connection.cursor() as cur:
        cur.execute(f"SELECT {BACKEND_ZERO}()")


def _profile_print(profiler: Any) -> None:
    import pstats

    if os.environ.get("BENCH_PROFILE_OUT"):
        profiler.dump_stats(os.environ["BENCH_PROFILE_OUT"])
    pstats.Stats(profiler).sort_stats("tottime").print_stats(40)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(60)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("setup")
    s.add_argument("--players", type=int, default=3000)
    r = sub.add_parser("run")
    r.add_argument("--rounds", type=int, default=1000)
    r.add_argument("--warmup", type=int, default=50)
    r.add_argument("--mix", type=float, default=0.0, help="share of Kobushi rounds (the rest roulette)")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--players", type=int, default=300, help="players taking turns (each plays every 2 s at most)")
    r.add_argument(
        "--activity-ahead",
        action="store_true",
        help="no counted round writes the once-a-minute token/session activity (see _activity_ahead)",
    )
    r.add_argument("--offset", type=int, default=0, help="the first player (runs side by side use different ones)")
    r.add_argument("--profile", action="store_true")
    r.add_argument(
        "--callgrind-backend",
        action="store_true",
        help="mark the counted rounds for a server run under callgrind with --zero-before=pg_backend_pid "
        "--dump-before=pg_current_wal_lsn (docs/bench.md)",
    )
    r.add_argument("--show-sql", action="store_true", help="print the statements of the last round")
    a = p.parse_args()
    if a.command == "setup":
        setup(a.players)
    else:
        run(
            a.rounds,
            a.warmup,
            a.mix,
            a.profile,
            a.seed,
            a.show_sql,
            a.players,
            a.offset,
            a.activity_ahead,
            a.callgrind_backend,
        )


if __name__ == "__main__":
    main()
