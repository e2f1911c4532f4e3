"""The report job: every 15 minutes it recomputes today (so far) and yesterday (final once the day is over and
late settlements are in), each replacing that day's rows in one transaction."""

from typing import Any

BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "reports.compute_recent": {"task": "reports.compute_recent", "schedule": 900.0},
}
