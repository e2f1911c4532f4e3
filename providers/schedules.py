"""Periodic tasks of the providers (merged by config.schedules)."""

from celery.schedules import crontab

BEAT_SCHEDULE = {
    # the daily reconciliation of the previous Prague operating day with each enabled provider's report
    "providers.reconcile_previous_day": {
        "task": "providers.reconcile_previous_day",
        "schedule": crontab(hour=3, minute=40),
    },
}
