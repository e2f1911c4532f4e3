"""The contract's signature: HMAC-SHA256 of f"{timestamp}." + the raw body, as a known vector and on the wire."""

from __future__ import annotations

import hashlib
import hmac
import json

from provider_simulator.signing import signature, signed_headers, verify

# printf '1700000000.{"session":"abc"}' | openssl dgst -sha256 -hmac simstudio-secret
KNOWN = "sha256=5b99dca8e04ef24746d2647f535bb6f44fddf62198c0d832332da7a239434282"


def test_the_signature_matches_a_known_vector_computed_by_openssl():
    assert signature("simstudio-secret", 1700000000, b'{"session":"abc"}') == KNOWN
    assert signed_headers("simstudio-secret", 1700000000, b'{"session":"abc"}') == {
        "X-Provider-Timestamp": "1700000000",
        "X-Provider-Signature": KNOWN,
    }


def test_verify_accepts_the_known_vector_within_the_window_and_refuses_what_the_contract_refuses():
    body = b'{"session":"abc"}'

    def check(secret="simstudio-secret", timestamp: str | None = "1700000000", raw=body, now=1700000000):
        return verify(secret, timestamp=timestamp, signature_value=KNOWN, body=raw, now=now)

    assert check(now=1700000000 + 300) is None
    assert check(now=1700000000 - 300) is None
    assert check(now=1700000000 + 301) == "stale"
    assert check(secret="another-secret") == "bad_signature"
    assert check(raw=body + b" ") == "bad_signature"
    assert check(timestamp=None) == "missing"
    assert check(timestamp="17e8") == "bad_timestamp"


def test_the_client_signs_the_exact_bytes_it_sends(wallet, client, journal):
    reply = client.session(wallet.launch_token())
    assert reply.ok and reply.status == 200
    op, body, status = wallet.received[-1]
    assert (op, status) == ("session", 200)
    raw = json.dumps(body, separators=(",", ":")).encode()
    ts = int(journal.calls()[-1].at)
    expected = hmac.new(b"simulator-test-secret", f"{ts}.".encode() + raw, hashlib.sha256).hexdigest()
    assert (
        verify("simulator-test-secret", timestamp=str(ts), signature_value=f"sha256={expected}", body=raw, now=ts)
        is None
    )
