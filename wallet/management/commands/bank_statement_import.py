"""Import a bank statement of the operator's account: ``manage.py bank_statement_import FILE [FILE ...]``.

camt.053 (end of day) or camt.054 (intraday), versions 001.02 and 001.08; each booked entry is handled once, so
importing a file again (or the camt.053 after the camt.054 of the same day) changes nothing."""

import json
import time
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.audit import Actor
from core.errors import DomainError
from wallet.services import bank_statement_import


class Command(BaseCommand):
    help = "Import camt.053 / camt.054 bank statement files of the operator's account (WALLET_BANK_IBAN)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("files", nargs="+", help="camt.053 / camt.054 XML files")
        parser.add_argument("--json", action="store_true", help="print each summary as one JSON line")

    def handle(self, *args: Any, files: list[str], json: bool = False, **opts: Any) -> None:
        actor = Actor.system("manage.py bank_statement_import")
        for name in files:
            path = Path(name)
            if not path.is_file():
                raise CommandError(f"no file {name}")
            started = time.monotonic()
            try:
                stmt, summary = bank_statement_import(raw=path.read_bytes(), name=path.name, actor=actor)
            except DomainError as exc:
                raise CommandError(f"{name}: {exc.code}: {exc.message_en} {exc.details or ''}".strip())
            seconds = round(time.monotonic() - started, 3)
            if json:
                self.stdout.write(_json({"file": name, "statement_id": stmt.pk, "seconds": seconds, **summary}))
            else:
                self.stdout.write(
                    f"{name}: {stmt.kind} {stmt.message_id}, {summary['entries']} booked entries "
                    f"({summary['not_booked']} not booked skipped) in {seconds} s"
                )
                for status, n in sorted(summary["by_status"].items()):
                    self.stdout.write(f"  {status}: {n}")
                if summary["brought_by_earlier_file"]:
                    self.stdout.write(f"  already imported from an earlier file: {summary['brought_by_earlier_file']}")


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, default=str)
