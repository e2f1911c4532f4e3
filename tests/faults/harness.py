"""The processes and the wire of the fault suite: a real gunicorn and a real Celery worker started against the test
database, each in its own process group (so a SIGKILL takes the master and all its workers, and nothing else), a
plain HTTP/1.1 client (stdlib) and the view of the database server's backends (``pg_stat_activity``).

Only processes started here are ever signalled, and only through the process group of the ``Popen`` they came
from. Nothing but 127.0.0.1 is contacted.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.db import connection, transaction

from tests.kit.servers import free_port  # a port the OS gives (parallel workers never collide)

ROOT = Path(__file__).resolve().parents[2]
APP_WEB, APP_WORKER = "faults-gunicorn", "faults-worker"  # application_name of the children's connections


def child_env(tmp_path: Path, name: str, **extra: str) -> dict[str, str]:
    """The environment of a child process: the test database (committed data of a transactional test), a broker
    folder of its own (never the shared default queue), tasks really sent (not run in-process), and ``name`` as
    the ``application_name`` of its database connections (libpq's PGAPPNAME), so ``pg_stat_activity`` tells its
    backends from this process's own."""
    env = dict(os.environ)
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    env.update(
        {
            "DATABASE_NAME": str(connection.settings_dict["NAME"]),
            "CELERY_BROKER_URL": "filesystem://",
            "CELERY_FS_BROKER_DIR": str(tmp_path / "broker"),
            "LOG_LEVEL": "WARNING",
            "WALLET_SANDBOX_ENABLED": "true",
            "PYTHONUNBUFFERED": "1",
            "PGAPPNAME": name,
        }
    )
    env.update(extra)
    return env


class ProcessGroup:
    """A child started in a new session: its pid is its process group id, which holds it and its own children."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.args, self.env, self.log = args, env, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        assert self.proc is None or self.proc.poll() is not None, "already running"
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                self.args, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )

    def members(self) -> list[int]:
        """The live processes of the group (master and workers), from /proc."""
        if self.proc is None:
            return []
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = (entry / "stat").read_text()
                fields = stat[stat.rindex(")") + 2 :].split()
                if int(fields[2]) == self.proc.pid and fields[0] != "Z":  # pgrp; zombies are already dead
                    found.append(int(entry.name))
        return found

    def kill(self) -> int:
        """SIGKILL the whole group (no clean-up runs anywhere in it); returns how many processes it had."""
        assert self.proc is not None
        members = self.members()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        deadline = time.monotonic() + 15
        while self.members() and time.monotonic() < deadline:  # workers reparented to init die a moment later
            time.sleep(0.05)
        assert not self.members(), f"processes of the group survived SIGKILL: {self.members()}"
        return len(members)

    def stop(self) -> None:
        """A clean stop: SIGTERM to the master (it stops its workers), SIGKILL to the group after 30 s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        if self.members():
            self.kill()

    def tail(self, chars: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""


class Gunicorn(ProcessGroup):
    """The production web server with the project's config (config/gunicorn.conf.py), ``workers`` sync workers.

    Its tasks go to a filesystem broker of its own, whose default queue is declared first, as a deployed broker's
    queues are: kombu's filesystem transport writes its exchange file on first use without replacing it
    atomically, so a SIGKILL in the middle of that write (or two processes' first publish at once) leaves it empty
    and every later publish fails (seen; the app's answer to that is test_enqueue_after_commit.py)."""

    def __init__(self, tmp_path: Path, *, workers: int = 2) -> None:
        declare_default_queue("filesystem://", tmp_path)
        self.port = free_port()
        env = child_env(
            tmp_path,
            APP_WEB,
            BIND=f"127.0.0.1:{self.port}",
            WEB_CONCURRENCY=str(workers),
            GUNICORN_MAX_REQUESTS="0",
            GUNICORN_ACCESS_LOG="",
            GUNICORN_LOG_LEVEL="warning",
            DEBUG="false",
        )
        super().__init__(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                str(ROOT / "config" / "gunicorn.conf.py"),
                "config.wsgi:application",
            ],
            env,
            tmp_path / "gunicorn.log",
        )

    def start(self) -> None:
        super().start()
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                status, _, _ = request(self.port, "GET", "/health", timeout=5)
            except Transport:
                time.sleep(0.1)
                continue
            if status in (200, 503):  # it answers (503: a jobs check is not green, which is not this test's)
                return
        raise RuntimeError(f"gunicorn did not answer within 90 s:\n{self.tail()}")


class Worker(ProcessGroup):
    """A real Celery worker (prefork, ``concurrency`` children) consuming only ``queue`` on ``broker``."""

    def __init__(self, tmp_path: Path, *, broker: str, queue: str, concurrency: int = 2) -> None:
        env = child_env(tmp_path, APP_WORKER, CELERY_BROKER_URL=broker)
        super().__init__(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-l",
                "warning",
                "--pool",
                "prefork",
                "-c",
                str(concurrency),
                "-Q",
                queue,
                "-n",
                f"faults-{queue}@%h",
                "--without-heartbeat",
                "--without-gossip",
                "--without-mingle",
            ],
            env,
            tmp_path / f"worker-{queue}.log",
        )


