"""Load the demo data set: an operator superuser, then each app's demo (``<app>/demo.py``)."""
import importlib

from django.core.management.base import BaseCommand
from django.db import transaction

DEMO_ADMIN = ("operator", "operator-demo-2026")
APPS = ("accounts", "wallet", "limits", "games", "jackpots", "complaints")


class Command(BaseCommand):
    help = "Create demo data (idempotent): operator superuser, players in different states, games."

    def handle(self, *args, **opts):
        from accounts.models import User

        username, password = DEMO_ADMIN
        with transaction.atomic():
            user, created = User.objects.get_or_create(username=username, defaults={"email": "operator@example.cz"})
            if created or not user.is_superuser:
                user.is_staff = user.is_superuser = True
                user.set_password(password)
                user.save()
        self.stdout.write(f"operator superuser: {username} / {password}")
        for app in APPS:
            try:
                module = importlib.import_module(f"{app}.demo")
            except ModuleNotFoundError as exc:
                if exc.name != f"{app}.demo":
                    raise
                continue
            module.seed(self.stdout)
