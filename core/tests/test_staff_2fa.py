"""Staff use the admin with a password AND a one-time password (TOTP) when ADMIN_REQUIRE_2FA is on."""

import pytest
from django.core.management import call_command
from django.test import Client
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from tests.kit.accounts import make_staff


def _token(device) -> str:
    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):06d}"


@pytest.mark.django_db(databases=["default", "refusal_log"])
@pytest.mark.urls("core.tests.urls_otp_admin")
def test_the_admin_refuses_a_staff_password_without_a_valid_one_time_password(settings):
    staff = make_staff(superuser=True)
    call_command("staff_totp_enrol", staff.username, stdout=open("/dev/null", "w"))
    device = TOTPDevice.objects.get(user=staff)
    c = Client()
    r = c.post(
        "/admin/login/",
        {
            "username": staff.username,
            "password": "Secret-pass-123",
            "otp_device": device.persistent_id,
            "otp_token": "000000",
        },
    )
    assert r.status_code == 200  # the form again, not a redirect
    assert c.get("/admin/").status_code == 302  # still not signed in
    # a right password with a wrong one-time password is a security event
    from core.models import AuditEvent

    [event] = AuditEvent.objects.using("refusal_log").filter(action="security.staff_otp_failed")
    assert staff.username in event.details["tried"] and event.actor_type == "system"
    device.refresh_from_db()
    device.throttle_reset()  # django-otp throttles a device after a failure (exponential back-off)
    r = c.post(
        "/admin/login/?next=/admin/",
        {
            "username": staff.username,
            "password": "Secret-pass-123",
            "otp_device": device.persistent_id,
            "otp_token": _token(device),
        },
    )
    assert r.status_code == 302, r.context["form"].errors if r.context else r
    assert c.get("/admin/").status_code == 200


@pytest.mark.django_db
@pytest.mark.urls("core.tests.urls_otp_admin")
def test_a_password_session_without_a_verified_device_does_not_open_the_admin():
    staff = make_staff(superuser=True)
    c = Client()
    c.force_login(staff)  # password only: the session is not OTP-verified
    assert c.get("/admin/").status_code == 302


def test_production_requires_staff_2fa_by_default():
    from core.tests.test_health_and_settings import _django_check_expr
    from tests.kit.production import PRODUCTION_ENV

    r = _django_check_expr(PRODUCTION_ENV, "settings.ADMIN_REQUIRE_2FA")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True"
