"""Periodic jobs of the aml app (merged by config.schedules into the beat schedule). Each is safe to run twice:
identification submissions are claimed with a lease, screenings per profile with a lease, rule cases and
source-of-funds requirements are keyed."""

from typing import Any

from celery.schedules import crontab

BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "aml.identification_sweep": {"task": "aml.identification_sweep", "schedule": 120.0},
    "aml.screening_periodic": {"task": "aml.screening_periodic", "schedule": 600.0},
    "aml.rules_evaluate": {"task": "aml.rules_evaluate", "schedule": 900.0},
    "aml.source_of_funds_scan": {"task": "aml.source_of_funds_scan", "schedule": crontab(minute=23)},
    "aml.risk_review": {"task": "aml.risk_review", "schedule": crontab(minute=41)},
}
