"""gunicorn, the production web server: ``gunicorn -c config/gunicorn.conf.py`` serves ``config.wsgi:application``.

Every figure can be set from the environment (the defaults are what ``make bench`` measured, see the notes):

    BIND                     127.0.0.1:8000     address(es) to listen on, comma-separated (``0.0.0.0:8000`` behind a
                                                load balancer; TLS ends at the balancer)
    WEB_CONCURRENCY          2 x CPUs           worker processes
    GUNICORN_WORKER_CLASS    sync               or ``gthread`` (threads, HTTP keep-alive)
    GUNICORN_THREADS         2                  threads per worker (gthread only); each holds its own DB connection
    GUNICORN_KEEPALIVE       5                  seconds an idle keep-alive connection is kept open (gthread; a sync
                                                worker closes the connection after each response: the load balancer
                                                in front keeps the clients' connections alive)
    GUNICORN_TIMEOUT         30                 a worker silent this long is killed and replaced
    GUNICORN_GRACEFUL_TIMEOUT 30                seconds a worker gets to finish its requests on restart/stop
    GUNICORN_MAX_REQUESTS    2000               recycle a worker after this many requests (0 = never), with jitter
    GUNICORN_ACCESS_LOG      -                  JSON access log (``-`` = stdout, a path, or empty = off)
    GUNICORN_LOG_LEVEL       info               error log level; the error log goes to stderr

The access log is one JSON object per request with the request id the app sets (``X-Request-ID``), so a line of
the access log, the app's own request log (``platform.request``) and an error report can be joined on it.

The web tier is stateless (sessions live in PostgreSQL, throttles and login lockouts in the shared cache,
``CACHE_URL``): run as many of these processes on as many machines as the database allows. Database connections: each
worker thread keeps its
own connection for ``CONN_MAX_AGE`` seconds (settings), so the number of PostgreSQL connections of one machine is
``WEB_CONCURRENCY x GUNICORN_THREADS``; keep the sum over all machines under ``max_connections`` (or put PgBouncer
in transaction mode between them: ``DATABASE_POOLER=pgbouncer`` sets ``CONN_MAX_AGE=0`` and
``DISABLE_SERVER_SIDE_CURSORS``; docs/scaling.md).
"""
from __future__ import annotations

import json
import multiprocessing
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gunicorn.glogging import Logger  # gunicorn ships no type hints (ignore_missing_imports in pyproject)


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


wsgi_app = "config.wsgi:application"  # a module:callable on the command line wins (the bench counts SQL)
bind = [b.strip() for b in os.environ.get("BIND", "127.0.0.1:8000").split(",") if b.strip()]

# Workers (``make bench --sweep``, 2 cores, the database on the same machine, 2,000 players on 32 connections, the
# round of ~65 SQL statements when this was measured):
# sync 2 / 4 / 5 workers settled 14.6 / 18-23 / 17-20 rounds/s at 57-71 ms web CPU per round; 4 workers gave the
# least CPU per round and the tightest tail. gthread (4x2, 4x4, 5x2, 5x4) settled no more, spent 5-15 % more CPU per
# round (threads contend for the GIL) and doubled p99 (a kept-alive connection stays on one worker, so queues are
# uneven, where sync workers share one accept queue). Hence sync, 2 workers per CPU.
workers = _int("WEB_CONCURRENCY", 2 * multiprocessing.cpu_count())
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "sync")
# gunicorn turns a sync worker with threads > 1 into gthread: threads only where gthread was asked for.
threads = _int("GUNICORN_THREADS", 2) if worker_class == "gthread" else 1
keepalive = _int("GUNICORN_KEEPALIVE", 5)
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 30)
max_requests = _int("GUNICORN_MAX_REQUESTS", 2000)
max_requests_jitter = max_requests // 10 if max_requests else 0
backlog = _int("GUNICORN_BACKLOG", 2048)
# The heartbeat file of each worker in memory, not on a disk that may stall (containers).
worker_tmp_dir = "/dev/shm" if Path("/dev/shm").is_dir() else None
# gunicorn >= 25 opens a control socket in $HOME by default; two servers on one machine would share it.
control_socket_disable = os.environ.get("GUNICORN_CONTROL_SOCKET", "") == ""
if not control_socket_disable:
    control_socket = os.environ["GUNICORN_CONTROL_SOCKET"]

accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "-") or None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# Documents the fields; JsonAccessLogger below writes them with json.dumps (a path may hold quotes).
access_log_format = ('{"remote": "%(h)s", "method": "%(m)s", "path": "%(U)s", "status": %(s)s, "bytes": %(B)s, '
                     '"duration_ms": %(M)s, "request_id": "%({x-request-id}o)s"}')


class JsonAccessLogger(Logger):
    """One JSON object per request on the access log, with the ``X-Request-ID`` the app set on the response."""

    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> None:
        if not self.cfg.accesslog:
            return
        headers = {name.lower(): value for name, value in (resp.headers or [])}
        status = resp.status.split(None, 1)[0] if isinstance(resp.status, str) else resp.status
        line = {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": "INFO",
            "logger": "gunicorn.access",
            "remote": environ.get("REMOTE_ADDR", "-"),
            "method": environ.get("REQUEST_METHOD"),
            "path": environ.get("PATH_INFO"),
            "status": int(status) if str(status).isdigit() else status,
            "bytes": getattr(resp, "sent", None),
            "duration_ms": round(request_time.total_seconds() * 1000, 1),
            "request_id": headers.get("x-request-id", ""),
            "pid": os.getpid(),
        }
        if "x-sql-count" in headers:  # the bench's counter (config/sqlcount.py)
            line["sql"] = int(headers["x-sql-count"])
        try:
            self.access_log.info(json.dumps(line, ensure_ascii=False))
        except Exception:  # noqa: BLE001 - a broken log line must never fail the request
            self.exception("access log line could not be written")


logger_class = JsonAccessLogger


def on_starting(server: Any) -> None:
    """The effective figures, once, at start (the bench reads this line too)."""
    cfg = server.cfg
    server.log.info("config: workers %s, class %s, threads %s, keep-alive %s s, timeout %s s, max requests %s "
                    "(+ up to %s)", cfg.workers, cfg.worker_class_str, cfg.threads, cfg.keepalive, cfg.timeout,
                    cfg.max_requests, cfg.max_requests_jitter)
