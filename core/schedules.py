BEAT_SCHEDULE = {
    # A heartbeat every 5 minutes shows in the admin that beat and a worker are alive.
    "core.heartbeat-every-5-min": {"task": "core.heartbeat_beat", "schedule": 300.0},
}
