"""``manage.py audit_retention [--csv FILE]``: what of the audit trail is past its retention now.

It counts the events ``core.selectors.audit_events_past_retention`` allows a retention job to touch (AML events older
than ``AUDIT_RETENTION_AML_YEARS``, the others older than ``AUDIT_RETENTION_YEARS``) and, with ``--csv``, writes them
out for archiving. It deletes nothing: the database refuses UPDATE and DELETE of audit events (migration core/0002),
so removing archived events is a step of the database owner, limited to what this command lists."""

from __future__ import annotations

import csv
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from core.selectors import AML_PREFIX, audit_events_past_retention, audit_retention_cutoffs, changes_text


class Command(BaseCommand):
    help = "Count (and optionally write out) the audit events past their retention period; deletes nothing."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--csv", default="", help="write the events past retention to this CSV file")

    def handle(self, *args: Any, **options: Any) -> None:
        cut = audit_retention_cutoffs()
        due = audit_events_past_retention()
        aml = (
            due.filter(action__startswith=AML_PREFIX).count()
            + due.exclude(action__startswith=AML_PREFIX).filter(object_type__startswith=AML_PREFIX).count()
        )
        total = due.count()
        self.stdout.write(
            f"retention: {settings.AUDIT_RETENTION_YEARS} years (AML events "
            f"{settings.AUDIT_RETENTION_AML_YEARS}); before {cut['other']:%Y-%m-%d %H:%M %Z} / "
            f"{cut['aml']:%Y-%m-%d %H:%M %Z}"
        )
        self.stdout.write(f"past retention: {total} event(s), of which AML {aml}")
        if options["csv"]:
            with open(options["csv"], "w", newline="", encoding="utf-8") as fh:
                w = csv.writer(fh)
                w.writerow(
                    ["id", "occurred_at", "actor_type", "actor_label", "action", "object_type", "object_id", "changes"]
                )
                for e in due.iterator(chunk_size=2000):
                    w.writerow(
                        [
                            e.pk,
                            e.occurred_at.isoformat(),
                            e.actor_type,
                            e.actor_label,
                            e.action,
                            e.object_type,
                            e.object_id,
                            changes_text(e.old_values, e.new_values),
                        ]
                    )
            self.stdout.write(f"written to {options['csv']}")
