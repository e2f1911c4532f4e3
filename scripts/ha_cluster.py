"""A three-member PostgreSQL cluster with automatic failover on this machine: Patroni (Debian's ``patroni``) and its
own one-node etcd (``etcd-server``), every port on 127.0.0.1 and free, every file in a temporary directory of its own.

Synchronous replication (``synchronous_mode``: a commit is acknowledged only when one standby, the *sync standby*,
has it on disk; only that standby may be promoted) and ``primary_start_timeout: 0`` (a primary whose postmaster dies
is not restarted in place: Patroni hands the leader key over at once, the sync standby is promoted). The timings
are short for a test (``loop_wait`` 1 s, ``ttl`` 20 s): a killed postmaster is noticed by its own Patroni within
about a second; a whole machine lost is noticed when its leader key expires (``ttl``).

The application reaches the primary whichever member it is through libpq's multi-host URL
(:meth:`HaCluster.url`): ``postgres://postgres@127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3/db?target_session_attrs=
read-write``; libpq tries the hosts in turn and keeps the one that accepts writes.

Used by ``tests/faults/test_failover.py``; an operator tries it with::

    .venv/bin/python scripts/ha_cluster.py up              # starts it, prints the URL and patronictl's command
    patronictl -c <dir>/patronictl.yml list                # members, roles, timeline, lag
    .venv/bin/python scripts/ha_cluster.py up --kill-after 20   # ... and SIGKILLs the primary's postmaster at 20 s

As root the servers run as the ``postgres`` system user (PostgreSQL refuses root). Only processes started here are
ever signalled: the Patroni and etcd processes by their ``Popen``, a postmaster by the pid in its own
``postmaster.pid``. Nothing but 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PG_BIN = Path(os.environ.get("HA_PG_BIN", "/usr/lib/postgresql/15/bin"))
SYSTEM_USER = "postgres"
MEMBERS = 3
LOOP_WAIT, TTL, RETRY_TIMEOUT = 1, 20, 5  # Patroni requires loop_wait + 2 * retry_timeout <= ttl


def missing() -> str | None:
    """Why the cluster cannot start here (None: it can): the binaries it needs."""
    for name in ("patroni", "patronictl", "etcd"):
        if shutil.which(name) is None:
            return f"{name} is not installed (make ha-deps: Debian's patroni, etcd-server, etcd-client)"
    if not (PG_BIN / "postgres").exists():
        return f"no PostgreSQL server binaries in {PG_BIN} (HA_PG_BIN)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(SYSTEM_USER)
        except KeyError:
            return f"running as root and there is no {SYSTEM_USER!r} system user to run PostgreSQL as"
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get_json(url: str, timeout: float = 2.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as resp:  # http://127.0.0.1 only
        return json.loads(resp.read())


@dataclass
class Member:
    name: str
    pg_port: int
    api_port: int
    data: Path
    config: Path
    log: Path
    proc: subprocess.Popen[bytes] | None = None

    def postmaster_pid(self) -> int | None:
        """The postmaster's pid from its ``postmaster.pid`` (None when there is none or it is not running)."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            pid = int((self.data / "postmaster.pid").read_text().splitlines()[0])
            os.kill(pid, 0)
            return pid
        return None


