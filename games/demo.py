"""Demo data of the games app: the catalogue synced from the engine registry (idempotent)."""
from __future__ import annotations

from typing import Any

from core.audit import Actor
from games.models import Game
from games.services import games_sync


def seed(stdout: Any) -> None:
    report = games_sync(actor=Actor.system("seed_demo"))
    for row in Game.objects.filter(current=True).order_by("code"):
        stdout.write(f"game: {row.code} v{row.version} {row.name} RTP {row.rtp} % "
                     f"{'enabled' if row.enabled else 'disabled'}\n")
    if report["errors"]:
        stdout.write(f"games not synced: {report['errors']}\n")
