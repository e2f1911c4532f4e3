"""`make bench`: the real-money round through the production web server, against PostgreSQL's own ceiling.

    .venv/bin/python scripts/bench.py                          # 2,000 players, 32 connections, 60 s, 1,000,000 rounds
    .venv/bin/python scripts/bench.py --seconds 10 --players 200 --history 20000 --pgbench-seconds 5   # CI smoke

1. PostgreSQL: a private cluster of the bench's own (``scripts/bench_pg.py``: initdb with the machine's binaries,
   ``pg_stat_statements`` preloaded) where the binaries exist, else ``DATABASE_URL``, else the embedded one
   (``--pg``). Two databases of its own on it, dropped first: ``platform_bench`` (migrated) and ``pgbench_db``.
2. ``--players`` funded players in bulk (``scripts/bench_data.py``): active, verified, a funded wallet, a daily
   stake limit and a daily loss limit (self-limits on), a login session with its API token each.
3. gunicorn with ``config/gunicorn.conf.py`` serving ``config.sqlcount:application`` (``SQL_COUNT=1``: each answer
   carries ``X-SQL-Count``, the statements of its request), ``DEBUG=0``, persistent connections.
4. Per run: ``pgbench`` TPC-B-like (``-s 10``, the same client count, ``--pgbench-seconds``) before and after; a
   short warm-up; the load (``scripts/bench_load.py``: ``--connections`` keep-alive HTTP/1.1 connections for
   ``--seconds``, half roulette and half Kobushi, each player at most one round start per 2 s, GP §7(9)); then
   ``manage.py ledger_check`` and ``manage.py limits_reconcile`` on the bench database.
5. Run "fresh" (jackpots on: Kobushi's two pools and the demo's central BRONZE/SILVER/GOLD over every game, the
   fold job running beside the load; each player's first round of the day also creates its counter rows), then
   the pair "jackpots off" (``JACKPOTS_ENABLED=false``) and "jackpots on" on the same warm state (skip the pair
   with ``--no-jackpots-off-run``), then ``--history`` historical rounds loaded straight into the tables, then run
   "history" (jackpots on). ``manage.py jackpot_check`` runs with the other checks.
6. After each run's load, the floor (``config/bench_floor.py``: a minimal DRF view doing ``--floor-statements``
   statements in one transaction) under the same load on the same server. One table: settled rounds/s, p50/p95/p99
   of ``POST /rounds`` (ms), errors, SQL statements per settled round (with its actions), web and database CPU ms
   per round, pgbench TPS and the ratios to pgbench and to the floor; then the Kobushi free-spin round's
   statements, the top statements by total time per round (``pg_stat_statements``), the details, the machine.

7. Run "provider" (after the fresh runs, before the history; ``--no-provider-run`` skips it): a remote studio
   (``scripts/bench_provider.py`` with ``provider_simulator``'s slot and signature) drives the providers'
   seamless-wallet
   API for the same players over the same connections: each player launches the studio's game and gets a game
   session (set-up, not measured), then signed ``bet`` + ``win`` (round_closed) rounds, 2 s apart per player. Its
   row: rounds/s, p50/p95/p99 of a whole round (bet + win), SQL statements per round; the details give each call's
   latency and statements. Accepted provider calls are not rate-limited (docs/providers.md), so
   it needs no special rate.

8. Capacity (after the jackpots pair, before the provider runs; ``--no-capacity-run`` skips it): open-loop steps
   (``scripts/bench_open.py``: starts on a fixed timetable, latency from each start's due time, so a queue is never
   hidden by a client that waits) from half the last closed-loop run's rate, up x1.5 until a step fails, then
   bisected, the chosen rate run once more to confirm it; each step starts once the server is idle again (the
   previous step's queue drained) and is sustained when >= 98 % of its starts were answered within it, <= 2 %
   errors and its latency did not grow across it; then open-loop load at ``--capacity-share`` (70 %) of that
   capacity for ``--seconds``, or longer until ``--capacity-requests`` (3,000) starts were due (at most
   ``--capacity-max-seconds``): the row "open loop 70 %" (p50/p95/p99 from the due times), with
   ``--capacity-players`` players (each starts a round at most every 2 s, GP §7(9)); a note says which gunicorn
   workers were replaced during it (``GUNICORN_MAX_REQUESTS``) and how many of its p99 starts were waiting then.

``--sweep sync:5 gthread:4x4 ...`` measures web set-ups against each other instead (one run each, no history);
``--profile N`` ends with a cProfile of N rounds played in-process (where the CPU of a round goes).

Ctrl-C (or SIGTERM) stops gunicorn and everything started here. Nothing but 127.0.0.1 is ever sent HTTP traffic.
Speed is measured here, never asserted: the exit status says only whether the bench ran and the checks passed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import bench_data  # noqa: E402 - after the path set-up (its Django imports are lazy: set up in Bench._django)
import bench_open  # noqa: E402
import bench_pg  # noqa: E402
import bench_provider  # noqa: E402
from bench_args import parse, sweep_env  # noqa: E402
from bench_load import KOBUSHI, MIN_ROUND_SECONDS, ROULETTE, Player, percentile, run_floor, run_load  # noqa: E402
from bench_report import BenchReport, Row, row_json  # noqa: E402
from bench_stack import (  # noqa: E402
    LOG_DIR,
    PGBENCH_DB,
    Embedded,
    Server,
    Web,
    free_port,
    manage,
    pgbench_init,
    pgbench_run,
    psql_available,
    say,
)

BENCH_DB = "platform_bench"


@contextlib.contextmanager
def _fold_job(every: float = 1.0) -> Iterator[None]:
    """The jackpots fold job, in a thread of this process, while the load runs (a Celery worker does it in
    production); its CPU counts as the client's."""
    from django.db import connection

    from jackpots.services import jackpots_fold_all

    stop = threading.Event()

    def loop() -> None:
        try:
            while not stop.wait(every):
                jackpots_fold_all()
        finally:
            connection.close()

    thread = threading.Thread(target=loop, name="jackpots-fold", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=60)


