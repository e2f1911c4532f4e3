"""Make the sandbox provider confirm (or fail) a deposit: ``manage.py sandbox_pay <deposit id|payment reference>``."""

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import CommandError
from django.db.models import Q

from core.audit import Actor
from core.errors import DomainError
from core.management.development import DevelopmentOnlyCommand
from wallet.models import Deposit
from wallet.services import sandbox_pay


class Command(DevelopmentOnlyCommand):
    help = "The sandbox provider sends a correctly signed callback for a deposit (after commit, through Celery)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("deposit", help="deposit id or payment reference")
        parser.add_argument("--outcome", choices=["succeeded", "failed"], default="succeeded")
        parser.add_argument("--payer-name", default=None)
        parser.add_argument("--payer-birth-date", default=None)

    def handle(
        self, *args: Any, deposit: str, outcome: str, payer_name: str | None, payer_birth_date: str | None, **opts: Any
    ) -> None:
        q = Q(payment_reference=deposit) | (Q(pk=int(deposit)) if deposit.isdigit() and len(deposit) < 10 else Q())
        d = Deposit.objects.filter(q).first()
        if d is None:
            raise CommandError(f"no deposit {deposit!r}")
        payer: dict[str, Any] | None = None
        if payer_name:
            payer = {"name": payer_name, **({"birth_date": payer_birth_date} if payer_birth_date else {})}
        try:
            result = sandbox_pay(deposit=d, outcome=outcome, payer=payer, actor=Actor.system("manage.py sandbox_pay"))
        except DomainError as exc:
            raise CommandError(f"{exc.code}: {exc.message_en}")
        self.stdout.write(f"sandbox callback queued: {result}")
