"""``manage.py games_sync``: sync the game catalogue (a row per game version) from the engine registry."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.audit import Actor
from games.services import games_sync


class Command(BaseCommand):
    help = "Sync the game catalogue from the engine registry (new games start enabled; disable them in the admin)."

    def handle(self, *args: Any, **opts: Any) -> None:
        report = games_sync(actor=Actor.system("manage.py games_sync"))
        self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
        if report["errors"]:
            raise CommandError(f"{len(report['errors'])} game(s) could not be synced")
