"""A settled bet's player: one index fewer to write per settled round.

The field no longer asks for an index of its own: the indexes (player, kind, settled_at), (player, kind, placed_at)
and (player, kind, round_ref) lead with it, so every lookup by player alone uses one of them. Only the index is
dropped (on the partitioned table ``DROP INDEX`` of the parent's index drops every partition's); the foreign key
constraint stays as it is (Django's own ``AlterField`` would drop and re-add it, validating every row of the history
again)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0011_aisg"),
        ("limits", "0008_carried_forward"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="settledbet",
                    name="player",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="accounts.player",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    'DROP INDEX IF EXISTS "limits_settledbet_player_id_4a0d1edf"',
                    reverse_sql=(
                        'CREATE INDEX IF NOT EXISTS "limits_settledbet_player_id_4a0d1edf" '
                        'ON "limits_settledbet" ("player_id")'
                    ),
                ),
            ],
        ),
    ]
