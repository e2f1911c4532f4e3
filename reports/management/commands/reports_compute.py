"""``manage.py reports_compute --day 2026-12-03 | --month 2026-12 | --from 2026-12-01 --to 2026-12-03``:
(re)compute the report rows of Prague operating days (each day replaces its rows in one transaction)."""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from core import clock
from core.audit import Actor
from core.errors import DomainError
from reports import figures, services


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"not a date (YYYY-MM-DD): {text!r}") from None


class Command(BaseCommand):
    help = "Compute the report rows of operating days (Europe/Prague)."

    def add_arguments(self, parser):
        parser.add_argument("--day", help="YYYY-MM-DD")
        parser.add_argument("--month", help="YYYY-MM")
        parser.add_argument("--from", dest="first", help="YYYY-MM-DD (with --to)")
        parser.add_argument("--to", dest="last", help="YYYY-MM-DD (inclusive)")

    def handle(self, *args, **opts):
        chosen = [k for k in ("day", "month", "first") if opts.get(k)]
        if len(chosen) != 1 or bool(opts.get("first")) != bool(opts.get("last")):
            raise CommandError("give exactly one of --day, --month, or --from with --to")
        if opts.get("day"):
            first = last = _date(opts["day"])
        elif opts.get("month"):
            try:
                period = figures.parse_period(opts["month"])
            except ValueError:
                raise CommandError(f"not a month (YYYY-MM): {opts['month']!r}") from None
            if period.kind != "month":
                raise CommandError(f"not a month (YYYY-MM): {opts['month']!r}")
            first, last = period.first, min(period.last, clock.business_date())
        else:
            first, last = _date(opts["first"]), _date(opts["last"])
            if last < first:
                raise CommandError("--to is before --from")
        started = clock.now()
        try:
            done = services.reports_compute_range(first=first, last=last, actor=Actor.system("reports_compute"))
        except DomainError as exc:
            raise CommandError(exc.message_en) from None
        seconds = (clock.now() - started).total_seconds()
        for r in done:
            flag = "" if r.ledger_agrees else "  LEDGER DIFFERS"
            self.stdout.write(f"{r.day}: {r.rounds} rounds, stakes {r.stakes}, wins {r.wins}, GGR {r.ggr} h{flag}")
        self.stdout.write(
            f"{len(done)} day(s) computed in {seconds:.2f} s (read from {done[0].read_from if done else '-'})"
        )
