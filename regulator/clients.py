"""Who may download packages and post notifications: only the Ministry's client certificates. The operator's TLS
terminator verifies the client certificate (mutual TLS) and passes it on in a request header (URL-encoded PEM, as
nginx's ``$ssl_client_escaped_cert``) with the verification result; the platform parses it and admits it only when its
subject DN (RFC 4514) or its SHA-256 fingerprint is one of REGULATOR_MINISTRY_CLIENTS. The terminator must drop
these headers from what clients send (docs/regulator.md "Delivery")."""

from __future__ import annotations

from urllib.parse import unquote

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from django.conf import settings
from django.http import HttpRequest

from core import clock


def _normal(dn: str) -> str:
    return ",".join(part.strip() for part in dn.split(",")).casefold()


def ministry_client(request: HttpRequest) -> str | None:
    """The admitted identity ("<subject DN>") of the request's client certificate, or None."""
    if request.META.get(settings.REGULATOR_CLIENT_VERIFY_HEADER, "") != "SUCCESS":
        return None
    raw = request.META.get(settings.REGULATOR_CLIENT_CERT_HEADER, "")
    if not raw:
        return None
    try:
        cert = x509.load_pem_x509_certificate(unquote(raw).encode())
    except ValueError:
        return None
    now = clock.now()
    if not cert.not_valid_before_utc <= now < cert.not_valid_after_utc:
        return None
    subject = cert.subject.rfc4514_string()
    fingerprint = cert.fingerprint(hashes.SHA256()).hex()
    allowed = {_normal(a) for a in settings.REGULATOR_MINISTRY_CLIENTS}
    if _normal(subject) in allowed or fingerprint in {
        a.replace(":", "").lower() for a in settings.REGULATOR_MINISTRY_CLIENTS
    }:
        return subject
    return None
