"""The games' monthly-partitioned table (core/partition_tables.py): the rounds."""

from __future__ import annotations

from core.partition_tables import Claim, PartitionedTable
from core.retention_rules import AML_ACCOUNTING, MIN_AML_YEARS

TABLES: tuple[PartitionedTable, ...] = (
    PartitionedTable(
        "games_round",
        12 * MIN_AML_YEARS,
        AML_ACCOUNTING + ", games.rounds",
        claims=(
            Claim("games_round", "games_round_unique_player_key", ("player_id", "idempotency_key")),
            Claim(
                "games_round",
                "games_round_one_open_per_player",
                ("player_id", "play_money"),
                where="{row}.status = 'in_progress'",
                watch=("status",),
            ),
        ),
    ),
)
