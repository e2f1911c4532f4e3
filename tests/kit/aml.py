"""The kit's helpers of the aml tests (moved from ``aml/tests/conftest.py``, which keeps the fixtures)."""

from __future__ import annotations

import itertools

from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from core.audit import Actor
from tests.kit.accounts import make_player, make_staff, token_for

JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


PDF = b"%PDF-1.4\n" + b"0" * 64


SYSTEM = Actor.system("test")


_n = itertools.count(1)


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

    doc = {
        "document_type": "id_card",
        "document_number": number or f"AB{next(_n):07d}",
        "document_issuing_state": "CZ",
        "document_issuing_authority": "MěÚ Praha 1",
        "document_valid_until": (clock.business_date() + timedelta(days=365)).isoformat(),
    }
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


__all__ = [
    "BANKID_APP",
    "JPEG",
    "PDF",
    "PNG",
    "SYSTEM",
    "applicant",
    "client",
    "document",
    "images",
    "make_player",
    "make_staff",
    "upload_body",
]


BANKID_APP = "https://app.example.cz/identification/bankid-return"
