"""Give a staff user a role (``core/roles.py``), or take it away: ``manage.py staff_role_grant USERNAME ROLE
[--revoke]``. Audited (``core.staff_role.granted`` / ``.revoked``) with the system actor and the operator's OS user."""

import getpass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from core.audit import Actor, audit_record
from core.roles import ROLES, roles_sync


class Command(BaseCommand):
    help = "Grant (or --revoke) a staff role: " + ", ".join(ROLES)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("role", choices=sorted(ROLES))
        parser.add_argument("--revoke", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        user = get_user_model().objects.filter(username=opts["username"]).first()
        if user is None or not user.is_staff:
            raise CommandError(f"no staff user {opts['username']!r}")
        with transaction.atomic():
            if not Group.objects.filter(name=opts["role"]).exists():
                roles_sync()
            group = Group.objects.get(name=opts["role"])
            if opts["revoke"]:
                user.groups.remove(group)
            else:
                user.groups.add(group)
            audit_record(
                actor=Actor.system(f"manage.py by {getpass.getuser()}"),
                action="core.staff_role." + ("revoked" if opts["revoke"] else "granted"),
                obj=user,
                role=opts["role"],
            )
        self.stdout.write(f"{user.get_username()}: {'revoked' if opts['revoke'] else 'granted'} {opts['role']}")
