"""Periodic jobs of the complaints app (thin: each calls one service)."""
from celery import shared_task


@shared_task(name="complaints.deadline_sweep", time_limit=300, soft_time_limit=240)
def deadline_sweep() -> dict:
    """Day-20 and day-27 reminders, the overdue flag after day 30 (GP §11(1)), unsent e-mails retried."""
    from complaints.services import complaints_deadline_sweep

    return complaints_deadline_sweep()
