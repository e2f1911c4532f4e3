"""Environment variables read outside the Django settings, by the processes around them: gunicorn
(config/gunicorn.conf.py), `make run` (scripts/run.py), the provider simulator (provider_simulator/), the SQL counter
(config/sqlcount.py) and the local PostgreSQL pairs of the process tests (core/local_servers.py). They are listed
here so that docs/settings.md has every variable the platform reads (tests/test_settings_doc.py greps for them)."""

from __future__ import annotations

from config.env import Variable


def _var(area: str, name: str, kind: str, default: str, meaning: str) -> Variable:
    return Variable(name=name, type=kind, default=default, production="", required=False, meaning=meaning, area=area)


WEB = "Web server (gunicorn, config/gunicorn.conf.py)"
RUN = "make run (scripts/run.py)"
SIM = "Provider simulator (provider_simulator/)"
DEV = "Development tools"

PROCESS_VARIABLES: list[Variable] = [
    _var(WEB, "BIND", "comma-separated list", "127.0.0.1:8000", "the addresses gunicorn listens on"),
    _var(WEB, "WEB_CONCURRENCY", "integer", "1 per CPU", "gunicorn workers (`make run` sets 2)"),
    _var(
        WEB,
        "GUNICORN_WORKER_CLASS",
        "text",
        "gthread",
        "gunicorn's worker class (gthread: threads per worker and "
        "HTTP keep-alive; sync closes the connection after every answer)",
    ),
    _var(WEB, "GUNICORN_THREADS", "integer", "4", "threads per worker with the gthread class"),
    _var(WEB, "GUNICORN_KEEPALIVE", "integer", "75", "seconds a kept-alive connection waits"),
    _var(WEB, "GUNICORN_TIMEOUT", "integer", "30", "seconds before a silent worker is killed"),
    _var(WEB, "GUNICORN_GRACEFUL_TIMEOUT", "integer", "30", "seconds a worker has to finish on restart"),
    _var(
        WEB,
        "GUNICORN_MAX_REQUESTS",
        "integer",
        "20000",
        "requests before a worker is replaced (0: never), with up to 10 % jitter",
    ),
    _var(
        WEB,
        "GUNICORN_PRELOAD",
        "integer",
        "1",
        "1: the app is loaded once by the master and each worker forked from it (a replaced worker serves at once); "
        "0: each worker loads it",
    ),
    _var(
        WEB,
        "GUNICORN_WARM_DB",
        "integer",
        "1",
        "1: workers ready before they serve (the URLconf loaded by the master; each worker's database connections "
        "opened and the hot statements planned); 0: on first use",
    ),
    _var(
        WEB,
        "GUNICORN_GC_GEN0",
        "integer",
        "10000",
        "allocations between collections of the garbage collector's youngest generation in a web worker (Python's "
        "default: 700); config/collector.py",
    ),
    _var(WEB, "GUNICORN_BACKLOG", "integer", "2048", "pending connections"),
    _var(WEB, "GUNICORN_CONTROL_SOCKET", "path", "(empty)", "gunicorn's control socket; empty: none"),
    _var(WEB, "GUNICORN_ACCESS_LOG", "text", "-", "the access log (JSON lines); - standard output, empty: none"),
    _var(WEB, "GUNICORN_LOG_LEVEL", "text", "info", "gunicorn's own log level"),
    _var(RUN, "HOST", "text", "127.0.0.1", "the address `make run` serves on"),
    _var(RUN, "PORT", "integer", "8000", "its port"),
    _var(SIM, "PROVIDER_SIM_PORT", "integer", "8300", "the provider simulator's port"),
    _var(SIM, "PROVIDER_SIM_PLATFORM", "text", "http://127.0.0.1:8000", "the platform the simulator calls"),
    _var(SIM, "PROVIDER_SIM_LOBBY", "text", "(none)", "the lobby the simulator's games return to"),
    _var(SIM, "PROVIDER_SIM_PROVIDER", "text", "simstudio", "the provider code the simulator signs as"),
    _var(SIM, "PROVIDER_SIM_SECRET", "text", "PROVIDERS_DEV_SECRET", "the secret the simulator signs with"),
    _var(SIM, "PROVIDER_SIM_MODE", "text", "normal", "the simulator's behaviour (normal or a fault mode)"),
    _var(SIM, "PROVIDER_SIM_JOURNAL", "path", ".data/provider-sim.sqlite3", "what the simulator sent and received"),
    _var(
        DEV,
        "SQL_COUNT",
        "true/false",
        "(empty)",
        "1: the WSGI application counts the SQL statements per request (config/sqlcount.py, `make bench`)",
    ),
    _var(
        DEV,
        "PG_PAIR_KEEP",
        "true/false",
        "(empty)",
        "1: the process tests keep their PostgreSQL pair's directory and logs (tests/kit/servers.py)",
    ),
    _var(
        DEV,
        "PYTEST_XDIST_WORKER",
        "text",
        "(set by pytest-xdist)",
        "the test worker's name (gw0, gw1, ...): each worker's own test database and folders (config/pytest_env.py)",
    ),
    _var(
        DEV,
        "DJANGO_ALLOW_ASYNC_UNSAFE",
        "true/false",
        "(empty)",
        "Django's own: set, database calls are allowed in a thread running an event loop (a notebook); "
        "core/fastpaths.py's check honours it as Django's does. Never in production",
    ),
]
