"""Rounds partitioned by month (core/partitioning.py): ``id`` encodes the month and is the partition key;
the idempotency key per player and the one open round per player move to claim tables kept by a trigger in the
round's own statement. Existing rows stay in ``games_round_p_legacy``. The model is unchanged (no state operation)."""
from django.db import migrations

from core.partitioning import convert


def forward(apps, schema_editor):
    convert(schema_editor.connection, "games_round")


class Migration(migrations.Migration):
    dependencies = [("games", "0005_staff_permissions"), ("core", "0006_month_ids")]

    operations = [migrations.RunPython(forward, elidable=False)]
