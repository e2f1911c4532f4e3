"""The bench's own PostgreSQL and what it tells (``scripts/bench.py``).

* :class:`PrivateCluster`: a private PostgreSQL cluster made with ``initdb`` for the bench (the machine's server
  cannot be restarted to preload ``pg_stat_statements``; another agent's server is never touched): the machine's
  binaries (``BENCH_PG_BIN``, else ``/usr/lib/postgresql/<newest>/bin``), a data directory under ``.data/bench``,
  127.0.0.1 on a free port, ``shared_preload_libraries = pg_stat_statements``; durability as shipped (``fsync``
  and ``synchronous_commit`` on), so pgbench on it is the same ceiling the platform meets.
* :func:`cluster_cpu_seconds`: the CPU of that cluster's processes only (its postmaster, live backends and the
  ones it reaped), so the database's share per round is this bench's, not the machine's.
* :func:`statements_top`: the statements by total execution time of the bench database, per settled round.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any


def find_bin() -> Path | None:
    """The directory of the machine's PostgreSQL server binaries (initdb, pg_ctl, postgres), or None."""
    env = os.environ.get("BENCH_PG_BIN")
    if env:
        return Path(env) if (Path(env) / "initdb").exists() else None
    roots = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0
    )
    for candidate in reversed(roots):
        if (candidate / "initdb").exists() and (candidate / "pg_ctl").exists():
            return candidate
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateCluster:
    """A PostgreSQL cluster of the bench's own, started and stopped by it."""

    SETTINGS = {
        "shared_preload_libraries": "pg_stat_statements",
        "pg_stat_statements.track": "top",
        "pg_stat_statements.track_planning": "on",
        "max_connections": "200",
        "shared_buffers": "256MB",
        "listen_addresses": "127.0.0.1",
    }

    def __init__(self, root: Path, bin_dir: Path) -> None:
        self.bin = bin_dir
        # PostgreSQL refuses to run as root: there the cluster belongs to the "postgres" system user, in a
        # directory of its own under the temporary directory (which that user can reach)
        self.as_user = "postgres" if os.geteuid() == 0 else None
        self.home = Path(tempfile.mkdtemp(prefix="bench-pg-")) if self.as_user else root
        self.data = self.home / "pg"
        self.socket_dir = self.home / "socket"
        self.port = free_port()
        self.started = False

    def _run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        command = ["runuser", "-u", self.as_user, "--", *args] if self.as_user else list(args)
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)

    def start(self) -> str:
        """initdb (a fresh directory each time) and start; returns its DATABASE_URL."""
        if self.data.exists():
            with contextlib.suppress(Exception):
                self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
            shutil.rmtree(self.data)
        self.data.parent.mkdir(parents=True, exist_ok=True)
        self.socket_dir.mkdir(parents=True, exist_ok=True)
        if self.as_user:
            shutil.chown(self.home, self.as_user, self.as_user)
            shutil.chown(self.socket_dir, self.as_user, self.as_user)
        out = self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
        )
        if out.returncode != 0:
            raise RuntimeError(f"initdb failed: {out.stderr.strip()[-1500:]}")
        options = " ".join(
            f"-c {k}={v}"
            for k, v in {
                **self.SETTINGS,
                "port": str(self.port),
                "unix_socket_directories": str(self.socket_dir),
            }.items()
        )
        out = self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.data.parent / "pg.log"),
            "-o",
            options,
            "-w",
            "-t",
            "60",
            "start",
        )
        if out.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {out.stderr.strip()[-1500:]} (see {self.data.parent}/pg.log)")
        self.started = True
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def postmaster_pid(self) -> int | None:
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int((self.data / "postmaster.pid").read_text().split()[0])
        return None

    def stop(self) -> None:
        if self.started:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
            self.started = False
        shutil.rmtree(self.data, ignore_errors=True)
        shutil.rmtree(self.socket_dir, ignore_errors=True)
        if self.as_user:
            shutil.rmtree(self.home, ignore_errors=True)

    def describe(self) -> str:
        return (
            f"private cluster ({self.bin}, initdb in {self.data}, port {self.port}; "
            + ", ".join(f"{k}={v}" for k, v in self.SETTINGS.items() if k != "listen_addresses")
            + ")"
        )


def cluster_cpu_seconds(postmaster_pid: int) -> float:
    """CPU of one cluster: its postmaster (with the backends it reaped) and its live processes."""
    import psutil

    try:
        master = psutil.Process(postmaster_pid)
        times = master.cpu_times()
        total = times.user + times.system + times.children_user + times.children_system
        for child in master.children():
            with contextlib.suppress(psutil.Error):
                t = child.cpu_times()
                total += t.user + t.system
        return float(total)
    except psutil.Error:
        return 0.0


def statements_reset(server: Any, database: str) -> None:
    server.sql("SELECT pg_stat_statements_reset()", database)


def statements_enable(server: Any, database: str) -> bool:
    """CREATE EXTENSION pg_stat_statements in the bench database; False where the server does not preload it."""
    if "pg_stat_statements" not in server.sql("SHOW shared_preload_libraries"):
        return False
    server.sql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements", database)
    return True


def statements_top(server: Any, database: str, rounds: int, n: int = 12) -> tuple[float, list[str]]:
    """(the database's planning + execution ms per settled round, the top ``n`` statements by that total, each with
    its calls and ms per round, its mean and the mean's planning part) since the last reset. ``track_planning`` is on in
    the private cluster: a statement Django's psycopg 3 cursor sends with its parameters bound client-side (into the
    text) is planned anew on every call, a prepared hot statement once per connection, so planning is part of a
    round's price."""
    rows = server.sql(
        "SELECT calls, round((total_exec_time + total_plan_time)::numeric, 1), "
        "round(((total_exec_time + total_plan_time) / GREATEST(calls, 1))::numeric, 3), "
        "round((total_plan_time / GREATEST(calls, 1))::numeric, 3), "
        "left(regexp_replace(query, '\\s+', ' ', 'g'), 110) FROM pg_stat_statements s JOIN pg_database d "
        f"ON d.oid = s.dbid WHERE d.datname = '{database}' ORDER BY total_exec_time + total_plan_time DESC",
        database,
    )
    lines, total = [], 0.0
    parsed = []
    for line in rows.splitlines():
        calls, total_ms, mean_ms, plan_ms, query = line.split("|", 4)
        total += float(total_ms)
        parsed.append((int(calls), float(total_ms), float(mean_ms), float(plan_ms), query))
    per = max(rounds, 1)
    for calls, total_ms, mean_ms, plan_ms, query in parsed[:n]:
        lines.append(
            f"{total_ms / per:7.3f} ms/round  {calls / per:5.2f} calls/round  mean {mean_ms:6.3f} ms "
            f"(plan {plan_ms:5.3f})  "
            f"{100 * total_ms / total if total else 0:4.1f} %  {query}"
        )
    return total / per, lines


def machine_postgres_cpu_seconds() -> float:
    """CPU of the PostgreSQL servers on this machine: each postmaster, the backends it reaped (a connection that
    ended) and its live processes. Machine-wide: other databases' work on the same server counts too."""
    import psutil

    total = 0.0
    for proc in psutil.process_iter(["name", "ppid"]):
        with contextlib.suppress(psutil.Error):
            if proc.info["name"] not in ("postgres", "postmaster"):
                continue
            parent = psutil.Process(proc.info["ppid"]) if proc.info["ppid"] else None
            if parent is not None and parent.name() in ("postgres", "postmaster"):
                continue  # a backend: counted through its postmaster below
            total += cluster_cpu_seconds(proc.pid)
    return total
