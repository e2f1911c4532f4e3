"""The core's monthly-partitioned table (core/partition_tables.py): the audit trail."""

from __future__ import annotations

from core.partition_tables import PartitionedTable
from core.retention_rules import MIN_AML_YEARS

TABLES: tuple[PartitionedTable, ...] = (
    PartitionedTable(
        "core_auditevent",
        12 * MIN_AML_YEARS,
        "AML Act 253/2008 Sb. §16(1): 10 years for the AML events, which a month holds among the rest "
        "(AUDIT_RETENTION_AML_YEARS)",
        audit_trail=True,
    ),
)
