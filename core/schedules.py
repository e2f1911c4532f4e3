BEAT_SCHEDULE = {
    # A heartbeat every minute: /health reports the worker and beat stale after HEALTH_JOBS_MAX_AGE_SECONDS.
    "core.heartbeat-every-minute": {"task": "core.heartbeat_beat", "schedule": 60.0},
}
