"""The platform's Celery task class: side effects enqueued after the commit never turn a committed request into an
error.

Celery's ``DjangoTask.delay_on_commit`` hands ``task.delay`` to Django's ``transaction.on_commit``; when the broker
refuses the message (an outage, a broken transport), the exception leaves the hook AFTER the transaction committed
and becomes the request's answer: a 500 for a withdrawal that was made, and a client that retries with a new key
asks for a second one. Every enqueued side effect has a sweeper that catches up (withdrawals, payouts, notices,
register reports: ``*/schedules.py``), so a refused enqueue is logged loudly and the committed answer stands
(tests/faults/test_enqueue_after_commit.py). With ``task_always_eager`` (tests) the task runs in-process and its own
exceptions propagate as before: only a broker's kind of error (kombu's, a connection's) is logged there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from celery.contrib.django.task import DjangoTask
from django.db import transaction
from kombu.exceptions import KombuError

logger = logging.getLogger("platform.tasks")


class PlatformTask(DjangoTask):  # type: ignore[type-arg]  # celery-types: DjangoTask[P, R] per task
    def _on_commit(self, send: Callable[[], Any]) -> None:
        def enqueue() -> None:
            # Published to a broker, anything raised is the publishing's; run eagerly (tests), the task runs here
            # and only a broker's kind of error is the publishing's (the task's own exceptions are the caller's).
            refused: tuple[type[BaseException], ...] = (
                (KombuError, OSError) if self.app.conf.task_always_eager else (Exception,)
            )
            try:
                send()
            except refused:  # safe: committed work stands; its sweeper enqueues it again (module docstring)
                logger.exception("could not enqueue %s after commit; its sweeper will catch up", self.name)

        enqueue.__qualname__ = f"enqueue:{self.name}"  # Django names a failing on-commit hook by it
        transaction.on_commit(enqueue)

    def delay_on_commit(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]  # the stub: AsyncResult
        self._on_commit(lambda: self.delay(*args, **kwargs))

    # the type: ignore below: the stub: AsyncResult
    def apply_async_on_commit(self, args: Any = None, kwargs: Any = None, **options: Any) -> None:  # type: ignore[override]
        self._on_commit(lambda: self.apply_async(args, kwargs, **options))
