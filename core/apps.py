from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class CoreConfig(AppConfig):
    default = True
    name = "core"
    verbose_name = "Platform core (audit, idempotency)"

    def ready(self) -> None:
        from core import schema  # noqa: F401  (registers OpenAPI extensions)


class PlatformAdminConfig(admin_apps.AdminConfig):
    """Django's admin with the platform's site (staff 2FA when ADMIN_REQUIRE_2FA): core/admin_site.py."""

    default = False  # INSTALLED_APPS names it explicitly
    default_site = "core.admin_site.platform_admin_site"
