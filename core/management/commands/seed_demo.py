"""Load the demo data set: an operator superuser, then each installed app's demo (``<app>/demo.py``)."""
import sys
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils.module_loading import autodiscover_modules

DEMO_ADMIN = ("operator", "operator-demo-2026")


class Command(BaseCommand):
    help = "Create demo data (idempotent): operator superuser, players in different states, games."

    def handle(self, *args: Any, **opts: Any) -> None:
        username, password = DEMO_ADMIN
        with transaction.atomic():
            user, created = get_user_model().objects.get_or_create(
                username=username, defaults={"email": "operator@example.cz"})
            if created or not user.is_superuser:
                user.is_staff = user.is_superuser = True
                user.set_password(password)
                user.save()
        self.stdout.write(f"operator superuser: {username} / {password}")
        # every installed app with a demo module, in INSTALLED_APPS order (accounts before wallet before games)
        autodiscover_modules("demo")
        for config in apps.get_app_configs():
            module = sys.modules.get(f"{config.name}.demo")
            if module is not None:
                module.seed(self.stdout)
