"""AML test helpers: players, images, the sandbox's signed answers, Celery tasks run in-process after commit."""

from __future__ import annotations

import pytest

from tests.kit.aml import BANKID_APP


@pytest.fixture(autouse=True)
def _aml_settings(settings, tmp_path):
    """Tasks enqueued after commit run in-process; the sandbox provider and list are on; images go to a temp dir."""
    from config.celery import app

    old = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    settings.AML_SANDBOX_ENABLED = True
    settings.WALLET_SANDBOX_ENABLED = True
    settings.AML_SANDBOX_UNAVAILABLE = False
    settings.AML_SANDBOX_IDENT_OUTCOME = "auto"
    settings.AML_SANDBOX_CALLBACK_URL = ""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = old


@pytest.fixture
def commit(django_capture_on_commit_callbacks):
    """Run the on-commit callbacks (task enqueues, e-mails) of what happens inside ``with commit():``."""

    def run():
        return django_capture_on_commit_callbacks(execute=True)

    return run


@pytest.fixture
def bankid_op(settings):
    """A local OpenID provider in Bank iD's shape, started for the test; the AML_BANKID_* settings point at it."""
    from aml import bankid_client
    from tests.kit.oidc import LocalOpenIDProvider

    bankid_client.cache_clear()
    with LocalOpenIDProvider(redirect_uris=[BANKID_APP]) as op:
        for name, value in op.settings().items():
            setattr(settings, name, value)
        yield op
    bankid_client.cache_clear()