@dataclass
class HaCluster:
    """Start with :meth:`start` (or ``with HaCluster() as cluster:``), stop with :meth:`stop`."""

    base: Path | None = None
    members: list[Member] = field(default_factory=list)
    etcd: subprocess.Popen[bytes] | None = None
    etcd_port: int = 0
    scope: str = ""
    keep: bool = False  # leave the directory behind at stop (an operator's look at the logs)
    # synchronous_mode_strict: with no sync standby left the primary stops acknowledging commits rather than
    # acknowledging them on one copy (docs/scaling.md, "A primary that can die")
    strict: bool = True

    # --- set-up ----------------------------------------------------------------------------------------------------
    def start(self, timeout: float = 240.0) -> HaCluster:
        """etcd and the three Patroni members, waited for until healthy: ``timeout`` is a readiness wait, not a
        measure (the bootstrap, an initdb and two base backups, took over 120 s once beside a loaded test suite)."""
        reason = missing()
        if reason:
            raise RuntimeError(reason)
        if self.base is None:
            self.base = Path(tempfile.mkdtemp(prefix="platform-ha-"))
        self.base.mkdir(parents=True, exist_ok=True)
        self.scope = f"platform-ha-{os.getpid()}-{free_port()}"
        self.etcd_port, peer_port = free_port(), free_port()
        (self.base / "sock").mkdir(exist_ok=True)
        for i in range(1, MEMBERS + 1):
            member = Member(
                name=f"pg{i}",
                pg_port=free_port(),
                api_port=free_port(),
                data=self.base / f"pg{i}",
                config=self.base / f"pg{i}.yml",
                log=self.base / f"pg{i}.log",
            )
            member.config.write_text(json.dumps(self._patroni_config(member), indent=1))  # JSON is YAML
            self.members.append(member)
        (self.base / "patronictl.yml").write_text(
            json.dumps(
                {"scope": self.scope, "namespace": "/platform/", "etcd3": {"hosts": f"127.0.0.1:{self.etcd_port}"}}
            )
        )
        self._hand_over()
        try:
            self.etcd = self._spawn(
                [
                    "etcd",
                    "--name",
                    "ha",
                    "--data-dir",
                    str(self.base / "etcd"),
                    "--listen-client-urls",
                    f"http://127.0.0.1:{self.etcd_port}",
                    "--advertise-client-urls",
                    f"http://127.0.0.1:{self.etcd_port}",
                    "--listen-peer-urls",
                    f"http://127.0.0.1:{peer_port}",
                    "--initial-advertise-peer-urls",
                    f"http://127.0.0.1:{peer_port}",
                    "--initial-cluster",
                    f"ha=http://127.0.0.1:{peer_port}",
                    "--initial-cluster-state",
                    "new",
                    "--initial-cluster-token",
                    self.scope,
                ],
                self.base / "etcd.log",
            )
            self._wait(lambda: self._etcd_healthy(), 30, "etcd did not answer")
            for member in self.members:
                member.proc = self._spawn(["patroni", str(member.config)], member.log)
            self.wait_healthy(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _patroni_config(self, m: Member) -> dict[str, Any]:
        assert self.base is not None
        return {
            "scope": self.scope,
            "namespace": "/platform/",
            "name": m.name,
            "log": {"level": "INFO"},
            "restapi": {"listen": f"127.0.0.1:{m.api_port}", "connect_address": f"127.0.0.1:{m.api_port}"},
            "etcd3": {"hosts": f"127.0.0.1:{self.etcd_port}"},
            "bootstrap": {
                "dcs": {
                    "ttl": TTL,
                    "loop_wait": LOOP_WAIT,
                    "retry_timeout": RETRY_TIMEOUT,
                    "maximum_lag_on_failover": 1024 * 1024,
                    "synchronous_mode": True,
                    "synchronous_mode_strict": self.strict,
                    # a crashed primary is not restarted in place: fail over to the sync standby at once
                    "primary_start_timeout": 0,
                    "postgresql": {
                        "use_pg_rewind": True,
                        "use_slots": True,
                        "parameters": {
                            "wal_level": "replica",
                            "hot_standby": "on",
                            "wal_log_hints": "on",
                            "max_wal_senders": 10,
                            "max_replication_slots": 10,
                            "max_connections": 200,
                            "wal_keep_size": "256MB",
                            "synchronous_commit": "on",
                        },
                    },
                },
                "initdb": [{"encoding": "UTF8"}, {"locale": "C.UTF-8"}],
            },
            "postgresql": {
                "listen": f"127.0.0.1:{m.pg_port}",
                "connect_address": f"127.0.0.1:{m.pg_port}",
                "data_dir": str(m.data),
                "bin_dir": str(PG_BIN),
                "pgpass": str(self.base / f"{m.name}.pgpass"),
                "authentication": {
                    "superuser": {"username": "postgres", "password": "postgres"},
                    "replication": {"username": "replicator", "password": "replicator"},
                    "rewind": {"username": "postgres", "password": "postgres"},
                },
                "pg_hba": [
                    "local all all trust",
                    "host all all 127.0.0.1/32 trust",
                    "host replication all 127.0.0.1/32 trust",
                ],
                "parameters": {"unix_socket_directories": str(self.base / "sock")},
                "basebackup": [{"checkpoint": "fast"}],
            },
            "watchdog": {"mode": "off"},
            "tags": {"nofailover": False, "noloadbalance": False, "clonefrom": False, "nosync": False},
        }

    def _hand_over(self) -> None:
        """The directory belongs to the user the servers run as (PostgreSQL wants its data directory its own)."""
        assert self.base is not None
        if os.geteuid() != 0:
            return
        user = pwd.getpwnam(SYSTEM_USER)
        for root, dirs, files in os.walk(self.base):
            for path in (root, *(os.path.join(root, d) for d in dirs), *(os.path.join(root, f) for f in files)):
                os.chown(path, user.pw_uid, user.pw_gid)

    def _spawn(self, args: list[str], log: Path) -> subprocess.Popen[bytes]:
        assert self.base is not None
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(self.base), "PYTHONUNBUFFERED": "1"}
        extra: dict[str, Any] = {}
        if os.geteuid() == 0:
            extra = {"user": SYSTEM_USER, "group": SYSTEM_USER, "extra_groups": []}
        with open(log, "ab") as out:
            return subprocess.Popen(
                args, cwd=self.base, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **extra
            )

    @staticmethod
    def _wait(ready: Any, timeout: float, what: str | Callable[[], str]) -> None:
        """Until ``ready()``; else a RuntimeError saying ``what`` (called at the timeout: the state then)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, ValueError, urllib.error.URLError):
                if ready():
                    return
            time.sleep(0.2)
        raise RuntimeError(f"{what() if callable(what) else what} within {timeout:.0f} s")

    def _etcd_healthy(self) -> bool:
        return bool(_get_json(f"http://127.0.0.1:{self.etcd_port}/health").get("health") in ("true", True))

    # --- the cluster's view ----------------------------------------------------------------------------------------
    def state(self) -> list[dict[str, Any]]:
        """Patroni's view of the members (``GET /cluster`` of the first member that answers): name, role
        (``leader``, ``sync_standby``, ``replica``), state, port, timeline, lag."""
        for member in self.members:
            with contextlib.suppress(OSError, ValueError, urllib.error.URLError):
                return list(_get_json(f"http://127.0.0.1:{member.api_port}/cluster")["members"])
        return []

    def leader(self) -> Member | None:
        names = [
            m["name"] for m in self.state() if m.get("role") in ("leader", "master") and m.get("state") == "running"
        ]
        return next((m for m in self.members if m.name in names), None)

    def healthy(self) -> bool:
        """A running leader, every other member streaming from it, one of them the sync standby."""
        state = self.state()
        roles = sorted(m.get("role", "") for m in state)
        running = all(m.get("state") in ("running", "streaming") for m in state)
        return len(state) == MEMBERS and running and roles == ["leader", "replica", "sync_standby"]

    def wait_healthy(self, timeout: float = 120.0) -> None:
        self._wait(self.healthy, timeout, lambda: f"the cluster was not healthy ({self.describe()}){self.log_tails()}")

    def log_tails(self, lines: int = 15) -> str:
        """The last ``lines`` of each member's and etcd's log, for a failure's message."""
        out = []
        for name, log in [(m.name, m.log) for m in self.members] + [("etcd", (self.base or Path(".")) / "etcd.log")]:
            with contextlib.suppress(OSError):
                out.append(
                    f"\n--- {name} ({log}):\n" + "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
                )
        return "".join(out)

    def describe(self) -> str:
        return (
            "; ".join(
                f"{m.get('name')} {m.get('role')} {m.get('state')} tl {m.get('timeline', '-')} lag {m.get('lag', 0)}"
                for m in self.state()
            )
            or "no member answers"
        )

    def url(self, database: str = "postgres", *, connect_timeout: int = 2) -> str:
        """libpq's multi-host URL: whichever member accepts writes (``target_session_attrs=read-write``)."""
        hosts = ",".join(f"127.0.0.1:{m.pg_port}" for m in self.members)
        return (
            f"postgres://postgres@{hosts}/{database}?target_session_attrs=read-write&connect_timeout={connect_timeout}"
        )

    def psql(self, sql: str, database: str = "postgres") -> str:
        """One statement on the primary (psql through the multi-host URL)."""
        out = subprocess.run(
            [str(PG_BIN / "psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql, self.url(database)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if out.returncode != 0:
            raise RuntimeError(f"psql failed: {out.stderr.strip()}")
        return out.stdout.strip()

    # --- faults ----------------------------------------------------------------------------------------------------
    def kill_primary_postmaster(self) -> Member:
        """SIGKILL the leader's postmaster (its backends notice and exit; Patroni itself stays up)."""
        leader = self.leader()
        if leader is None:
            raise RuntimeError(f"no leader to kill ({self.describe()})")
        pid = leader.postmaster_pid()
        if pid is None:
            raise RuntimeError(f"{leader.name} has no running postmaster")
        os.kill(pid, signal.SIGKILL)
        return leader

    # --- tear-down -------------------------------------------------------------------------------------------------
    def stop(self) -> None:
        """Patroni stops its PostgreSQL on SIGTERM; whatever is left after 30 s is killed, then etcd."""
        for member in self.members:
            if member.proc is not None and member.proc.poll() is None:
                member.proc.terminate()
        for member in self.members:
            if member.proc is not None:
                try:
                    member.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    member.proc.kill()
                    member.proc.wait(timeout=10)
            pid = member.postmaster_pid()
            if pid is not None:  # a postmaster its Patroni could not stop
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if self.etcd is not None and self.etcd.poll() is None:
            self.etcd.terminate()
            try:
                self.etcd.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.etcd.kill()
                self.etcd.wait(timeout=10)
        if self.base is not None and not self.keep:
            shutil.rmtree(self.base, ignore_errors=True)

    def logs(self, chars: int = 3000) -> str:
        out = []
        for member in self.members:
            if member.log.exists():
                out.append(f"--- {member.name} ---\n" + member.log.read_text(errors="replace")[-chars:])
        return "\n".join(out)

    def __enter__(self) -> HaCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="start the cluster and keep it up until Ctrl-C")
    up.add_argument("--dir", type=Path, default=None, help="its directory (default: a new temporary one)")
    up.add_argument("--database", default="platform", help="a database to create on it")
    up.add_argument("--kill-after", type=float, default=0, help="SIGKILL the primary's postmaster after N s")
    up.add_argument("--no-strict", action="store_true", help="synchronous_mode_strict off")
    args = parser.parse_args(argv)
    cluster = HaCluster(base=args.dir, keep=True, strict=not args.no_strict)
    t0 = time.monotonic()
    cluster.start()
    try:
        cluster.psql(f'CREATE DATABASE "{args.database}"')
        print(f"cluster up in {time.monotonic() - t0:.1f} s: {cluster.describe()}")
        print(f"DATABASE_URL={cluster.url(args.database)}")
        print(f"patronictl -c {cluster.base}/patronictl.yml list     (logs: {cluster.base}/pg*.log)")
        if args.kill_after:
            time.sleep(args.kill_after)
            killed = cluster.kill_primary_postmaster()
            t1 = time.monotonic()
            print(f"SIGKILL to {killed.name}'s postmaster")
            cluster._wait(lambda: (cluster.leader() or killed).name != killed.name, 120, "no new leader")
            print(f"new leader after {time.monotonic() - t1:.1f} s: {cluster.describe()}")
        while True:
            time.sleep(5)
            print(cluster.describe(), flush=True)
    except KeyboardInterrupt:
        return 0
    finally:
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
