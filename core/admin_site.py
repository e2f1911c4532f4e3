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
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy
from django_otp.admin import OTPAdminAuthenticationForm, OTPAdminSite

from core.audit import security_event
from core.errors import RETRY_AFTER_SECONDS
from core.home import panels_for

#: libraries' apps whose tables only developers and operations read (the platform's own technical models say so with
#: ``technical = True`` on their ModelAdmin)
TECHNICAL_APPS = frozenset({"axes", "django_celery_beat", "otp_totp", "otp_static", "otp_email", "sessions"})
TECHNICAL_LABEL = "technical"


class PlatformSiteMixin:
    """The platform's admin home: the work queues and links of ``core.home`` above the model list, and the
    technical tables (idempotency records, heartbeats, Celery beat, Axes, OTP devices ...) moved into one
    "Technical" section at the end instead of sitting between the business lists."""

    index_template = "admin/platform/index.html"
    site_header = gettext_lazy("Platform back office · times in Prague time (Europe/Prague)")
    site_title = gettext_lazy("Back office")
    index_title = gettext_lazy("Today's work")

    def _is_technical(self, app_label: str, model: Any) -> bool:
        model_admin = self._registry.get(model)  # type: ignore[attr-defined]  # an AdminSite's at run time (a mixin)
        return app_label in TECHNICAL_APPS or bool(getattr(model_admin, "technical", False))

    def get_app_list(self, request: HttpRequest, app_label: str | None = None) -> list[dict[str, Any]]:
        # the type: ignore below: AdminSite's super() (a mixin)
        apps: list[dict[str, Any]] = super().get_app_list(request, app_label)  # type: ignore[misc]
        if app_label is not None:
            return apps
        business: list[dict[str, Any]] = []
        technical: list[dict[str, Any]] = []
        for app in apps:
            keep = [m for m in app["models"] if not self._is_technical(app["app_label"], m["model"])]
            technical += [{**m, "name": f"{m['name']} ({app['name']})"} for m in app["models"] if m not in keep]
            if keep:
                business.append({**app, "models": keep})
        if technical:
            business.append(
                {
                    "name": gettext_lazy("Technical"),
                    "app_label": TECHNICAL_LABEL,
                    "app_url": "",
                    "has_module_perms": True,
                    "models": sorted(technical, key=lambda m: m["name"]),
                }
            )
        return business

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> TemplateResponse:
        context = {**(extra_context or {}), "home_panels": panels_for(request.user)}
        # the type: ignore below: AdminSite's super() (a mixin)
        response: TemplateResponse = super().index(request, context)  # type: ignore[misc]
        return response


class PlatformAdminSite(PlatformSiteMixin, AdminSite):  # type: ignore[misc]  # the mixin's titles are str
    """Development and tests: password sign-in only."""


class RecordedOTPLoginForm(OTPAdminAuthenticationForm):  # type: ignore[misc]  # django-otp is untyped
    """The admin's sign-in with a second factor: a right password with a wrong or missing one-time password is a
    security event, recorded before the form shows its error."""

    def clean(self) -> dict[str, Any]:
        try:
            cleaned: dict[str, Any] = super().clean()
            return cleaned
        except ValidationError:
            if self.user_cache is not None:  # the password was right: the second factor failed
                source = self.request.META.get("REMOTE_ADDR", "") if self.request is not None else ""
                security_event(
                    action="security.staff_otp_failed",
                    source=source,
                    tried=f"admin sign-in as {self.user_cache.get_username()!r}",
                )
            raise


class PlatformOTPAdminSite(PlatformSiteMixin, OTPAdminSite):  # type: ignore[misc]  # django-otp is untyped
    login_form = RecordedOTPLoginForm


def platform_admin_site() -> AdminSite:
    """``default_site`` is any callable that returns the site; Django calls it once in ``AdminConfig.ready``."""
    if settings.ADMIN_REQUIRE_2FA:
        site: AdminSite = PlatformOTPAdminSite(name="admin")
        return site
    return PlatformAdminSite(name="admin")


def axes_lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None
) -> HttpResponse:
    """django-axes' answer to a locked-out sign-in (``AXES_LOCKOUT_CALLABLE``; the admin's, the API's login answers
    in the error shape itself): 429 with ``Retry-After``, the cool-off left to wait at most."""
    cool_off = get_cool_off(request)
    resp = HttpResponse(get_lockout_message(), status=429, content_type="text/plain; charset=utf-8")
    resp["Retry-After"] = str(max(1, math.ceil(cool_off.total_seconds())) if cool_off else RETRY_AFTER_SECONDS)
    return resp
