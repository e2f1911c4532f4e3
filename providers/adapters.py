"""The platform's calls to a provider's own API (``Provider.api_url``), signed the same way as the provider's calls
(providers/signing.py). Plain urllib; never called inside a transaction that holds a player's lock (the tasks call
them after commit)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

from django.conf import settings

from core.parsers import loads_bounded
from providers.models import Provider
from providers.signing import signed_headers

MAX_ANSWER_BYTES = 20 * 1024 * 1024  # a day's report


class ProviderUnavailable(OSError):
    """The provider did not answer 200 (network, timeout, an error status, a body that is not JSON)."""


def post(provider: Provider, operation: str, payload: dict[str, Any]) -> dict[str, Any]:
    """POST ``payload`` (signed) to ``{api_url}/{operation}``; the answer's JSON object. Raises
    :class:`ProviderUnavailable` on anything but a 200 with a JSON object."""
    body = json.dumps(payload, separators=(",", ":")).encode()
    url = provider.api_url.rstrip("/") + "/" + operation
    req = urllib.request.Request(
        url, data=body, method="POST", headers=signed_headers(provider.secret, int(time.time()), body)
    )
    try:
        with urllib.request.urlopen(req, timeout=settings.PROVIDERS_HTTP_TIMEOUT_SECONDS) as resp:  # the provider's URL
            status, raw = resp.status, resp.read(MAX_ANSWER_BYTES + 1)
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        raise ProviderUnavailable(f"{provider.code} {operation}: {exc}") from exc
    if status != 200 or len(raw) > MAX_ANSWER_BYTES:
        raise ProviderUnavailable(f"{provider.code} {operation}: HTTP {status}")
    try:
        answer = loads_bounded(raw.decode("utf-8") or "{}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProviderUnavailable(f"{provider.code} {operation}: the answer is not JSON") from exc
    if not isinstance(answer, dict):
        raise ProviderUnavailable(f"{provider.code} {operation}: the answer is not a JSON object")
    return answer
