"""config/gunicorn.conf.py's preloading (its docstring, "Preloading"): the master loads the app and the workers are
forks of it, what the import made is frozen out of the collector's reach, and no database connection crosses a fork.
The fault suite (tests/faults/test_web_kill.py) serves real traffic with this configuration and kills workers, whose
replacements are forked from the preloaded master."""

from __future__ import annotations

import gc
import os
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFIG = str(ROOT / "config" / "gunicorn.conf.py")


def config(**env: str) -> dict[str, Any]:
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return runpy.run_path(CONFIG)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_the_app_is_preloaded_unless_turned_off():
    assert config()["preload_app"] is True
    assert config(GUNICORN_PRELOAD="1")["preload_app"] is True
    assert config(GUNICORN_PRELOAD="0")["preload_app"] is False


@pytest.mark.parametrize("hook", ["when_ready", "post_worker_init"])
def test_what_the_import_made_is_frozen_in_the_master_and_in_each_worker(hook, monkeypatch):
    import core.sql

    monkeypatch.setattr(core.sql, "connection_warm", lambda: 0)  # the worker's warm-up: tested below
    hooks = config()
    assert gc.get_freeze_count() == 0
    threshold = gc.get_threshold()
    try:
        gc.set_threshold(700, threshold[1], threshold[2])
        hooks[hook](_Worker())
        assert gc.get_freeze_count() > 10_000  # the platform's modules, classes, functions: ~150,000 objects
        assert gc.get_threshold() == (10_000, threshold[1], threshold[2])  # config/collector.py
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


@pytest.mark.process  # a fresh interpreter set up as the preloaded master
def test_the_master_forks_no_worker_with_a_database_connection():
    """In a process set up as the preloaded master (Django loaded, a connection opened as if something had used the
    database at import), ``pre_fork`` leaves no open connection to inherit."""
    script = f"""
import os, runpy, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from django.db import connection
connection.ensure_connection()
assert connection.connection is not None and not connection.connection.closed
runpy.run_path({CONFIG!r})["pre_fork"](object(), object())
print("closed" if connection.connection is None else "open")
"""
    env = {k: v for k, v in os.environ.items() if k not in ("TESTING",)}
    # the server's maintenance database, which exists wherever DATABASE_URL's server does (CI's platform_ci is only
    # ever created as test_platform_ci); config/pytest_env.py sets DATABASE_URL (the embedded server's when unset)
    env["DATABASE_URL"] = urlsplit(os.environ["DATABASE_URL"])._replace(path="/postgres").geturl()
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "closed"


# --- warm workers (the module docstring, "Warm workers") ------------------------------------------------------------
class _Cfg:
    threads = 4


class _Log:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def info(self, msg: str, *args: Any) -> None:
        self.lines.append(msg % args)

    warning = info


class _Worker:
    def __init__(self, pool: Any = None) -> None:
        self.cfg, self.log = _Cfg(), _Log()
        if pool is not None:
            self.tpool = pool


def test_each_worker_warms_up_before_it_serves_unless_turned_off(monkeypatch):
    import core.sql

    calls: list[int] = []

    def warm() -> int:
        calls.append(1)
        return 0

    monkeypatch.setattr(core.sql, "connection_warm", warm)
    try:
        config()["post_worker_init"](_Worker())
        assert calls == [1]
        config(GUNICORN_WARM_DB="0")["post_worker_init"](_Worker())
        assert calls == [1]
    finally:
        gc.unfreeze()


