BEAT_SCHEDULE = {
    # A heartbeat every minute: /health reports the worker and beat stale after HEALTH_JOBS_MAX_AGE_SECONDS.
    "core.heartbeat-every-minute": {"task": "core.heartbeat_beat", "schedule": 60.0},
    # Monthly partitions made ahead (core/partitioning.py): daily, so a missed day or two never leaves a month
    # without its partition (MONTHS_AHEAD months are made ahead; migrate makes them too).
    "core.partitions-ensure-daily": {"task": "core.partitions_ensure", "schedule": 24 * 3600.0},
}
