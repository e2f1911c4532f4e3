"""Project-wide pytest setup. The environment (TESTING, DATABASE_URL or the embedded PostgreSQL, each xdist worker's
own folders) is set by ``config/pytest_env.py``, loaded before the settings (pyproject's addopts).

Tiers (markers registered in pyproject.toml; ``make test`` runs them all in parallel, ``make test-fast`` only the
unit/integration tier):

- ``browser``: a headless Chromium drives the site. Every test in a file named ``*_browser.py`` gets it here.
- ``process``: starts other processes or servers (Celery workers, gunicorn, PgBouncer, a replica, a production
  start-up) or kills them. Tests marked ``worker`` or ``faults`` get it here; the other process tests carry it.
- ``slow``: long simulations.

Parallel (pytest-xdist, ``--dist loadgroup``): each worker has its own test database (``test_<name>_gw0``...) and its
own folders; tests that must not overlap share an ``xdist_group`` (the fault-injection suite, below).

The shared test helpers are the kit, ``tests/kit/`` (its ``__init__`` says what is where)."""
from __future__ import annotations

from pathlib import Path

import pytest

# Real money needs a game version approved in the game plan (GP §13(6)); every test with the database gets the
# current versions approved as test data (tests/kit/games.py says how and why).
pytest_plugins = ("tests.kit.plugin",)

TIERS = ("browser", "process", "slow")
# The fault-injection suite ends processes and database backends and measures timings: one worker runs it, in order.
SERIAL_GROUPS = {"faults": "faults"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).name.endswith("_browser.py"):
            item.add_marker(pytest.mark.browser)
        if item.get_closest_marker("worker") or item.get_closest_marker("faults"):
            item.add_marker(pytest.mark.process)
        for mark, group in SERIAL_GROUPS.items():
            if item.get_closest_marker(mark):
                item.add_marker(pytest.mark.xdist_group(group))