def test_a_gthread_worker_warms_one_connection_in_each_thread_of_its_pool(monkeypatch):
    """Each of the pool's threads (Django's connections are per thread) opens and warms its own connection, before
    the worker serves; the requests later run in those same threads."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import core.sql

    warmed: list[int] = []

    def warm() -> int:
        warmed.append(threading.get_ident())
        return 27

    monkeypatch.setattr(core.sql, "connection_warm", warm)
    pool = ThreadPoolExecutor(max_workers=_Cfg.threads)
    try:
        worker = _Worker(pool)
        config()["_warm_database"](worker)
        assert len(warmed) == len(set(warmed)) == 4 and threading.get_ident() not in warmed
        served = {pool.submit(threading.get_ident).result() for _ in range(20)}
        assert served <= set(warmed)
        assert worker.log.lines == ["database warmed: 4 of 4 connections, 27/27/27/27 statements planned"]
    finally:
        pool.shutdown()


def test_a_sync_worker_warms_its_own_thread_and_a_failure_is_logged_not_raised(monkeypatch):
    import threading

    import core.sql

    warmed: list[int] = []

    def warm() -> int:
        warmed.append(threading.get_ident())
        return 27

    monkeypatch.setattr(core.sql, "connection_warm", warm)
    worker = _Worker()
    config()["_warm_database"](worker)
    assert warmed == [threading.get_ident()]

    def down() -> int:
        raise RuntimeError("could not connect to server")

    monkeypatch.setattr(core.sql, "connection_warm", down)
    worker = _Worker()
    config()["_warm_database"](worker)
    assert "database connection not warmed: could not connect to server" in worker.log.lines[0]
    assert worker.log.lines[-1].startswith("database warmed: 0 of 1 connections")


def test_gunicorn_makes_the_gthread_pool_before_the_hook_and_serves_after_it():
    """The shape of gunicorn the warm-up relies on: the gthread worker makes its pool (a ThreadPoolExecutor of
    ``threads`` threads) before the base worker's ``init_process`` calls ``post_worker_init``, which runs before the
    worker serves. Fails when gunicorn changes it (then the warm-up must be rethought)."""
    import inspect
    from concurrent.futures import ThreadPoolExecutor

    from gunicorn.workers import base, gthread

    own = inspect.getsource(gthread.ThreadWorker.init_process)
    assert own.index("self.tpool = self.get_thread_pool()") < own.index("super().init_process()")
    parent = inspect.getsource(base.Worker.init_process)
    assert parent.index("self.cfg.post_worker_init(self)") < parent.index("self.run()")
    stub = type("Stub", (), {"cfg": _Cfg()})()
    pool = gthread.ThreadWorker.get_thread_pool(stub)
    try:
        assert isinstance(pool, ThreadPoolExecutor) and pool._max_workers == _Cfg.threads
    finally:
        pool.shutdown()


def test_the_master_loads_the_urlconf_before_it_forks(monkeypatch):
    """With ``preload_app`` the master imports the URLconf (every view module) in ``when_ready``: a new worker's first
    request does not."""
    import django.urls

    loaded: list[int] = []

    class Resolver:
        @property
        def url_patterns(self) -> list[Any]:
            loaded.append(1)
            return []

    monkeypatch.setattr(django.urls, "get_resolver", lambda: Resolver())
    try:
        config()["when_ready"](object())
        assert loaded == [1]
        config(GUNICORN_PRELOAD="0")["when_ready"](object())  # the master without the app: nothing to load
        config(GUNICORN_WARM_DB="0")["when_ready"](object())  # on first use
        assert loaded == [1]
    finally:
        gc.unfreeze()


def test_a_worker_is_recycled_every_20000_requests_with_jitter_unless_set():
    """Each recycle disturbs the traffic (the module docstring, "Recycling"): rare by default, never with 0."""
    assert (config()["max_requests"], config()["max_requests_jitter"]) == (20000, 2000)
    assert (
        config(GUNICORN_MAX_REQUESTS="500")["max_requests"],
        config(GUNICORN_MAX_REQUESTS="500")["max_requests_jitter"],
    ) == (500, 50)
    assert (
        config(GUNICORN_MAX_REQUESTS="0")["max_requests"],
        config(GUNICORN_MAX_REQUESTS="0")["max_requests_jitter"],
    ) == (0, 0)
