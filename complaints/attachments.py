"""Attachment checks: size and type by content sniffing (the file's first bytes), not by name or header.

Accepted: PDF (``%PDF-``), PNG (the 8-byte PNG signature followed by an IHDR chunk) and JPEG (``FF D8 FF``, and
the file ends with the EOI marker ``FF D9``, allowing trailing padding). The client's Content-Type is ignored; the
extension must agree with the sniffed type (``.pdf``; ``.png``; ``.jpg``/``.jpeg``/``.jfif``) so that a file
never reaches staff under a misleading name. Files are stored under a generated name, never the client's.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile

from complaints import errors
from complaints.errors import error

MAX_BYTES = settings.COMPLAINTS_ATTACHMENT_MAX_BYTES
MAX_PER_COMPLAINT = settings.COMPLAINTS_ATTACHMENTS_MAX

TYPES = {
    "application/pdf": (".pdf",),
    "image/png": (".png",),
    "image/jpeg": (".jpg", ".jpeg", ".jfif"),
}


def sniff(data: bytes) -> str | None:
    """The content type decided by the bytes themselves, or None."""
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
        return "image/png"
    if data.startswith(b"\xff\xd8\xff") and b"\xff\xd9" in data[-64:]:
        return "image/jpeg"
    return None


@dataclass(frozen=True)
class CheckedFile:
    name: str  # the client's name (display only)
    content_type: str
    size: int
    sha256: str
    content: ContentFile  # named with a generated name


def check(upload: Any) -> CheckedFile:
    """Validate one uploaded file (Django UploadedFile or any object with ``name``, ``size``, ``read``)."""
    name = os.path.basename(getattr(upload, "name", "") or "attachment")[:200]
    size = getattr(upload, "size", None)
    limit_mb = MAX_BYTES // (1024 * 1024)
    if size is not None and size > MAX_BYTES:
        raise error(errors.ATTACHMENT_TOO_LARGE, name=name, limit_mb=limit_mb, size=size)
    if hasattr(upload, "seek"):
        upload.seek(0)
    data = upload.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise error(errors.ATTACHMENT_TOO_LARGE, name=name, limit_mb=limit_mb, size=len(data))
    if not data:
        raise error(errors.ATTACHMENT_EMPTY, name=name)
    detected = sniff(data)
    if detected is None:
        raise error(errors.ATTACHMENT_TYPE, name=name)
    ext = os.path.splitext(name)[1].lower()
    if ext not in TYPES[detected]:
        raise error(errors.ATTACHMENT_EXTENSION, name=name, detected=detected)
    stored = f"{uuid.uuid4().hex}{TYPES[detected][0]}"
    return CheckedFile(
        name=name,
        content_type=detected,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        content=ContentFile(data, name=stored),
    )
