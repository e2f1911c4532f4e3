"""Retention of the monthly partitions: the daily job ``core.partitions_archive`` (docs/scaling.md, "Retention").

For each partitioned table its app declares (``<app>/partitions.py``, ``core.partition_tables``; a table whose rows
other declared tables point at after those, :func:`archive_order`) and each of its months whose
retention period (``settings.PARTITION_RETENTION_MONTHS``, never below the legal one) has passed, oldest first, each
month in its own transaction:

* a table whose live rows a check sums against a running total (``summed_by``: the ledger, jackpot contributions,
  settled bets) is archived only through its owning app's carry-forward hook (:func:`carry_forward`, a
  ``core.hooks`` hook the app registers); while the hook is not registered its due months stay and are reported
  ``summed`` (fail closed: archiving them without carrying their totals would change the sums);
* the month is claimed with ``pg_try_advisory_xact_lock``; a month another worker holds is reported ``busy`` and
  left to the next run, one already archived is skipped;
* a month that rows of another table still point at (every foreign key of the models to the table, read from the
  models' fields; a round's actions, the carry-over state of a player's last round) is reported ``referenced`` with
  those tables and stays;
* otherwise, under a ``lock_timeout``: a summed month's partition is locked against writes (``SHARE``), the hook
  records the month's totals in the app's carried-forward table, then ``core.partitioning.partition_archive``
  detaches the month into the ``archive`` schema (no row deleted; the DETACH locks the whole table, a month that
  cannot get a lock in time is ``busy``), and an audit event ``core.partition.archived`` records the table, the
  month, its row count and what was carried. The totals, the DETACH and the audit event commit together or not at
  all: a hook that raises, or a DETACH that fails after it, rolls the month's transaction back (``failed``,
  ``referenced`` or ``busy``), so no total is ever carried for a month that is still live.

A month is due at 00:00 Prague of the day after its last row's period ends (the civil code's count, as
``accounts.retention``): ``archive_due_at``. Ids encode the UTC month the row was written in
(``core.partitioning``), so the month's last row was written just before the next UTC month began.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core import checks
from django.db import IntegrityError, OperationalError, connection, transaction
from django.db.models import Model

from core import clock, partitioning
from core.audit import Actor, audit_record
from core.hooks import Hook, Hooks
from core.partition_tables import PartitionedTable, declared_tables
from core.retention_rules import partition_retention

log = logging.getLogger("platform.retention")

#: the first key of the advisory lock that claims one month (the second is ``hashtext(partition name)``)
LOCK_CLASS = 220_001
#: how long the DETACH may wait for the table's lock before the month is left to the next run
LOCK_TIMEOUT = "5s"

ARCHIVED, REFERENCED, SUMMED, BUSY, FAILED = "archived", "referenced", "summed", "busy", "failed"


@dataclass(frozen=True)
class MonthResult:
    table: str
    partition: str
    month: date
    outcome: str  # ARCHIVED | REFERENCED | SUMMED | BUSY | FAILED
    detail: str = ""  # the referencing tables, the summing check, why it was busy, or the hook's error
    rows: int = 0  # archived rows


# The carry-forward hooks of the summed tables ------------------------------------------------------------------


@dataclass(frozen=True)
class ArchivingMonth:
    """The month a carry-forward hook records: ``table``'s partition ``partition`` holds the ids ``[low, high)``
    of ``month`` (UTC); ``at`` is the job's clock."""

    table: str
    partition: str
    month: date
    low: int
    high: int
    at: datetime


#: a hook reads the month's rows (through the parent table, ``id >= low AND id < high``: the one partition), writes
#: their totals to its app's carried-forward table and returns a summary for the audit event (counts, sums)
CarryForward = Callable[[ArchivingMonth], Mapping[str, int]]


def _carry_forward_signature(month: ArchivingMonth) -> Mapping[str, int]:
    raise NotImplementedError


#: one carry-forward hook per summed declared table (``summed_by``), named by the table; a hook not registered is the
#: warning core.W020 (its table keeps its months past their retention period)
CARRY_FORWARD = Hooks("core.archiving", check_id="core.W020", warning=True)
_CARRY_FORWARD_HOOKS: dict[str, Hook[[ArchivingMonth], Mapping[str, int]]] = {
    rule.table: CARRY_FORWARD.add(
        rule.table,
        f"carry-forward of {rule.table}, summed by {rule.summed_by}: without "
        "it the table keeps its months past their retention period",
        _carry_forward_signature,
    )
    for rule in declared_tables()
    if rule.summed_by
}


