"""Settled bets (the limits' record of each decided bet; its unique round reference per player moves to a claim table) partitioned by month (core/partitioning.py): ``id`` encodes the month and is the partition
key; existing rows stay in ``limits_settledbet_p_legacy``. The model is unchanged (no state operation)."""
from django.db import migrations

from core.partitioning import convert


def forward(apps, schema_editor):
    convert(schema_editor.connection, "limits_settledbet")


class Migration(migrations.Migration):
    dependencies = [("limits", "0005_staff_permissions"), ("core", "0006_month_ids")]

    operations = [migrations.RunPython(forward, elidable=False)]
