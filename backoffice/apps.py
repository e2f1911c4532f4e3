from django.apps import AppConfig


class BackofficeConfig(AppConfig):
    """The back office: the top layer over every app. A player's whole picture, the one search, the
    work queues on the admin home page (``core.home``) and the audit search."""

    name = "backoffice"
    verbose_name = "Back office"

    def ready(self) -> None:
        from django.contrib import admin

        from backoffice.admin_i18n import translate_admin
        from backoffice.queues import register_panels

        register_panels()
        translate_admin(admin.site)  # after the admin's autodiscovery (its app is ready first)
