"""The claims of ``games_round`` kept by one trigger function for the table (``games_round_claims_keep``,
core/partitioning.py ``claims_trigger_sql``) instead of one function and two triggers per claim: the round's
idempotency key per player and its one open round per player: a round's insert called two functions, the second doing
nothing for a round inserted already finished (the hot path), now one. The claims, their tables and rows are
unchanged; the old functions are dropped. On the partitioned table the row trigger is cloned to every partition, and
a new month gets it from the parent. A database migrated from empty gets the same triggers from the conversion
(``convert``) already; this one makes them so on a database converted before.
Backwards: nothing to undo (the old and the new triggers keep the same claims).
"""

from django.db import migrations

from core.partitioning import claim_triggers_install


def forward(apps, schema_editor):
    claim_triggers_install(schema_editor.connection, "games_round")


class Migration(migrations.Migration):
    dependencies = [("games", "0012_round_status_deadline_open_only")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=False)]
