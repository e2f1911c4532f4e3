"""Run every due wallet deadline now (the same job beat runs every 5 minutes)."""

from typing import Any

from django.core.management.base import BaseCommand

from wallet.tasks import sweep


class Command(BaseCommand):
    help = "Expire deposits, send/retry payouts and withdrawals, post uncollected payouts, release holds, flag debts."

    def handle(self, *args: Any, **opts: Any) -> None:
        self.stdout.write(f"wallet sweep: {sweep() or 'nothing due'}")
