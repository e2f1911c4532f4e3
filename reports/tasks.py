from __future__ import annotations

from datetime import timedelta

from core import clock
from core.tasks import platform_task
from reports import services


@platform_task(name="reports.compute_recent")
def compute_recent() -> list[str]:
    """Yesterday's and today's report rows (Europe/Prague operating days)."""
    today = clock.business_date()
    return [str(services.reports_compute_day(day=d).day) for d in (today - timedelta(days=1), today)]