def carry_forward(model: type[Model]) -> Hook[[ArchivingMonth], Mapping[str, int]]:
    """The carry-forward hook of a summed partitioned model's table; its owning app registers the implementation in
    its ``AppConfig.ready`` (``carry_forward(Entry).register(archived_totals.carry_entries)``)."""
    table = model._meta.db_table
    try:
        return _CARRY_FORWARD_HOOKS[table]
    except KeyError:
        raise ValueError(
            f"{table} is not a summed partitioned table (its declaration's summed_by, <app>/partitions.py)"
        ) from None


def carry_forward_hook(rule: PartitionedTable) -> CarryForward | None:
    """The registered hook of a summed table, or None (then its months stay)."""
    hook = _CARRY_FORWARD_HOOKS.get(rule.table)
    return hook.implementation if hook is not None and hook.registered else None


def carry_forward_missing() -> list[str]:
    return sorted(CARRY_FORWARD.missing())


def carry_forward_check() -> list[checks.CheckMessage]:
    """core.W020: a declared carry-forward hook is not registered (its table's months are never archived)."""
    return CARRY_FORWARD.check()


class _CarryFailed(Exception):
    """The hook raised: the month's transaction is rolled back by leaving ``atomic`` with this."""


def _add_months(d: date, months: int) -> date:
    """The same day ``months`` later; a day the month lacks becomes its last day (31 March - 1 month: 28/29 Feb)."""
    index = d.month - 1 + months
    year, month = d.year + index // 12, index % 12 + 1
    first_next = date(year + (month == 12), month % 12 + 1, 1)
    return date(year, month, min(d.day, (first_next - timedelta(days=1)).day))


def archive_due_at(index: int, months: int) -> datetime:
    """The first instant month ``index``'s partition may be archived: its last possible row was written just before
    the next UTC month began; that row's period of ``months`` months ends at the end of the Prague day corresponding
    to the day it was written (civil code 89/2012 Sb. §605(2)), so the month is due at 00:00 Prague of the next day."""
    last = datetime.combine(partitioning.month_of(index + 1), time.min, tzinfo=UTC) - timedelta(microseconds=1)
    end_day = _add_months(clock.local(last).date(), months)
    return datetime.combine(end_day + timedelta(days=1), time.min, tzinfo=clock.PRAGUE).astimezone(UTC)


def references(table: str) -> list[tuple[str, str]]:
    """``(table, column)`` of every model field that points at a row of ``table`` (foreign keys and one-to-ones of
    the installed models, with or without a database constraint)."""
    found = set()
    for model in apps.get_models(include_auto_created=True):
        opts = model._meta
        if opts.proxy or not opts.managed:
            continue
        for field in opts.concrete_fields:
            related = field.related_model
            if (
                field.is_relation
                and (field.many_to_one or field.one_to_one)
                and isinstance(related, type)
                and related._meta.db_table == table
            ):
                found.add((opts.db_table, field.column))
    return sorted(found)


def archive_order(tables: tuple[PartitionedTable, ...]) -> list[PartitionedTable]:
    """``tables`` in the order the job archives them: a table whose rows the rows of another declared table point at
    after that table (from the models' foreign keys and the declared month keys: a month of the ledger's entries
    before the same month of their transactions; the entries of a transaction are written in its database
    transaction, so in its month, and a transactions month whose entries are live is ``referenced``); otherwise in
    the declarations' order."""
    names = {t.table for t in tables}
    referencing = {
        t.table: {other for other, _column in references(t.table) if other in names and other != t.table}
        | {other.table for other in tables for key in other.month_keys if key.references == t.table}
        for t in tables
    }
    ordered: list[PartitionedTable] = []
    remaining = list(tables)
    while remaining:
        done = {t.table for t in ordered}
        ready = [t for t in remaining if referencing[t.table] <= done] or remaining[:1]  # a cycle: the declared order
        ordered.append(ready[0])
        remaining.remove(ready[0])
    return ordered


def _one(sql: str, params: list[int | str]) -> Any:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return row[0] if row else None


def _referencing(table: str, low: int, high: int) -> list[str]:
    """The ``table.column``s of :func:`references` with a row pointing into ``[low, high)``."""
    q = connection.ops.quote_name
    return [
        f"{t}.{c}"
        for t, c in references(table)
        if _one(f"SELECT EXISTS (SELECT 1 FROM {q(t)} WHERE {q(c)} >= %s AND {q(c)} < %s)", [low, high])
    ]


