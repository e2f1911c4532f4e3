"""Reads of the regulator's remote access for the back office."""

from __future__ import annotations

from core.home import QueueState, queue_of
from regulator.models import MinistryNotice, RegulatorPackage


def packages_rejected_queue() -> QueueState:
    """Packages the Ministry rejected (a formal error) and not yet issued again as the next version."""
    return queue_of(RegulatorPackage.objects.filter(state=RegulatorPackage.State.REJECTED), "issued_at")


def error_notices_queue() -> QueueState:
    """The Ministry's error notices whose staff task is open."""
    return queue_of(MinistryNotice.objects.filter(staff_task_open=True), "received_at")


def packages_damaged_queue() -> QueueState:
    """Issued packages whose stored sealed file was found missing or changed by the daily check."""
    return queue_of(RegulatorPackage.objects.filter(damaged_at__isnull=False, purged_at__isnull=True), "damaged_at")
