"""Jackpot contributions partitioned by month (core/partitioning.py): ``id`` encodes the month and is the partition
key; existing rows stay in ``jackpots_contribution_p_legacy``. The model is unchanged (no state operation)."""
from django.db import migrations

from core.partitioning import convert


def forward(apps, schema_editor):
    convert(schema_editor.connection, "jackpots_contribution")


class Migration(migrations.Migration):
    dependencies = [("jackpots", "0003_compliance_level_plan_approval"), ("core", "0006_month_ids")]

    operations = [migrations.RunPython(forward, elidable=False)]
