"""``platform_month_id(sequence)``, the id default of the tables partitioned by month (core/partitioning.py)."""
from django.db import migrations

from core.partitioning import MONTH_ID_FUNCTION


class Migration(migrations.Migration):
    dependencies = [("core", "0005_hardening_security_event_windows")]

    operations = [
        migrations.RunSQL(MONTH_ID_FUNCTION,
                          "DROP FUNCTION IF EXISTS platform_month_id(regclass); "
                          "DROP FUNCTION IF EXISTS platform_month_index(timestamptz);"),
    ]
