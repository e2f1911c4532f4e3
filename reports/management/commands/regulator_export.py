"""``manage.py regulator_export --day 2026-12-03 [--out DIR]``: write the sealed regulator's record of a day."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from core.errors import DomainError
from reports import seal


class Command(BaseCommand):
    help = "Write the sealed (XAdES) regulator's record of a Prague operating day."

    def add_arguments(self, parser):
        parser.add_argument("--day", required=True, help="YYYY-MM-DD")
        parser.add_argument("--out", default=".", help="the folder to write regulator-record-<day>.xml to")

    def handle(self, *args, **opts):
        try:
            day = date.fromisoformat(opts["day"])
        except ValueError:
            raise CommandError(f"not a date (YYYY-MM-DD): {opts['day']!r}") from None
        folder = Path(opts["out"])
        if not folder.is_dir():
            raise CommandError(f"not a folder: {folder}")
        try:
            path = seal.export_day(day=day, folder=folder)
        except DomainError as exc:
            raise CommandError(f"{exc.code}: {exc.message_en}") from None
        self.stdout.write(str(path))
