"""Throttles on every public and player endpoint, the providers' callbacks
throttled per source address, repeated refusals summarised in the audit trail, and ``Retry-After`` on every 429.

Before: ``DEFAULT_THROTTLE_CLASSES`` was not set, so the configured ``anon``/``user`` rates were never applied (only
the login and the registration steps named throttles); 100 forged AML callbacks from one address gave 100 x 401 and
100 audit rows; the 2-second rule's 429 had no ``Retry-After``.

Tests run without the anon/user/callback throttles (config/settings/, ``TEST_THROTTLE_RATES``); the tests here put
the configured rates back (``deployed_rates``) and prove they apply.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings as django_settings
from django.core.cache import cache
from django.urls import get_resolver
from rest_framework.test import APIClient

from accounts.errors import LOCKED_OUT
from core import clock
from core.errors import THROTTLED
from core.models import AuditEvent
from games.errors import ROUND_TOO_SOON
from tests.kit.accounts import make_player, make_staff, token_for

pytestmark = pytest.mark.django_db(databases=["default", "refusal_log"])


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


#: what a deployment runs with unless its environment says otherwise (``settings.THROTTLE_RATES``, checked below)
DEPLOYED = {"anon": "60/min", "user": "600/min", "login": "10/min", "callback": "600/min", "callback_refused": "10/min"}


@pytest.fixture
def deployed_rates(settings):
    """The rates a deployment runs with, as in production; the clock stands still."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": dict(DEPLOYED)}
    with time_machine.travel(clock.now(), tick=False):
        yield settings


def retry_after(r) -> int:
    assert r.status_code == 429, (r.status_code, r.content[:200])
    assert r.json()["error"]["code"] in (THROTTLED.code, LOCKED_OUT.code, ROUND_TOO_SOON.code)
    value = int(r["Retry-After"])
    assert value >= 1
    return value


@pytest.mark.process
def test_the_configured_rates_are_the_ones_a_deployment_runs_with():
    """The rates of the issue (60/min anonymous, 600/min per player) and the callback scopes, and outside the test
    environment they are exactly what DRF applies (a settings import without TESTING, in a child process)."""
    assert django_settings.THROTTLE_RATES == DEPLOYED
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/tmp"),
        "DATABASE_URL": os.environ["DATABASE_URL"],
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }  # no TESTING
    code = (
        "import json; from django.conf import settings; "
        "print(json.dumps([settings.TESTING, settings.REST_FRAMEWORK['DEFAULT_THROTTLE_CLASSES'], "
        "settings.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'], settings.THROTTLE_RATES]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=django_settings.BASE_DIR
    )
    assert out.returncode == 0, out.stderr[-2000:]
    testing, classes, applied, configured = json.loads(out.stdout.strip().splitlines()[-1])
    assert testing is False
    assert classes == ["core.throttling.AnonRateThrottle", "core.throttling.UserRateThrottle"]
    assert applied == configured == django_settings.THROTTLE_RATES


def test_every_api_view_is_throttled_with_rates_read_from_the_settings():
    """Generated from the URL configuration: no API view without a throttle (the defaults or its own), and every
    throttle is one of core.throttling's (which read the rate when made, and always give a Retry-After)."""
    from core import throttling
    from tests.test_authorization_matrix import _walk

    views = {getattr(p.callback, "view_class", None) for _, p in _walk(get_resolver().url_patterns)}
    api_views = [v for v in views if v is not None and hasattr(v, "throttle_classes")]
    assert len(api_views) > 80
    for view in api_views:
        assert view.throttle_classes, view
        for throttle in view.throttle_classes:
            assert throttle.__module__ == throttling.__name__, (view, throttle)