def checks_run(env: dict[str, str]) -> dict[str, str]:
    """The project's consistency checks on the bench database."""
    results: dict[str, str] = {}
    for command in ("ledger_check", "limits_reconcile", "jackpot_check"):
        if not any(
            (ROOT / app / "management" / "commands" / f"{command}.py").exists()
            for app in ("wallet", "limits", "jackpots")
        ):
            results[command] = "not available"
            continue
        out = manage(env, command)
        text = " | ".join(line.strip() for line in (out.stdout + out.stderr).strip().splitlines()[:6])
        results[command] = f"{'OK' if out.returncode == 0 else f'FAILED (exit {out.returncode})'}: {text[:400]}"
    return results


class Bench(BenchReport):
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.embedded = Embedded()
        self.server: Server | None = None
        self.web: Web | None = None
        self.rows: list[Row] = []
        self.notes: list[str] = []
        self.players: list[tuple[int, str]] = []
        self.all_players: list[tuple[int, str]] = []
        self.capacities: list[tuple[str, bench_open.Capacity]] = []
        self.env: dict[str, str] = {}
        self.port = 0
        self.conn_age: dict[str, str] = {}  # CONN_MAX_AGE of a sweep's row
        self.cluster: bench_pg.PrivateCluster | None = None
        self.statements = False  # pg_stat_statements in the bench database
        self.profile_text = ""
        self.bouncer: Any = None  # --pgbouncer: tests.kit.servers.PgBouncer
        self.provider_game = ""  # the platform's code of the provider run's game

    # set-up
    def database(self) -> Server:
        url = "" if self.args.pg == "private" else os.environ.get("DATABASE_URL", "")
        bin_dir = bench_pg.find_bin() if self.args.pg != "url" else None
        if self.args.pg != "url" and bin_dir is not None:  # pg_stat_statements needs a server of the bench's own
            self.cluster = bench_pg.PrivateCluster(LOG_DIR, bin_dir)
            say(f"== starting a {self.cluster.describe()}")
            url = self.cluster.start()
        elif self.args.pg == "private":
            raise RuntimeError("--pg private: no PostgreSQL server binaries (BENCH_PG_BIN or /usr/lib/postgresql)")
        if not url:
            say("== starting the embedded PostgreSQL (.data/pg)")
            url = self.embedded.url()
        server = Server(url)
        self.server = server
        psql_available()
        for name in (BENCH_DB, PGBENCH_DB):
            server.sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            server.sql(f"CREATE DATABASE {name}")
        self.statements = bench_pg.statements_enable(server, BENCH_DB)
        where = (
            self.cluster.describe()
            if self.cluster
            else "embedded"
            if not os.environ.get("DATABASE_URL")
            else "DATABASE_URL"
        )
        self.notes.append(
            f"PostgreSQL: {server.sql('SHOW server_version')} ({where}), "
            f"pg_stat_statements {'on' if self.statements else 'off (not preloaded)'}, "
            f"max_connections {server.sql('SHOW max_connections')}, "
            f"shared_buffers {server.sql('SHOW shared_buffers')}"
        )
        return server

    def child_env(self, server: Server, port: int) -> dict[str, str]:
        a = self.args
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_NAME", "TESTING")}
        env.update(
            {
                "DATABASE_URL": server.url_for(BENCH_DB),
                "DJANGO_ENV": "development",
                "DEBUG": "0",
                "CONN_MAX_AGE": str(a.conn_max_age),
                "CONN_HEALTH_CHECKS": os.environ.get("CONN_HEALTH_CHECKS", "1"),
                "SQL_COUNT": "1",
                "BENCH_FLOOR": "1",
                "BENCH_FLOOR_STATEMENTS": str(a.floor_statements),
                "BIND": f"127.0.0.1:{port}",
                "GUNICORN_ACCESS_LOG": str(LOG_DIR / "access.log"),
                "PYTHONDONTWRITEBYTECODE": "1",
                # the provider run: one studio's calls all come from 127.0.0.1 (the default is 600 a minute per address)
            }
        )
        if self.bouncer is not None:  # --pgbouncer: the web and the bulk set-up through it, pgbench straight
            from tests.kit.servers import SIDE_SUFFIX

            pooled = f"postgres://{server.user}@127.0.0.1:{self.bouncer.port}/"
            env.update(
                {
                    "DATABASE_POOLER": "pgbouncer",
                    "DATABASE_URL": pooled + BENCH_DB,
                    "DATABASE_SIDE_URL": pooled + BENCH_DB + SIDE_SUFFIX,
                    "CONN_MAX_AGE": "0",
                }
            )
        for option, name in (
            (a.workers, "WEB_CONCURRENCY"),
            (a.worker_class, "GUNICORN_WORKER_CLASS"),
            (a.threads, "GUNICORN_THREADS"),
        ):
            if option is not None:
                env[name] = str(option)
        return env

    def prepare(self) -> None:
        a = self.args
        server = self.database()
        if a.pgbouncer:
            from tests.kit.servers import PgBouncer, pgbouncer_binary

            self.bouncer = PgBouncer(
                upstream_host=server.host,
                upstream_port=server.port or 5432,
                upstream_user=server.user,
                upstream_password=server.password,
                pool_size=a.pgbouncer_pool,
                side_pools=(BENCH_DB,),
            ).start()
            version = subprocess.run(
                [pgbouncer_binary() or "pgbouncer", "--version"], capture_output=True, text=True, check=False
            ).stdout.split("\n")[0]
            self.notes.append(
                f"{version} in transaction mode on 127.0.0.1:"
                f"{self.bouncer.port}: {a.pgbouncer_pool} server connections for the web, 5 for the "
                f"side connection; CONN_MAX_AGE=0, no server-side cursors (DATABASE_POOLER=pgbouncer)"
            )
        port = free_port()
        self.env = self.child_env(server, port)
        LOG_DIR.mkdir(parents=True, exist_ok=True)
        for log in ("gunicorn.log", "access.log"):
            (LOG_DIR / log).write_bytes(b"")  # this bench's logs only
        t0 = time.monotonic()
        out = manage(self.env, "migrate", "--noinput")
        if out.returncode != 0:
            raise RuntimeError(f"migrate failed: {out.stderr.strip()[-3000:]}")
        say(f"== {BENCH_DB} migrated in {time.monotonic() - t0:.1f} s")
        self._django()
        t0 = time.monotonic()
        say(f"== creating {a.players:,} funded players (bulk)")
        total = max(a.players, a.capacity_players if a.capacity_run else 0)
        created = bench_data.players_create(
            total, fund=a.fund, daily_stake=a.daily_stake, daily_loss=a.daily_loss, say=say
        )
        self.all_players = [(p.player_id, p.token) for p in created]
        self.players = self.all_players[: a.players]  # the closed-loop runs; the open-loop ones use all
        secs = time.monotonic() - t0
        say(f"== {len(created):,} players created in {secs:.1f} s")
        self.notes.append(
            f"players: {len(created):,} created in {secs:.1f} s (bulk); fund {a.fund / 100:,.0f} CZK each, "
            f"daily stake limit {a.daily_stake / 100:,.0f} CZK, daily loss limit "
            f"{a.daily_loss / 100:,.0f} CZK"
        )
        from jackpots.demo import seed as jackpots_seed

        levels = io.StringIO()
        jackpots_seed(levels)  # the demo's central BRONZE/SILVER/GOLD over every game (Kobushi's pools: migrate)
        from core.audit import Actor
        from games.demo import demo_approvals

        demo_approvals(actor=Actor.system("bench"))  # real money needs approved versions (GP §13(6)), as in the demo
        self.provider_game = bench_provider.provider_setup()  # the provider run's studio and its approved game
        self.notes.append(
            "jackpots: " + "; ".join(line.removeprefix("jackpot: ") for line in levels.getvalue().splitlines())
        )
        self._close_django()
        if a.pgbench_seconds > 0:
            say(f"== pgbench -i -s {a.pgbench_scale} in {pgbench_init(server, a.pgbench_scale):.1f} s")
        self.port = port

    def start_web(self, overrides: dict[str, str] | None = None) -> Web:
        """(Re)start gunicorn, with these environment overrides (a sweep's worker set-up)."""
        if self.web is not None:
            self.web.stop()
        self.web = Web({**self.env, **(overrides or {})}, self.port)
        self.web.start()
        say(f"== gunicorn on 127.0.0.1:{self.port}: {self.web.description} (log {self.web.log})")
        return self.web

    def _django(self) -> None:
        """Django in this process, on the bench database (for the bulk data only; the load is plain HTTP)."""
        os.environ.update({k: self.env[k] for k in ("DATABASE_URL", "DJANGO_ENV", "DEBUG", "CONN_MAX_AGE")})
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        import django

        django.setup()

    @staticmethod
    def _close_django() -> None:
        from django.db import connections

        connections.close_all()

    # runs
    def run(self, label: str) -> Row:
        a = self.args
        assert self.server is not None and self.web is not None
        bench_data.sessions_refresh([pid for pid, _ in self.players])
        self._close_django()
        say(f"== run '{label}': pgbench before ({a.pgbench_seconds} s, {a.connections} clients)")
        before = pgbench_run(self.server, a.connections, a.pgbench_seconds)
        if a.warmup > 0:
            say(f"   warm-up {a.warmup:.0f} s")
            run_load(
                self.web.port,
                self.players,
                connections=a.connections,
                seconds=a.warmup,
                mix=a.mix,
                seed=a.seed + 1000,
                grace=30,
            )
            time.sleep(2.1)  # GP §7(9): the measured run starts every player's round at least 2 s later
        say(f"   load: {a.connections} connections, {a.seconds:.0f} s")
        load0 = os.getloadavg()[0]
        if self.statements:
            bench_pg.statements_reset(self.server, BENCH_DB)
        web0, client0, db0 = self.web.cpu_seconds(), time.process_time(), self.db_cpu()
        with _fold_job():  # what beat runs every JACKPOTS_FOLD_SECONDS in production
            stats = run_load(
                self.web.port,
                self.players,
                connections=a.connections,
                seconds=a.seconds,
                mix=a.mix,
                seed=a.seed,
                grace=30,
            )
        web1, client1, db1 = self.web.cpu_seconds(), time.process_time(), self.db_cpu()
        settled = sum(stats.settled.values())
        # GP §7(9): each player starts a round every 2 s at most (bench_load spaces them by that and a margin)
        bound = len(self.players) / MIN_ROUND_SECONDS
        if settled >= 0.95 * bound * a.seconds:
            say(
                f"   BOUNDED BY THE PLAYERS: {settled / a.seconds:.0f} rounds/s of at most {bound:.0f}/s that "
                f"{len(self.players):,} players may start (GP §7(9)); the rate and its ratio to the floor (driven "
                "with the same players and pacing) measure the players, not the platform: run with more --players"
            )
        db_ms, top = bench_pg.statements_top(self.server, BENCH_DB, settled) if self.statements else (0.0, [])
        floor = None
        if a.floor_statements > 0 and label not in ("jackpots off", "jackpots on"):  # the pair compares jackpots
            say(f"   {settled:,} settled rounds; the floor ({a.floor_statements} statements) for {a.seconds:.0f} s")
            floor = run_floor(self.web.port, self.players, connections=a.connections, seconds=a.seconds)
        say(f"   {settled:,} settled rounds; pgbench after")
        after = pgbench_run(self.server, a.connections, a.pgbench_seconds)
        row = Row(
            label,
            stats,
            stats.last_end - stats.first_start,
            web1 - web0,
            client1 - client0,
            db1 - db0,
            before,
            after,
            (load0, os.getloadavg()[0]),
            self.web.description,
            floor=floor,
            db_ms=db_ms,
            top=top,
        )
        row.checks = checks_run(self.env)
        for name, result in row.checks.items():
            say(f"   {name}: {result}")
        self.rows.append(row)
        return row

    def run_provider(self, label: str = "provider", mode: str = "bet_win") -> Row:
        """The remote studio's rounds (bench_provider): launch + session for every player (not measured), then
        signed rounds for ``--seconds`` (``bet_win``: a bet and a closing win; ``play``: the one-shot round in one
        call); the same checks after."""
        a = self.args
        assert self.server is not None and self.web is not None
        bench_data.sessions_refresh([pid for pid, _ in self.players])
        self._close_django()
        studio = bench_provider.Studio(bench_provider.CODE, bench_provider.SECRET)
        players = [bench_provider.RemotePlayer(pid, token) for pid, token in self.players]
        t0 = time.monotonic()
        launched = bench_provider.launch_sessions(
            self.web.port, players, studio, game=self.provider_game, connections=a.connections
        )
        say(
            f"== run '{label}': {launched.sessions:,} game sessions of {bench_provider.CODE} in "
            f"{time.monotonic() - t0:.1f} s (launch + session)"
            + (f"; failed: {dict(launched.errors.most_common(5))}" if launched.errors else "")
        )
        self.notes.append(
            f"provider run: {launched.sessions:,} of {len(players):,} players launched "
            f"{self.provider_game} and got a session in {time.monotonic() - t0:.1f} s (not measured); "
            f"rounds of {bench_provider.STAKE} haléře, "
            f"{'one play call' if mode == 'play' else 'bet + win with round_closed'}, signed HMAC-SHA256"
        )
        say(f"   pgbench before ({a.pgbench_seconds} s, {a.connections} clients)")
        before = pgbench_run(self.server, a.connections, a.pgbench_seconds)
        time.sleep(2.1)  # GP §7(9): after the previous run's last rounds
        say(f"   load: {a.connections} connections, {a.seconds:.0f} s")
        load0 = os.getloadavg()[0]
        if self.statements:
            bench_pg.statements_reset(self.server, BENCH_DB)
        web0, client0, db0 = self.web.cpu_seconds(), time.process_time(), self.db_cpu()
        stats = bench_provider.run_provider_load(
            self.web.port,
            players,
            studio,
            game=self.provider_game,
            provider_game=bench_provider.GAME_SLUG,
            connections=a.connections,
            seconds=a.seconds,
            seed=a.seed,
            grace=30,
            mode=mode,
        )
        web1, client1, db1 = self.web.cpu_seconds(), time.process_time(), self.db_cpu()
        settled = sum(stats.settled.values())
        db_ms, top = bench_pg.statements_top(self.server, BENCH_DB, settled) if self.statements else (0.0, [])
        say(f"   {settled:,} settled rounds; pgbench after")
        after = pgbench_run(self.server, a.connections, a.pgbench_seconds)
        row = Row(
            label,
            stats,
            stats.last_end - stats.first_start,
            web1 - web0,
            client1 - client0,
            db1 - db0,
            before,
            after,
            (load0, os.getloadavg()[0]),
            self.web.description,
            db_ms=db_ms,
            top=top,
        )
        row.checks = checks_run(self.env)
        for name, result in row.checks.items():
            say(f"   {name}: {result}")
        self.rows.append(row)
        return row

    def capacity_run(self, label: str = "open loop 70 %") -> Row | None:
        """The capacity search (``bench_open``: open-loop steps, every player of the bench, jackpots on with the
        fold job), then open-loop load at ``--capacity-share`` of the capacity found, for ``--seconds`` or longer,
        until ``--capacity-requests`` round starts were due (at most ``--capacity-max-seconds``): its row's
        p50/p95/p99 count from each start's due time. No pgbench and no floor around it (the other rows have them)."""
        a = self.args
        assert self.server is not None and self.web is not None
        bench_data.sessions_refresh([pid for pid, _ in self.all_players])
        self._close_django()
        players = [Player(pid, token) for pid, token in self.all_players]
        step_seconds = a.capacity_step_seconds or max(3.0, min(8.0, a.seconds / 2))
        # the last closed-loop run saturated the server: half its rate is a sustained start, x1.5 finds the edge fast
        start_rate = max(25.0, 0.5 * self.rows[-1].rate) if self.rows else 25.0
        say(
            f"== capacity: open-loop steps of {step_seconds:.0f} s from {start_rate:.0f}/s, {len(players):,} players "
            f"(at most {len(players) / bench_open.PLAYER_PERIOD:.0f} starts/s, GP §7(9)), at most {a.connections} "
            f"in flight"
        )
        time.sleep(2.1)  # GP §7(9): after the previous run's last rounds
        with _fold_job():
            cap = bench_open.capacity_search(
                self.web.port,
                players,
                step_seconds=step_seconds,
                connections=a.connections,
                mix=a.mix,
                start_rate=start_rate,
                seed=a.seed + 2000,
                say=say,
            )
        self.capacities.append((label, cap))
        if cap.rate <= 0:
            say("   no step was sustained: no run at a share of capacity")
            return None
        rate = cap.rate * a.capacity_share
        seconds = max(a.seconds, min(a.capacity_max_seconds, a.capacity_requests / rate))
        say(
            f"   capacity {cap.rate:.0f} rounds/s{' (bounded by the players)' if cap.player_bound else ''}"
            f"{'' if cap.confirmed or cap.player_bound else ' (NOT confirmed: the search ran out of steps)'}; "
            f"open loop at {rate:.0f}/s ({a.capacity_share:.0%}) for {seconds:.0f} s"
        )
        idle = bench_open.wait_idle(self.web.port, players[0].token, cap.idle_ms, pause=2.1)
        say(f"   server idle: {'yes' if idle else 'NOT within the wait'}")
        access = LOG_DIR / "access.log"
        load0 = os.getloadavg()[0]
        if self.statements:
            bench_pg.statements_reset(self.server, BENCH_DB)
        web0, client0, db0 = self.web.cpu_seconds(), time.process_time(), self.db_cpu()
        with _fold_job():
            stats, step = bench_open.run_open_loop(
                self.web.port,
                players,
                rate=rate,
                seconds=seconds,
                connections=a.connections,
                mix=a.mix,
                seed=a.seed + 3000,
                grace=30,
            )
        web1, client1, db1 = self.web.cpu_seconds(), time.process_time(), self.db_cpu()
        say(f"   {step.describe()}")
        self.recycle_note(label, step, stats, access)
        db_ms, top = (
            bench_pg.statements_top(self.server, BENCH_DB, sum(stats.settled.values()))
            if self.statements
            else (0.0, [])
        )
        row = Row(
            label,
            stats,
            seconds,
            web1 - web0,
            client1 - client0,
            db1 - db0,
            0.0,
            0.0,
            (load0, os.getloadavg()[0]),
            self.web.description,
            db_ms=db_ms,
            top=top,
        )
        row.open_step, row.capacity = step, cap
        row.checks = checks_run(self.env)
        for name, result in row.checks.items():
            say(f"   {name}: {result}")
        self.rows.append(row)
        return row

    def recycle_note(self, label: str, step: bench_open.Step, stats: Any, access: Path) -> None:
        """The workers gunicorn replaced during the open-loop run (``GUNICORN_MAX_REQUESTS``) and whether its slowest
        starts (p99 and above) were waiting while a new worker began: a note of the report."""
        lines = access.read_text(errors="replace").splitlines() if access.exists() else []
        end = step.wall_t0 + step.seconds
        fresh = bench_open.new_workers(lines, step.wall_t0, end)
        p99 = percentile(stats.round_ms, 99)
        slow = sum(1 for _, ms, _ in step.timeline if ms >= p99)
        near = bench_open.slow_near(step, [w.first_at for w in fresh], p99)
        firsts = [ms for w in fresh for ms in w.first_ms[:5]]
        median = percentile(
            [float(json.loads(x).get("duration_ms", 0)) for x in lines[-2000:] if x.startswith("{")], 50
        )
        text = f"[{label}] workers replaced during the run (GUNICORN_MAX_REQUESTS): {len(fresh)}" + (
            f" (at +{', +'.join(f'{w.first_at - step.wall_t0:.1f}' for w in fresh)} s); "
            f"their first 5 answers took {', '.join(f'{ms:.0f}' for ms in firsts)} ms in the server "
            f"(median of the last 2,000 answers: {median:.0f} ms); of the {slow} starts at or above p99 "
            f"({p99:.0f} ms), {near} were waiting within 0.5 s before to 2 s after a new worker began"
            if fresh
            else ""
        )
        say(f"   {text}")
        self.notes.append(text)

    def db_cpu(self) -> float:
        """CPU of the bench's own cluster, else of every PostgreSQL server on the machine (machine-wide)."""
        pid = self.cluster.postmaster_pid() if self.cluster else None
        return bench_pg.cluster_cpu_seconds(pid) if pid else bench_pg.machine_postgres_cpu_seconds()

    def history(self) -> None:
        say(f"== loading {self.args.history:,} historical rounds")
        result = bench_data.history_load(
            player_ids=[pid for pid, _ in self.players],
            rounds=self.args.history,
            fund=self.args.fund,
            roulette=ROULETTE,
            kobushi=KOBUSHI,
            say=say,
        )
        self._close_django()
        self.notes.append(
            f"history: {result['rounds']:,} settled rounds loaded in {result['seconds']:.1f} s "
            f"(database now {result.get('database_size', '?')})"
        )
        say(f"== history loaded in {result['seconds']:.1f} s")

    def profile(self) -> None:
        """cProfile of rounds played in this process (the hottest path, without HTTP and gunicorn)."""
        say(f"== profiling {self.args.profile} rounds in-process")
        bench_data.sessions_refresh([pid for pid, _ in self.players])
        time.sleep(2.1)  # GP §7(9) after the last run
        self.profile_text = bench_data.rounds_profile(self.players, rounds=self.args.profile, mix=self.args.mix)

    def shutdown(self) -> None:
        if self.web is not None:
            self.web.stop()
        with contextlib.suppress(Exception):
            self._close_django()
        if self.server is not None and not self.args.keep:
            for name in (BENCH_DB, PGBENCH_DB):
                with contextlib.suppress(RuntimeError, subprocess.SubprocessError):
                    self.server.sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        if self.bouncer is not None:
            self.bouncer.stop()
        self.embedded.stop()
        if self.cluster is not None:
            self.cluster.stop()


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM ends the bench like Ctrl-C (the cleanup runs)."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv, __doc__)
    os.chdir(ROOT)
    bench = Bench(args)
    status = 0
    with _terminate_as_interrupt():
        try:
            bench.prepare()
            if args.sweep:
                for spec in args.sweep:
                    overrides = sweep_env(spec)
                    bench.conn_age[spec] = overrides.get("CONN_MAX_AGE", str(args.conn_max_age))
                    bench.start_web(overrides)
                    bench.run(spec)
                    if args.capacity_run:  # each set-up's capacity and its latency at a share of it
                        bench.capacity_run(f"{spec} open loop")
            else:
                bench.start_web()
                bench.run("fresh")
                if args.jackpots_off_run:  # the pair to compare: same players, same day, counter rows in place
                    bench.start_web({"JACKPOTS_ENABLED": "false"})
                    bench.run("jackpots off")
                    bench.start_web()
                    bench.run("jackpots on")
                if args.capacity_run:  # capacity, then latency at a share of it (open loop)
                    bench.capacity_run()
                if args.provider_run:  # a remote studio's rounds through the seamless wallet
                    bench.run_provider("provider")
                    bench.run_provider("provider play", mode="play")
                if args.history > 0:
                    bench.history()
                    bench.run("history")
            if args.profile > 0:
                bench.profile()
        except KeyboardInterrupt:
            say("\n!! interrupted")
            status = 130
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            say(f"\n!! bench failed: {exc}")
            status = 1
        finally:
            bench.shutdown()
    bench.report()
    if args.json is not None:
        args.json.write_text(json.dumps([row_json(r) for r in bench.rows], indent=2))
    failed_checks = [k for r in bench.rows for k, v in r.checks.items() if v.startswith("FAILED")]
    if status == 0 and failed_checks:
        say(f"!! consistency checks failed: {failed_checks}")
        status = 2
    return status


if __name__ == "__main__":
    raise SystemExit(main())
