"""Prove the limits counters equal the ledger of settled bets; exit 1 on any difference."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from limits.reconcile import reconcile


class Command(BaseCommand):
    help = "Compare the running limits counters (day, month, minute buckets) with the ledger of settled bets."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--player", type=int, action="append", help="only these player ids (repeatable)")

    def handle(self, *args: Any, **opts: Any) -> None:
        mismatches = reconcile(player_ids=opts.get("player"))
        for m in mismatches:
            self.stdout.write(str(m))
        if mismatches:
            raise CommandError(f"{len(mismatches)} counter(s) differ from the ledger")
        self.stdout.write(self.style.SUCCESS("limits counters reconcile with the ledger"))
