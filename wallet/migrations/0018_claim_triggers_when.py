"""The claim triggers of ``wallet_ledgertransaction`` (core/partitioning.py) replaced by one trigger per event with a
``WHEN`` that holds exactly when the upkeep function acts, so PostgreSQL skips the call for a row it would leave
alone: the posting's reference (kind, reference); it has no condition, so only the triggers' split applies. The
claims, their tables and rows are unchanged; on the partitioned table the triggers are cloned to every partition, and
a new month gets them from the parent. A database migrated from empty gets the same triggers from the conversion
(``convert``) already; this one makes them so on a database converted before.
Backwards: nothing to undo (the old and the new triggers keep the same claims).
"""

from django.db import migrations

from core.partitioning import claim_triggers_install


def forward(apps, schema_editor):
    claim_triggers_install(schema_editor.connection, "wallet_ledgertransaction")


class Migration(migrations.Migration):
    dependencies = [("wallet", "0017_entry_key_per_month")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=False)]
