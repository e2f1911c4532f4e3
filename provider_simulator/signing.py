"""The signature of the wire contract, both ways (the simulator signs its calls and checks the platform's):

X-Provider-Timestamp: <unix seconds, integer>
X-Provider-Signature: sha256=<hex HMAC-SHA256(secret, f"{timestamp}.".encode() + raw_body)>
"""

from __future__ import annotations

import hashlib
import hmac

TIMESTAMP_HEADER = "X-Provider-Timestamp"
SIGNATURE_HEADER = "X-Provider-Signature"
WINDOW_SECONDS = 300  # PROVIDERS_SIGNATURE_WINDOW_SECONDS of the contract: a timestamp further off is a replay


def signature(secret: str | bytes, timestamp: int, body: bytes) -> str:
    """The header value ``sha256=<hex>`` for ``body`` sent at ``timestamp``."""
    key = secret.encode() if isinstance(secret, str) else secret
    return "sha256=" + hmac.new(key, f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def signed_headers(secret: str | bytes, timestamp: int, body: bytes) -> dict[str, str]:
    return {TIMESTAMP_HEADER: str(timestamp), SIGNATURE_HEADER: signature(secret, timestamp, body)}


def verify(
    secret: str | bytes,
    *,
    timestamp: str | None,
    signature_value: str | None,
    body: bytes,
    now: float,
    window: int = WINDOW_SECONDS,
) -> str | None:
    """None when the call is authentic and fresh, else why not (``missing``, ``bad_timestamp``, ``stale``,
    ``bad_signature``). The signature is compared in constant time."""
    if not timestamp or not signature_value:
        return "missing"
    if not timestamp.isascii() or not timestamp.lstrip("-").isdigit() or len(timestamp) > 12:
        return "bad_timestamp"
    ts = int(timestamp)
    if abs(now - ts) > window:
        return "stale"
    if not hmac.compare_digest(signature(secret, ts, body), signature_value):
        return "bad_signature"
    return None
