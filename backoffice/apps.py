from django.apps import AppConfig


class BackofficeConfig(AppConfig):
    """The back office: the top layer over every app. A player's whole picture, the one search, the
    work queues on the admin home page (``core.home``) and the audit search."""

    name = "backoffice"
    verbose_name = "Back office"

    def ready(self) -> None:
        from backoffice.queues import register_panels

        register_panels()
