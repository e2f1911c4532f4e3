"""Periodic jobs of the complaints app (thin: each calls one service)."""

from typing import Any

from celery import shared_task

from complaints.services import complaints_deadline_sweep


@shared_task(name="complaints.deadline_sweep", time_limit=300, soft_time_limit=240)
def deadline_sweep() -> dict[str, Any]:
    """Day-20 and day-27 reminders, the overdue flag after day 30 (GP §11(1)), unsent e-mails retried."""
    return complaints_deadline_sweep()