def test_a_public_endpoint_answers_60_a_minute_per_address_then_429_with_retry_after(deployed_rates):
    anonymous = APIClient(raise_request_exception=False)
    for _ in range(60):
        assert anonymous.get("/api/v1/jackpots", REMOTE_ADDR="203.0.113.10").status_code == 200
    r = anonymous.get("/api/v1/jackpots", REMOTE_ADDR="203.0.113.10")
    assert retry_after(r) <= 60
    assert anonymous.get("/api/v1/jackpots", REMOTE_ADDR="203.0.113.11").status_code == 200  # another address
    # an IPv6 client is one /64: another address of the same /64 is the same client
    for i in range(60):
        assert anonymous.get("/api/v1/jackpots", REMOTE_ADDR=f"2001:db8:1:2::{i + 1:x}").status_code == 200
    retry_after(anonymous.get("/api/v1/jackpots", REMOTE_ADDR="2001:db8:1:2:ffff::1"))
    assert anonymous.get("/api/v1/jackpots", REMOTE_ADDR="2001:db8:1:3::1").status_code == 200
    with time_machine.travel(clock.now() + timedelta(seconds=61), tick=False):
        assert anonymous.get("/api/v1/jackpots", REMOTE_ADDR="203.0.113.10").status_code == 200


def test_a_player_endpoint_answers_600_a_minute_per_player_then_429(deployed_rates):
    player, other = make_player(), make_player()
    c = APIClient(raise_request_exception=False)
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(player.user)}")
    for i in range(600):
        r = c.get("/api/v1/jackpots/my-wins", REMOTE_ADDR="203.0.113.20")
        assert r.status_code == 200, (i, r.status_code)
    retry_after(c.get("/api/v1/jackpots/my-wins", REMOTE_ADDR="203.0.113.21"))  # per player, whatever the address
    o = APIClient(raise_request_exception=False)
    o.credentials(HTTP_AUTHORIZATION=f"Token {token_for(other.user)}")
    assert o.get("/api/v1/jackpots/my-wins", REMOTE_ADDR="203.0.113.20").status_code == 200


def test_refused_tokens_count_against_the_address_so_guessing_tokens_is_throttled(deployed_rates):
    """DRF authenticates before it throttles: a client trying tokens on a player endpoint got 401 at request speed,
    each a token lookup, never counted. Now refused tokens count at the anonymous rate per address."""
    c = APIClient(raise_request_exception=False)
    for i in range(60):
        r = c.get("/api/v1/accounts/me", HTTP_AUTHORIZATION=f"Token guess-{i}", REMOTE_ADDR="203.0.113.40")
        assert r.status_code == 401 and r.json()["error"]["code"] == "auth.token_invalid", (i, r.status_code)
    retry_after(c.get("/api/v1/accounts/me", HTTP_AUTHORIZATION="Token guess-x", REMOTE_ADDR="203.0.113.40"))
    player = make_player()
    r = c.get("/api/v1/accounts/me", HTTP_AUTHORIZATION=f"Token {token_for(player.user)}", REMOTE_ADDR="203.0.113.41")
    assert r.status_code == 200


def test_staff_calls_are_throttled_per_user_too(deployed_rates):
    deployed_rates.REST_FRAMEWORK = {
        **deployed_rates.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**DEPLOYED, "user": "3/min"},
    }
    c = APIClient(raise_request_exception=False)
    c.force_authenticate(make_staff(superuser=True))
    for _ in range(3):
        assert c.get("/api/v1/aml/staff/cases").status_code == 200
    retry_after(c.get("/api/v1/aml/staff/cases"))


def _forged_aml():
    body = json.dumps(
        {
            "event_id": "forged",
            "type": "identification.completed",
            "reference": "idc_x",
            "outcome": "approved",
            "score": 99,
        }
    ).encode()
    return "/api/v1/aml/callbacks/sandbox", body, "sha256=" + "0" * 64


def _forged_wallet():
    body = json.dumps({"event_id": "forged", "type": "payment.succeeded", "reference": "X", "amount": 10}).encode()
    return "/api/v1/wallet/callbacks/sandbox", body, "sha256=" + "0" * 64