# --- the wire ---------------------------------------------------------------------------------------------------------
class Transport(Exception):
    """No answer: the connection was refused, reset or closed before a whole response arrived."""


def request(
    port: int,
    method: str,
    path: str,
    *,
    token: str | None = None,
    body: Any = None,
    key: str | None = None,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> tuple[int, dict[str, str], Any]:
    """One HTTP/1.1 request on a new connection: (status, lower-cased headers, parsed JSON body or None)."""
    payload = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
    head = {"Accept": "application/json", "Accept-Language": "en", "Connection": "close", **(headers or {})}
    if payload:
        head["Content-Type"] = "application/json"
    if token:
        head["Authorization"] = f"Token {token}"
    if key:
        head["Idempotency-Key"] = key
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=payload or None, headers=head)
        resp = conn.getresponse()
        data = resp.read()
        status, answer_headers = resp.status, {k.lower(): v for k, v in resp.getheaders()}
    except (OSError, http.client.HTTPException) as exc:  # refused, reset, closed mid-answer, timed out
        raise Transport(f"{type(exc).__name__}: {exc}") from None
    finally:
        conn.close()
    try:
        parsed = json.loads(data) if data else None
    except ValueError:
        parsed = data.decode(errors="replace")
    return status, answer_headers, parsed


def error_code(status: int, body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("code"))
    return f"http_{status}"


# --- the database server's view ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Backend:
    pid: int
    state: str
    in_transaction: bool
    query: str
    state_change: Any


def backends(application_name: str) -> list[Backend]:
    """The backends of the test database whose connections a child named ``application_name`` opened."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_stat_clear_snapshot()")  # inside a transaction the view would not move otherwise
        cur.execute(
            """SELECT pid, COALESCE(state, ''), xact_start IS NOT NULL, LEFT(COALESCE(query, ''), 200),
                              state_change FROM pg_stat_activity
                       WHERE datname = current_database() AND application_name = %s AND pid <> pg_backend_pid()""",
            [application_name],
        )
        return [Backend(*row) for row in cur.fetchall()]


def blocked_by_me(application_name: str) -> list[int]:
    """The backends of child ``application_name`` waiting for a lock this process's connection holds."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_stat_clear_snapshot()")
        cur.execute(
            """SELECT pid FROM pg_stat_activity WHERE application_name = %s
                       AND pg_backend_pid() = ANY(pg_blocking_pids(pid))""",
            [application_name],
        )
        return [row[0] for row in cur.fetchall()]


@contextlib.contextmanager
def accounts_held(player_ids: list[int]) -> Iterator[None]:
    """This process holds the row locks of the players' accounts (in primary-key order, docs/contracts.md): a
    request or a task that posts money for one of them (a stake, a win, a refund, a deposit's credit, a
    withdrawal's hold) waits inside its transaction, after its first writes, until the block ends."""
    from wallet.models import LedgerAccount

    with transaction.atomic():
        list(
            LedgerAccount.objects.select_for_update(no_key=True)
            .filter(player_id__in=player_ids, kind=LedgerAccount.Kind.PLAYER_MAIN)
            .order_by("pk")
        )
        yield


