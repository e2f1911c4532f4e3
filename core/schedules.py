from celery.schedules import crontab

BEAT_SCHEDULE = {
    # A heartbeat every minute: /health reports the worker and beat stale after HEALTH_JOBS_MAX_AGE_SECONDS.
    "core.heartbeat-every-minute": {"task": "core.heartbeat_beat", "schedule": 60.0},
    # Monthly partitions made ahead (core/partitioning.py; MONTHS_AHEAD months, migrate makes them too) and the id
    # sequences moved into the new month's range: hourly, so a month's first ids are at most an hour late.
    "core.partitions-ensure-hourly": {"task": "core.partitions_ensure", "schedule": 3600.0},
    # Retention: the months past each partitioned table's retention period (PARTITION_RETENTION_MONTHS, never below the
    # legal one) detached into the archive schema, each in its own transaction (core/archiving.py); daily, at night
    "core.partitions-archive-daily": {"task": "core.partitions_archive", "schedule": crontab(hour=3, minute=50)},
}
