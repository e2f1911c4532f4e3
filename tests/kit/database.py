"""The test databases: made once per run and cloned for each pytest-xdist worker, written without waiting for the
disk.

- **One migration per run.** With ``--create-db`` (or a worker's database missing) the first worker to take the lock
  makes its database as pytest-django does (every migration), then copies it to ``<test name>_template``; each other
  worker clones the template (``CREATE DATABASE ... TEMPLATE``, a file copy in the server) instead of migrating
  again, then lets Django run ``migrate`` on it (no migration left: only the ``post_migrate`` handlers). The lock and
  the "template made" marker are keyed by the run (``PYTEST_XDIST_TESTRUNUID``), so a new run never clones an old
  template. Without xdist, or when the workers' databases are reused (``--reuse-db``), nothing changes.
- **``synchronous_commit = off``** on each test database (``ALTER DATABASE``: every connection to it, the processes
  the tests start included): a commit returns before its WAL reaches the disk. A crash of the server could lose the
  last commits, which a test database does not mind; nothing else changes (each commit is still atomic, durable
  against a process's death, and visible to the other connections at once). The tests of durability start servers
  of their own (the failover cluster, the replica pair: ``tests/kit/servers.py``), which this does not touch.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper


def _quoted(conn: BaseDatabaseWrapper, name: str) -> str:
    return str(conn.ops.quote_name(name))


def database_exists(conn: BaseDatabaseWrapper, name: str) -> bool:
    with conn._nodb_cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        return cursor.fetchone() is not None


def worker_database_name(alias: str = "default") -> str:
    """The test database of ``alias`` (``test_<name>_gw0`` under xdist: pytest-django's suffix already applied)."""
    conn = connections[alias]
    return str(conn.creation._get_test_db_name())  # type: ignore[attr-defined]  # Django's private helper, unstubbed


@contextmanager
def run_lock(name: str) -> Iterator[Path]:
    """An exclusive lock shared by the run's workers (a file in the temporary folder, keyed by the run); yields the
    path of the run's marker beside it."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", "single")
    base = Path(tempfile.gettempdir()) / f"platform-testdb-{name}-{run}"
    with open(f"{base}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield Path(f"{base}.made")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def template_copy(conn: BaseDatabaseWrapper, source: str, target: str) -> None:
    """``target`` as a fresh copy of ``source`` (nobody may be connected to ``source``: closed here)."""
    for c in connections.all():
        c.close()
    with conn._nodb_cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {_quoted(conn, target)} WITH (FORCE)")
        cursor.execute(f"CREATE DATABASE {_quoted(conn, target)} TEMPLATE {_quoted(conn, source)}")


def commit_without_waiting(conn: BaseDatabaseWrapper, name: str) -> None:
    """``synchronous_commit = off`` for every new connection to the database ``name``, and for this one."""
    with conn._nodb_cursor() as cursor:
        cursor.execute(f"ALTER DATABASE {_quoted(conn, name)} SET synchronous_commit = off")
    for c in connections.all():
        c.close()  # the next connection reads the database's setting
