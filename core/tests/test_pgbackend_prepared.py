"""The hot statements bound at the protocol level (core/pgbackend/prepared.py): the same rows as their ``EXECUTE``
text for every parameter type and value, the ``EXECUTE`` text where a value is not of its declared type, errors as
Django raises them, the query log as before, and the psycopg internals it needs present."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import psycopg
import pytest
from django.db import DatabaseError, DataError, IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from core import sql as core_sql
from core.pgbackend import prepared
from core.pgbackend.prepared import PreparedSQL, internals_present

pytestmark = pytest.mark.django_db(transaction=True)

#: a statement with a parameter of every declared type the registry gives (``unknown``: inferred from its place)
TYPES_SQL = "SELECT %(i)s AS i, %(b)s AS b, %(t)s AS t, %(d)s AS d, %(s)s AS s, %(u)s::numeric AS u, %(i)s + 1 AS again"
TYPES = {"i": int, "b": bool, "t": datetime, "d": date, "s": str, "u": (int, str)}


@pytest.fixture
def observer() -> Iterator[psycopg.Cursor[Any]]:
    """A second connection, to read what the tested backend last ran (``pg_stat_activity``)."""
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as raw, raw.cursor() as cur:
        yield cur


def _prepare(name: str, sql: str, types: dict[str, Any]) -> PreparedSQL:
    """``sql`` prepared on the default connection as ``core.sql`` prepares a hot statement; its ``PreparedSQL``."""
    pname, prepare_sql, execute_sql = core_sql._prepared_forms(name, sql, types)
    connection.ensure_connection()
    with connection.connection.cursor() as raw:
        raw.execute("DEALLOCATE ALL")
        raw.execute(prepare_sql)
    declared = {n: core_sql._pg_type(types.get(n)) for n in core_sql._PARAM.findall(sql)}
    return PreparedSQL.of(pname, execute_sql, declared)


def _run(query: str, params: dict[str, Any]) -> tuple[Any, ...]:
    with connection.cursor() as cur:
        cur.execute(query, params)
        return tuple(cur.fetchone())


def test_the_psycopg_internals_are_there_and_every_prepared_hot_statement_is_bound() -> None:
    """Fails when a psycopg release moves what the cursor uses (the statements would then run as EXECUTE text)."""
    assert internals_present()
    assert core_sql.BOUND
    prepared = [s for s in core_sql.REGISTRY.values() if s.prepared_name]
    assert len(prepared) >= 20
    for stmt in prepared:
        assert type(stmt.run_sql) is PreparedSQL, stmt.name
        assert stmt.run_sql == stmt.execute_sql and stmt.run_sql.name == stmt.prepared_name.encode()
        assert len(stmt.run_sql.order) == len(stmt.run_sql.formats) == stmt.execute_sql.count("%(")


def _values(rng: random.Random) -> dict[str, Any]:
    def maybe(value: Any) -> Any:
        return None if rng.random() < 0.15 else value

    instant = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=rng.randrange(-(10**16), 10**17))
    return {
        "i": maybe(rng.choice([0, 1, -1, 2**31, -(2**31) - 1, 2**63 - 2, -(2**63), rng.randrange(-(10**12), 10**12)])),
        "b": maybe(rng.random() < 0.5),
        "t": maybe(
            instant if rng.random() < 0.7 else instant.astimezone(timezone(timedelta(hours=rng.randrange(-12, 13))))
        ),
        "d": maybe(date(1, 1, 1) + timedelta(days=rng.randrange(3_652_058))),
        "s": maybe(rng.choice(["", "a'b", "žluťoučký kůň", "\\x", "%(s)s", "x" * 5000, "null"])),
        "u": maybe(rng.choice([0, -5, 10**15, "12.50", "-0.01"])),
    }


def test_every_type_and_value_gives_the_rows_its_execute_text_gives(observer) -> None:
    bound = _prepare("test.types", TYPES_SQL, TYPES)
    rng = random.Random(36)
    for _ in range(300):
        params = _values(rng)
        assert _run(bound, params) == _run(str(bound), params), params
    _run(bound, _values(rng))
    observer.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [connection.connection.info.backend_pid])
    # bound at the protocol level: the backend reports the prepared statement's own text, not an EXECUTE
    assert observer.fetchone()[0].startswith(f"PREPARE {bound.name.decode()}")


@pytest.mark.hot_statement_text
@pytest.mark.parametrize(
    "params",
    [
        {"i": 2.6, "b": True, "t": None, "d": None, "s": "x", "u": 1},  # a float for a bigint: the server rounds it
        {"i": "42", "b": True, "t": None, "d": None, "s": "x", "u": 1},  # a text for a bigint: the server reads it
        {"i": Decimal("7"), "b": None, "t": None, "d": None, "s": None, "u": None},
        {"i": 1, "b": None, "t": datetime(2026, 12, 7, 5, 0), "d": None, "s": None, "u": None},  # noqa: DTZ001  # naive
        {"i": 1, "b": 1, "t": None, "d": None, "s": None, "u": None},  # an int for a boolean
        {"i": 1, "b": None, "t": None, "d": datetime(2026, 12, 7, tzinfo=UTC), "s": None, "u": None},  # a datetime
    ],
)
def test_a_value_not_of_its_declared_type_runs_the_execute_text_as_before(observer, params) -> None:
    bound = _prepare("test.types", TYPES_SQL, TYPES)
    with connection.cursor() as cur:
        try:
            cur.execute(str(bound), params)
            expected: Any = tuple(cur.fetchone())
        except DatabaseError as exc:  # the EXECUTE text's own refusal (an int for a boolean)
            expected = type(exc)
    try:
        got: Any = _run(bound, params)
    except DatabaseError as exc:
        got = type(exc)
    assert got == expected
    assert any(k[0] == bound.name.decode() for k in prepared.FALLBACKS)  # counted (and logged once)
    observer.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [connection.connection.info.backend_pid])
    assert observer.fetchone()[0].startswith(f"EXECUTE {bound.name.decode()}(")


def test_a_servers_error_is_djangos_error_and_the_transaction_goes_on_after_a_savepoint() -> None:
    bound = _prepare("test.divide", "SELECT 10 / %(i)s AS q", {"i": int})
    with transaction.atomic():
        with pytest.raises(DataError, match="division by zero"), transaction.atomic():
            _run(bound, {"i": 0})
        assert _run(bound, {"i": 5}) == (2,)  # the rolled-back savepoint left the prepared statement


def test_a_constraints_name_reaches_the_caller() -> None:
    with connection.cursor() as cur:
        cur.execute("CREATE TEMP TABLE prepared_u (n bigint CONSTRAINT prepared_u_n UNIQUE)")
    bound = _prepare("test.insert", "INSERT INTO prepared_u (n) VALUES (%(n)s)", {"n": int})
    with connection.cursor() as cur:
        cur.execute(bound, {"n": 1})
        with pytest.raises(IntegrityError) as refused, transaction.atomic():
            cur.execute(bound, {"n": 1})
    assert refused.value.__cause__.diag.constraint_name == "prepared_u_n"  # type: ignore[union-attr]


def test_the_query_log_reads_the_execute_text_with_its_literals() -> None:
    bound = _prepare("test.types", TYPES_SQL, TYPES)
    params = {
        "i": 7,
        "b": False,
        "t": datetime(2026, 12, 7, 5, 0, tzinfo=UTC),
        "d": date(2026, 12, 7),
        "s": "a'b",
        "u": 3,
    }
    with CaptureQueriesContext(connection) as captured:
        _run(bound, params)
    logged = captured.captured_queries[-1]["sql"]
    assert logged.startswith(f"EXECUTE {bound.name.decode()}(7, false, '2026-12-07")
    assert "'a''b'" in logged
    assert core_sql.readable(logged) == logged  # not a registered statement: readable leaves it


def test_readable_gives_a_registered_statements_text_for_its_execute_and_its_prepare() -> None:
    """Captured SQL reads ``EXECUTE hot_...(...)``; ``pg_stat_activity`` shows a bound one as its ``PREPARE`` text."""
    stmt = next(s for s in core_sql.REGISTRY.values() if s.prepared_name and s.params)
    assert core_sql.readable(stmt.execute_sql) == stmt.sql
    assert core_sql.readable(stmt.prepare_sql) == stmt.sql
    assert core_sql.readable("PREPARE hot_nothing_00000000(bigint) AS SELECT 1") == (
        "PREPARE hot_nothing_00000000(bigint) AS SELECT 1"
    )
