"""Helpers of the jackpots tests: levels configured and started through the services, the pool's books."""

from __future__ import annotations

from typing import Any

from core.audit import Actor
from jackpots.models import MICRO, Jackpot

STAFF = Actor.system("tests")
# GP §13(6): a central level starts only with its approval in the game plan recorded (test data, not a decision)
TEST_APPROVAL = {"approval_plan_version": "tests", "approval_reference": "test data - not a decision of the Ministry"}


def central_level(code: str, **cfg: Any) -> Jackpot:
    """A started central level (defaults: must-hit, 1 % of stakes, every game)."""
    from jackpots.services import jackpot_start

    fields: dict[str, Any] = dict(
        name=code,
        name_cs=code,
        family=Jackpot.Family.CENTRAL,
        level=code.split("-")[-1],
        pay_order=1,
        games=[],
        basis=Jackpot.Basis.STAKE,
        rate_ppm=10_000,
        split=Jackpot.Split.NONE,
        trigger=Jackpot.Trigger.MUST_HIT,
        reseed=Jackpot.Reseed.FROM_BACKGROUND,
        reset_value=1_000,
        win_from=2_000,
        win_to=3_000,
        **TEST_APPROVAL,
    )
    fields.update(cfg)
    jp = Jackpot.objects.create(code=code, **fields)
    return jackpot_start(jackpot=jp, actor=STAFF)


def pool(code: str) -> Jackpot:
    return Jackpot.objects.get(code=code)


def contributions(**filters: Any) -> list[Any]:
    """A round's (or a pool's) contributions wherever they are now: pending, or folded into the log."""
    from jackpots.models import Contribution, Pending

    return [*Pending.objects.filter(**filters), *Contribution.objects.filter(**filters)]


def books(code: str) -> dict[str, int]:
    """The pool's value (micro), what its ledger account holds (haléře) and what the contribution log says."""
    from django.db.models import Sum

    from jackpots.models import Contribution, Fold
    from wallet.ledger import operator_balance

    jp = pool(code)
    folded = Contribution.objects.filter(jackpot=jp).aggregate(a=Sum("active_micro"), f=Sum("future_micro"))
    clamped = Fold.objects.filter(jackpot=jp).aggregate(c=Sum("clamped_micro"))["c"] or 0
    return {
        "value_micro": jp.amount_micro + jp.future_micro,
        "ledger": operator_balance(jp.ledger_code).amount,
        "ledger_expected": (jp.amount_micro + jp.future_micro) // MICRO,
        "log_folded_micro": (folded["a"] or 0) + (folded["f"] or 0),
        "contributed_micro": jp.contributed_micro,
        "growth_micro": jp.contributed_micro + clamped + (jp.seeded - jp.awarded + jp.returned) * MICRO,
    }
