"""A posting's player and an entry's account: one index fewer to write per posting and per entry.

The field no longer asks for an index of its own: the indexes (player, created_at) of the transactions and (account,
created_at) of the entries lead with them, so every lookup by player or by account alone uses those. Only the index
is dropped (on the partitioned table ``DROP INDEX`` of the parent's index drops every partition's); the foreign key
constraint stays as it is (Django's own ``AlterField`` would drop and re-add it, validating every row of the history
again)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0011_aisg"),
        ("wallet", "0014_bank_reversals_invalid_lines"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="entry",
                    name="account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="entries",
                        to="wallet.ledgeraccount",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    'DROP INDEX IF EXISTS "wallet_entry_account_id_0bb0fd0f"',
                    reverse_sql=(
                        'CREATE INDEX IF NOT EXISTS "wallet_entry_account_id_0bb0fd0f" ON "wallet_entry" ("account_id")'
                    ),
                ),
            ],
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="ledgertransaction",
                    name="player",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="ledger_transactions",
                        to="accounts.player",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    'DROP INDEX IF EXISTS "wallet_ledgertransaction_player_id_e391f1ae"',
                    reverse_sql=(
                        'CREATE INDEX IF NOT EXISTS "wallet_ledgertransaction_player_id_e391f1ae" '
                        'ON "wallet_ledgertransaction" ("player_id")'
                    ),
                ),
            ],
        ),
    ]