@pytest.mark.parametrize("forged", [_forged_aml, _forged_wallet], ids=["aml", "wallet"])
def test_100_forged_callbacks_from_one_address_are_throttled_and_summarised(deployed_rates, forged):
    """The review's probe: 100 forged callbacks from one address gave 100 x 401 and 100 audit rows. Now the first
    10 (``callback_refused``: 10/min) are refused, the other 90 throttled, and the audit trail holds one event of
    each kind for this source and window, with the repeats counted."""
    deployed_rates.AML_SANDBOX_ENABLED = True
    url, body, signature = forged()
    c = APIClient(raise_request_exception=False)
    source = "203.0.113.66"
    before = AuditEvent.objects.using("refusal_log").count()
    statuses = []
    for _ in range(100):
        r = c.post(url, body, content_type="application/json", HTTP_X_SIGNATURE=signature, REMOTE_ADDR=source)
        statuses.append(r.status_code)
        if r.status_code == 429:
            assert 1 <= retry_after(r) <= 60
    assert statuses == [401] * 10 + [429] * 90
    events = AuditEvent.objects.using("refusal_log").order_by("id")[before:]
    assert sorted(e.action for e in events) == ["security.callback_refused", "security.callback_throttled"]
    assert all(e.details["source"] == source and e.details["summary"]["counter"] for e in events)
    from core.models import SecurityEventWindow

    counts = dict(SecurityEventWindow.objects.using("refusal_log").filter(source=source).values_list("action", "count"))
    assert counts == {"security.callback_refused": 10, "security.callback_throttled": 90}
    # another address is not held back by this one's forgeries
    r = c.post(url, body, content_type="application/json", HTTP_X_SIGNATURE=signature, REMOTE_ADDR="198.51.100.5")
    assert r.status_code == 401
    # the next window: one new event, counted afresh
    with time_machine.travel(
        clock.now() + timedelta(seconds=django_settings.SECURITY_EVENT_WINDOW_SECONDS), tick=False
    ):
        r = c.post(url, body, content_type="application/json", HTTP_X_SIGNATURE=signature, REMOTE_ADDR=source)
        assert r.status_code == 401
    assert (
        AuditEvent.objects.using("refusal_log")
        .filter(action="security.callback_refused", details__source=source)
        .count()
        == 2
    )


def test_a_provider_whose_callbacks_verify_is_not_held_back_by_refusals_only_by_the_callback_rate(deployed_rates):
    """Verified callbacks do not count as refusals: the provider's address is throttled only at ``callback``
    (lowered here to 3 a minute to show the scope; 600 in a deployment, checked above)."""
    from wallet.adapters import sandbox_event

    deployed_rates.REST_FRAMEWORK = {
        **deployed_rates.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**DEPLOYED, "callback": "3/min"},
    }
    c = APIClient(raise_request_exception=False)
    for i in range(3):
        body, sig = sandbox_event("payment.failed", f"NO-SUCH-{i}", 100, event_id=f"ok-{i}")
        r = c.post(
            "/api/v1/wallet/callbacks/sandbox",
            body,
            content_type="application/json",
            HTTP_X_SIGNATURE=sig,
            REMOTE_ADDR="192.0.2.1",
        )
        assert r.status_code == 200, r.content
    body, sig = sandbox_event("payment.failed", "NO-SUCH-9", 100, event_id="ok-9")
    retry_after(
        c.post(
            "/api/v1/wallet/callbacks/sandbox",
            body,
            content_type="application/json",
            HTTP_X_SIGNATURE=sig,
            REMOTE_ADDR="192.0.2.1",
        )
    )
    assert [e.action for e in AuditEvent.objects.using("refusal_log").filter(action__startswith="security.")] == [
        "security.callback_throttled"
    ]


