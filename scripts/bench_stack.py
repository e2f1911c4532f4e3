"""The bench's stack (scripts/bench.py): the PostgreSQL server it measures (a DATABASE_URL, the embedded one or a
private cluster), the production web server (gunicorn with config/gunicorn.conf.py and the statement counter) and
pgbench on the same server. Split out of bench.py so that each file holds one idea."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit, urlunsplit

import bench_pg

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PGBENCH_DB = "pgbench_db"
LOG_DIR = ROOT / ".data" / "bench"


def say(text: str) -> None:
    print(text, flush=True)


# --- the PostgreSQL server --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Server:
    """Where the PostgreSQL server is, from a ``DATABASE_URL``."""

    url: str

    @property
    def parts(self) -> Any:
        return urlsplit(self.url)

    @property
    def host(self) -> str:
        query = parse_qs(self.parts.query)
        return query.get("host", [self.parts.hostname or ""])[0]

    @property
    def port(self) -> str:
        return str(self.parts.port or "")

    @property
    def user(self) -> str:
        return unquote(self.parts.username or "postgres")

    @property
    def password(self) -> str:
        return unquote(self.parts.password or "")

    @property
    def maintenance_db(self) -> str:
        """The server's own ``postgres`` database: the one of DATABASE_URL need not exist yet (CI creates only
        the test database), and the bench creates and drops its own."""
        return "postgres"

    def url_for(self, database: str) -> str:
        p = self.parts
        return urlunsplit((p.scheme, p.netloc, f"/{database}", p.query, p.fragment))

    def libpq_args(self) -> list[str]:
        args = ["-U", self.user]
        if self.host:
            args += ["-h", self.host]
        if self.port:
            args += ["-p", self.port]
        return args

    def libpq_env(self) -> dict[str, str]:
        return {**os.environ, "PGPASSWORD": self.password} if self.password else dict(os.environ)

    def sql(self, statement: str, database: str | None = None) -> str:
        """Run one statement with psql (autocommit) and return its unaligned output."""
        out = subprocess.run(
            [
                "psql",
                *self.libpq_args(),
                "-d",
                database or self.maintenance_db,
                "-X",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                statement,
            ],
            env=self.libpq_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        if out.returncode != 0:
            raise RuntimeError(f"psql failed: {statement}: {out.stderr.strip()}")
        return out.stdout.strip()


def psql_available() -> None:
    if shutil.which("psql") is None:
        _prepend_embedded_bin()
    if shutil.which("psql") is None:
        raise RuntimeError("psql not found (neither on PATH nor in the pgserver wheel)")


def _prepend_embedded_bin() -> None:
    """The client tools (psql, pgbench) of the embedded PostgreSQL wheel, when the machine has none."""
    import pgserver

    bin_dir = Path(pgserver.__file__).parent / "pginstall" / "bin"
    os.environ["PATH"] = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"


class Embedded:
    """The embedded PostgreSQL: started here when no DATABASE_URL is set; stopped at the end only if it was not
    running before."""

    def __init__(self) -> None:
        self.started_here = False

    def url(self) -> str:
        from config.embedded_db import embedded_url

        data_dir = Path(os.environ.get("EMBEDDED_PG_DIR") or ROOT / ".data" / "pg")
        self.started_here = not (data_dir / "postmaster.pid").exists()
        return embedded_url()

    def stop(self) -> None:
        if self.started_here:
            from config.embedded_db import embedded_stop

            embedded_stop()
            say("== embedded PostgreSQL stopped (it was started by the bench)")


# --- processes --------------------------------------------------------------------------------------------------------
class Web:
    """gunicorn, started in its own process group; its master is the process we started."""

    def __init__(self, env: dict[str, str], port: int) -> None:
        self.env = env
        self.port = port
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = LOG_DIR / "gunicorn.log"
        self.description = "?"

    def start(self) -> None:
        LOG_DIR.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [PY, "-m", "gunicorn", "-c", str(ROOT / "config" / "gunicorn.conf.py"), "config.sqlcount:application"],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode}; see {self.log}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=5):
                    pass
            except urllib.error.HTTPError:  # answered (503 = a check not green): it serves
                pass
            except OSError:
                time.sleep(0.3)
                continue
            self.description = self._describe()
            return
        raise RuntimeError(f"gunicorn did not answer within 90 s; see {self.log}")

    def _describe(self) -> str:
        """Workers, worker class and threads as gunicorn reports them at start (config/gunicorn.conf.py logs them)."""
        time.sleep(1.0)  # the last workers finish booting
        log = self.log.read_text(errors="replace")[-20000:]
        found = re.findall(r"config: workers (\d+), class (\S+), threads (\d+)", log)
        if not found:
            return f"{len(self.workers())} workers"
        workers, kind, threads = found[-1]
        return f"{workers} workers, class {kind}" + (f", {threads} threads each" if kind == "gthread" else "")

    def workers(self) -> list[Any]:
        import psutil

        assert self.proc is not None
        return list(psutil.Process(self.proc.pid).children())

    def cpu_seconds(self) -> float:
        """CPU (user + system) of the master, its live workers and the workers it reaped (recycled)."""
        import psutil

        assert self.proc is not None
        master = psutil.Process(self.proc.pid)
        own = master.cpu_times()
        total = own.user + own.system + own.children_user + own.children_system
        for worker in master.children():
            with contextlib.suppress(psutil.NoSuchProcess):
                times = worker.cpu_times()
                total += times.user + times.system
        return total

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)  # our own process group (start_new_session)
        try:
            self.proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        say("== gunicorn stopped")


free_port = bench_pg.free_port


def manage(env: dict[str, str], *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "manage.py", *args],
        cwd=ROOT,
        env={**env, "LOG_LEVEL": "WARNING"},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# --- pgbench ----------------------------------------------------------------------------------------------------------
def pgbench_binary() -> str:
    found = shutil.which("pgbench")
    if found is None:
        _prepend_embedded_bin()
        found = shutil.which("pgbench")
    if found is None:
        raise RuntimeError("pgbench not found (neither on PATH nor in the pgserver wheel)")
    return found


def pgbench_init(server: Server, scale: int) -> float:
    t0 = time.monotonic()
    out = subprocess.run(
        [pgbench_binary(), "-i", "-q", "-s", str(scale), *server.libpq_args(), PGBENCH_DB],
        env=server.libpq_env(),
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if out.returncode != 0:
        raise RuntimeError(f"pgbench -i failed: {out.stderr.strip()[-2000:]}")
    return time.monotonic() - t0


def pgbench_run(server: Server, clients: int, seconds: int) -> float:
    """TPC-B-like TPS, without the initial connection time (0 when ``seconds`` is 0: not measured)."""
    if seconds <= 0:
        return 0.0
    out = subprocess.run(
        [pgbench_binary(), "-c", str(clients), "-j", "2", "-T", str(seconds), *server.libpq_args(), PGBENCH_DB],
        env=server.libpq_env(),
        capture_output=True,
        text=True,
        timeout=seconds + 300,
    )
    match = re.search(
        r"tps = ([\d.]+) \((?:without initial connection time|excluding connections establishing)\)", out.stdout
    )
    if out.returncode != 0 or match is None:
        raise RuntimeError(f"pgbench failed: {(out.stderr or out.stdout).strip()[-2000:]}")
    return float(match.group(1))
