"""The complaints sweeper runs every 10 minutes: a reminder or the overdue flag comes at most 10 minutes after
its instant (00:00 Prague of day 20 / 27 / 31), and a run that finds nothing due does nothing."""

from typing import Any

BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "complaints.deadline_sweep": {"task": "complaints.deadline_sweep", "schedule": 600.0},
}
