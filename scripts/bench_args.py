"""The command line of ``make bench`` (scripts/bench.py): its options and the web set-ups of ``--sweep``."""

from __future__ import annotations

import argparse
import re
from pathlib import Path


def parse(argv: list[str] | None, doc: str | None = None) -> argparse.Namespace:
    """``make bench``'s arguments (``doc``: scripts/bench.py's docstring, whose first paragraph is the help's
    description), each sweep spec checked before anything starts."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0] if doc else None)
    p.add_argument("--connections", type=int, default=32, help="concurrent keep-alive connections (and pgbench -c)")
    p.add_argument("--seconds", type=float, default=60, help="length of each measured run")
    p.add_argument("--players", type=int, default=2000)
    p.add_argument("--history", type=int, default=1_000_000, help="historical rounds loaded before the second run")
    p.add_argument("--pgbench-seconds", type=int, default=20)
    p.add_argument("--pgbench-scale", type=int, default=10)
    p.add_argument("--mix", type=float, default=0.5, help="share of Kobushi rounds (the rest roulette)")
    p.add_argument(
        "--warmup",
        type=float,
        default=None,
        help="seconds of unmeasured load before each run (default: 5, or a quarter of --seconds if shorter)",
    )
    p.add_argument("--workers", type=int, default=None, help="WEB_CONCURRENCY (default: config/gunicorn.conf.py)")
    p.add_argument("--worker-class", default=None, help="sync | gthread (default: config/gunicorn.conf.py)")
    p.add_argument("--threads", type=int, default=None, help="threads per gthread worker")
    p.add_argument("--conn-max-age", type=int, default=60, help="CONN_MAX_AGE of the web processes (0 = per request)")
    p.add_argument("--fund", type=int, default=10_000_000, help="each player's balance (haléře)")
    p.add_argument("--daily-stake", type=int, default=5_000_000, help="daily stake self-limit (haléře)")
    p.add_argument("--daily-loss", type=int, default=2_000_000, help="daily loss self-limit (haléře)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="at the end, cProfile N rounds played in-process (one per player) and print the hot spots",
    )
    p.add_argument(
        "--pgbouncer",
        action="store_true",
        help="the web through a private PgBouncer in transaction mode (CONN_MAX_AGE=0; docs/scaling.md)",
    )
    p.add_argument("--pgbouncer-pool", type=int, default=16, help="PgBouncer's server connections for the web")
    p.add_argument("--keep", action="store_true", help="keep the bench databases afterwards")
    p.add_argument(
        "--pg",
        choices=("auto", "private", "url"),
        default="auto",
        help="auto: a private cluster (initdb, pg_stat_statements) where the server binaries exist, else "
        "DATABASE_URL or the embedded one; url: DATABASE_URL / embedded only",
    )
    p.add_argument(
        "--floor-statements",
        type=int,
        default=11,
        help="statements of the floor view (config/bench_floor.py), driven after each run; 0: no floor",
    )
    p.add_argument("--json", type=Path, default=None, help="also write the rows as JSON here")
    p.add_argument(
        "--no-jackpots-off-run",
        dest="jackpots_off_run",
        action="store_false",
        help="skip the pair of runs 'jackpots off' / 'jackpots on' that follows 'fresh'",
    )
    p.add_argument(
        "--no-capacity-run",
        dest="capacity_run",
        action="store_false",
        help="skip the capacity search and the open-loop run at --capacity-share of it",
    )
    p.add_argument(
        "--capacity-players",
        type=int,
        default=1200,
        help="players of the open-loop runs (each starts at most one round per 2 s: 1,200 allow ~545/s)",
    )
    p.add_argument("--capacity-share", type=float, default=0.7, help="the open-loop run's share of the capacity")
    p.add_argument(
        "--capacity-requests",
        type=int,
        default=3000,
        help="the open-loop run at a share of capacity lasts until this many starts were due (p99 of 3,000 is the "
        "30th slowest), at least --seconds",
    )
    p.add_argument(
        "--capacity-max-seconds",
        type=float,
        default=60.0,
        help="the longest that open-loop run may last (when the capacity is low)",
    )
    p.add_argument(
        "--capacity-step-seconds",
        type=float,
        default=None,
        help="length of a capacity step (default: --seconds / 2, within 3-8 s)",
    )
    p.add_argument(
        "--no-provider-run",
        dest="provider_run",
        action="store_false",
        help="skip the run 'provider' (a remote studio's bet/win rounds through the seamless wallet)",
    )
    p.add_argument(
        "--sweep",
        nargs="+",
        default=None,
        metavar="SPEC",
        help="instead of the fresh/history runs, one run per web set-up, e.g. sync:2 sync:4 gthread:4x4 "
        "gthread:2x8@0 (class:workers[xthreads][@CONN_MAX_AGE]); no history is loaded",
    )
    args = p.parse_args(argv)
    if args.warmup is None:
        args.warmup = min(5.0, args.seconds / 4)
    for spec in args.sweep or ():
        sweep_env(spec)  # refuse a bad spec before anything starts
    return args


_SPEC = re.compile(r"^(?P<kind>sync|gthread)(?::(?P<workers>\d+)(?:x(?P<threads>\d+))?)?(?:@(?P<age>\d+))?$")


def sweep_env(spec: str) -> dict[str, str]:
    """The environment of one sweep set-up: ``class:workers[xthreads][@CONN_MAX_AGE]``."""
    match = _SPEC.match(spec)
    if match is None:
        raise SystemExit(f"bad --sweep spec {spec!r}: expected e.g. sync:4, gthread:4x4 or gthread:2x8@0")
    env = {"GUNICORN_WORKER_CLASS": match["kind"]}
    for group, name in (("workers", "WEB_CONCURRENCY"), ("threads", "GUNICORN_THREADS"), ("age", "CONN_MAX_AGE")):
        if match[group]:
            env[name] = match[group]
    return env
