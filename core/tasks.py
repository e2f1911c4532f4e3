"""Core tasks. The rule for enqueuing: only after the transaction commits, ``task.delay_on_commit(...)``
(every task is Celery's ``DjangoTask``, config/celery.py)."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any, ParamSpec, TypeVar, cast

from celery import shared_task
from celery.contrib.django.task import DjangoTask
from django.db import connection, transaction

from core import clock, partitioning
from core.archiving import partitions_archive_due
from core.models import TaskHeartbeat

P = ParamSpec("P")
R = TypeVar("R")


def platform_task(**options: Any) -> Callable[[Callable[P, R]], DjangoTask[P, R]]:
    """``@shared_task(...)`` typed as what every task here is: Celery's ``DjangoTask`` (config/celery.py sets
    ``task_cls``), so ``task.delay_on_commit(...)`` type-checks."""

    def decorate(fn: Callable[P, R]) -> DjangoTask[P, R]:
        return cast("DjangoTask[P, R]", shared_task(**options)(fn))

    return decorate


@platform_task(name="core.heartbeat", time_limit=30, soft_time_limit=20)
def heartbeat(marker: str) -> str:
    """Marks a TaskHeartbeat row as run: proof that a worker executed a task sent from elsewhere."""

    TaskHeartbeat.objects.filter(marker=marker).update(ran_at=clock.now(), worker=socket.gethostname())
    return marker


def heartbeat_send(marker: str | None = None) -> str:
    """Create the row and enqueue the task after commit; returns the marker."""

    marker = marker or uuid.uuid4().hex
    with transaction.atomic():
        TaskHeartbeat.objects.create(marker=marker, sent_at=clock.now())
        heartbeat.delay_on_commit(marker)
    return marker


@platform_task(name="core.heartbeat_beat", time_limit=30, soft_time_limit=20)
def heartbeat_beat() -> str:
    """Beat's own heartbeat (marker prefixed ``beat-``)."""

    marker = f"beat-{uuid.uuid4().hex[:20]}"
    now = clock.now()
    TaskHeartbeat.objects.create(marker=marker, sent_at=now, ran_at=now, worker=socket.gethostname())
    TaskHeartbeat.objects.filter(marker__startswith="beat-", sent_at__lt=now - timedelta(days=1)).delete()
    return marker


@platform_task(name="core.partitions_ensure", time_limit=300, soft_time_limit=240)
def partitions_ensure() -> list[str]:
    """Hourly: this month's partition and the next ``MONTHS_AHEAD`` of every monthly-partitioned table
    (core/partitioning.py), made where missing, and each id sequence moved up into this month's range; safe to run
    twice or on two workers (``CREATE TABLE IF NOT EXISTS``; a sequence only ever moves up)."""
    with transaction.atomic():
        return partitioning.partitions_ensure(connection)


@platform_task(name="core.partitions_archive", time_limit=3600, soft_time_limit=3300)
def partitions_archive() -> dict[str, list[str]]:
    """Daily: every month of a partitioned table past its retention period moved to the ``archive`` schema, each
    month in its own transaction claimed with an advisory lock, a summed table's with its totals carried forward by
    its app's hook (core/archiving.py); the months that stay, by reason (``referenced``, ``summed``, ``busy``,
    ``failed``), are logged on ``platform.retention`` and returned."""
    report: dict[str, list[str]] = {}
    for result in partitions_archive_due():
        report.setdefault(result.outcome, []).append(
            result.partition if result.outcome in ("archived", "summed") else f"{result.partition}: {result.detail}"
        )
    return report
