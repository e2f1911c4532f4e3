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
def test_what_the_import_made_is_frozen_in_the_master_and_in_each_worker(hook):
    hooks = config()
    assert gc.get_freeze_count() == 0
    threshold = gc.get_threshold()
    try:
        gc.set_threshold(700, threshold[1], threshold[2])
        hooks[hook](object())
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
