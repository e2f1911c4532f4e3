"""Fixtures of the cross-app end-to-end tests: Celery tasks run in-process after commit (the sandbox
provider's signed callbacks and payouts, e-mails), the sandbox payment provider is on, fresh throttles."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _celery_eager(settings):
    """Tasks enqueued after commit (``task.delay_on_commit``) run in-process, as a worker would."""
    from config.celery import app

    old = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    settings.WALLET_SANDBOX_ENABLED = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = old


@pytest.fixture(autouse=True)
def _media(tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture(autouse=True)
def _fresh_throttles():
    """DRF throttles and django-axes count in the cache: every test starts with none."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
