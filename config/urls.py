from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from core.views import health

if settings.ADMIN_REQUIRE_2FA:
    # Staff must pass a one-time password (TOTP) as well as their password to use the admin.
    from django_otp.admin import OTPAdminSite

    admin.site.__class__ = OTPAdminSite

urlpatterns = [
    path("health", health, name="health"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/v1/core/", include("core.urls")),
]

# Each app's API mounts itself under /api/v1/<app>/ when its urls module exists.
for _app in ("accounts", "wallet", "limits", "games", "jackpots", "complaints"):
    try:
        urlpatterns.append(path(f"api/v1/{_app}/", include(f"{_app}.urls")))
    except ModuleNotFoundError as exc:  # pragma: no cover - app without an API yet
        if exc.name != f"{_app}.urls":
            raise
