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
    GUNICORN_MAX_REQUESTS    20000              recycle a worker after this many requests (0 = never), with jitter
                                                of up to 10 %; see "Recycling" below
    GUNICORN_PRELOAD         1                  load the app once in the master and fork each worker from it (0:
                                                each worker imports it); see "Preloading" below
    GUNICORN_WARM_DB         1                  workers ready before they serve: the URLconf loaded by the master,
                                                each worker's database connections opened and the hot statements
                                                planned (0: on first use); see "Warm workers"
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

Warm workers (``GUNICORN_WARM_DB=1``): a new worker's first requests paid two things once. Django imports the
URLconf, and with it every view module, on the first request (~100 ms of CPU); the master now does it before it
forks (:func:`when_ready`), so every worker has it. And each thread opens its own database connection, which
prepares the ~27 hot statements (``core/sql.py``), whose first executions then plan them and load their tables into
the new PostgreSQL backend's catalogue caches: on a connection opened by a request its first round took ~38 ms
instead of ~6 ms (in-process, 10 trials). Each new worker, the first ones and every one replacing a recycled worker,
now opens one connection per thread and plans the hot statements (``core.sql.connection_warm``, in
:func:`post_worker_init`) before it accepts a request. In a fresh process with both, the first round took 10-14 ms
of CPU instead of ~100 (later rounds 4-6 ms). The connections need ``CONN_MAX_AGE`` > 0 and prepared statements
(not behind PgBouncer); elsewhere nothing is opened. A database that cannot be reached is logged and the worker
serves anyway (its requests connect as before).

