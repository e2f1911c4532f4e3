"""Give a staff user a TOTP device for the admin's second factor (ADMIN_REQUIRE_2FA)."""

from argparse import ArgumentParser
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django_otp.plugins.otp_totp.models import TOTPDevice

from core.audit import Actor, audit_record


class Command(BaseCommand):
    help = (
        "Create a confirmed TOTP device for a staff user and print its otpauth:// URL "
        "(scan it in an authenticator app)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="authenticator")

    def handle(self, *args: Any, username: str, name: str, **opts: Any) -> None:

        user = get_user_model().objects.filter(username=username, is_staff=True).first()
        if user is None:
            raise CommandError(f"no staff user {username!r}")
        with transaction.atomic():
            device = TOTPDevice.objects.create(user=user, name=name, confirmed=True)
            audit_record(actor=Actor.system("staff_totp_enrol"), action="staff.totp_enrolled", obj=user, device=name)
        self.stdout.write(device.config_url)