def test_throttled_logins_are_one_security_event_per_address_and_window(deployed_rates):
    c = APIClient(raise_request_exception=False)
    codes = [
        c.post(
            "/api/v1/accounts/auth/login",
            {"username": f"nobody{i}", "password": "wrong-password-1"},
            format="json",
            REMOTE_ADDR="203.0.113.77",
        ).status_code
        for i in range(30)
    ]
    assert codes == [401] * 10 + [429] * 20
    assert AuditEvent.objects.using("refusal_log").filter(action="security.login_throttled").count() == 1
    from core.models import SecurityEventWindow

    assert SecurityEventWindow.objects.using("refusal_log").get(action="security.login_throttled").count == 20


def test_the_source_of_an_ipv6_client_is_its_64_network():
    from core.throttling import source_key

    assert source_key("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64"
    assert source_key("::ffff:203.0.113.5") == "203.0.113.5"
    assert source_key("203.0.113.5") == "203.0.113.5"
    assert source_key("not an address") == "not an address"


# Retry-After on every 429 ---------------------------------------------------------------------------------------------


def test_the_login_throttle_and_the_lock_out_answer_429_with_retry_after():
    c = APIClient(raise_request_exception=False)
    player = make_player()
    for _ in range(5):  # AXES_FAILURE_LIMIT
        c.post(
            "/api/v1/accounts/auth/login",
            {"username": player.user.username, "password": "wrong-pass-123"},
            format="json",
            REMOTE_ADDR="198.51.100.30",
        )
    r = c.post(
        "/api/v1/accounts/auth/login",
        {"username": player.user.username, "password": "wrong-pass-123"},
        format="json",
        REMOTE_ADDR="198.51.100.30",
    )
    assert retry_after(r) == int(django_settings.AXES_COOLOFF_TIME * 3600)
    for i in range(10):
        c.post(
            "/api/v1/accounts/auth/login",
            {"username": f"x{i}", "password": "wrong-pass-123"},
            format="json",
            REMOTE_ADDR="198.51.100.31",
        )
    assert (
        1
        <= retry_after(
            c.post(
                "/api/v1/accounts/auth/login",
                {"username": "y", "password": "wrong-pass-123"},
                format="json",
                REMOTE_ADDR="198.51.100.31",
            )
        )
        <= 60
    )


def test_the_admin_lock_out_answers_429_with_retry_after():
    from django.test import Client

    staff = make_staff()
    c = Client(raise_request_exception=False)
    for _ in range(6):
        r = c.post("/admin/login/", {"username": staff.username, "password": "wrong-pass-123", "next": "/admin/"})
    assert r.status_code == 429
    assert int(r["Retry-After"]) == int(django_settings.AXES_COOLOFF_TIME * 3600)


def test_every_declared_429_error_leaves_with_retry_after():
    """Every ErrorDef with status 429 in every app (the 2-second rule's had none), through the one error response;
    the wait comes from its details, rounded up, or a default when it names none."""
    import accounts.errors
    import aml.errors
    import complaints.errors
    import core.errors
    import games.errors
    import jackpots.errors
    import limits.errors
    import wallet.errors
    from core.errors import ErrorDef, error_response

    found = []
    for module in (
        core.errors,
        accounts.errors,
        wallet.errors,
        limits.errors,
        games.errors,
        jackpots.errors,
        aml.errors,
        complaints.errors,
    ):
        found += [v for v in vars(module).values() if isinstance(v, ErrorDef) and v.status == 429]
    assert {e.code for e in found} >= {THROTTLED.code, LOCKED_OUT.code, ROUND_TOO_SOON.code}
    for error in found:
        assert int(error_response(error())["Retry-After"]) >= 1, error.code

    assert error_response(ROUND_TOO_SOON(retry_after_ms=10))["Retry-After"] == "1"
    assert error_response(ROUND_TOO_SOON(retry_after_ms=1500))["Retry-After"] == "2"
