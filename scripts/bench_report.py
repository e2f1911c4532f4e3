"""The bench's report (``scripts/bench.py``): :class:`Row`, one run's figures; :class:`BenchReport`, the table, the
capacity lines, the details and the machine's facts ``Bench`` prints at the end; :func:`row_json`, a row for
``--json``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bench_open
import bench_provider
from bench_load import KOBUSHI, Stats, percentile
from bench_stack import Web, say


@dataclass
class Row:
    label: str
    stats: Stats
    seconds: float
    web_cpu: float
    client_cpu: float
    db_cpu: float
    pgbench_before: float
    pgbench_after: float
    load_average: tuple[float, float] = (0.0, 0.0)  # 1-minute load average at the start and the end of the load
    web: str = ""
    checks: dict[str, str] = field(default_factory=dict)
    floor: Stats | None = None  # the floor view, driven right after the rounds (same server, same minute)
    db_ms: float = 0.0  # the bench database's statement execution ms per settled round (pg_stat_statements)
    top: list[str] = field(default_factory=list)  # its top statements by total time
    open_step: bench_open.Step | None = None  # the open-loop run at a share of capacity
    capacity: bench_open.Capacity | None = None  # the capacity that run took its share of

    @property
    def floor_rate(self) -> float:
        f = self.floor
        return sum(f.settled.values()) / (f.last_end - f.first_start) if f and f.last_end > f.first_start else 0.0

    @property
    def settled(self) -> int:
        return sum(self.stats.settled.values())

    @property
    def rate(self) -> float:
        return self.settled / self.seconds if self.seconds else 0.0

    @property
    def pgbench_mean(self) -> float:
        return (self.pgbench_before + self.pgbench_after) / 2

    @property
    def ratio(self) -> float:
        return self.rate / self.pgbench_mean if self.pgbench_mean else 0.0

    def per_round_ms(self, cpu_seconds: float) -> float:
        return cpu_seconds * 1000 / self.settled if self.settled else 0.0


class BenchReport:
    """What ``Bench`` prints at the end, from the rows of its runs (the attributes ``Bench`` sets)."""

    args: argparse.Namespace
    web: Web | None
    rows: list[Row]
    notes: list[str]
    players: list[tuple[int, str]]
    capacities: list[tuple[str, bench_open.Capacity]]
    env: dict[str, str]
    conn_age: dict[str, str]
    profile_text: str

    def capacity_lines(self) -> list[str]:
        out = []
        for label, cap in self.capacities:
            out.append(
                f"[{label}] capacity: {cap.rate:.0f} round starts/s sustained (open loop, steps of "
                f"{cap.steps[0].seconds:.0f} s; sustained = >= {bench_open.SUSTAINED_SHARE:.0%} answered in "
                f"time, <= {bench_open.MAX_ERROR_SHARE:.0%} errors, no latency growth across the step; each "
                f"step after the server was idle again, idle probe {cap.idle_ms:.1f} ms)"
                + (" - bounded by the players (GP §7(9)): raise --capacity-players" if cap.player_bound else "")
                + (
                    ""
                    if cap.confirmed or cap.player_bound or not cap.rate
                    else " - NOT confirmed (the search ran out of steps before repeating it)"
                )
            )
            out += [f"    step {i}: {step.describe()}" for i, step in enumerate(cap.steps, 1)]
            for r in self.rows:
                if r.label == label and r.open_step is not None:
                    out.append(
                        f"[{label}] at {self.args.capacity_share:.0%} of capacity ({r.open_step.rate:.0f} "
                        f"starts/s offered, open loop, latency from each start's due time): p50 "
                        f"{percentile(r.stats.round_ms, 50):.0f} ms, p95 {percentile(r.stats.round_ms, 95):.0f}"
                        f" ms, p99 {percentile(r.stats.round_ms, 99):.0f} ms; {r.open_step.describe()}"
                    )
        return out

    # report
    def table(self) -> str:
        head = (
            "run",
            "rounds/s",
            "p50 ms",
            "p95 ms",
            "p99 ms",
            "errors",
            "SQL/round mean",
            "median",
            "web CPU ms/round",
            "db CPU ms/round",
            "pgbench TPS before/after/mean",
            "x pgbench",
            "floor/s",
            "floor p99",
            "x floor",
        )
        lines = [head]
        for r in self.rows:
            sql = r.stats.settled_sql
            lines.append(
                (
                    r.label,
                    f"{r.rate:.1f}",
                    f"{percentile(r.stats.round_ms, 50):.0f}",
                    f"{percentile(r.stats.round_ms, 95):.0f}",
                    f"{percentile(r.stats.round_ms, 99):.0f}",
                    str(sum(r.stats.errors.values())),
                    f"{statistics.fmean(sql):.1f}" if sql else "-",
                    f"{statistics.median(sql):.0f}" if sql else "-",
                    f"{r.per_round_ms(r.web_cpu):.1f}",
                    f"{r.per_round_ms(r.db_cpu):.1f}",
                    f"{r.pgbench_before:.0f} / {r.pgbench_after:.0f} / {r.pgbench_mean:.0f}" if r.pgbench_mean else "-",
                    f"{r.ratio:.4f}" if r.pgbench_mean else "-",
                    f"{r.floor_rate:.1f}" if r.floor else "-",
                    f"{percentile(r.floor.round_ms, 99):.0f}" if r.floor else "-",
                    f"{r.rate / r.floor_rate:.3f}" if r.floor_rate else "-",
                )
            )
        widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
        out = [
            "  ".join(
                cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(line, widths, strict=True))
            )
            for line in lines
        ]
        out.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(out)

    def details(self) -> str:
        out = []
        for r in self.rows:
            s = r.stats
            by_kind = ", ".join(
                f"{k} {statistics.median(v):.0f} (n={len(v)})" for k, v in sorted(s.settled_sql_by_kind.items())
            )
            out += [
                f"[{r.label}] {r.settled:,} settled in {r.seconds:.1f} s ({dict(s.settled)}); {s.started_rounds:,} "
                f"round starts, {s.actions:,} actions; answers {dict(s.outcomes.most_common())}",
                f"[{r.label}] errors by code: {dict(s.errors.most_common()) or 'none'}",
                f"[{r.label}] SQL per settled round, median by kind: {by_kind or '-'}",
                f"[{r.label}] settled round incl. its actions: p50 {percentile(s.settled_ms, 50):.0f} ms, p99 "
                f"{percentile(s.settled_ms, 99):.0f} ms; POST actions p50 {percentile(s.action_ms, 50):.0f} ms, p99 "
                f"{percentile(s.action_ms, 99):.0f} ms; connections opened {s.connections_opened:,}",
                f"[{r.label}] CPU: web {r.web_cpu:.1f} s ({r.per_round_ms(r.web_cpu):.1f} ms/round), client "
                f"{r.client_cpu:.1f} s ({r.per_round_ms(r.client_cpu):.2f} ms/round), postgres processes "
                f"{r.db_cpu:.1f} s ({r.per_round_ms(r.db_cpu):.1f} ms/round; machine-wide); load average "
                f"{r.load_average[0]:.1f} -> {r.load_average[1]:.1f}",
                f"[{r.label}] web: {r.web}, CONN_MAX_AGE {self.web_env_of(r)}",
                f"[{r.label}] checks: " + "; ".join(f"{k} {v.split(':')[0]}" for k, v in r.checks.items()),
                f"[{r.label}] Kobushi free-spin round (start + every spin): "
                + (
                    f"median {statistics.median(fs):.0f} statements (n={len(fs)})"
                    if (fs := s.settled_sql_by_kind.get(f"{KOBUSHI}+free_spin"))
                    else "none settled in this run"
                ),
            ]
            if isinstance(s, bench_provider.ProviderStats):  # no actions, no Kobushi: its own lines instead
                out = [line for line in out if not line.startswith(f"[{r.label}] Kobushi free-spin")]
                bet_sql, win_sql = s.settled_sql_by_kind.get("bet", []), s.settled_sql_by_kind.get("win", [])
                out += [
                    f"[{r.label}] provider calls: bet p50 {percentile(s.bet_ms, 50):.0f} ms, p99 "
                    f"{percentile(s.bet_ms, 99):.0f} ms (n={len(s.bet_ms)}); win p50 {percentile(s.win_ms, 50):.0f} ms,"
                    f" p99 {percentile(s.win_ms, 99):.0f} ms (n={len(s.win_ms)})",
                    f"[{r.label}] SQL statements per call: bet "
                    + (
                        f"mean {statistics.fmean(bet_sql):.1f}, median {statistics.median(bet_sql):.0f}"
                        if bet_sql
                        else "-"
                    )
                    + "; win "
                    + (
                        f"mean {statistics.fmean(win_sql):.1f}, median {statistics.median(win_sql):.0f}"
                        if win_sql
                        else "-"
                    ),
                ]
                play_sql = s.settled_sql_by_kind.get("play", [])
                if play_sql:  # the one-call round: its timings are in bet_ms
                    out[-2:] = [
                        f"[{r.label}] provider calls: play p50 {percentile(s.bet_ms, 50):.0f} ms, p99 "
                        f"{percentile(s.bet_ms, 99):.0f} ms (n={len(s.bet_ms)})",
                        f"[{r.label}] SQL statements per call: play mean {statistics.fmean(play_sql):.1f}, "
                        f"median {statistics.median(play_sql):.0f}",
                    ]
            if r.top:
                out += [
                    f"[{r.label}] database: {r.db_ms:.2f} ms of statement planning + execution per settled round; top "
                    "statements by total time (pg_stat_statements):",
                    *(f"    {line}" for line in r.top),
                ]
        return "\n".join(out)

    def web_env_of(self, row: Row) -> str:
        return self.conn_age.get(row.label, self.env.get("CONN_MAX_AGE", str(self.args.conn_max_age)))

    def facts(self) -> str:
        a = self.args
        model = "?"
        with contextlib.suppress(OSError):
            for line in Path("/proc/cpuinfo").read_text().splitlines():
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
        mem = "?"
        with contextlib.suppress(OSError, IndexError, ValueError):
            kb = int(Path("/proc/meminfo").read_text().split("MemTotal:")[1].split()[0])
            mem = f"{kb / 1024 / 1024:.1f} GiB"
        lines = [
            f"machine: nproc {os.cpu_count()} (usable {len(os.sched_getaffinity(0))}), CPU {model}, RAM {mem}, "
            f"{platform.platform()}, Python {platform.python_version()}",
            f"web: gunicorn {self._gunicorn_version()}, {self.web.description if self.web else '?'}, "
            f"CONN_MAX_AGE {self.env.get('CONN_MAX_AGE', a.conn_max_age)} "
            f"(CONN_HEALTH_CHECKS={self.env.get('CONN_HEALTH_CHECKS')}), DEBUG=0, "
            f"SQL_COUNT=1",
            f"load: {a.connections} keep-alive connections, {a.seconds:.0f} s per run (+{a.warmup:.0f} s warm-up), "
            f"{len(self.players):,} players, Kobushi share {a.mix:.0%}, >= 2 s between a player's round starts; "
            f"pgbench TPC-B-like -s {a.pgbench_scale} -c {a.connections} -j 2 -T {a.pgbench_seconds}",
            *self.notes,
        ]
        return "\n".join(lines)

    @staticmethod
    def _gunicorn_version() -> str:
        try:
            from importlib.metadata import version

            return version("gunicorn")
        except Exception:  # noqa: BLE001 - only a label in the printout
            return "?"

    def report(self) -> None:
        say("")
        say("=" * 100)
        say(self.table() if self.rows else "(no run completed)")
        if self.capacities:
            say("")
            say("\n".join(self.capacity_lines()))
        say("")
        say(self.details())
        say("")
        say(self.facts())
        if self.profile_text:
            say("")
            say(self.profile_text)
        say("=" * 100)


def row_json(r: Row) -> dict[str, Any]:
    return {
        "run": r.label,
        "settled": r.settled,
        "seconds": r.seconds,
        "rounds_per_s": r.rate,
        "p50_ms": percentile(r.stats.round_ms, 50),
        "p95_ms": percentile(r.stats.round_ms, 95),
        "p99_ms": percentile(r.stats.round_ms, 99),
        "errors": dict(Counter(r.stats.errors)),
        "sql_per_round_mean": statistics.fmean(r.stats.settled_sql) if r.stats.settled_sql else None,
        "sql_per_round_median": statistics.median(r.stats.settled_sql) if r.stats.settled_sql else None,
        "web_cpu_ms_per_round": r.per_round_ms(r.web_cpu),
        "client_cpu_s": r.client_cpu,
        "pgbench_tps_before": r.pgbench_before,
        "pgbench_tps_after": r.pgbench_after,
        "ratio": r.ratio,
        "checks": r.checks,
    }
