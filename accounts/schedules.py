from celery.schedules import crontab

BEAT_SCHEDULE = {
    "accounts.temporary_expire": {"task": "accounts.temporary_expire", "schedule": 300.0},
    "accounts.registration_checks_retry": {"task": "accounts.registration_checks_retry", "schedule": 300.0},
    "accounts.sessions_timeout": {"task": "accounts.sessions_timeout", "schedule": 60.0},
    "accounts.closures_finalize": {"task": "accounts.closures_finalize", "schedule": 900.0},
    "accounts.balance_handoffs_retry": {"task": "accounts.balance_handoffs_retry", "schedule": 900.0},
    "accounts.registrations_autocomplete": {"task": "accounts.registrations_autocomplete", "schedule": 600.0},
    "accounts.duplicates_scan": {"task": "accounts.duplicates_scan", "schedule": crontab(hour=3, minute=15)},
}
