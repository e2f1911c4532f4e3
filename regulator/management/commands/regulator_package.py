"""``manage.py regulator_package --period YYYYMMDDHH --out DIR [--plain]``: the sealed package of a closed period
(issued now if it has not been yet; an issued one is copied as stored, never rebuilt) into DIR, and with ``--plain``
its CSV data files in ``DIR/<name>/`` (decrypted from the stored package with the operator's own encryption key when
REGULATOR_OWN_ENCRYPTION_KEY and REGULATOR_SEAL_TRUST are set, otherwise written again from the database and said
so)."""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.errors import DomainError
from regulator import crypto, services
from regulator.wire import Period


class Command(BaseCommand):
    help = "Write the sealed remote-access package of an 8-hour period (and with --plain its CSV files)."

    def add_arguments(self, parser):
        parser.add_argument("--period", required=True, help="YYYYMMDDHH, HH 00, 08 or 16 (local time)")
        parser.add_argument("--out", required=True, help="the folder to write <name>.zip.p7e.p7s to")
        parser.add_argument("--plain", action="store_true", help="also the CSV files in DIR/<name>/")

    def handle(self, *args, **opts):
        try:
            period = Period.parse(opts["period"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        out = Path(opts["out"])
        if not out.is_dir():
            raise CommandError(f"not a folder: {out}")
        try:
            pkg = services.package_issue(period=period)
        except DomainError as exc:
            raise CommandError(f"{exc.code}: {exc.message_en}") from None
        except crypto.SealError as exc:
            raise CommandError(f"regulator.seal: {exc}") from None
        target = out / f"{pkg.name}.zip.p7e.p7s"
        shutil.copyfile(services.package_file(pkg), target)
        self.stdout.write(f"{target} sha256={pkg.sha256}")
        if opts["plain"]:
            folder = out / pkg.name
            if (
                settings.REGULATOR_OWN_ENCRYPTION_CERT
                and settings.REGULATOR_OWN_ENCRYPTION_KEY
                and settings.REGULATOR_SEAL_TRUST
            ):
                with tempfile.TemporaryDirectory() as tmp:
                    p7e, z = Path(tmp, "p.p7e"), Path(tmp, "p.zip")
                    crypto.verify(target, p7e, Path(settings.REGULATOR_SEAL_TRUST))
                    crypto.decrypt(
                        p7e,
                        z,
                        Path(settings.REGULATOR_OWN_ENCRYPTION_CERT),
                        Path(settings.REGULATOR_OWN_ENCRYPTION_KEY),
                    )
                    folder.mkdir(exist_ok=True)
                    with zipfile.ZipFile(z) as zf:
                        zf.extractall(folder)
                self.stdout.write(f"{folder} (decrypted from the issued package)")
            else:
                services.write_files(period, pkg.version, folder)
                self.stdout.write(
                    f"{folder} (written again from the database: REGULATOR_OWN_ENCRYPTION_KEY or "
                    "REGULATOR_SEAL_TRUST is not set, so the issued package cannot be opened here)"
                )
        for name, count in pkg.files.items():
            self.stdout.write(f"  {name}: {count}")
