"""AML test helpers: players, images, the sandbox's signed answers, Celery tasks run in-process after commit."""
from __future__ import annotations

import itertools

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from accounts.testing import make_player, make_staff, token_for
from core.audit import Actor

JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
PDF = b"%PDF-1.4\n" + b"0" * 64
SYSTEM = Actor.system("test")
_n = itertools.count(1)


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


def client(user=None) -> APIClient:
    c = APIClient(raise_request_exception=False)
    if user is not None:
        c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(getattr(user, 'user', user))}")
    return c


def applicant(**extra):
    """A temporary account whose AML identification is not done yet (the register matched, nothing more)."""
    extra.setdefault("aml_identified_at", None)
    return make_player(status=extra.pop("status", "temporary"), **extra)


def document(number: str | None = None, **overrides) -> dict:
    from datetime import timedelta

    from core import clock

    doc = {"document_type": "id_card", "document_number": number or f"AB{next(_n):07d}",
           "document_issuing_state": "CZ", "document_issuing_authority": "MěÚ Praha 1",
           "document_valid_until": (clock.business_date() + timedelta(days=365)).isoformat()}
    doc.update(overrides)
    return doc


def upload_body(doc: dict, *, front=JPEG, back=PNG, selfie=JPEG) -> dict:
    body = dict(doc)
    for side, content in (("front", front), ("back", back), ("selfie", selfie)):
        if content is not None:
            body[side] = SimpleUploadedFile(f"{side}.jpg", content, content_type="image/jpeg")
    return body


def images(front=JPEG, back=PNG, selfie=JPEG) -> dict:
    return {k: v for k, v in (("front", front), ("back", back), ("selfie", selfie)) if v is not None}


__all__ = ["BANKID_APP", "JPEG", "PDF", "PNG", "SYSTEM", "applicant", "client", "document", "images", "make_player",
           "make_staff", "upload_body"]


# Bank iD: a real local OpenID provider (aml.testing_oidc) and the platform pointed at it ---------------------------

BANKID_APP = "https://app.example.cz/identification/bankid-return"


@pytest.fixture
def bankid_op(settings):
    """A local OpenID provider in Bank iD's shape, started for the test; the AML_BANKID_* settings point at it."""
    from aml import bankid_client
    from aml.testing_oidc import LocalOpenIDProvider

    bankid_client.cache_clear()
    with LocalOpenIDProvider(redirect_uris=[BANKID_APP]) as op:
        for name, value in op.settings().items():
            setattr(settings, name, value)
        yield op
    bankid_client.cache_clear()
