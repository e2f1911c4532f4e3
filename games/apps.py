from __future__ import annotations

import logging
from typing import Any

from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate

logger = logging.getLogger("games")


def _sync_catalogue(sender: AppConfig, using: str = "default", **kwargs: Any) -> None:
    """After migrate: sync the catalogue rows from the engine registry (a game added to the engine shows up
    without a data migration). A failure is logged, never breaks migrate (the engine may be mid-change)."""
    try:
        if "games_game" not in connections[using].introspection.table_names():
            return
        # Imported here, not at the top: apps.py is loaded before the app registry is ready, and games.services
        # imports models (of this app, wallet and limits).
        from games.services import games_sync

        games_sync()
    except Exception:  # logged; `manage.py games_sync` repeats it
        logger.exception("games catalogue sync after migrate failed; run `manage.py games_sync`")


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        post_migrate.connect(_sync_catalogue, sender=self, dispatch_uid="games.sync_catalogue")
        from accounts import hooks as account_hooks
        from games import carry, privacy, sql  # noqa: F401  (here: the models must be loaded; sql: its hot statements)
        from wallet import hooks as wallet_hooks

        account_hooks.carried_money_release.register(carry.carried_release)  # GP §10(1)-(2)
        wallet_hooks.held_in_games.register(carry.carried_money)

        privacy.register()  # its records, export and anonymisation (accounts.privacy_contract, GP §12(5), §12(7))
