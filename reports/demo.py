"""Demo reports (``manage.py seed_demo``, after every other app's demo data): the report rows of the operating days
from the first demo round (at most 31 days back) to today, so ``make run`` shows filled reports. Idempotent: a day's
rows are replaced."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from core import clock
from core.audit import Actor
from games.models import Round
from reports.services import reports_compute_range


def seed(stdout: Any) -> None:
    today = clock.business_date()
    first = Round.objects.order_by("started_at").values_list("started_at", flat=True).first()
    start = max(clock.business_date(first) if first else today, today - timedelta(days=30))
    done = reports_compute_range(first=start, last=today, actor=Actor.system("seed_demo"))
    stdout.write(f"reports: {len(done)} day(s) computed ({start} .. {today}); admin: /admin/reports/dayreport/daily/")
