"""The wallet's monthly-partitioned tables (core/partition_tables.py): the ledger. Both are summed, so
``WalletConfig.ready`` registers their carry-forward hooks (wallet/archived_totals.py). An entry's key to its
ledger transaction is declared per month (``MonthKey``): an entry is written in its transaction's database
transaction, so its id has its transaction's month (docs/wallet.md "The ledger")."""

from __future__ import annotations

from core.partition_tables import Claim, MonthKey, PartitionedTable
from core.retention_rules import AML_ACCOUNTING, MIN_AML_YEARS

TABLES: tuple[PartitionedTable, ...] = (
    PartitionedTable(
        "wallet_entry",
        12 * MIN_AML_YEARS,
        AML_ACCOUNTING + ", wallet.ledger",
        summed_by="ledger_check and the ledger accounts' balances (the sum of their entries)",
        month_keys=(MonthKey(("transaction_id",), "wallet_ledgertransaction"),),
    ),
    PartitionedTable(
        "wallet_ledgertransaction",
        12 * MIN_AML_YEARS,
        AML_ACCOUNTING + ", wallet.ledger",
        claims=(Claim("wallet_ledgertransaction", "wallet_txn_unique_kind_reference", ("kind", "reference")),),
        summed_by="ledger_check (every live transaction's entries balance)",
    ),
)
