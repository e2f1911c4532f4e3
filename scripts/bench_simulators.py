#!/usr/bin/env python
"""The CPU each game's fast simulator takes for its rounds: the figures behind "10^7 rounds within a minute of CPU".

For every registered game with ``simulate_fast`` (or the ``--only`` ones) at its representative bet and the PAR
sheets' seed: ``time.process_time()`` around ``simulate_fast`` of ``--rounds`` rounds (default 1,000,000), the least
of ``--runs`` runs (this process's CPU, which other work on a shared machine slows far less than the wall clock; the
least run is the usual benchmark practice), projected linearly to 10^7 rounds (the simulators run in fixed-size
batches) and set against the minute. It prints the figures and asserts nothing: the test
``games/tests/engine/test_all_games_rtp.py`` holds the deterministic part (the Python lines each simulated round
costs); speed is read here, on a quiet machine, and its figures go in the notes (docs/bench.md).

    .venv/bin/python scripts/bench_simulators.py                      # every game, 10^6 rounds, least of 3 runs
    .venv/bin/python scripts/bench_simulators.py --only starfall_grid@2 --rounds 10000000 --runs 1
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SEED = 20240601  # the PAR sheets' seed (scripts/par_sheets.py)
GOAL_SECONDS = 60.0  # 10^7 rounds within a minute of CPU
GOAL_ROUNDS = 10_000_000


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def measure(game, rounds: int, runs: int) -> list[float]:
    """The CPU seconds of each of ``runs`` simulations of ``rounds`` rounds (fixed seed: the same rounds each run)."""
    from games.engine import par

    bet = game.validate_bet(par.representative_bet_params(game))
    game.simulate_fast(bet, min(rounds, 1_000), SEED)  # the lazily built tables, outside the measured runs
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        stats = game.simulate_fast(bet, rounds, SEED)
        times.append(time.process_time() - t0)
        if stats is None or stats["rounds"] != rounds:
            raise SystemExit(f"{game.code}@{game.version}: simulate_fast returned {stats!r}")
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="", help="CODE@VERSION[,...]: just these games")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.runs < 1:
        parser.error("--rounds and --runs must be at least 1")

    from games.engine import list_games, par

    only = {s.strip() for s in args.only.split(",") if s.strip()}
    games = [g for g in list_games() if not only or f"{g.code}@{g.version}" in only or g.code in only]
    if only and not games:
        parser.error(f"no registered game among {sorted(only)}")
    print(f"simulate_fast, {args.rounds:,} rounds, least of {args.runs} run(s), seed {SEED}; load {_load()}")
    print(f"{'game':<24} {'CPU s':>8} {'per 10^7 s':>11} {'goal s':>7}  runs")
    over = []
    for game in games:
        name = f"{game.code}@{game.version}"
        if not par.has_fast_simulator(game):
            print(f"{name:<24} {'-':>8} {'-':>11} {'-':>7}  no simulate_fast (exact, or start/act at fewer rounds)")
            continue
        times = measure(game, args.rounds, args.runs)
        per_goal = min(times) * GOAL_ROUNDS / args.rounds
        if per_goal >= GOAL_SECONDS:
            over.append(name)
        runs = ", ".join(f"{t:.2f}" for t in times)
        print(f"{name:<24} {min(times):>8.2f} {per_goal:>11.1f} {GOAL_SECONDS:>7.0f}  {runs}")
    print(f"load {_load()}; " + (f"over the minute: {', '.join(over)}" if over else "every game within the minute"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
