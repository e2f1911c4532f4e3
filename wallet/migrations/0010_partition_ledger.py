"""The ledger (transactions and entries) partitioned by month (core/partitioning.py): ``id`` encodes the
month and is the partition key, so every foreign key to a transaction keeps working; ``(kind, reference)`` moves to a
claim table kept by a trigger in the posting's own statement; the append-only and zero-sum triggers are recreated on
the partitioned tables. Existing rows stay in ``<table>_p_legacy``. The models are unchanged (no state operation)."""
from django.db import migrations

from core.partitioning import convert


ENTRY_TEST = "IF TG_TABLE_NAME = 'wallet_entry' THEN"
# a trigger on a partitioned table runs as the partition's (TG_TABLE_NAME = wallet_entry_p202612, wallet_entry_p_legacy)
ENTRY_TEST_PARTITIONED = r"IF TG_TABLE_NAME = 'wallet_entry' OR TG_TABLE_NAME LIKE 'wallet\_entry\_p%' THEN"


def _zero_sum_trigger_partition_aware(cursor):
    """The zero-sum trigger function (wallet 0002, 0004) tells an entry from a transaction by the table's name."""
    cursor.execute("SELECT pg_get_functiondef('wallet_txn_balanced()'::regprocedure)")
    source = cursor.fetchone()[0]
    if ENTRY_TEST_PARTITIONED not in source:
        if ENTRY_TEST not in source:
            raise RuntimeError("wallet_txn_balanced() changed: check how it tells entries from transactions")
        cursor.execute(source.replace(ENTRY_TEST, ENTRY_TEST_PARTITIONED))


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        _zero_sum_trigger_partition_aware(cursor)
    convert(schema_editor.connection, "wallet_ledgertransaction")
    convert(schema_editor.connection, "wallet_entry")


class Migration(migrations.Migration):
    dependencies = [("wallet", "0009_bankfiles_statements_payment_orders"), ("core", "0006_month_ids")]

    operations = [migrations.RunPython(forward, elidable=False)]
