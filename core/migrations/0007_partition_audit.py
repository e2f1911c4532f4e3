"""Audit events (append-only: the trigger refusing UPDATE and DELETE is recreated on the partitioned table) partitioned by month (core/partitioning.py): ``id`` encodes the month and is the partition
key; existing rows stay in ``core_auditevent_p_legacy``. The model is unchanged (no state operation)."""
from django.db import migrations

from core.partitioning import convert


def forward(apps, schema_editor):
    convert(schema_editor.connection, "core_auditevent")


class Migration(migrations.Migration):
    dependencies = [("core", "0006_month_ids")]

    operations = [migrations.RunPython(forward, elidable=False)]
