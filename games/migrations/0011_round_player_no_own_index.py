"""A round's player: one index fewer to write per round.

The field no longer asks for an index of its own: the indexes (player, idempotency_key), (player, play_money,
started_at) and (player, game_code, started_at) lead with it, so every lookup by player alone uses one of them. Only
the index is dropped (on the partitioned table ``DROP INDEX`` of the parent's index drops every partition's); the
foreign key constraint stays as it is (Django's own ``AlterField`` would drop and re-add it, validating every row of
the history again)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0011_aisg"),
        ("games", "0010_remote_games"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="round",
                    name="player",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="game_rounds",
                        to="accounts.player",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    'DROP INDEX IF EXISTS "games_round_player_id_57bdd991"',
                    reverse_sql=(
                        'CREATE INDEX IF NOT EXISTS "games_round_player_id_57bdd991" ON "games_round" ("player_id")'
                    ),
                ),
            ],
        ),
    ]
