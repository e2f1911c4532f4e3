"""Monthly partitions of the append-only tables (PostgreSQL declarative partitioning; docs/scaling.md).

The partition key is the primary key itself. A new row's id encodes the month it is written in::

    id = (months since 2020-01, UTC) << 40 | (nextval(<table>_id_seq) & (2^40 - 1))

(``platform_month_id(sequence)``, the column default made by ``core/migrations/0006_month_ids.py``), and the table is
``PARTITION BY RANGE (id)`` with one partition per month, ``[m << 40, (m + 1) << 40)``. So ``PRIMARY KEY (id)`` is
a valid unique key across all partitions, every foreign key that references these tables keeps working, a lookup
by id touches one partition, and the month a row was written in is its id's high bits. The month is the database's
clock at insert (``now()``, the transaction's start), which in production is the row's ``created_at`` to within a
transaction's length; tests that move the application's clock (time-machine) move ``created_at`` but not the id.

Each other uniqueness the platform relies on either includes the partition key or moves to a small non-partitioned
*claim table* holding the unique index under the constraint's original name, written by a trigger in the same
statement as the row (so no extra statement and the same ``IntegrityError`` with the same constraint name): each
table's owning app declares them with the table (``<app>/partitions.py``, ``core/partition_tables.py``). Rows of a
table that was converted with data in it stay in one ``<table>_p_legacy`` partition (ids below the first month's
range), attached without copying.

New partitions are made ahead (:func:`partitions_ensure`, ``MONTHS_AHEAD`` months) after every ``migrate``
(``core.apps``) and by the hourly job ``core.partitions_ensure`` (``core/schedules.py``). Retention never deletes
rows: :func:`partition_archive` detaches a month's partition and moves it to the ``archive`` schema (dump it with
``pg_dump -n archive``, then drop it there); the daily job ``core.partitions_archive`` (core/archiving.py) calls it for
the months past each table's retention period.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db import IntegrityError
from django.db.backends.base.base import BaseDatabaseWrapper

from core.partition_tables import Claim, MonthKey, declared_claims, declared_month_keys

EPOCH_YEAR = 2020
MONTH_BITS = 40
MONTHS_AHEAD = 3
ARCHIVE_SCHEMA = "archive"
LEGACY = "p_legacy"

MONTH_ID_FUNCTION = f"""
CREATE OR REPLACE FUNCTION platform_month_index(at timestamptz) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ((extract(year FROM at AT TIME ZONE 'UTC')::bigint - {EPOCH_YEAR}) * 12
            + extract(month FROM at AT TIME ZONE 'UTC')::bigint - 1)
$$;
CREATE OR REPLACE FUNCTION platform_month_id(seq regclass) RETURNS bigint
LANGUAGE sql VOLATILE PARALLEL UNSAFE AS $$
    SELECT (platform_month_index(now()) << {MONTH_BITS}) | (nextval(seq) & ((1::bigint << {MONTH_BITS}) - 1))
$$;
"""


def month_index(d: date) -> int:
    return (d.year - EPOCH_YEAR) * 12 + d.month - 1


def month_of(index: int) -> date:
    return date(EPOCH_YEAR + index // 12, index % 12 + 1, 1)


def month_range(index: int) -> tuple[int, int]:
    """The ids of one month's partition: ``[index << 40, (index + 1) << 40)``."""
    return index << MONTH_BITS, (index + 1) << MONTH_BITS


def partition_name(table: str, index: int) -> str:
    return f"{table}_p{month_of(index):%Y%m}"


