"""The jackpots' monthly-partitioned table (core/partition_tables.py): the contributions. Summed, so
``JackpotsConfig.ready`` registers its carry-forward hook (jackpots/archived_totals.py)."""

from __future__ import annotations

from core.partition_tables import PartitionedTable
from core.retention_rules import AML_ACCOUNTING, MIN_AML_YEARS

TABLES: tuple[PartitionedTable, ...] = (
    PartitionedTable(
        "jackpots_contribution",
        12 * MIN_AML_YEARS,
        AML_ACCOUNTING + ", jackpots.awards",
        summed_by="jackpot_check (the folded contribution rows against each pool's counter)",
    ),
)
