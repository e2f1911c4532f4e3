"""``manage.py aml_list_import --source eu|un|cz|pep FILE [--staff USERNAME] [--published YYYY-MM-DD]``.

Imports one downloaded list file as a new version (docs/aml.md, "Lists"): the EU Financial Sanctions File (XML),
the UN Security Council Consolidated List (XML), the Czech national sanctions list (our XML layout) or the
operator's PEP list (CSV). The same file again changes nothing. A new version re-screens every live player in the
background (Celery). Prints the version, its entry counts, the SHA-256 and the time the import took.
"""

from __future__ import annotations

import getpass
import time
from datetime import date, datetime
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from aml.list_parsers import PARSERS, PRAGUE
from aml.services import screening_list_import
from core.audit import Actor
from core.errors import DomainError


class Command(BaseCommand):
    help = "Import a sanctions / PEP list file as a new screening list version (the same file twice changes nothing)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the downloaded list file")
        parser.add_argument(
            "--source",
            required=True,
            choices=sorted(PARSERS),
            help="eu (EU FSF XML), un (UN consolidated list XML), cz (national list, our XML "
            "layout), pep (operator's PEP list, CSV)",
        )
        parser.add_argument("--staff", help="the staff member importing (username; recorded as the importer)")
        parser.add_argument("--published", help="YYYY-MM-DD, for a file that states no publication date (pep)")

    def handle(self, *args: Any, **opts: Any) -> None:
        path = Path(opts["file"])
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc}") from None
        actor = self._actor(opts.get("staff"))
        published = None
        if opts.get("published"):
            try:
                published = datetime.combine(date.fromisoformat(opts["published"]), datetime.min.time(), PRAGUE)
            except ValueError:
                raise CommandError("--published must be YYYY-MM-DD") from None
        started = time.monotonic()
        try:
            version, created = screening_list_import(
                source=opts["source"], data=data, actor=actor, file_name=path.name, published_at=published
            )
        except DomainError as exc:
            raise CommandError(f"{exc.code}: {exc.message_en} {exc.details or ''}".strip()) from None
        took = time.monotonic() - started
        what = "imported as" if created else "already imported (nothing changed):"
        self.stdout.write(
            f"{path.name} {what} {version.source} version {version.pk}, "
            f"published {version.published_at:%Y-%m-%d %H:%M %Z}: "
            f"{version.entry_count} entries ({version.person_count} persons, {version.name_count} names), "
            f"sha256 {version.sha256}, {took:.2f} s"
        )
        if created:
            self.stdout.write("Re-screening of every live player enqueued (aml.screening_rescreen).")

    @staticmethod
    def _actor(username: str | None) -> Actor:
        if not username:
            return Actor.system(f"manage.py aml_list_import ({getpass.getuser()})")
        user = get_user_model().objects.filter(username=username, is_staff=True, is_active=True).first()
        if user is None:
            raise CommandError(f"no active staff user {username!r}")
        return Actor.staff(user)
