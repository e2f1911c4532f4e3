"""Demo data of the jackpots app: a central BRONZE/SILVER/GOLD network over every game, one level configured after
each description of seed 002 (docs/jackpots.md), and Kobushi's own pools (drafts from the games catalogue sync),
all started (idempotent)."""

from __future__ import annotations

from typing import Any

from core.audit import Actor
from core.money import Money
from jackpots.levels import enabled
from jackpots.models import MICRO, Jackpot
from jackpots.services import jackpot_start

ACTOR = Actor.system("seed_demo")
CZK = 100

DEMO_LEVELS: list[dict[str, Any]] = [
    # page 1 ("JACKPOTS"): a share of stakes, a fixed background share, a draw after every stake
    dict(
        code="central-bronze",
        name="BRONZE",
        name_cs="BRONZE",
        level="bronze",
        pay_order=1,
        basis=Jackpot.Basis.STAKE,
        rate_ppm=6_000,
        split=Jackpot.Split.FIXED,
        background_ppm=200_000,
        trigger=Jackpot.Trigger.DRAW,
        draw_ppb=200_000,
        reseed=Jackpot.Reseed.FROM_BACKGROUND,
        reset_value=500 * CZK,
        win_from=500 * CZK,
        win_to=5_000 * CZK,
    ),
    # pages 3-5 ("APOLLO"): must-hit WIN_AT, the future pot filled along the curve, reseeded with it
    dict(
        code="central-silver",
        name="SILVER",
        name_cs="SILVER",
        level="silver",
        pay_order=2,
        basis=Jackpot.Basis.STAKE,
        rate_ppm=3_000,
        split=Jackpot.Split.CURVE,
        trigger=Jackpot.Trigger.MUST_HIT,
        reseed=Jackpot.Reseed.WHOLE_FUTURE,
        reset_value=2_000 * CZK,
        win_from=5_000 * CZK,
        win_to=10_000 * CZK,
    ),
    dict(
        code="central-gold",
        name="GOLD",
        name_cs="GOLD",
        level="gold",
        pay_order=3,
        basis=Jackpot.Basis.STAKE,
        rate_ppm=1_000,
        split=Jackpot.Split.CURVE,
        trigger=Jackpot.Trigger.MUST_HIT,
        reseed=Jackpot.Reseed.WHOLE_FUTURE,
        reset_value=10_000 * CZK,
        win_from=20_000 * CZK,
        win_to=45_000 * CZK,
    ),
]


# GP §13(6): a central level starts only with its approval in the game plan recorded. The demo records one that says
# plainly it is not the Ministry's (as the games demo does for the game versions); a deployment records its own.
DEMO_APPROVAL = {
    "approval_plan_version": "demo",
    "approval_reference": "DEMO - not a decision of the Ministry of Finance",
}


def seed(stdout: Any) -> None:
    if not enabled():
        stdout.write("jackpots: switched off (JACKPOTS_ENABLED), no central levels\n")
        return
    for spec in DEMO_LEVELS:
        if not Jackpot.objects.filter(code=spec["code"]).exists():
            Jackpot.objects.create(family=Jackpot.Family.CENTRAL, games=[], **spec, **DEMO_APPROVAL)
    # the demo offers every level: the central ones above and Kobushi's pools (drafts from the catalogue sync)
    for jp in Jackpot.objects.filter(status=Jackpot.Status.DRAFT).order_by("id"):
        jackpot_start(jackpot=jp, actor=ACTOR)
    for jp in Jackpot.objects.order_by("family", "pay_order", "code"):
        stdout.write(
            f"jackpot: {jp.code} {jp.status} {jp.trigger} value {Money(jp.amount_micro // MICRO).format('en')}\n"
        )
