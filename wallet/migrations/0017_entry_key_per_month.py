"""An entry's foreign key to its ledger transaction declared per month instead of on the partitioned tables.

Each month of ``wallet_entry`` (``wallet_entry_pYYYYMM``) references the same month of ``wallet_ledgertransaction``,
and the legacy partition the legacy partition (``core.partition_tables.MonthKey``, declared in wallet/partitions.py;
``core.partitioning.ensure`` makes the key of each new month). An entry is written in its ledger transaction's
database transaction, so its id has the same month (docs/wallet.md "The ledger"). The key to the partitioned
``wallet_ledgertransaction`` locked every month of it at each check under a generic plan; a month's key reads one
month. The model keeps its ``ForeignKey`` with ``db_constraint=False``.

Forwards, each step its own transaction (the migration is not atomic), so that no step holds writes off for long on a
ledger with years of months: the month keys added ``NOT VALID`` (at once; new rows are checked from then on), each
validated in its own transaction (``VALIDATE CONSTRAINT`` reads its month without holding writes off), then the
parent's key dropped, so the reference is never unguarded. An entry in another month than its transaction fails its
month's validation: the migration stops with the parent's key still there (run again once the data is right: each
step is idempotent). Backwards, in one transaction: the parent's key added again (validating every entry under a
lock that holds writes off: PostgreSQL 15 adds no key ``NOT VALID`` to a partitioned table), then the month keys
dropped.
"""

import django.db.models.deletion
from django.db import migrations, models, transaction

from core import partitioning
from core.partition_tables import MonthKey

TABLE = "wallet_entry"
KEYS = (MonthKey(("transaction_id",), "wallet_ledgertransaction"),)
PARENT_KEY = "wallet_entry_transaction_id_e972f4f2_fk_wallet_le"


def forwards(apps, schema_editor):
    conn = schema_editor.connection
    with transaction.atomic(using=conn.alias):
        partitioning.month_keys_add(conn, TABLE, KEYS, valid=False)
    for partition, constraint in partitioning.month_keys_unvalidated(conn, TABLE, KEYS):
        with transaction.atomic(using=conn.alias), conn.cursor() as cursor:
            cursor.execute(f'ALTER TABLE {partition} VALIDATE CONSTRAINT "{constraint}"')
    with transaction.atomic(using=conn.alias), conn.cursor() as cursor:
        cursor.execute(f'ALTER TABLE {TABLE} DROP CONSTRAINT IF EXISTS "{PARENT_KEY}"')


def backwards(apps, schema_editor):
    conn = schema_editor.connection
    with transaction.atomic(using=conn.alias):
        with conn.cursor() as cursor:
            cursor.execute(
                f'ALTER TABLE {TABLE} ADD CONSTRAINT "{PARENT_KEY}" FOREIGN KEY (transaction_id) '
                "REFERENCES wallet_ledgertransaction (id) DEFERRABLE INITIALLY DEFERRED"
            )
        partitioning.month_keys_drop(conn, TABLE, KEYS)


class Migration(migrations.Migration):
    atomic = False
    dependencies = [("wallet", "0016_balanced_check_reads_its_own_row")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="entry",
                    name="transaction",
                    field=models.ForeignKey(
                        db_constraint=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="entries",
                        to="wallet.ledgertransaction",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(forwards, backwards)],
        ),
    ]
