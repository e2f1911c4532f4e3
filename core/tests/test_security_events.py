"""Security events leave an audit trail that the refusal's rollback cannot erase: forged provider
callbacks, lock-outs and throttled logins (system actor, source address, what was tried, the body's hash)."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from core.models import AuditEvent
from wallet.errors import BAD_SIGNATURE, REPLAY_MISMATCH

pytestmark = pytest.mark.django_db(databases=["default", "refusal_log"])


def _events(action):
    return list(AuditEvent.objects.using("refusal_log").filter(action=action))


def test_a_forged_provider_callback_is_refused_and_recorded_with_the_bodys_hash():
    body = json.dumps({"event_id": "e-1", "type": "payment.succeeded", "payment_reference": "X", "amount": 10})
    r = APIClient().generic(
        "POST",
        "/api/v1/wallet/callbacks/sandbox",
        body,
        content_type="application/json",
        HTTP_X_SIGNATURE="sha256=" + "0" * 64,
        REMOTE_ADDR="203.0.113.9",
    )
    assert r.status_code == 401 and r.json()["error"]["code"] == BAD_SIGNATURE.code
    [event] = _events("security.callback_refused")
    assert event.actor_type == "system" and event.details["source"] == "203.0.113.9"
    assert event.details["body_sha256"] == hashlib.sha256(body.encode()).hexdigest()
    assert BAD_SIGNATURE.code in event.details["tried"]
    r = APIClient().generic(
        "POST",
        "/api/v1/wallet/callbacks/nosuch",
        body,
        content_type="application/json",
        HTTP_X_SIGNATURE="sha256=" + "0" * 64,
    )
    assert r.status_code == 404 and len(_events("security.callback_refused")) == 2


def test_lock_outs_and_throttled_logins_are_recorded():
    from tests.kit.accounts import make_player

    cache.clear()
    player = make_player()
    c = APIClient(raise_request_exception=False)
    for _ in range(6):  # AXES_FAILURE_LIMIT 5: the sixth attempt is locked out
        c.post(
            "/api/v1/accounts/auth/login",
            {"username": player.user.username, "password": "wrong-one-123"},
            format="json",
        )
    locked = _events("security.login_locked_out")
    assert locked and player.user.username in locked[0].details["tried"]
    for i in range(6):  # "login": 10 per minute per address
        c.post("/api/v1/accounts/auth/login", {"username": f"x{i}", "password": "wrong-one-123"}, format="json")
    assert _events("security.login_throttled")
    cache.clear()


def test_a_replayed_callback_is_recorded_and_one_with_another_body_is_refused_and_changes_nothing():
    """A provider's retry of the same signed event: the first result again, nothing changed, a replay recorded.
    The same event id with another (validly signed) body: 409 ``wallet.callback_replay_mismatch``, recorded, and the
    deposit still holds the first event's amount."""
    from tests.kit.accounts import make_player
    from tests.kit.money import czk
    from tests.kit.wallet import fund
    from wallet import selectors
    from wallet.adapters import sandbox_event
    from wallet.models import Deposit

    player = make_player()
    fund(player, czk(500))
    before = selectors.balance(player)
    deposits = Deposit.objects.filter(player=player).count()
    body, sig = sandbox_event("payment.failed", "NO-SUCH-REF", 100, event_id="ev-replay-1")
    c = APIClient()

    def post(b, s):
        return c.generic(
            "POST",
            "/api/v1/wallet/callbacks/sandbox",
            b,
            content_type="application/json",
            HTTP_X_SIGNATURE=s,
            REMOTE_ADDR="198.51.100.7",
        )

    first = post(body, sig)
    assert first.status_code == 200 and first.json()["status"] == "processed"
    assert not _events("security.callback_replayed")
    again = post(body, sig)
    assert again.status_code == 200 and again.json()["status"] == "duplicate"
    [replay] = _events("security.callback_replayed")
    assert replay.details["source"] == "198.51.100.7" and "ev-replay-1" in replay.details["tried"]
    assert replay.details["body_sha256"] == hashlib.sha256(body).hexdigest()
    other, other_sig = sandbox_event("payment.succeeded", "NO-SUCH-REF", 999_999, event_id="ev-replay-1")
    refused = post(other, other_sig)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == REPLAY_MISMATCH.code
    [mismatch] = [e for e in _events("security.callback_refused") if "replay_mismatch" in e.details["tried"]]
    assert mismatch.details["body_sha256"] == hashlib.sha256(other).hexdigest()
    assert selectors.balance(player) == before and Deposit.objects.filter(player=player).count() == deposits
