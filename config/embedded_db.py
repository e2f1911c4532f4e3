"""Embedded PostgreSQL for development and tests when no DATABASE_URL is given.

Uses the ``pgserver`` wheel (PostgreSQL 16 binaries inside a pip package). The data
folder survives restarts (``.data/pg`` by default); the server listens on a Unix
socket in that folder, so nothing needs to be installed or running on the machine.
"""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent


def embedded_url(data_dir: str | None = None) -> str:
    """Start (or reuse) the embedded server and return its ``DATABASE_URL`` (a Unix socket in the data folder).

    Called by ``scripts/run.py`` (``make run``) and the root ``conftest.py`` (``make test``), which hand the URL to
    their child processes; importing the settings never starts a server."""
    return f"postgres://postgres@/postgres?host={_start(data_dir)}"


def embedded_stop(data_dir: str | None = None) -> None:
    """Stop the embedded server (``make run`` does this on Ctrl-C)."""
    path = Path(data_dir or os.environ.get("EMBEDDED_PG_DIR") or BASE_DIR / ".data" / "pg")
    _prepare(path)
    from pgserver._commands import pg_ctl  # type: ignore[attr-defined]  # generated at import time

    if not (path / "postmaster.pid").exists():
        return
    try:
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=path, user="pgserver" if os.geteuid() == 0 else None)
    except subprocess.CalledProcessError:  # already stopped
        pass


def _start(data_dir: str | None = None) -> str:
    path = Path(data_dir or os.environ.get("EMBEDDED_PG_DIR") or BASE_DIR / ".data" / "pg")
    _prepare(path)
    import pgserver  # imported lazily: only needed without DATABASE_URL

    server = pgserver.get_server(str(path), cleanup_mode=None)  # idempotent: reuses a running server
    # postgresql://postgres:@/postgres?host=<socket dir> (or 127.0.0.1 and a port)
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(server.get_uri())
    return parse_qs(parts.query).get("host", [parts.hostname or ""])[0]


def _prepare(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    runtime = path.parent / "xdg-runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    os.environ.setdefault("XDG_RUNTIME_DIR", str(runtime))
    # pgserver logs from an atexit hook, after test runners have closed their streams.
    logging.getLogger("pgserver").setLevel(logging.WARNING)
