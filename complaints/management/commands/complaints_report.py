"""``manage.py complaints_report --month 2026-11 [--json]``: the monthly complaints report."""

import json

from django.core.management.base import BaseCommand, CommandError

from complaints import texts
from complaints.selectors import complaints_report
from core.errors import DomainError


class Command(BaseCommand):
    help = "Complaints received in a Prague calendar month: by reason, outcome, time to answer, overdue."

    def add_arguments(self, parser):
        parser.add_argument("--month", help="YYYY-MM (default: the current month, Europe/Prague)")
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args, **opts):
        try:
            r = complaints_report(opts.get("month"))
        except DomainError as exc:
            raise CommandError(exc.message_en)
        if opts["json"]:
            self.stdout.write(json.dumps(r, indent=2, default=str, ensure_ascii=False))
            return
        t = r["time_to_answer"]
        out = [
            f"Complaints received in {r['month']} (Europe/Prague): {r['received']}",
            f"  open: {r['open']}   filed late: {r['late_filed']}",
            f"  missed the 30-day term (GP §11(1)): {r['overdue']} "
            f"(answered late {r['overdue_answered_late']}, open past due {r['overdue_open_now']})",
            f"  time to answer ({t['answered']} answered by staff): median {t['median_days']} d, max {t['max_days']} d",
            "  by reason:",
            *[f"    {texts.label(texts.REASONS, k, 'en'):<45} {v}" for k, v in r["by_reason"].items()],
            "  by outcome:",
            *[f"    {k:<45} {v}" for k, v in r["by_outcome"].items()],
        ]
        self.stdout.write("\n".join(out))