def _rows(conn: BaseDatabaseWrapper, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    with conn.cursor() as cursor:
        cursor.execute(sql, params or [])
        return list(cursor.fetchall()) if cursor.description else []


def _exec(conn: BaseDatabaseWrapper, sql: str, params: list[Any] | None = None) -> None:
    with conn.cursor() as cursor:
        cursor.execute(sql, params)


def _current_month(conn: BaseDatabaseWrapper) -> int:
    return int(_rows(conn, "SELECT platform_month_index(now())")[0][0])


def is_partitioned(conn: BaseDatabaseWrapper, table: str) -> bool:
    return bool(_rows(conn, "SELECT 1 FROM pg_partitioned_table WHERE partrelid = to_regclass(%s)", [table]))


def partitioned_tables(conn: BaseDatabaseWrapper) -> list[str]:
    return [
        r[0]
        for r in _rows(
            conn,
            """
        SELECT c.relname FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid
        WHERE c.relnamespace = 'public'::regnamespace ORDER BY 1""",
        )
    ]


def _claim_sql(claim: Claim, types: dict[str, str]) -> list[str]:
    """The claim table of ``claim``, its indexes and its rows (its upkeep: :func:`claims_trigger_sql`)."""
    t, cols = claim.claim_table, claim.columns
    col_list = ", ".join(cols)
    return [
        f"CREATE TABLE {t} ({', '.join(f'{c} {types[c]}' for c in cols)}, row_id bigint NOT NULL)",
        f"CREATE UNIQUE INDEX {claim.name} ON {t} ({col_list})",
        f"CREATE INDEX {t[:55]}_row ON {t} (row_id)",
        f"INSERT INTO {t} ({col_list}, row_id) SELECT {col_list}, id FROM {claim.table}"
        + (f" WHERE {claim.condition(claim.table)}" if claim.where else ""),
    ]


def claims_function(table: str) -> str:
    """The trigger function that keeps every claim of ``table`` (at most 63 characters, PostgreSQL's limit)."""
    return f"{table}_claims_keep"[:63]


def claims_trigger_sql(table: str, claims: tuple[Claim, ...]) -> list[str]:
    """One function for all the claims of ``table`` and its two triggers: a row trigger ``AFTER INSERT OR DELETE
    [OR UPDATE OF <the watched columns>]`` and a statement trigger ``AFTER TRUNCATE``. One call per row written
    whatever the number of claims (a round's insert called one function per claim, the one-open-round claim's
    doing nothing for a round inserted already finished). The claims are written in the order of their claim
    tables' names, the order in which their triggers fired when each claim had its own, so a row that breaks two
    gets the same error. An update moves a watched claim when the row enters or leaves its condition; a condition
    that is NULL counts as false. No ``WHEN`` on the triggers: PostgreSQL 15 reads a trigger's ``WHEN`` from its
    text and prepares it again for every statement that writes the table, which cost a settled round more than the
    call it saved (docs/bench.md "The backend's instructions per round")."""
    claims = tuple(sorted(claims, key=lambda c: c.claim_table))
    fn = claims_function(table)
    on_insert, on_update, on_delete = [], [], []
    for claim in claims:
        t, cols = claim.claim_table, claim.columns
        col_list = ", ".join(cols)
        insert = f"INSERT INTO {t} ({col_list}, row_id) VALUES ({', '.join(f'NEW.{c}' for c in cols)}, NEW.id);"
        cond_new, cond_old = claim.condition("NEW"), claim.condition("OLD")
        on_insert.append(
            f"IF ({cond_new}) IS TRUE THEN\n            {insert}\n        END IF;" if claim.where else insert
        )
        if claim.watch:
            on_update.append(
                f"""IF ({cond_old}) IS TRUE AND ({cond_new}) IS NOT TRUE THEN
            DELETE FROM {t} WHERE row_id = OLD.id;
        ELSIF ({cond_new}) IS TRUE AND ({cond_old}) IS NOT TRUE THEN
            {insert}
        END IF;"""
            )
        on_delete.append(f"DELETE FROM {t} WHERE row_id = OLD.id AND {' AND '.join(f'{c} = OLD.{c}' for c in cols)};")
    watched = sorted({c for claim in claims for c in claim.watch})
    body_update = ("\n    ELSIF TG_OP = 'UPDATE' THEN\n        " + "\n        ".join(on_update)) if on_update else ""
    events = "INSERT OR DELETE" + (f" OR UPDATE OF {', '.join(watched)}" if watched else "")
    indent, names = "\n        ", ", ".join(c.name for c in claims)
    return [
        f"""CREATE OR REPLACE FUNCTION {fn}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- {table}: the unique claims {names} (core/partitioning.py), in the row's own statement
    IF TG_OP = 'INSERT' THEN
        {indent.join(on_insert)}{body_update}
    ELSIF TG_OP = 'DELETE' THEN
        {indent.join(on_delete)}
    ELSIF TG_OP = 'TRUNCATE' THEN
        TRUNCATE {", ".join(c.claim_table for c in claims)};
    END IF;
    RETURN NULL;
END $$""",
        f"CREATE TRIGGER {fn} AFTER {events} ON {table} FOR EACH ROW EXECUTE FUNCTION {fn}()",
        f"CREATE TRIGGER {fn[:55]}_trunc AFTER TRUNCATE ON {table} FOR EACH STATEMENT EXECUTE FUNCTION {fn}()",
    ]


def claim_triggers_install(conn: BaseDatabaseWrapper, table: str, claims: tuple[Claim, ...] | None = None) -> None:
    """The claims of ``table`` (its declaration, or ``claims`` when given) kept by the one function and triggers of
    :func:`claims_trigger_sql`, in place of the function and two triggers per claim that the first partitioned
    tables were made with (``<claim table>_keep``, ``<claim table>_keep_trunc``), which are dropped. A row trigger of
    the partitioned table is cloned to each partition, the attached ones and the months made later. For the
    migration that changes them; safe to run twice."""
    claims = declared_claims(table) if claims is None else claims
    fn = claims_function(table)
    for claim in claims:
        old = f"{claim.claim_table}_keep"[:63]
        _exec(conn, f'DROP TRIGGER IF EXISTS "{old}" ON {table}')
        _exec(conn, f'DROP TRIGGER IF EXISTS "{old[:55]}_trunc" ON {table}')
        _exec(conn, f'DROP FUNCTION IF EXISTS "{old}"()')
    _exec(conn, f'DROP TRIGGER IF EXISTS "{fn}" ON {table}')
    _exec(conn, f'DROP TRIGGER IF EXISTS "{fn[:55]}_trunc" ON {table}')
    if claims:
        for statement in claims_trigger_sql(table, claims):
            _exec(conn, statement)


@dataclass
class _Shape:
    """What a table has, read from the catalogue before it is converted."""

    last_id: int
    identity_seq: str | None
    types: dict[str, str]
    indexes: list[tuple[Any, ...]]  # (name, definition, primary, unique, constraint name or None)
    triggers: list[tuple[str, str]]  # (name, definition)
    fks_in: list[tuple[str, str, str]]  # (referencing table, name, definition)
    fks_out: list[tuple[str, str]]  # (name, definition)


def _shape(conn: BaseDatabaseWrapper, table: str) -> _Shape:
    last = int(_rows(conn, f"SELECT coalesce(max(id), 0) FROM {table}")[0][0])
    identity_seq = _rows(conn, "SELECT pg_get_serial_sequence(%s, 'id')", [table])[0][0]
    if identity_seq:
        last = max(last, int(_rows(conn, f"SELECT last_value FROM {identity_seq}")[0][0]))
    return _Shape(
        last_id=last,
        identity_seq=identity_seq,
        types=dict(
            _rows(
                conn,
                """SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
                                  WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped""",
                [table],
            )
        ),
        indexes=_rows(
            conn,
            """
            SELECT i.relname, pg_get_indexdef(x.indexrelid), x.indisprimary, x.indisunique,
                   (SELECT conname FROM pg_constraint WHERE conindid = x.indexrelid AND conrelid = x.indrelid)
            FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = %s::regclass""",
            [table],
        ),
        triggers=[
            (r[0], r[1])
            for r in _rows(
                conn,
                """SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger
                                                     WHERE tgrelid = %s::regclass AND NOT tgisinternal""",
                [table],
            )
        ],
        fks_in=[
            (r[0], r[1], r[2])
            for r in _rows(
                conn,
                """
            SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint
            WHERE confrelid = %s::regclass AND contype = 'f' AND conparentid = 0""",
                [table],
            )
        ],
        fks_out=[
            (r[0], r[1])
            for r in _rows(
                conn,
                """
            SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
            WHERE conrelid = %s::regclass AND contype = 'f' AND conparentid = 0""",
                [table],
            )
        ],
    )


def _set_aside(conn: BaseDatabaseWrapper, table: str, shape: _Shape, claimed: set[str]) -> str:
    """The old table becomes the future legacy partition: its triggers and the foreign keys pointing at it
    dropped (recreated on the parent), the claimed unique indexes dropped, the rest renamed out of the way."""
    legacy = f"{table}_{LEGACY}"
    for other, name, _ in shape.fks_in:
        _exec(conn, f'ALTER TABLE {other} DROP CONSTRAINT "{name}"')
    for name, _ in shape.triggers:
        _exec(conn, f'DROP TRIGGER "{name}" ON {table}')
    if shape.identity_seq:
        _exec(conn, f"ALTER TABLE {table} ALTER COLUMN id DROP IDENTITY")
    for name, _definition, _primary, _unique, constraint in shape.indexes:
        if name in claimed:
            _exec(conn, f'ALTER TABLE {table} DROP CONSTRAINT "{name}"' if constraint else f'DROP INDEX "{name}"')
        elif constraint:
            _exec(conn, f'ALTER TABLE {table} RENAME CONSTRAINT "{constraint}" TO "{name[:52]}_{LEGACY}"')
        else:
            _exec(conn, f'ALTER INDEX "{name}" RENAME TO "{name[:52]}_{LEGACY}"')
    _exec(conn, f"ALTER TABLE {table} RENAME TO {legacy}")
    return legacy


def _build_parent(
    conn: BaseDatabaseWrapper, table: str, legacy: str, shape: _Shape, claimed: set[str], month: int
) -> None:
    seq = f"{table}_id_seq"
    _exec(conn, f"CREATE SEQUENCE {seq} AS bigint START WITH {max(shape.last_id + 1, month_range(month)[0])}")
    _exec(
        conn,
        f"""CREATE TABLE {table} (LIKE {legacy} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE
                    INCLUDING GENERATED INCLUDING COMMENTS) PARTITION BY RANGE (id)""",
    )
    _exec(conn, f"ALTER TABLE {table} ALTER COLUMN id SET DEFAULT platform_month_id('{seq}')")
    _exec(conn, f"ALTER SEQUENCE {seq} OWNED BY {table}.id")
    for name, definition, primary, unique, constraint in shape.indexes:
        if name in claimed:
            continue
        if primary:
            _exec(conn, f'ALTER TABLE {table} ADD CONSTRAINT "{constraint}" PRIMARY KEY (id)')
        elif constraint or unique:
            raise ValueError(
                f"{table}.{name}: a unique index without the partition key needs a Claim "
                "(the table's declaration in its app's partitions.py)"
            )
        else:
            _exec(conn, definition)  # CREATE INDEX <name> ON public.<table> ...: now the partitioned parent
    for name, definition in shape.fks_out:
        _exec(conn, f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')


def convert(conn: BaseDatabaseWrapper, table: str, claims: tuple[Claim, ...] | None = None) -> None:
    """Turn ``table`` (an ordinary table with a ``bigint`` identity ``id``) into a table partitioned by month ids,
    keeping its rows (attached as ``<table>_p_legacy``, no copy), its sequence position, indexes, checks, foreign
    keys both ways and triggers, and moving the uniquenesses of its declaration (``<app>/partitions.py``, or
    ``claims`` when given) to claim tables (filled from the rows). Runs inside the migration's transaction."""
    if is_partitioned(conn, table):
        return
    claims = tuple(c for c in (declared_claims(table) if claims is None else claims) if c.table == table)
    claimed = {c.name for c in claims}
    month = _current_month(conn)
    shape = _shape(conn, table)
    legacy = _set_aside(conn, table, shape, claimed)
    _build_parent(conn, table, legacy, shape, claimed, month)
    # the legacy rows' ids are the old sequence's, all below any month's range; their indexes and foreign keys are
    # attached as the parent's (equivalent ones are matched, not rebuilt)
    _exec(conn, f"ALTER TABLE {table} ATTACH PARTITION {legacy} FOR VALUES FROM (MINVALUE) TO ({shape.last_id + 1})")
    for other, name, definition in shape.fks_in:
        _exec(conn, f'ALTER TABLE {other} ADD CONSTRAINT "{name}" {definition}')
    for _name, definition in shape.triggers:
        _exec(conn, definition)  # CREATE [CONSTRAINT] TRIGGER ... ON public.<table>: cloned to every partition
    for claim in claims:
        for statement in _claim_sql(claim, shape.types):
            _exec(conn, statement)
    if claims:
        for statement in claims_trigger_sql(table, claims):
            _exec(conn, statement)
    ensure(conn, table, month, MONTHS_AHEAD)


def ensure(conn: BaseDatabaseWrapper, table: str, first: int, ahead: int) -> list[str]:
    """The month partitions ``first`` .. ``first + ahead`` of ``table``, made where missing; their names. A month
    made of a table that declares month keys (``core.partition_tables.MonthKey``) gets them: the referenced table's
    same month first (made where missing, among the names returned), then the key, on the empty new month."""
    made = []
    existing = {
        r[0]
        for r in _rows(
            conn,
            """SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                                             WHERE i.inhparent = %s::regclass""",
            [table],
        )
    }
    keys = declared_month_keys(table)
    for index in range(first, first + ahead + 1):
        name = partition_name(table, index)
        if name in existing:
            continue
        for key in keys:
            made += ensure(conn, key.references, index, 0)
        low, high = month_range(index)
        _exec(conn, f"CREATE TABLE IF NOT EXISTS {name} PARTITION OF {table} FOR VALUES FROM ({low}) TO ({high})")
        for key in keys:
            _exec(conn, month_key_sql(name, key, partition_name(key.references, index)))
        made.append(name)
    return made


def month_key_sql(partition: str, key: MonthKey, referenced: str, *, valid: bool = True) -> str:
    """The statement that adds ``key`` to ``partition``, referencing the partition ``referenced``; not ``valid``:
    checked for new rows only until ``VALIDATE CONSTRAINT`` (:func:`month_keys_unvalidated`)."""
    return (
        f'ALTER TABLE {partition} ADD CONSTRAINT "{key.name(partition)}" FOREIGN KEY ({", ".join(key.columns)}) '
        f"REFERENCES {referenced} ({', '.join(key.referenced_columns)}) DEFERRABLE INITIALLY DEFERRED"
        + ("" if valid else " NOT VALID")
    )


def month_key_partner(table: str, partition: str, key: MonthKey) -> str | None:
    """The partition of ``key.references`` that ``table``'s partition ``partition`` references: the same month's,
    or the legacy partition's for the legacy partition; None for another name."""
    if partition == f"{table}_{LEGACY}":
        return f"{key.references}_{LEGACY}"
    index = partition_month(table, partition)
    return None if index is None else partition_name(key.references, index)


def month_keys_missing(conn: BaseDatabaseWrapper, table: str, keys: tuple[MonthKey, ...]) -> list[tuple[str, str]]:
    """``(partition, constraint name)`` of each attached partition of ``table`` (its months and its legacy
    partition) without its key of ``keys``."""
    present = {
        (r[0], r[1])
        for r in _rows(
            conn,
            """
            SELECT c.conrelid::regclass::text, c.conname
            FROM pg_constraint c JOIN pg_inherits i ON i.inhrelid = c.conrelid
            WHERE i.inhparent = %s::regclass AND c.contype = 'f'""",
            [table],
        )
    }
    return [
        (partition, key.name(partition))
        for partition, _estimate in partitions(conn, table)
        for key in keys
        if month_key_partner(table, partition, key) and (partition, key.name(partition)) not in present
    ]


def month_keys_add(
    conn: BaseDatabaseWrapper, table: str, keys: tuple[MonthKey, ...], *, valid: bool = True
) -> list[str]:
    """``keys`` added to each attached partition of ``table`` that lacks them (``valid``: each reads its month
    once under a lock that holds writes off; not: at once, the rows checked later), the referenced month made where
    missing; the constraints added. For the migration that declares them."""
    added = []
    for partition, constraint in month_keys_missing(conn, table, keys):
        for key in keys:
            if key.name(partition) != constraint:
                continue
            referenced = month_key_partner(table, partition, key)
            index = partition_month(table, partition)
            if index is not None:
                ensure(conn, key.references, index, 0)
            _exec(conn, month_key_sql(partition, key, str(referenced), valid=valid))
            added.append(constraint)
    return added


def month_keys_unvalidated(conn: BaseDatabaseWrapper, table: str, keys: tuple[MonthKey, ...]) -> list[tuple[str, str]]:
    """``(partition, constraint name)`` of each key of ``keys`` on an attached partition of ``table`` added
    ``NOT VALID`` and not validated yet."""
    names = {(partition, key.name(partition)) for partition, _estimate in partitions(conn, table) for key in keys}
    return [
        (r[0], r[1])
        for r in _rows(
            conn,
            """
            SELECT c.conrelid::regclass::text, c.conname
            FROM pg_constraint c JOIN pg_inherits i ON i.inhrelid = c.conrelid
            WHERE i.inhparent = %s::regclass AND c.contype = 'f' AND NOT c.convalidated ORDER BY 1, 2""",
            [table],
        )
        if (r[0], r[1]) in names
    ]


def month_keys_drop(conn: BaseDatabaseWrapper, table: str, keys: tuple[MonthKey, ...]) -> None:
    """``keys`` dropped from every attached partition of ``table`` (the reverse of :func:`month_keys_add`)."""
    for partition, _estimate in partitions(conn, table):
        for key in keys:
            _exec(conn, f'ALTER TABLE {partition} DROP CONSTRAINT IF EXISTS "{key.name(partition)}"')


def partitions_ensure(conn: BaseDatabaseWrapper, *, ahead: int = MONTHS_AHEAD) -> list[str]:
    """This month's partition and ``ahead`` more of every partitioned table, made where missing (idempotent)."""
    if not _rows(conn, "SELECT to_regprocedure('platform_month_index(timestamptz)')")[0][0]:
        return []  # not migrated this far yet
    month = _current_month(conn)
    made: list[str] = []
    for table in partitioned_tables(conn):
        made += ensure(conn, table, month, ahead)
        sequence_advance(conn, table, month)
    return made


def sequence_advance(conn: BaseDatabaseWrapper, table: str, month: int) -> None:
    """Move ``<table>_id_seq`` up to this month's base when it is below it (never down). The id default
    (``platform_month_id``) encodes the month itself; this makes a plain ``nextval`` of the sequence (the round's
    id, pre-allocated by the round's first statement) fall in this month's range too, from the job's first run in
    the month on."""
    base = month_range(month)[0]
    seq = _rows(conn, "SELECT pg_get_serial_sequence(%s, 'id')", [table])[0][0]
    if seq and int(_rows(conn, f"SELECT last_value FROM {seq}")[0][0]) < base:
        _exec(conn, "SELECT setval(%s, %s, false)", [seq, base])


def partitions_missing(conn: BaseDatabaseWrapper, *, months: int = 2) -> list[str]:
    """The partitions of this month and the next ``months - 1`` that do not exist, and the declared month keys
    that an attached partition lacks (by constraint name: a month made around ``ensure``), for ``/health``."""
    if not _rows(conn, "SELECT to_regprocedure('platform_month_index(timestamptz)')")[0][0]:
        return []
    month = _current_month(conn)
    missing = []
    for table in partitioned_tables(conn):
        existing = {name for name, _ in partitions(conn, table)}
        missing += [
            partition_name(table, m) for m in range(month, month + months) if partition_name(table, m) not in existing
        ]
        if keys := declared_month_keys(table):
            missing += [constraint for _partition, constraint in month_keys_missing(conn, table, keys)]
    return missing


def partitions(conn: BaseDatabaseWrapper, table: str) -> list[tuple[str, int]]:
    """``(partition, rows estimate)`` of ``table``, oldest first."""
    return [
        (r[0], int(r[1]))
        for r in _rows(
            conn,
            """
        SELECT c.relname, greatest(c.reltuples, 0)::bigint FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = %s::regclass ORDER BY c.relname""",
            [table],
        )
    ]


def partition_archive(conn: BaseDatabaseWrapper, table: str, partition: str, schema: str = ARCHIVE_SCHEMA) -> str:
    """Retention without deleting a row: detach ``partition`` from ``table`` and move it to ``schema`` (dump it
    from there with ``pg_dump -n archive``). PostgreSQL refuses to detach a partition whose rows are still
    referenced by a foreign key to ``table`` (a deposit pointing at a ledger transaction): those stay until the
    referencing rows are archived too. A key declared per month (``core.partition_tables.MonthKey``) references the
    partition itself, which PostgreSQL would let go (the key would point into the archive): a partition that an
    attached partition references is refused here (``IntegrityError``, nothing changed), so the referencing month
    is archived first. The archived table keeps its indexes and its foreign keys, except those pointing at a
    partitioned table or at a partition of one (dropped, so that table's month can be archived in its turn).
    Returns the archived table's qualified name."""
    if partition not in {name for name, _ in partitions(conn, table)}:
        raise ValueError(f"{partition} is not a partition of {table}")
    bounds = _rows(conn, "SELECT pg_get_expr(relpartbound, oid) FROM pg_class WHERE oid = %s::regclass", [partition])[
        0
    ][0]
    match = re.fullmatch(r"FOR VALUES FROM \('?(-?\d+|MINVALUE)'?\) TO \('?(-?\d+)'?\)", bounds or "")
    if match is None:
        raise ValueError(f"{partition}: not a range of ids ({bounds})")
    low, high = (-(2**63) if match[1] == "MINVALUE" else int(match[1])), int(match[2])
    referencing = _rows(
        conn,
        """
        SELECT c.conrelid::regclass::text, c.conname FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid
        WHERE c.confrelid = %s::regclass AND c.contype = 'f' AND r.relispartition ORDER BY 1, 2""",
        [partition],
    )
    if referencing:
        raise IntegrityError(
            f"{partition} is referenced by the attached partition {referencing[0][0]} (its foreign key "
            f"{referencing[0][1]}): that month is archived first"
        )
    _exec(conn, f"CREATE SCHEMA IF NOT EXISTS {schema}")
    for claim in declared_claims(table):
        # the claims are an index of the live rows, not a record: they leave with the archived month. Deleted before
        # the DETACH, which locks the whole table (ACCESS EXCLUSIVE) until the transaction ends: a month's claims
        # may be millions of rows, and nothing else touches them (no new row has an id in a past month)
        _exec(conn, f"DELETE FROM {claim.claim_table} WHERE row_id >= %s AND row_id < %s", [low, high])
    _exec(conn, f"ALTER TABLE {table} DETACH PARTITION {partition}")
    _exec(conn, f"ALTER TABLE {partition} SET SCHEMA {schema}")
    # the archived rows keep their foreign keys, except those to another partitioned table or to a partition of one
    # (a month key): that table's month would stay referenced by the archive forever (archived entries pointing at
    # their transactions' month); the references were enforced while both were live, and archived rows never change
    for (name,) in _rows(
        conn,
        """
            SELECT c.conname FROM pg_constraint c JOIN pg_class r ON r.oid = c.confrelid
            WHERE c.conrelid = %s::regclass AND c.contype = 'f' AND c.conparentid = 0
              AND (r.relkind = 'p' OR r.relispartition)""",
        [f"{schema}.{partition}"],
    ):
        _exec(conn, f'ALTER TABLE {schema}.{partition} DROP CONSTRAINT "{name}"')
    return f"{schema}.{partition}"


def archived_months(conn: BaseDatabaseWrapper, table: str) -> set[int]:
    """The month indexes of ``table``'s partitions moved to the archive schema (:func:`partition_archive`)."""
    rows = _rows(
        conn,
        """
        SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = %s AND c.relkind IN ('r', 'p') AND c.relname LIKE %s""",
        [ARCHIVE_SCHEMA, table.replace("_", r"\_") + r"\_p%"],
    )
    return {m for (name,) in rows if (m := partition_month(table, name)) is not None}


def partitions_older_than(conn: BaseDatabaseWrapper, table: str, months: int) -> list[str]:
    """The month partitions of ``table`` that end more than ``months`` months before this month (the legacy
    partition is not among them: its rows' months are not in their ids)."""
    limit = _current_month(conn) - months
    out = []
    for name, _rows_estimate in partitions(conn, table):
        index = partition_month(table, name)
        if index is not None and index < limit:
            out.append(name)
    return out


def partition_month(table: str, partition: str) -> int | None:
    """The month index of ``table``'s month partition ``partition`` (``<table>_pYYYYMM``); None for another name
    (the legacy partition)."""
    match = re.fullmatch(rf"{re.escape(table)}_p(\d{{4}})(\d{{2}})", partition)
    return month_index(date(int(match[1]), int(match[2]), 1)) if match else None


def claims_refill(conn: BaseDatabaseWrapper) -> dict[str, int]:
    """The claims of rows written with triggers off (a bulk load with ``session_replication_role = replica``, as
    ``scripts/bench_data.py`` does): inserted where missing, so the uniqueness covers those rows too; the count
    added per claim table. A row whose key another row already claims makes it fail (a duplicate the load
    introduced)."""
    added = {}
    for claim in declared_claims():
        if not is_partitioned(conn, claim.table):
            continue
        cols = ", ".join(claim.columns)
        cond = f"{claim.condition('t')} AND " if claim.where else ""
        with conn.cursor() as cursor:
            cursor.execute(f"""INSERT INTO {claim.claim_table} ({cols}, row_id)
                               SELECT {cols}, t.id FROM {claim.table} t
                               WHERE {cond}NOT EXISTS (SELECT 1 FROM {claim.claim_table} c WHERE c.row_id = t.id)""")
            added[claim.claim_table] = cursor.rowcount
    return added