Recycling: each worker replaced after ``GUNICORN_MAX_REQUESTS`` disturbs the traffic for a moment, whatever the
warm-up: the old worker stops accepting and finishes its requests, the other worker serves alone meanwhile, and the
keep-alive connections the old one held reconnect to whichever worker accepts first, the one that kept serving, so
the new worker gets few of them until the clients (or the balancer, e.g. nginx's ``keepalive_requests``) open new
ones. ``make bench`` 2026-12-07 (scripts/bench.py's note on the open-loop 70 % run, 48-60 s at 20-62 starts/s, a
machine shared with other jobs), the run's 13-31 starts at or above its p99 that were waiting within 2 s of a new
worker's start: recycling every 500 requests, 30 of 31 and 29 of 31 without the warm-up, 2 of 13 and 0 of 22 with
it; every 2,000 (1-2 recycles a run), 12 of 31 without and 29 of 31 with it. After the second recycle of a run one
worker answered 266-277 requests per 5 s and its new peer 8-9. Hence 20,000 (gunicorn's own default is 0, never): a
worker serving ~100 requests a second is replaced every few minutes, not twice a minute.

The access log is one JSON object per request with the request id the app sets (``X-Request-ID``), so a line of
the access log, the app's own request log (``platform.request``) and an error report can be joined on it. It carries
what the app's line does not: the client's address as gunicorn saw it (the balancer's), the bytes sent, the worker's
pid. Its line costs ~50,000 instructions a request (~0.7 % of a round; ``scripts/bench_http_cpu.py``, docs/bench.md;
~150,000 before): encoded by orjson (:func:`encode_line`) and written by :func:`write_line` straight to gunicorn's
stream or file handler, without the record Python's logging builds for a formatter it does not use;
``GUNICORN_ACCESS_LOG=`` (empty) turns it off.

The web tier is stateless (sessions live in PostgreSQL, throttles and login lockouts in the shared cache,
``CACHE_URL``): run as many of these processes on as many machines as the database allows. Database connections: each
worker thread keeps its
own connection for ``CONN_MAX_AGE`` seconds (settings), so the number of PostgreSQL connections of one machine is
``WEB_CONCURRENCY x GUNICORN_THREADS``; keep the sum over all machines under ``max_connections`` (or put PgBouncer
in transaction mode between them: ``DATABASE_POOLER=pgbouncer`` sets ``CONN_MAX_AGE=0`` and
``DISABLE_SERVER_SIDE_CURSORS``; docs/scaling.md).
"""

from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
import os
import threading
from concurrent import futures
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gunicorn.glogging import Logger  # gunicorn ships no type hints (ignore_missing_imports in pyproject)

try:  # pragma: no cover - which branch runs depends on the environment
    import orjson
except ImportError:  # pragma: no cover - safe: without orjson every line is the json module's (the same object)
    orjson = None  # type: ignore[assignment]  # optional, as in core/renderers.py: None when not installed


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
max_requests = _int("GUNICORN_MAX_REQUESTS", 20000)
max_requests_jitter = max_requests // 10 if max_requests else 0
backlog = _int("GUNICORN_BACKLOG", 2048)
preload_app = _int("GUNICORN_PRELOAD", 1) == 1
warm_db = _int("GUNICORN_WARM_DB", 1) == 1
WARM_TIMEOUT = 15.0  # seconds a new worker waits for its connections before it serves anyway
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


#: ``json.dumps(line, ensure_ascii=False)`` builds this encoder on every call (every request); one for the process
#: writes the same text (an encoder keeps no state between calls). The fallback of :func:`encode_line`.
_ENCODER = json.JSONEncoder(ensure_ascii=False)


def encode_line(line: dict[str, Any]) -> str:
    """The access line's JSON: orjson's (compact, UTF-8 as it is, ~10x faster than the json module's encoder, which
    calls back into Python for the float), or the json module's for what orjson refuses (a lone surrogate)."""
    if orjson is not None:
        try:
            return orjson.dumps(line).decode()
        except orjson.JSONEncodeError:
            pass
    return _ENCODER.encode(line)


#: this process's id, kept up to date across forks (``os.getpid()`` is a system call: two a line, with logging's)
_PID = [os.getpid()]
os.register_at_fork(after_in_child=lambda: _PID.__setitem__(0, os.getpid()))

#: the handlers gunicorn gives the access log (``-``: standard output; a path: a file) that :func:`write_line`
#: writes to itself: one line, under the handler's lock, flushed, as their ``emit`` does
_PLAIN_HANDLERS = (logging.StreamHandler, logging.FileHandler)


def write_line(log: logging.Logger, text: str) -> None:
    """``log.info(text)`` for a logger whose handlers write the message as it is (gunicorn's access log:
    ``%(message)s``), without the record logging builds for its formatter (the caller's frame, thread, process,
    times): a plain stream or file handler gets ``text`` and its terminator under its lock, flushed, as its own
    ``emit`` writes it; any other handler (syslog, a ``logconfig``'s) or a handler with a filter or a formatter
    of its own gets the record through ``handle`` as before. The stream is read at each line, so a log file
    reopened by ``USR1`` (gunicorn's ``reopen_files``) is written from the next line on."""
    if not log.isEnabledFor(logging.INFO):
        return
    record = None
    for handler in log.handlers:
        stream = getattr(handler, "stream", None)
        if (
            type(handler) in _PLAIN_HANDLERS
            and stream is not None
            and not handler.filters
            and handler.level <= logging.INFO
            and getattr(handler.formatter, "_fmt", None) == "%(message)s"
        ):
            with handler.lock:  # type: ignore[union-attr]  # created by Handler.__init__
                stream = handler.stream  # type: ignore[attr-defined]  # reopened under the lock
                stream.write(text + handler.terminator)  # type: ignore[attr-defined]
                stream.flush()
        else:
            if record is None:
                record = log.makeRecord(log.name, logging.INFO, "(access)", 0, text, (), None)
            if handler.level <= logging.INFO:
                handler.handle(record)


class JsonAccessLogger(Logger):
    """One JSON object per request on the access log, with the ``X-Request-ID`` the app set on the response."""

    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> None:
        if not self.cfg.accesslog:
            return
        request_id, sql = "", None
        for name, value in resp.headers or ():  # the last of a repeated header, as a dict of them kept
            lower = name.lower()
            if lower == "x-request-id":
                request_id = value
            elif lower == "x-sql-count":  # the bench's counter (config/sqlcount.py)
                sql = value
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
            "request_id": request_id,
            "pid": _PID[0],
        }
        if sql is not None:
            line["sql"] = int(sql)
        try:
            write_line(self.access_log, encode_line(line))
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
    """In the master once it is set up (the app loaded there with ``preload_app``): the URLconf loaded
    (:func:`_load_urls`, "Warm workers" in the module docstring), then what the import made is moved to the
    collector's permanent generation ("Preloading"; ``config/collector.py``)."""
    from config.collector import settle_heap  # here: ``config`` is importable once gunicorn has set the app's path

    if preload_app and warm_db:
        _load_urls()
    settle_heap()


def _load_urls() -> None:
    """Import the URLconf and with it every view module (Django does it on the first request: ~100 ms of a new
    worker's first answer, "Warm workers"); once per process, a no-op after."""
    from django.urls import get_resolver  # here: the config is read before Django is set up

    get_resolver().url_patterns  # noqa: B018 - the property imports config.urls and the modules it names


def pre_fork(server: Any, worker: Any) -> None:
    """In the master before each fork: no database connection may be inherited by a worker (two processes writing
    on one socket); nothing opens one at import, so this closes nothing unless that changes."""
    if preload_app:
        from django.db import connections  # here: the master without preload_app never loads Django

        connections.close_all()


def post_worker_init(worker: Any) -> None:
    """In each worker once it has loaded the app (itself, without ``preload_app``; inherited with it), before it
    accepts a request: its threads' database connections opened and warmed (``GUNICORN_WARM_DB``, "Warm workers" in
    the module docstring), then what it made is moved to the permanent generation as well, and the youngest
    generation collected every ``GUNICORN_GC_GEN0`` allocations (``config/collector.py``)."""
    from config.collector import settle_heap  # here: ``config`` is importable once gunicorn has set the app's path

    if warm_db:
        _load_urls()  # without preload_app (with it, the master did)
        _warm_database(worker)
    settle_heap()


def _warm_database(worker: Any) -> None:
    """``core.sql.connection_warm`` in every thread that will serve requests: the gthread worker's pool (gunicorn
    makes it before this hook: one task per thread, held at a barrier so that each lands in a thread of its own; the
    pool's threads live as long as the worker, and Django's connections are per thread), else this thread (a sync
    worker serves in it). Bounded by :data:`WARM_TIMEOUT`; a failure is logged, never raised."""
    from core.sql import connection_warm  # here: the app (and Django) is loaded only by the time of this hook

    def warm() -> int:
        try:
            return connection_warm()
        except Exception as exc:  # noqa: BLE001 - a worker that cannot warm up serves anyway, connecting on use
            worker.log.warning("database connection not warmed: %s", str(exc).strip()[:300])
            return -1

    pool = getattr(worker, "tpool", None)
    if not isinstance(pool, futures.ThreadPoolExecutor):
        results = [warm()]
    else:
        threads = max(1, int(worker.cfg.threads))
        barrier = threading.Barrier(threads, timeout=WARM_TIMEOUT)

        def in_own_thread() -> int:
            try:
                return warm()
            finally:
                with contextlib.suppress(threading.BrokenBarrierError):
                    barrier.wait()

        tasks = [pool.submit(in_own_thread) for _ in range(threads)]
        done, _ = futures.wait(tasks, timeout=WARM_TIMEOUT + 1)
        results = [t.result() for t in tasks if t in done]
    worker.log.info(
        "database warmed: %d of %d connections, %s statements planned",
        sum(1 for r in results if r >= 0),
        len(results),
        "/".join(str(r) for r in results),
    )
