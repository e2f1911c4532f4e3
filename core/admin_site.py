"""The admin site, chosen once at start through ``AdminConfig.default_site`` (core.apps.PlatformAdminConfig).

With ``ADMIN_REQUIRE_2FA`` (on in production) staff need a one-time password (TOTP, django-otp) as well as their
password; otherwise Django's plain admin site, so the printed demo credentials work in development.
"""
from __future__ import annotations

import math
from typing import Any

from axes.helpers import get_cool_off, get_lockout_message
from django.conf import settings
from django.contrib.admin import AdminSite
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django_otp.admin import OTPAdminAuthenticationForm, OTPAdminSite

from core.audit import security_event
from core.errors import RETRY_AFTER_SECONDS


class RecordedOTPLoginForm(OTPAdminAuthenticationForm):  # type: ignore[misc]  # django-otp is untyped
    """The admin's sign-in with a second factor: a right password with a wrong or missing one-time password is a
    security event (issue 13), recorded before the form shows its error."""

    def clean(self) -> dict[str, Any]:
        try:
            cleaned: dict[str, Any] = super().clean()
            return cleaned
        except ValidationError:
            if self.user_cache is not None:  # the password was right: the second factor failed
                source = self.request.META.get("REMOTE_ADDR", "") if self.request is not None else ""
                security_event(action="security.staff_otp_failed", source=source,
                               tried=f"admin sign-in as {self.user_cache.get_username()!r}")
            raise


class PlatformOTPAdminSite(OTPAdminSite):  # type: ignore[misc]  # django-otp is untyped
    login_form = RecordedOTPLoginForm


def platform_admin_site() -> AdminSite:
    """``default_site`` is any callable that returns the site; Django calls it once in ``AdminConfig.ready``."""
    if settings.ADMIN_REQUIRE_2FA:
        site: AdminSite = PlatformOTPAdminSite(name="admin")
        return site
    return AdminSite(name="admin")


def axes_lockout_response(request: HttpRequest, original_response: HttpResponse | None = None,
                          credentials: dict[str, Any] | None = None) -> HttpResponse:
    """django-axes' answer to a locked-out sign-in (``AXES_LOCKOUT_CALLABLE``; the admin's, the API's login answers
    in the error shape itself): 429 with ``Retry-After``, the cool-off left to wait at most (issue 19)."""
    cool_off = get_cool_off(request)
    resp = HttpResponse(get_lockout_message(), status=429, content_type="text/plain; charset=utf-8")
    resp["Retry-After"] = str(max(1, math.ceil(cool_off.total_seconds())) if cool_off else RETRY_AFTER_SECONDS)
    return resp
