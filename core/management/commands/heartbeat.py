"""Send core.heartbeat through the broker and wait until a worker has run it."""

import time
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.models import TaskHeartbeat
from core.tasks import heartbeat_send


class Command(BaseCommand):
    help = "Enqueue a heartbeat task and wait (--wait seconds) for a worker to execute it."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--wait", type=float, default=30.0)

    def handle(self, *args: Any, wait: float, **opts: Any) -> None:
        marker = heartbeat_send()
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            hb = TaskHeartbeat.objects.get(marker=marker)
            if hb.ran_at:
                self.stdout.write(
                    f"heartbeat {marker} executed by {hb.worker} after {(hb.ran_at - hb.sent_at).total_seconds():.2f}s"
                )
                return
            time.sleep(0.25)
        raise CommandError(f"heartbeat {marker} not executed within {wait}s")
