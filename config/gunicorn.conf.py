"""gunicorn, the production web server: ``gunicorn -c config/gunicorn.conf.py`` serves ``config.wsgi:application``.

Every figure can be set from the environment (the defaults are what ``make bench`` measured, see the notes):

    BIND                     127.0.0.1:8000     address(es) to listen on, comma-separated (``0.0.0.0:8000`` behind a
                                                load balancer; TLS ends at the balancer)
    WEB_CONCURRENCY          CPUs               worker processes
    GUNICORN_WORKER_CLASS    gthread            threads and HTTP keep-alive (``sync`` closes the connection after
                                                every response: a new TCP connection per request)
    GUNICORN_THREADS         4                  threads per worker (gthread only); each holds its own DB connection
    GUNICORN_KEEPALIVE       75                 seconds an idle keep-alive connection is kept open (gthread): longer
                                                than the balancer's idle timeout (60 s is common), so the balancer,
                                                not gunicorn, closes an idle connection and never sends a request
                                                on one gunicorn is closing
    GUNICORN_TIMEOUT         30                 a worker silent this long is killed and replaced
    GUNICORN_GRACEFUL_TIMEOUT 30                seconds a worker gets to finish its requests on restart/stop
    GUNICORN_MAX_REQUESTS    2000               recycle a worker after this many requests (0 = never), with jitter
    GUNICORN_PRELOAD         1                  load the app once in the master and fork each worker from it (0:
                                                each worker imports it); see "Preloading" below
    GUNICORN_GC_GEN0         10000              allocations between collections of the garbage collector's youngest
                                                generation in a worker (Python's default: 700); config/collector.py
    GUNICORN_ACCESS_LOG      -                  JSON access log (``-`` = stdout, a path, or empty = off)
    GUNICORN_LOG_LEVEL       info               error log level; the error log goes to stderr

Preloading: with ``GUNICORN_PRELOAD=1`` the master imports ``config.wsgi`` (Django, the apps, the URLconf, the game
catalogue) once, and every worker, the first ones and each one that replaces a recycled worker
(``GUNICORN_MAX_REQUESTS``), is a fork of it that serves at once. Without it a replacement worker spent a second or
two of CPU importing the platform while the other workers served alone on the same cores, the longest waits of the
bench's open-loop run. The objects the import created are then moved out of the garbage collector's reach
(``gc.freeze()``, :func:`when_ready`): a full collection in a worker walks only what the worker created (it walked
~170,000 objects, ~0.1 s with every thread of the worker stopped), and the workers share those pages with the master
instead of copying them when the collector touches them. The master never opens a database connection (nothing
does at import), and :func:`pre_fork` closes any that something opened before a worker is forked, so no two processes
ever share a connection. New code needs a full restart of the master (``kill -TERM`` then start, or gunicorn's
``USR2`` upgrade): a ``HUP`` re-forks the workers from the code the master loaded.

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

# Workers (``make bench --sweep sync:4 gthread:4x2 gthread:2x4 --seconds 10 --players 300``, 2 cores
# shared with other jobs at a load average of 17-22, the 11-statement round; one run, so compare within it):
#                      closed loop: rounds/s  web CPU ms/round  connections opened | capacity/s  p99 at 70 % (open loop)
#   sync 4 workers                   19.2        9.1              233 for 233 rounds |    27          175 ms
#   gthread 4 x 2 threads            20.5        8.1               32                |    17          107 ms
#   gthread 2 x 4 threads            33.0        6.2               32                |    31          529 ms
# A sync worker closes the connection after every answer (one TCP connection per request, its accept and set-up
# paid by both ends); gthread keeps it alive (GUNICORN_KEEPALIVE) and spent the least web CPU per round with one
# process per CPU and 4 threads (the threads of a process wait on PostgreSQL in turn, not on each other). The tail
# at 70 % moved with the machine's other jobs more than with the set-up. Hence gthread, one worker per CPU, 4 threads.
workers = _int("WEB_CONCURRENCY", multiprocessing.cpu_count())
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gthread")
# gunicorn turns a sync worker with threads > 1 into gthread: threads only where gthread was asked for.
threads = _int("GUNICORN_THREADS", 4) if worker_class == "gthread" else 1
keepalive = _int("GUNICORN_KEEPALIVE", 75)
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 30)
max_requests = _int("GUNICORN_MAX_REQUESTS", 2000)
max_requests_jitter = max_requests // 10 if max_requests else 0
backlog = _int("GUNICORN_BACKLOG", 2048)
preload_app = _int("GUNICORN_PRELOAD", 1) == 1
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
access_log_format = (
    '{"remote": "%(h)s", "method": "%(m)s", "path": "%(U)s", "status": %(s)s, "bytes": %(B)s, '
    '"duration_ms": %(M)s, "request_id": "%({x-request-id}o)s"}'
)


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
    server.log.info(
        "config: workers %s, class %s, threads %s, keep-alive %s s, timeout %s s, max requests %s (+ up to %s)",
        cfg.workers,
        cfg.worker_class_str,
        cfg.threads,
        cfg.keepalive,
        cfg.timeout,
        cfg.max_requests,
        cfg.max_requests_jitter,
    )


def when_ready(server: Any) -> None:
    """In the master once it is set up (the app loaded there with ``preload_app``): what the import made is moved
    to the collector's permanent generation (the module docstring, "Preloading"; ``config/collector.py``)."""
    from config.collector import settle_heap  # here: ``config`` is importable once gunicorn has set the app's path

    settle_heap()


def pre_fork(server: Any, worker: Any) -> None:
    """In the master before each fork: no database connection may be inherited by a worker (two processes writing
    on one socket); nothing opens one at import, so this closes nothing unless that changes."""
    if preload_app:
        from django.db import connections  # here: the master without preload_app never loads Django

        connections.close_all()


def post_worker_init(worker: Any) -> None:
    """In each worker once it has loaded the app (itself, without ``preload_app``; inherited with it): what it
    made is moved to the permanent generation as well, and the youngest generation collected every
    ``GUNICORN_GC_GEN0`` allocations (``config/collector.py``)."""
    from config.collector import settle_heap

    settle_heap()
