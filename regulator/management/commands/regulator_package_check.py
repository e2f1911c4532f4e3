"""``manage.py regulator_package_check PATH``: validate a package as the Ministry does (docs/regulator.md
"Validation"). PATH is a folder of CSV files named after the package, a ``.zip``, or a sealed ``.zip.p7e.p7s`` (then
``--seal-ca``, ``--cert`` and ``--key`` name the trust anchor of the seal and the recipient certificate and key that
decrypt it). Prints each error line (ERR_...) and the record count per file; exits 1 on any error."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from regulator import validator


class Command(BaseCommand):
    help = "Validate a remote-access package (folder, zip or sealed file) with the Ministry's rules."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--seal-ca", help="PEM: the seal's CA (or its certificate) for a sealed file")
        parser.add_argument("--cert", help="PEM: a recipient certificate of the encrypted package")
        parser.add_argument("--key", help="PEM: that recipient's private key")

    def handle(self, *args, **opts):
        path = Path(opts["path"])
        if path.is_dir():
            report = validator.validate_folder(path)
        elif path.name.endswith(".zip.p7e.p7s"):
            if not (opts["seal_ca"] and opts["cert"] and opts["key"]):
                raise CommandError("a sealed package needs --seal-ca, --cert and --key")
            report = validator.validate_sealed(
                path, trusted_seal=Path(opts["seal_ca"]), decrypt_cert=Path(opts["cert"]), decrypt_key=Path(opts["key"])
            )
        elif path.suffix == ".zip":
            report = validator.validate_zip(path)
        else:
            raise CommandError(f"not a folder, .zip or .zip.p7e.p7s: {path}")
        for name, count in report.counts.items():
            self.stdout.write(f"{name}: {count}")
        for line in report.errors:
            self.stdout.write(line)
        if not report.ok:
            raise CommandError(f"{len(report.errors)} error(s)", returncode=1)
        self.stdout.write("OK")
