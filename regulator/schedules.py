"""The remote-access packages: every 10 minutes the job issues the package of each period that has closed (plus the
build delay) and has none yet; an issued package is never rebuilt. Once a day every stored package is checked against
its hash, and those past the retention period are deleted (their records stay)."""

from typing import Any

BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "regulator.issue_closed_periods": {"task": "regulator.issue_closed_periods", "schedule": 600.0},
    "regulator.packages_keep": {"task": "regulator.packages_keep", "schedule": 86_400.0},
}
