"""The admin site, chosen once at start through ``AdminConfig.default_site`` (core.apps.PlatformAdminConfig).

With ``ADMIN_REQUIRE_2FA`` (on in production) staff need a one-time password (TOTP, django-otp) as well as their
password; otherwise Django's plain admin site, so the printed demo credentials work in development.
"""
from __future__ import annotations

from django.conf import settings
from django.contrib.admin import AdminSite
from django_otp.admin import OTPAdminSite


def platform_admin_site() -> AdminSite:
    """``default_site`` is any callable that returns the site; Django calls it once in ``AdminConfig.ready``."""
    if settings.ADMIN_REQUIRE_2FA:
        site: AdminSite = OTPAdminSite(name="admin")
        return site
    return AdminSite(name="admin")