def months_due(table: str, months: int, now: datetime) -> list[tuple[str, int]]:
    """``(partition, month index)`` of ``table``'s month partitions due at ``now``, oldest first (the legacy
    partition of rows written before the conversion is not a month and never due)."""
    out = []
    for name, _estimate in partitioning.partitions(connection, table):
        index = partitioning.partition_month(table, name)
        if index is not None and archive_due_at(index, months) <= now:
            out.append((name, index))
    return sorted(out, key=lambda item: item[1])


def _archive_month(
    rule: PartitionedTable, name: str, index: int, months: int, carry: CarryForward | None = None
) -> MonthResult | None:
    month = partitioning.month_of(index)
    q = connection.ops.quote_name
    try:
        with transaction.atomic():
            if not _one("SELECT pg_try_advisory_xact_lock(%s, hashtext(%s))", [LOCK_CLASS, name]):
                return MonthResult(rule.table, name, month, BUSY, "another worker holds the month")
            if name not in {n for n, _ in partitioning.partitions(connection, rule.table)}:
                return None  # archived by another worker since the list was read
            low, high = partitioning.month_range(index)
            referencing = _referencing(rule.table, low, high)
            if referencing:
                return MonthResult(rule.table, name, month, REFERENCED, ", ".join(referencing))
            with connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
            carried: dict[str, int] | None = None
            if carry is not None:
                with connection.cursor() as cursor:  # the month's rows cannot change between the hook and the DETACH
                    cursor.execute(f"LOCK TABLE {q(name)} IN SHARE MODE")
                try:
                    carried = dict(carry(ArchivingMonth(rule.table, name, month, low, high, clock.now())))
                except OperationalError:
                    raise  # a lock not granted in time: busy
                except Exception as exc:  # its own refusal, a bug, a month carried already (a unique key)
                    raise _CarryFailed(f"{rule.table}: {type(exc).__name__}: {exc}") from exc
            rows = int(_one(f"SELECT count(*) FROM {q(name)}", []))
            archived = partitioning.partition_archive(connection, rule.table, name)
            extra: dict[str, Any] = {"carried": carried} if carried is not None else {}
            audit_record(
                actor=Actor.system("partitions_archive"),
                action="core.partition.archived",
                object_type="partition",
                object_id=name,
                table=rule.table,
                month=month.isoformat(),
                rows=rows,
                archive=archived,
                retention_months=months,
                **extra,
            )
            return MonthResult(rule.table, name, month, ARCHIVED, archived, rows)
    except OperationalError as exc:  # a lock not granted within LOCK_TIMEOUT
        return MonthResult(rule.table, name, month, BUSY, str(exc).strip())
    except IntegrityError as exc:  # a foreign key the models do not declare
        return MonthResult(rule.table, name, month, REFERENCED, str(exc).strip())
    except _CarryFailed as exc:
        log.exception("the carry-forward of %s failed; the month stays", name)
        return MonthResult(rule.table, name, month, FAILED, str(exc))


def partitions_archive_due(*, now: datetime | None = None) -> list[MonthResult]:
    """Archive every month past its table's retention period that nothing references, a summed table's only
    through its registered carry-forward hook (module docstring); one result per due month, archived or not, with
    the reason it stays."""
    now = now or clock.now()
    retention = partition_retention(
        dict(settings.PARTITION_RETENTION_MONTHS),
        audit_years=settings.AUDIT_RETENTION_YEARS,
        audit_aml_years=settings.AUDIT_RETENTION_AML_YEARS,
    )
    results: list[MonthResult] = []
    for rule in archive_order(declared_tables()):
        if not partitioning.is_partitioned(connection, rule.table):
            continue
        months = retention[rule.table]
        carry = carry_forward_hook(rule)
        for name, index in months_due(rule.table, months, now):
            if rule.summed_by and carry is None:  # fail closed: never archived without its totals carried
                results.append(
                    MonthResult(
                        rule.table,
                        name,
                        partitioning.month_of(index),
                        SUMMED,
                        f"{rule.summed_by}; carry-forward hook {rule.table!r} not registered",
                    )
                )
                continue
            result = _archive_month(rule, name, index, months, carry)
            if result is not None:
                results.append(result)
    for r in results:
        if r.outcome == ARCHIVED:
            log.info("archived %s (%s, %s rows) as %s", r.partition, r.table, r.rows, r.detail)
        else:
            log.warning("kept %s past its retention period: %s (%s)", r.partition, r.outcome, r.detail)
    return results
