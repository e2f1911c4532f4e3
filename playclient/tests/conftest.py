"""Fixtures of the player web client's tests: Celery tasks run in-process after commit (e-mails, the sandbox
provider's signed callback), the sandbox payment provider is on, fresh throttles (as tests/conftest.py)."""

from __future__ import annotations

import pytest

from playclient.tests.harness import play_browser  # noqa: F401 - a fixture


@pytest.fixture(autouse=True)
def _celery_eager(settings):
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
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
