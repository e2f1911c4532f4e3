"""Wallet test helpers: players with money, Celery tasks run in-process, the sandbox's signed callbacks."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _celery_eager(settings, tmp_path):
    """Tasks enqueued after commit run in-process (the sandbox's callbacks, sends)."""
    from config.celery import app

    old = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    settings.WALLET_SANDBOX_ENABLED = True
    settings.MEDIA_ROOT = str(tmp_path / "media")
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = old
