"""Periodic and on-commit jobs of the limits app: thin wrappers around services.

The services never enqueue these tasks (no import back from ``limits.services``): the API enqueues
:func:`self_listing_send_task` after a self-listing request commits and :func:`panic_report_send_task` after a
panic-button press commits, and beat runs the rest (``limits/schedules.py``).
"""

from __future__ import annotations

from core.tasks import platform_task
from limits.services import (
    daily_time_logout_sweep,
    exclusion_batches_collect,
    exclusion_sweep,
    minute_buckets_prune,
    panic_report_send,
    panic_reports_send_due,
    pending_limits_apply,
    self_listing_send,
    self_listing_send_due,
)


@platform_task(name="limits.exclusion_check_sessions", time_limit=600, soft_time_limit=540)
def exclusion_check_sessions() -> dict[str, int]:
    """Every player with an active login session, re-checked in the exclusion register (<= 15 min apart)."""
    s = exclusion_sweep(context="session")
    return {"checked": s.checked, "listed": s.listed, "failed": s.failed}


@platform_task(name="limits.exclusion_check_daily", time_limit=3000, soft_time_limit=2900)
def exclusion_check_daily() -> dict[str, int]:
    """Every temporary or active player re-checked in the exclusion register once a day."""
    s = exclusion_sweep(context="daily")
    return {"checked": s.checked, "listed": s.listed, "failed": s.failed}


@platform_task(name="limits.exclusion_batches_collect", time_limit=600, soft_time_limit=540)
def exclusion_batches_collect_task() -> dict[str, int]:
    """The results of the AISG re-check batches (OveritOsobyHromadne) collected and applied (nothing without AISG)."""
    return exclusion_batches_collect()


@platform_task(name="limits.pending_limits_apply", time_limit=300, soft_time_limit=240)
def pending_limits_apply_task() -> int:
    """Write due loosenings (GP §6(4)) into the limits (readers already apply them at their instant)."""
    return pending_limits_apply(batch=1000)


@platform_task(name="limits.daily_time_logout", time_limit=120, soft_time_limit=100)
def daily_time_logout() -> int:
    """GP §6(6)f: automatic logout when the daily logged-in time limit is used up."""
    return daily_time_logout_sweep()


@platform_task(name="limits.self_listing_send", time_limit=120, soft_time_limit=100)
def self_listing_send_task(request_id: int) -> str:
    """Pass one self-listing request to the register (enqueued after the request commits)."""
    req = self_listing_send(request_id=request_id)
    return req.status if req is not None else "not-due"


@platform_task(name="limits.self_listing_send_due", time_limit=300, soft_time_limit=240)
def self_listing_send_due_task() -> int:
    """Retry self-listing requests the register did not take yet."""
    return self_listing_send_due()


@platform_task(name="limits.panic_report_send", time_limit=120, soft_time_limit=100)
def panic_report_send_task(report_id: int) -> str:
    """Report one panic-button press to the register of excluded persons (enqueued after the press commits)."""
    report = panic_report_send(report_id=report_id)
    return report.status if report is not None else "not-due"


@platform_task(name="limits.panic_reports_send_due", time_limit=600, soft_time_limit=540)
def panic_reports_send_due_task() -> dict[str, int]:
    """Report the panic-button presses the register has not acknowledged yet (new ones and due retries)."""
    return panic_reports_send_due()


@platform_task(name="limits.minute_buckets_prune", time_limit=300, soft_time_limit=240)
def minute_buckets_prune_task() -> int:
    """Delete hourly-loss minute buckets older than 2 hours."""
    return minute_buckets_prune()
