BEAT_SCHEDULE = {
    # A heartbeat every minute: /health reports the worker and beat stale after HEALTH_JOBS_MAX_AGE_SECONDS.
    "core.heartbeat-every-minute": {"task": "core.heartbeat_beat", "schedule": 60.0},
    # Monthly partitions made ahead (core/partitioning.py; MONTHS_AHEAD months, migrate makes them too) and the id
    # sequences moved into the new month's range: hourly, so a month's first ids are at most an hour late.
    "core.partitions-ensure-hourly": {"task": "core.partitions_ensure", "schedule": 3600.0},
}
