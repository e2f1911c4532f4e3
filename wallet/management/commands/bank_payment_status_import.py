"""Import the bank's status report on a payment-order file: ``manage.py bank_payment_status_import FILE [FILE ...]``.

pain.002 (Customer Payment Status Report, versions 001.03 and 001.10): every order the bank rejects (``RJCT``) and
that still waits is returned (a withdrawal's money back to the player); importing a report again changes nothing."""

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.audit import Actor
from core.errors import DomainError
from wallet.services import bank_payment_status_import


class Command(BaseCommand):
    help = "Import pain.002 payment status reports of the operator's payment-order files."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("files", nargs="+", help="pain.002 XML files")

    def handle(self, *args: Any, files: list[str], **opts: Any) -> None:
        actor = Actor.system("manage.py bank_payment_status_import")
        for name in files:
            path = Path(name)
            if not path.is_file():
                raise CommandError(f"no file {name}")
            try:
                summary = bank_payment_status_import(raw=path.read_bytes(), actor=actor)
            except DomainError as exc:
                raise CommandError(f"{name}: {exc.code}: {exc.message_en} {exc.details or ''}".strip())
            self.stdout.write(json.dumps({"file": name, **summary}, ensure_ascii=False))
