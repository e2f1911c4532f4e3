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

from collections import Counter
from pathlib import Path

import pytest
from _pytest.nodeid import coerce_node_id  # the node id's own type (pytest 9)

# Real money needs a game version approved in the game plan (GP §13(6)); every test with the database gets the
# current versions approved as test data (tests/kit/games.py says how and why).
pytest_plugins = ("tests.kit.plugin",)

TIERS = ("browser", "process", "slow")
# The fault-injection suite ends processes and database backends and measures timings: one worker runs it, in order.
SERIAL_GROUPS = {"faults": "faults"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # schemathesis gives every operation's test the function's node id (its name carries the operation): pytest-xdist
    # schedules by node id and would run one of them for all (tests/test_hostile_input.py lost 142 of 154 cases).
    # Each gets its own id from its name, the same on every worker.
    counts = Counter(item.nodeid for item in items)
    for item in items:
        if counts[item.nodeid] > 1 and "[" in item.name and not item.nodeid.endswith("]"):
            unique = coerce_node_id(item.nodeid + item.name[item.name.index("[") :])
            setattr(item, "_id", unique)  # noqa: B010 - where pytest keeps the node id (Node.nodeid reads it)
    for item in items:
        if Path(str(item.fspath)).name.endswith("_browser.py"):
            item.add_marker(pytest.mark.browser)
        if item.get_closest_marker("worker") or item.get_closest_marker("faults"):
            item.add_marker(pytest.mark.process)
        for mark, group in SERIAL_GROUPS.items():
            if item.get_closest_marker(mark):
                item.add_marker(pytest.mark.xdist_group(group))
