"""The signature of every call between the platform and a provider, both ways (the wire contract):
``X-Provider-Signature: sha256=<hex HMAC-SHA256(secret, f"{timestamp}.".encode() + raw_body)>`` with
``X-Provider-Timestamp: <unix seconds>``. Pure functions: the services check, the adapter and the test client sign."""

from __future__ import annotations

import hashlib
import hmac

TIMESTAMP_HEADER = "X-Provider-Timestamp"
SIGNATURE_HEADER = "X-Provider-Signature"
PREFIX = "sha256="


def signature(secret: str, timestamp: int | str, raw_body: bytes) -> str:
    """The header value for ``raw_body`` sent at ``timestamp``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + raw_body, hashlib.sha256)
    return PREFIX + mac.hexdigest()


def signature_valid(secret: str, timestamp: str, raw_body: bytes, given: str) -> bool:
    """Whether ``given`` is the signature of ``raw_body`` at ``timestamp`` (constant-time comparison)."""
    if not secret or not given:
        return False
    return hmac.compare_digest(signature(secret, timestamp, raw_body).encode(), given.strip().encode(errors="replace"))


def signed_headers(secret: str, timestamp: int, raw_body: bytes) -> dict[str, str]:
    """The two headers of a signed call (the HTTP header names)."""
    return {
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: signature(secret, timestamp, raw_body),
        "Content-Type": "application/json",
    }


def body_sha256(raw_body: bytes) -> str:
    return hashlib.sha256(raw_body).hexdigest()
