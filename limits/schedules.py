"""Periodic jobs of the limits app (merged by config.schedules)."""

from celery.schedules import crontab

BEAT_SCHEDULE = {
    # Exclusion register: every logged-in player at least every 15 minutes (a player is due 10 minutes
    # after the last check and the sweep runs every 5 minutes), every active player daily.
    "limits.exclusion_check_sessions": {"task": "limits.exclusion_check_sessions", "schedule": 300.0},
    "limits.exclusion_check_daily": {"task": "limits.exclusion_check_daily", "schedule": crontab(minute=17)},
    "limits.exclusion_batches_collect": {"task": "limits.exclusion_batches_collect", "schedule": 60.0},
    "limits.pending_limits_apply": {"task": "limits.pending_limits_apply", "schedule": 300.0},
    "limits.daily_time_logout": {"task": "limits.daily_time_logout", "schedule": 60.0},
    "limits.self_listing_send_due": {"task": "limits.self_listing_send_due", "schedule": 300.0},
    # Panic-button presses not yet acknowledged by the register of excluded persons (retries back off 1 .. 60 min).
    "limits.panic_reports_send_due": {"task": "limits.panic_reports_send_due", "schedule": 60.0},
    "limits.minute_buckets_prune": {"task": "limits.minute_buckets_prune", "schedule": crontab(minute=43)},
}
