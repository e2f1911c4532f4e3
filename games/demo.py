"""Demo data of the games app: the catalogue synced from the engine registry, and demo approvals (idempotent).

The approvals are demo data, not a code default (GP §13(6)): a version the sync adds starts unapproved everywhere,
and only this demo records, as the demo's operator, that the current version of each game is "approved" under a
plan version and a reference that say plainly they are not the Ministry's (``DEMO_PLAN_VERSION``,
``DEMO_REFERENCE``). A real deployment records each version's approval in the admin instead.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from core.audit import Actor
from core.management.commands.seed_demo import DEMO_ADMIN
from games.models import Game
from games.services import game_approve, games_sync

DEMO_PLAN_VERSION = "demo"
DEMO_REFERENCE = "DEMO - not a decision of the Ministry of Finance"


def demo_approvals(*, actor: Actor) -> list[str]:
    """Record the demo approval of the current version of every registered game not approved yet (the ones a
    demo, a benchmark or a test environment plays); returns ``code@version`` of those approved now."""
    approved = []
    for row in Game.objects.filter(current=True, registered=True, provider="").exclude(
        approval_state=Game.Approval.APPROVED
    ):
        game_approve(game=row, plan_version=DEMO_PLAN_VERSION, reference=DEMO_REFERENCE, actor=actor)
        approved.append(f"{row.code}@{row.version}")
    return approved


def seed(stdout: Any) -> None:
    report = games_sync(actor=Actor.system("seed_demo"))
    # recorded as the demo's operator, the superuser core's seed_demo creates before the apps' demos
    demo_approvals(actor=Actor.staff(get_user_model().objects.get(username=DEMO_ADMIN[0])))
    for row in Game.objects.filter(current=True).order_by("code"):
        stdout.write(
            f"game: {row.code} v{row.version} {row.name} RTP {row.rtp} % "
            f"{'enabled' if row.enabled else 'disabled'}, {row.approval_state} "
            f"({row.approval_reference or 'no approval'})\n"
        )
    if report["errors"]:
        stdout.write(f"games not synced: {report['errors']}\n")