@contextlib.contextmanager
def limits_state_held(player_ids: list[int]) -> Iterator[None]:
    """This process holds the players' limits state rows (``limits.PlayerKindState``, in primary-key order): a
    round's settlement or void by the sweeper waits there inside its transaction, AFTER its round-lock prelude and
    its first posting (the win or the refund), until the block ends. (Holding their accounts instead no longer stops
    the sweeper inside a transaction: its prelude locks wallet, account and round in one statement with SKIP LOCKED,
    so it passes over a busy player's round and comes back to it at the next sweep.)"""
    from limits.models import PlayerKindState

    with transaction.atomic():
        list(PlayerKindState.objects.select_for_update(no_key=True).filter(player_id__in=player_ids).order_by("pk"))
        yield


def wait_backends_gone(application_name: str, timeout: float = 20.0) -> None:
    """Wait until the database server has ended every backend of a killed child (the server notices the closed
    socket and rolls back whatever transaction was open)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not backends(application_name):
            return
        time.sleep(0.05)
    raise AssertionError(f"backends of killed processes still alive after {timeout} s: {backends(application_name)}")


# --- the broker -------------------------------------------------------------------------------------------------------
def broker_for_workers() -> str:
    """CI's broker (``CELERY_BROKER_URL``, RabbitMQ) when one is configured and reachable, else kombu's server-less
    filesystem transport in the test's own folder (``make test`` on a fresh clone)."""
    configured = os.environ.get("CELERY_BROKER_URL", "")
    if configured and not configured.startswith("filesystem"):
        parts = urlsplit(configured)
        with (
            contextlib.suppress(OSError),
            socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 5672), timeout=1),
        ):
            return configured
    return "filesystem://"


def _transport_options(broker: str, tmp_path: Path) -> dict[str, Any]:
    """The filesystem transport's folders of ``child_env`` (created), shared with the worker; {} for a server."""
    if not broker.startswith("filesystem"):
        return {}
    base = tmp_path / "broker"
    for folder in ("queue", "processed", "control"):
        (base / folder).mkdir(parents=True, exist_ok=True)
    return {
        "data_folder_in": str(base / "queue"),
        "data_folder_out": str(base / "queue"),
        "processed_folder": str(base / "processed"),
        "control_folder": str(base / "control"),
        "store_processed": False,
    }


def declare_default_queue(broker: str, tmp_path: Path) -> None:
    """Declare Celery's default queue (and its exchange) on ``broker``, as a deployment does once."""
    from config.celery import app

    with app.connection_for_write(broker, transport_options=_transport_options(broker, tmp_path)) as conn:
        queue = app.amqp.queues[app.conf.task_default_queue]
        channel = conn.default_channel
        if broker.startswith("filesystem"):
            # kombu's virtual transports remember bindings per process (``channel.state``), not per folder: a
            # binding an earlier test made elsewhere would make this declare skip writing this folder's exchange file
            channel.state.binding_delete(queue.name, queue.exchange.name, queue.routing_key)  # type: ignore[attr-defined]
        queue.bind(channel).declare()


def send_task(name: str, *, broker: str, queue: str, tmp_path: Path) -> None:
    """Send task ``name`` to ``queue`` as beat would: through the broker, never run here."""
    from config.celery import app

    with app.connection_for_write(broker, transport_options=_transport_options(broker, tmp_path)) as conn:
        app.send_task(name, queue=queue, connection=conn)


def queue_delete(*, broker: str, queue: str) -> None:
    """Remove the test's queue from a broker server (a filesystem queue goes with the test's folder)."""
    if broker.startswith("filesystem"):
        return
    from config.celery import app

    with contextlib.suppress(Exception), app.connection_for_write(broker) as conn:  # best effort: clean-up only
        channel: Any = conn.default_channel  # an AMQP channel (kombu's stub types it as the abstract StdChannel)
        channel.queue_delete(queue)
