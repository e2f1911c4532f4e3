"""Load the demo data set: an operator superuser, then each installed app's demo (``<app>/demo.py``)."""

import sys
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.utils.module_loading import autodiscover_modules

from core.management.development import DevelopmentOnlyCommand
from core.roles import roles_sync

DEMO_ADMIN = ("operator", "operator-demo-2026")
#: one staff user per role (core/roles.py): username -> (role, password)
DEMO_STAFF = {
    f"staff_{role}": (role, f"{role}-demo-2026")
    for role in ("support", "complaint_supervisor", "compliance", "finance", "game_manager", "auditor")
}


class Command(DevelopmentOnlyCommand):
    help = "Create demo data (idempotent): operator superuser, players in different states, games."

    def handle(self, *args: Any, **opts: Any) -> None:
        username, password = DEMO_ADMIN
        with transaction.atomic():
            user, created = get_user_model().objects.get_or_create(
                username=username, defaults={"email": "operator@example.cz"}
            )
            if created or not user.is_superuser:
                user.is_staff = user.is_superuser = True
                user.set_password(password)
                user.save()
        self.stdout.write(f"operator superuser: {username} / {password}")
        self._staff_roles()
        # every installed app with a demo module, in INSTALLED_APPS order (accounts before wallet before games)
        autodiscover_modules("demo")
        for config in apps.get_app_configs():
            module = sys.modules.get(f"{config.name}.demo")
            if module is not None:
                module.seed(self.stdout)

    def _staff_roles(self) -> None:
        """One staff user per role, each in its role's group only (the groups come from the migrations)."""
        with transaction.atomic():
            if Group.objects.filter(name__in=[r for r, _ in DEMO_STAFF.values()]).count() < len(DEMO_STAFF):
                roles_sync()
            for username, (role, password) in DEMO_STAFF.items():
                user, created = get_user_model().objects.get_or_create(
                    username=username, defaults={"email": f"{username}@example.cz", "is_staff": True}
                )
                if created:
                    user.set_password(password)
                    user.save()
                user.groups.set([Group.objects.get(name=role)])
                self.stdout.write(f"staff ({role}): {username} / {password}")
