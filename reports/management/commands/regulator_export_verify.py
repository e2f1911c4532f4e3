"""``manage.py regulator_export_verify FILE [--cert CERT.pem] [--json]``: check a regulator's record's seal against
the certificate (default: the operator's, ``REPORTS_SEAL_CERT_FILE``) and the XSD, and print what it holds.
Exit status 1 when it does not verify."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from reports import seal


class Command(BaseCommand):
    help = "Verify the seal and the schema of a regulator's record file and print what it holds."

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--cert", help="PEM certificate to verify against (default: the operator's)")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **opts):
        cert = Path(opts["cert"]).read_text() if opts.get("cert") else None
        result = seal.verify(Path(opts["file"]), cert_pem=cert)
        if opts["json"]:
            self.stdout.write(json.dumps(result.as_dict(), indent=2, ensure_ascii=False))
        else:
            lines = [
                f"file: {opts['file']}",
                f"seal (XAdES, enveloped): {'valid' if result.signature_ok else 'INVALID'}",
                f"schema (regulator-record {result.header.get('version', '?')}): "
                f"{'valid' if result.schema_ok else 'INVALID'}",
            ]
            if result.signer:
                lines.append(f"sealed by: {result.signer} at {result.signed_at}")
            lines += [f"  {k}: {v}" for k, v in result.header.items()]
            lines += [f"  summary {k}: {v}" for k, v in result.summary.items()]
            lines += [f"problem: {p}" for p in result.problems]
            self.stdout.write("\n".join(lines))
        if not result.ok:
            raise CommandError("the record does not verify")
