from celery.schedules import crontab

BEAT_SCHEDULE = {
    "accounts.temporary_expire": {"task": "accounts.temporary_expire", "schedule": 300.0},
    "accounts.registration_checks_retry": {"task": "accounts.registration_checks_retry", "schedule": 300.0},
    "accounts.sessions_timeout": {"task": "accounts.sessions_timeout", "schedule": 60.0},
    "accounts.closures_finalize": {"task": "accounts.closures_finalize", "schedule": 900.0},
    "accounts.balance_handoffs_retry": {"task": "accounts.balance_handoffs_retry", "schedule": 900.0},
    "accounts.registrations_autocomplete": {"task": "accounts.registrations_autocomplete", "schedule": 600.0},
    "accounts.message_emails_retry": {"task": "accounts.message_emails_retry", "schedule": 300.0},
    "accounts.terms_announce": {"task": "accounts.terms_announce", "schedule": 300.0},
    "accounts.duplicates_scan": {"task": "accounts.duplicates_scan", "schedule": crontab(hour=3, minute=15)},
    # GP §12(5), §12(7): the end of the retention periods (daily)
    "accounts.personal_data_anonymise": {
        "task": "accounts.personal_data_anonymise",
        "schedule": crontab(hour=2, minute=40),
    },
    # GP §12(7): the recipients of the data are told of corrections and erasures
    "accounts.recipient_notices_send": {"task": "accounts.recipient_notices_send", "schedule": 600.0},
    # changed personal data reported to the Ministry's AISG interface (ZmenitUdajeOsoby); nothing to do without it
    "accounts.aisg_changes_send": {"task": "accounts.aisg_changes_send", "schedule": 300.0},
}
