"""The claims of ``limits_settledbet`` kept by one trigger function for the table (``limits_settledbet_claims_keep``,
core/partitioning.py ``claims_trigger_sql``) instead of one function and two triggers per claim: the settled bet's
round reference per player (one claim: the same work, under the table's function name). The claims, their tables and
rows are unchanged; the old functions are dropped. On the partitioned table the row trigger is cloned to every
partition, and a new month gets it from the parent. A database migrated from empty gets the same triggers from the
conversion (``convert``) already; this one makes them so on a database converted before.
Backwards: nothing to undo (the old and the new triggers keep the same claims).
"""

from django.db import migrations

from core.partitioning import claim_triggers_install


def forward(apps, schema_editor):
    claim_triggers_install(schema_editor.connection, "limits_settledbet")


class Migration(migrations.Migration):
    dependencies = [("limits", "0009_settledbet_player_no_own_index")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=False)]
