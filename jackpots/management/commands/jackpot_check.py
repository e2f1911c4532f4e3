"""Prove the jackpot pools right against their own log and the ledger; exit non-zero on any difference.

For every pool: its ledger account holds exactly the whole haléře of its value; its value equals everything folded
into it (contributions, the house's clamps) plus seeds minus awards plus what came back, to the micro-haléř; the
folded contribution rows (the archived months' carried totals plus the live rows, ``pool_books``) sum to what the
pool says it folded; its running counter (the slots the spins add to) holds exactly what the folds counted plus
the pending rows. The ``jackpot:awards`` account equals the awards decided and not yet paid. Runs in the tests and
beside ``ledger_check``."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db.models import Sum

from jackpots.models import MICRO, Award, Jackpot
from jackpots.selectors import pool_books
from jackpots.services import AWARDS_ACCOUNT
from wallet.selectors import operator_balance


def problems() -> list[str]:
    found = []
    for jp in Jackpot.objects.order_by("id"):
        b = pool_books(jp)
        ledger = operator_balance(jp.ledger_code).amount
        if not ledger == jp.ledger_balance == b["value_micro"] // MICRO:
            found.append(f"{jp.code}: ledger {ledger}, recorded {jp.ledger_balance}, value {b['value_micro']}")
        if b["value_micro"] != b["expected_value_micro"]:
            found.append(
                f"{jp.code}: value {b['value_micro']} != folded + seeds - awards + returns {b['expected_value_micro']}"
            )
        if b["log_folded_micro"] != b["contributed_micro"]:
            found.append(f"{jp.code}: folded rows {b['log_folded_micro']} != contributed {b['contributed_micro']}")
        if b["pending_counter_micro"] != b["pending_rows_micro"]:
            found.append(
                f"{jp.code}: running counter beyond the folds (active, future) {b['pending_counter_micro']}"
                f" != pending rows {b['pending_rows_micro']}"
            )
        if jp.amount_micro < 0 or jp.future_micro < 0:
            found.append(f"{jp.code}: a pot below zero")
    decided = Award.objects.filter(status=Award.Status.DECIDED).aggregate(s=Sum("amount"))["s"] or 0
    awards = operator_balance(AWARDS_ACCOUNT).amount
    if awards != decided:
        found.append(f"{AWARDS_ACCOUNT}: {awards} != decided awards not yet paid {decided}")
    return found


class Command(BaseCommand):
    help = "Check the jackpot pools against their contribution log and the ledger."

    def handle(self, *args: Any, **options: Any) -> None:
        found = problems()
        if found:
            raise CommandError("jackpot_check found differences:\n" + "\n".join(found))
        self.stdout.write(f"jackpot_check: {Jackpot.objects.count()} pools OK")
