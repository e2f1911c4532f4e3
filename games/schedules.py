"""Periodic tasks of the games platform (merged by config.schedules)."""

BEAT_SCHEDULE = {
    # GP §7(8)b: deadlines are 90 or 180 days, so a quarter-hourly sweep ends a round within minutes of it.
    "games.expire_unfinished_rounds": {"task": "games.expire_unfinished_rounds", "schedule": 900.0},
}
