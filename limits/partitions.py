"""The limits' monthly-partitioned table (core/partition_tables.py): the settled bets. Summed, so
``LimitsConfig.ready`` registers its carry-forward hook (limits/archived_totals.py)."""

from __future__ import annotations

from core.partition_tables import Claim, PartitionedTable

TABLES: tuple[PartitionedTable, ...] = (
    PartitionedTable(
        "limits_settledbet",
        12 * 3,
        "decree 466/2023 Sb.: gambling records 3 years (the privacy contract's limits.self_limits: gambling)",
        claims=(
            Claim(
                "limits_settledbet",
                "limits_settledbet_unique_ref",
                ("player_id", "kind", "round_ref"),
                where="{row}.round_ref <> ''",
            ),
        ),
        summed_by="limits_reconcile (every day and month total against the settled bets)",
    ),
)
