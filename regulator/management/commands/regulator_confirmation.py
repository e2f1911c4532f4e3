"""``manage.py regulator_confirmation PATH``: record the Ministry's confirmation package (``<name>.Ok.zip.p7e.p7s`` or
the error variant): its seal verified against REGULATOR_MINISTRY_SEAL_TRUST, decrypted with the operator's own
encryption certificate and key (REGULATOR_OWN_ENCRYPTION_CERT / _KEY), its report recorded against the package."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.errors import DomainError
from regulator import crypto, services


class Command(BaseCommand):
    help = "Verify, decrypt and record a confirmation package of the Ministry."

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, **opts):
        needed = ("REGULATOR_MINISTRY_SEAL_TRUST", "REGULATOR_OWN_ENCRYPTION_CERT", "REGULATOR_OWN_ENCRYPTION_KEY")
        missing = [n for n in needed if not getattr(settings, n)]
        if missing:
            raise CommandError(f"not set: {', '.join(missing)}")
        try:
            notice = services.confirmation_record(
                path=Path(opts["path"]),
                ministry_seal_ca=Path(settings.REGULATOR_MINISTRY_SEAL_TRUST),
                own_cert=Path(settings.REGULATOR_OWN_ENCRYPTION_CERT),
                own_key=Path(settings.REGULATOR_OWN_ENCRYPTION_KEY),
            )
        except crypto.SealError as exc:
            raise CommandError(f"regulator.seal: {exc}") from None
        except DomainError as exc:
            raise CommandError(f"{exc.code}: {exc.message_en}") from None
        self.stdout.write(f"{notice.package_name}: {notice.kind} {notice.error_code}".strip())
