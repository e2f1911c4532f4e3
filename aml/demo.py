"""Demo AML data (``manage.py seed_demo``): the active demo players declared they are not politically exposed and
were screened against the sandbox list; one of them declared a PEP relation, so the compliance queue has a case.
Idempotent: a player with a declaration is skipped. Nothing is seeded when the sandbox list is off."""
from __future__ import annotations

from typing import Any

from django.conf import settings

from accounts.models import Player
from aml import services
from aml.models import PepDeclaration
from core.audit import Actor


def seed(stdout: Any) -> None:
    if not settings.AML_SANDBOX_ENABLED:
        stdout.write("aml: the sandbox is off (AML_SANDBOX_ENABLED): no demo data")
        return
    players = list(Player.objects.select_related("user").filter(status="active", personal__isnull=False)
                   .order_by("pk")[:2])
    for i, player in enumerate(players):
        if PepDeclaration.objects.filter(player=player).exists():
            continue
        actor = Actor.player(player)
        if i == 0:
            services.pep_declare(player=player, relation="none", actor=actor)
        else:
            services.pep_declare(player=player, relation="family", position="[demo] sister of a regional governor",
                                 actor=actor)
        run = services.screening_run(player=player, actor=Actor.system("aml.demo"), trigger="demo")
        stdout.write(f"aml: {player.user.username} declared ({'PEP' if i else 'not a PEP'}), screened: {run.result}")
