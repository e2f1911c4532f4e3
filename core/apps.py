from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Platform core (audit, idempotency)"

    def ready(self):
        from core import schema  # noqa: F401  (registers OpenAPI extensions)
