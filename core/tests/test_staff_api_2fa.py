"""Every staff API endpoint needs a session verified with a one-time password where staff sign in
with a second factor (ADMIN_REQUIRE_2FA), as the admin does."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.plugins.otp_totp.models import TOTPDevice

from core.errors import FORBIDDEN, STAFF_2FA_REQUIRED
from tests.kit.accounts import make_player, make_staff, token_for

STAFF_CALLS = [  # (method, path) of every staff endpoint
    ("get", "/api/v1/wallet/staff/players/{player}/statement"),
    ("post", "/api/v1/wallet/staff/branch-cash"),
    ("get", "/api/v1/complaints/staff/report"),
    ("post", "/api/v1/core/heartbeat"),
]


def _call(c: Client, method: str, path: str, player_id: int, **extra):
    url = path.format(player=player_id)
    if method == "get":
        return c.get(url, **extra)
    return c.post(url, {}, content_type="application/json", **extra)


@pytest.mark.django_db
def test_a_staff_session_without_a_verified_second_factor_is_refused_on_every_staff_endpoint(settings):
    settings.ADMIN_REQUIRE_2FA = True
    player = make_player()
    staff = make_staff(superuser=True)
    password_only = Client()
    password_only.force_login(staff)
    for method, path in STAFF_CALLS:
        r = _call(password_only, method, path, player.pk)
        assert r.status_code == 403 and r.json()["error"]["code"] == STAFF_2FA_REQUIRED.code, (path, r.content)
    call_command("staff_totp_enrol", staff.username, stdout=open("/dev/null", "w"))
    device = TOTPDevice.objects.get(user=staff)
    verified = Client()
    verified.force_login(staff)
    session = verified.session
    session[DEVICE_ID_SESSION_KEY] = device.persistent_id  # what django_otp.login() records after a valid code
    session.save()
    r = verified.get(f"/api/v1/wallet/staff/players/{player.pk}/statement")
    assert r.status_code == 200, r.content
    assert verified.get("/api/v1/complaints/staff/report").status_code == 200


@pytest.mark.django_db
def test_players_and_anonymous_callers_are_refused_and_without_2fa_a_staff_session_is_enough(settings):
    settings.ADMIN_REQUIRE_2FA = False
    player = make_player()
    as_player = Client(HTTP_AUTHORIZATION=f"Token {token_for(player.user)}")
    for method, path in STAFF_CALLS:
        assert _call(Client(), method, path, player.pk).status_code == 401, path
        r = _call(as_player, method, path, player.pk)
        assert r.status_code == 403 and r.json()["error"]["code"] == FORBIDDEN.code, path
    staff = Client()
    staff.force_login(make_staff(superuser=True))
    assert staff.get(f"/api/v1/wallet/staff/players/{player.pk}/statement").status_code == 200
