"""Commands made for development, demos and QA (demo data, the sandbox payment, benchmarks that write): production
refuses them before they touch anything (``settings.PRODUCTION``), as it refuses the sandboxes."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


class DevelopmentOnlyCommand(BaseCommand):
    """A command that must never run against a production database: refused with ``DJANGO_ENV=production``."""

    def execute(self, *args: Any, **options: Any) -> Any:
        if settings.PRODUCTION:
            raise CommandError(
                f"{self.__module__.rsplit('.', 1)[-1]} is a development / demo command: refused with "
                "DJANGO_ENV=production (nothing was written)"
            )
        return super().execute(*args, **options)
