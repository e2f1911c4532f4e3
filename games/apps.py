import logging

from django.apps import AppConfig
from django.db.models.signals import post_migrate

logger = logging.getLogger("games")


def _sync_catalogue(sender, using="default", **kwargs):
    """After migrate: sync the catalogue rows from the engine registry (a game added to the engine shows up
    without a data migration). A failure is logged, never breaks migrate (the engine may be mid-change)."""
    from django.db import connections

    try:
        if "games_game" not in connections[using].introspection.table_names():
            return
        from games.services import games_sync

        games_sync()
    except Exception:  # noqa: BLE001
        logger.exception("games catalogue sync after migrate failed; run `manage.py games_sync`")


class GamesConfig(AppConfig):
    name = "games"

    def ready(self):
        post_migrate.connect(_sync_catalogue, sender=self, dispatch_uid="games.sync_catalogue")
