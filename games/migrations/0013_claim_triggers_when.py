"""The claim triggers of ``games_round`` (core/partitioning.py) replaced by one trigger per event with a ``WHEN`` that
holds exactly when the upkeep function acts, so PostgreSQL skips the call for a row it would leave alone: the round's
idempotency key per player and its one open round per player (a round inserted already settled, the hot path, no
longer calls the second's function; nor an update of its status that keeps it open or closed). The claims, their
tables and rows are unchanged; on the partitioned table the triggers are cloned to every partition, and a new month
gets them from the parent. A database migrated from empty gets the same triggers from the conversion (``convert``)
already; this one makes them so on a database converted before.
Backwards: nothing to undo (the old and the new triggers keep the same claims).
"""

from django.db import migrations

from core.partitioning import claim_triggers_install


def forward(apps, schema_editor):
    claim_triggers_install(schema_editor.connection, "games_round")


class Migration(migrations.Migration):
    dependencies = [("games", "0012_round_status_deadline_open_only")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=False)]
