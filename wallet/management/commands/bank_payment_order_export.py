"""Export the next payment-order file for the bank: ``manage.py bank_payment_order_export [--output FILE]``.

Every bank withdrawal and payout accepted since the last file, and every unmatched credit staff return, as one
pain.001.001.03 file; each goes into exactly one file, so running it again exports only what is new."""

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.audit import Actor
from core.errors import DomainError
from core.money import Money
from wallet.services import bank_payment_order_export


class Command(BaseCommand):
    help = "Write the next pain.001 payment-order file (withdrawals, payouts, returns) for the operator's bank."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--output", "-o", default="", help="file to write (default: <message id>.xml here)")

    def handle(self, *args: Any, output: str = "", **opts: Any) -> None:
        try:
            batch = bank_payment_order_export(actor=Actor.system("manage.py bank_payment_order_export"))
        except DomainError as exc:
            raise CommandError(f"{exc.code}: {exc.message_en} {exc.details or ''}".strip())
        if batch is None:
            self.stdout.write("nothing to export")
            return
        path = Path(output or f"{batch.message_id}.xml")
        path.write_text(batch.xml, encoding="utf-8")
        self.stdout.write(f"{path}: {batch.message_id}, {batch.count} payment orders, {Money(batch.control_sum)}")
