"""Private database servers for tests and the bench: a PgBouncer in transaction mode, and a PostgreSQL primary
with a streaming replica made by ``pg_basebackup -R``.

Each starts its own processes on free ports under a temporary directory and stops them (by their own process id)
when the ``with`` block ends; nothing touches the machine's PostgreSQL beyond ordinary client connections.

    upstream = Upstream.of(connection)     # where a Django connection really is (socket directory or host, port)
    with PgBouncer(upstream_host=upstream.host, upstream_port=upstream.port) as bouncer:
        bouncer.port      # clients connect here, same database names, users and passwords as upstream

    with StreamingPair(postgres_bin_dir(at_least=upstream.major)) as pair:
        pair.primary.port, pair.replica.port   # trust auth, user postgres
        pair.wait_replayed()                   # until the replica has replayed the primary's current WAL

The server binaries are the machine's (``/usr/lib/postgresql/<major>/bin``, ``initdb`` on the ``PATH``) or the
``pgserver`` wheel's (``pginstall/bin``, PostgreSQL 16, the embedded server's): ``postgres_bin_dir`` picks the
major version asked for, else the nearest newer one (``pg_dump`` refuses a server newer than itself).

Both refuse to run as root (PgBouncer and ``initdb``); started as root (CI, this machine), they run as the
``postgres`` system user (``pgbouncer -u``, ``runuser -u postgres``); a PgBouncer whose upstream is a Unix socket
runs as the owner of the socket's directory (the embedded server started by root keeps its socket in a directory
of the ``pgserver`` user's, mode 0700).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import psycopg

POSTGRES_BIN_ROOT = Path("/usr/lib/postgresql")  # Debian's /usr/lib/postgresql/<major>/bin
SERVER_TOOLS = ("initdb", "pg_ctl", "pg_basebackup", "pg_dump", "psql")
SYSTEM_USER = "postgres"  # who runs the servers when we are root
SIDE_SUFFIX = "_side"  # PgBouncer's database entry with the side connection's own pool


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, process: subprocess.Popen[bytes], log: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited ({process.returncode}): {log.read_text(errors='replace')[-2000:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"server did not listen on {port} in {timeout:.0f} s: {log.read_text(errors='replace')[-2000:]}")


def _as_root() -> bool:
    return os.geteuid() == 0


def _hand_over(path: Path, user: str = SYSTEM_USER) -> None:
    """Give a directory we made to the system user the servers run as (only when we are root)."""
    if _as_root():
        entry = pwd.getpwnam(user)
        for root, dirs, files in os.walk(path):
            for name in (root, *(os.path.join(root, d) for d in dirs), *(os.path.join(root, f) for f in files)):
                os.chown(name, entry.pw_uid, entry.pw_gid)


def _stop(process: subprocess.Popen[bytes] | None, timeout: float = 15) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout)


@dataclass(frozen=True)
class Upstream:
    """Where a Django connection really is: libpq's own answer on the open connection (``host`` is a socket
    directory for a Unix socket, such as the embedded server's ``?host=``), and the server's major version."""

    host: str
    port: int
    user: str
    password: str
    dbname: str
    major: int

    @classmethod
    def of(cls, connection: Any) -> Upstream:
        """``connection``: a Django database wrapper (``django.db.connection``); it is connected if it is not."""
        connection.ensure_connection()
        info = connection.connection.info
        return cls(
            host=info.host,
            port=int(info.port),
            user=info.user,
            password=info.password or "",
            dbname=info.dbname,
            major=int(info.server_version) // 10000,
        )


# --- PgBouncer ---------------------------------------------------------------------------------------------------
def pgbouncer_binary() -> str | None:
    return shutil.which("pgbouncer") or next(
        (p for p in ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer") if os.access(p, os.X_OK)), None
    )


class PgBouncer:
    """A private PgBouncer in transaction mode in front of one PostgreSQL server (``*`` = every database).

    ``upstream_host`` is a host name or address, or a Unix socket's directory (then ``upstream_port`` names the
    socket, ``.s.PGSQL.<port>``). Authentication: ``trust`` towards the clients with a userlist naming the upstream
    user, so it fits a local server that trusts its clients (as the machine's and the embedded one do); the upstream
    connection uses ``upstream_user`` / ``upstream_password``. ``pool_size`` server connections per database and
    user: keep it under the server's ``max_connections`` minus what others use. For each database named in
    ``side_pools`` there is also ``<database>_side``, the same database with a pool of its own (``side_pool_size``)
    for the platform's side connection (``DATABASE_SIDE_URL``, config/settings/).
    """

    def __init__(
        self,
        *,
        upstream_host: str,
        upstream_port: int | str,
        upstream_user: str = "postgres",
        upstream_password: str = "",
        pool_size: int = 20,
        max_client_conn: int = 500,
        side_pools: tuple[str, ...] = (),
        side_pool_size: int = 5,
    ) -> None:
        self.upstream_host = upstream_host or "127.0.0.1"
        self.upstream_port = int(upstream_port or 5432)
        self.upstream_user = upstream_user
        self.upstream_password = upstream_password
        self.pool_size = pool_size
        self.max_client_conn = max_client_conn
        self.side_pools, self.side_pool_size = side_pools, side_pool_size
        self.port = 0
        self.dir: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None
        # as root: the postgres user, or whoever owns the upstream socket's directory (it may let nobody else in)
        self.run_as = SYSTEM_USER
        if self.upstream_host.startswith("/") and os.path.isdir(self.upstream_host):
            owner = os.stat(self.upstream_host).st_uid
            self.run_as = pwd.getpwuid(owner).pw_name if owner != 0 else SYSTEM_USER

    @property
    def log(self) -> Path:
        assert self.dir is not None
        return self.dir / "pgbouncer.log"

    def ini(self) -> str:
        password = f" password={self.upstream_password}" if self.upstream_password else ""
        return "\n".join(
            [
                "[databases]",
                *(
                    f"{side}{SIDE_SUFFIX} = host={self.upstream_host} port={self.upstream_port} dbname={side} "
                    f"user={self.upstream_user}{password} pool_size={self.side_pool_size}"
                    for side in self.side_pools
                ),
                f"* = host={self.upstream_host} port={self.upstream_port} user={self.upstream_user}{password}",
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                f"listen_port = {self.port}",
                f"unix_socket_dir = {self.dir}",
                "pool_mode = transaction",
                "auth_type = trust",
                f"auth_file = {self.dir}/userlist.txt",
                f"admin_users = {self.upstream_user}",
                f"stats_users = {self.upstream_user}",
                f"default_pool_size = {self.pool_size}",
                "reserve_pool_size = 0",
                f"max_client_conn = {self.max_client_conn}",
                # transaction mode: a server connection serves whoever starts the next transaction; DISCARD ALL is for
                # session mode only (server_reset_query_always = 0), the platform keeps no session state
                "server_reset_query = DISCARD ALL",
                "server_reset_query_always = 0",
                # Django on psycopg 3 (libpq) sends no startup options beyond these
                "ignore_startup_parameters = extra_float_digits,options",
                f"logfile = {self.dir}/pgbouncer.log",
                f"pidfile = {self.dir}/pgbouncer.pid",
                "",
            ]
        )

    def start(self) -> PgBouncer:
        binary = pgbouncer_binary()
        if binary is None:
            raise RuntimeError("pgbouncer is not installed (make pgbouncer-deps)")
        self.dir = Path(tempfile.mkdtemp(prefix="pgbouncer-"))
        self.port = free_port()
        (self.dir / "userlist.txt").write_text(f'"{self.upstream_user}" "{self.upstream_password}"\n')
        (self.dir / "pgbouncer.ini").write_text(self.ini())
        self.log.write_text("")
        os.chmod(self.dir, 0o755)
        _hand_over(self.dir, self.run_as)
        command = [binary, *(["-u", self.run_as] if _as_root() else []), str(self.dir / "pgbouncer.ini")]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        _wait_port(self.port, self.process, self.log)
        return self

    def stop(self) -> None:
        _stop(self.process)
        self.process = None
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def admin(self, command: str) -> list[dict[str, object]]:
        """A command of PgBouncer's admin console (``SHOW STATS``, ``SHOW POOLS`` ...), as rows of dicts."""
        conn = psycopg.connect(
            host="127.0.0.1", port=self.port, dbname="pgbouncer", user=self.upstream_user, autocommit=True
        )
        try:
            with conn.cursor() as cursor:
                cursor.execute(command)
                names = [c.name for c in cursor.description or ()]
                return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        finally:
            conn.close()

    def __enter__(self) -> PgBouncer:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


# --- a private PostgreSQL primary and its streaming replica -------------------------------------------------------
def pgserver_bin_dir() -> Path | None:
    """The ``pgserver`` wheel's binaries (the embedded server's), found without importing the package."""
    spec = importlib.util.find_spec("pgserver")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "pginstall" / "bin"


@functools.cache
def _bin_dirs() -> dict[Path, int]:
    """Every directory here with all of ``SERVER_TOOLS``, and its major version (``pg_ctl --version``)."""
    candidates = sorted(POSTGRES_BIN_ROOT.glob("*/bin")) if POSTGRES_BIN_ROOT.is_dir() else []
    found = shutil.which("initdb")
    candidates += [d for d in (pgserver_bin_dir(), Path(found).parent if found else None) if d is not None]
    dirs: dict[Path, int] = {}
    for path in {c.resolve(): None for c in candidates}:
        if not all(os.access(path / tool, os.X_OK) for tool in SERVER_TOOLS):
            continue
        out = subprocess.run([str(path / "pg_ctl"), "--version"], capture_output=True, text=True, check=False)
        version = re.search(r"\(PostgreSQL\) (\d+)", out.stdout)  # "pg_ctl (PostgreSQL) 16.2"
        if out.returncode == 0 and version:
            dirs[path] = int(version[1])
    return dirs


def postgres_bin_dir(at_least: int = 0) -> Path | None:
    """A directory with the server binaries (``SERVER_TOOLS``): of major version ``at_least`` when there is one,
    else the nearest newer (a server's ``pg_dump`` must be at least its version); ``None`` when there is none."""
    fitting = sorted(_bin_dirs().items(), key=lambda item: (item[1] != at_least, item[1], str(item[0])))
    return next((path for path, major in fitting if major >= at_least), None)


def _run_as_server_user(command: list[str]) -> subprocess.CompletedProcess[str]:
    if _as_root():
        command = ["runuser", "-u", SYSTEM_USER, "--", *command]
    return subprocess.run(command, capture_output=True, text=True, check=False)


class Cluster:
    """One PostgreSQL cluster in a directory of its own, listening on 127.0.0.1:``port`` (and a socket there)."""

    def __init__(self, bin_dir: Path, data: Path, port: int) -> None:
        self.bin_dir, self.data, self.port = bin_dir, data, port

    @property
    def log(self) -> Path:
        return self.data.parent / f"{self.data.name}.log"

    def url(self, database: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def _check(self, out: subprocess.CompletedProcess[str], what: str) -> None:
        if out.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{what} failed ({out.returncode}): {(out.stderr or out.stdout)[-2000:]} {log}")

    def start(self) -> None:
        out = _run_as_server_user(
            [
                str(self.bin_dir / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.log),
                "-w",
                "-t",
                "60",
                "-o",
                f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.data.parent}",
                "start",
            ]
        )
        self._check(out, f"pg_ctl start ({self.data.name})")

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            _run_as_server_user([str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])

    def sql(self, statement: str, database: str = "postgres") -> str:
        conn = psycopg.connect(host="127.0.0.1", port=self.port, dbname=database, user="postgres", autocommit=True)
        try:
            with conn.cursor() as cursor:
                cursor.execute(statement)
                row = cursor.fetchone() if cursor.description else None
                return "" if row is None else str(row[0])
        finally:
            conn.close()


class StreamingPair:
    """A primary made with ``initdb`` (``wal_level=replica``, a replication line in ``pg_hba.conf``) and a hot
    standby made from it with ``pg_basebackup -R`` (streaming replication), each on a free port, under one
    temporary directory that is removed at the end, with the binaries of ``bin_dir`` (default: ``postgres_bin_dir()``,
    the
    oldest major version here). ``replay_pause`` pauses WAL replay on the replica on demand
    (``pg_wal_replay_pause()``), so a test can hold the replica behind the primary."""

    def __init__(self, bin_dir: Path | None = None) -> None:
        bin_dir = bin_dir or postgres_bin_dir()
        if bin_dir is None:
            raise RuntimeError(f"the PostgreSQL server binaries ({', '.join(SERVER_TOOLS)}) are not installed")
        self.bin_dir = bin_dir
        self.dir = Path(tempfile.mkdtemp(prefix="pg-pair-"))
        os.chmod(self.dir, 0o755)
        self.primary = Cluster(bin_dir, self.dir / "primary", free_port())
        self.replica = Cluster(bin_dir, self.dir / "replica", free_port())

    def start(self) -> StreamingPair:
        _hand_over(self.dir)
        primary = self.primary
        out = _run_as_server_user(
            [
                str(self.bin_dir / "initdb"),
                "-D",
                str(primary.data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ]
        )
        primary._check(out, "initdb")
        with open(primary.data / "postgresql.conf", "a") as conf:
            conf.write(
                "\nwal_level = replica\nmax_wal_senders = 4\nhot_standby = on\nfsync = off\n"
                "full_page_writes = off\nmax_connections = 40\n"
                "shared_buffers = 32MB\n"
            )
        with open(primary.data / "pg_hba.conf", "a") as hba:
            hba.write("\nhost replication postgres 127.0.0.1/32 trust\n")
        primary.start()
        out = _run_as_server_user(
            [
                str(self.bin_dir / "pg_basebackup"),
                "-h",
                "127.0.0.1",
                "-p",
                str(primary.port),
                "-U",
                "postgres",
                "-D",
                str(self.replica.data),
                "-R",
                "-X",
                "stream",
                "--no-sync",
                "-c",
                "fast",
            ]
        )
        self.replica._check(out, "pg_basebackup -R")
        self.replica.start()
        deadline = time.monotonic() + 30
        while self.replica.sql("SELECT pg_is_in_recovery()") != "True":
            if time.monotonic() > deadline:
                raise RuntimeError("the replica did not start in recovery")
            time.sleep(0.1)
        return self

    def wait_replayed(self, timeout: float = 30) -> None:
        """Until the replica has replayed everything the primary has written so far."""
        target = self.primary.sql("SELECT pg_current_wal_lsn()")
        deadline = time.monotonic() + timeout
        while self.replica.sql(f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn") != "True":
            if time.monotonic() > deadline:
                raise RuntimeError(f"the replica did not replay up to {target} in {timeout:.0f} s")
            time.sleep(0.05)

    def replay_pause(self) -> None:
        self.replica.sql("SELECT pg_wal_replay_pause()")

    def replay_resume(self) -> None:
        self.replica.sql("SELECT pg_wal_replay_resume()")

    def stop(self) -> None:
        for cluster in (self.replica, self.primary):
            with contextlib.suppress(Exception):
                cluster.stop()
        if not os.environ.get("PG_PAIR_KEEP"):  # PG_PAIR_KEEP=1 keeps the clusters' directory and logs
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> StreamingPair:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
