"""The monthly-partitioned tables, each declared once by the app that owns it (docs/scaling.md "Monthly partitions").

An app with a partitioned table has a ``partitions.py`` module whose ``TABLES`` tuple holds one
:class:`PartitionedTable` per table: the table, the uniquenesses that do not include the partition key (its
:class:`Claim` tables), how long its months stay live (the legal period and its basis), whether a check sums its
rows against a running total kept elsewhere (then the app registers the carry-forward hook
``core.archiving.carry_forward(<model>)`` in its ``AppConfig.ready``), whether its months also follow the audit
trail's configured periods, and the foreign keys it declares per month (:class:`MonthKey`: each month of the table
references the same month of another partitioned table). Core never names an app's table: the conversion
(``core.partitioning.convert``, called by the app's migration), the claims' upkeep, the months made ahead with their
keys (``core.partitioning.ensure``), the retention periods checked when the settings load
(``core.retention_rules.partition_retention``) and the archiving job (``core.archiving``) all read
:func:`declared_tables`.

The modules are plain data (no models, no Django app registry), so the settings can check
``PARTITION_RETENTION_MONTHS`` against them before the apps load. ``tests/test_partition_declarations.py`` checks
that every partitioned table of the database is declared exactly once, by the app whose label prefixes it.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from django.conf import settings

#: the module of an app that declares its partitioned tables, and the name of its tuple
MODULE = "partitions"
ATTRIBUTE = "TABLES"


@dataclass(frozen=True)
class Claim:
    """A uniqueness that does not include the partition key, kept in its own non-partitioned table.

    ``name`` is the original constraint or index name (the claim table's unique index takes it, so an
    ``IntegrityError`` names the same constraint as before), ``columns`` the unique columns, ``where`` the
    condition of a partial unique index over ``{row}`` (the row: ``NEW``, ``OLD`` or the table), or ``""``;
    ``watch``: columns whose UPDATE can change the condition (a round leaving ``in_progress``), so an update moves
    the claim too."""

    table: str
    name: str
    columns: tuple[str, ...]
    where: str = ""
    watch: tuple[str, ...] = ()

    @property
    def claim_table(self) -> str:
        return f"{self.name}_claim"[:63]

    def condition(self, row: str) -> str:
        return self.where.format(row=row) if self.where else "true"


@dataclass(frozen=True)
class MonthKey:
    """A foreign key declared per month: each month partition of the declaring table (``<table>_pYYYYMM``) references
    the same month's partition of ``references`` (``<references>_pYYYYMM``), and its legacy partition the other's
    legacy partition, ``columns`` -> ``referenced_columns``, ``DEFERRABLE INITIALLY DEFERRED`` (a model's foreign
    key's timing). Both tables are partitioned by month ids, and a row is written in the same database transaction
    as the row it references (so with an id of the same month): a check of the key reads one month of the referenced
    table, where a key to the partitioned table itself locks every month of it under a generic plan
    (docs/scaling.md "Monthly partitions"). The key refuses a row whose referenced row is in another month.
    ``core.partitioning.ensure`` makes a month's key with the month (the referenced month first); the model's field
    keeps its ``ForeignKey`` with ``db_constraint=False``; the archiving job archives the declaring table's month
    before the referenced one, which ``partition_archive`` refuses to detach while a month referencing it is
    attached."""

    columns: tuple[str, ...]
    references: str
    referenced_columns: tuple[str, ...] = ("id",)

    def name(self, partition: str) -> str:
        """The constraint's name on ``partition`` (a partition of the declaring table)."""
        return f"{partition}_{'_'.join(self.columns)}_fk"[:63]


@dataclass(frozen=True)
class PartitionedTable:
    """One table partitioned by month ids (``core.partitioning``: the partition key is ``id``).

    ``legal_months``: the months after a month's end its rows stay live at least, for the reason ``basis``
    (``core.partitions_archive`` moves them to the ``archive`` schema afterwards; archived rows are kept).
    ``claims``: the table's uniquenesses kept in claim tables. ``summed_by``, when set, names the checks that sum
    the table's live rows against a running total kept elsewhere (the ledger accounts' balances, a pool's counter,
    the limits' day and month totals): archiving a month would change those sums, so the owning app registers a
    carry-forward hook that records the month's totals (``core.archiving``); while it is not registered the table
    keeps its months. ``audit_trail``: the table holds audit events, so its months also stay at least as long as the
    configured audit periods (``AUDIT_RETENTION_YEARS``, ``AUDIT_RETENTION_AML_YEARS``). ``month_keys``: its
    foreign keys declared per month (:class:`MonthKey`), none on the partitioned table itself."""

    table: str
    legal_months: int
    basis: str
    claims: tuple[Claim, ...] = field(default=())
    summed_by: str = ""
    audit_trail: bool = False
    month_keys: tuple[MonthKey, ...] = field(default=())

    def __post_init__(self) -> None:
        for claim in self.claims:
            if claim.table != self.table:
                raise ValueError(f"{self.table}: the claim {claim.name} is of {claim.table}")
        for key in self.month_keys:
            if key.references == self.table or len(key.columns) != len(key.referenced_columns):
                raise ValueError(f"{self.table}: the month key {key} references itself or has unequal columns")


def _app_modules(app_names: Iterable[str]) -> list[str]:
    """The apps' ``partitions`` modules that exist. An entry of ``INSTALLED_APPS`` names a package or an
    ``AppConfig`` class; a class's package is the part before ``.apps.``."""
    found = []
    for entry in app_names:
        package = entry.split(".apps.")[0]
        try:
            spec = importlib.util.find_spec(f"{package}.{MODULE}")
        except ModuleNotFoundError:  # a parent that is not a package
            spec = None
        if spec is not None and f"{package}.{MODULE}" not in found:
            found.append(f"{package}.{MODULE}")
    return found


@cache
def _declared(app_names: tuple[str, ...]) -> tuple[PartitionedTable, ...]:
    tables: dict[str, PartitionedTable] = {}
    for module in _app_modules(app_names):
        # safe: the modules are the installed apps' own partitions.py found above; one without the attribute is an
        # AttributeError at start, and tests/test_partition_declarations.py fails on any partitioned table in the
        # database that no app declares (never a table silently left out of retention or archiving)
        for table in getattr(importlib.import_module(module), ATTRIBUTE):
            if table.table in tables:
                raise ValueError(f"the partitioned table {table.table} is declared twice (the second in {module})")
            tables[table.table] = table
    return tuple(tables.values())


def declared_tables(app_names: Iterable[str] | None = None) -> tuple[PartitionedTable, ...]:
    """Every declared partitioned table, in the order of the apps (``app_names``, by default the settings'
    ``INSTALLED_APPS``) and of each app's ``TABLES``."""
    if app_names is None:
        app_names = settings.INSTALLED_APPS
    return _declared(tuple(app_names))


def declared_table(table: str) -> PartitionedTable:
    for declared in declared_tables():
        if declared.table == table:
            return declared
    raise KeyError(table)


def declared_claims(table: str | None = None) -> tuple[Claim, ...]:
    """The claims of ``table``, or of every declared table."""
    return tuple(c for t in declared_tables() for c in t.claims if table is None or c.table == table)


def declared_month_keys(table: str) -> tuple[MonthKey, ...]:
    """The foreign keys ``table`` declares per month (none for a table no app declares)."""
    return tuple(k for t in declared_tables() if t.table == table for k in t.month_keys)
