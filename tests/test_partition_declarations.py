"""Each monthly-partitioned table is declared in one place: its app's ``partitions.py`` (core/partition_tables.py,
docs/scaling.md "Declaring a partitioned table").

The database's partitioned tables are exactly the declared ones, each declared once, by the app whose label
prefixes the table; every claim table the declarations name exists; core's modules name no app's partitioned table;
the carry-forward hooks are exactly the summed declarations; the archiving order follows the foreign keys.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.db import connection

from core import archiving, partitioning
from core.partition_tables import Claim, PartitionedTable, declared_claims, declared_tables
from core.retention_rules import RetentionTooShort, partition_retention

ROOT = Path(__file__).resolve().parent.parent


def _owner(table: PartitionedTable) -> str:
    """The app whose ``partitions.py`` declares ``table`` (the declarations of each app alone)."""
    owners = [c.label for c in apps.get_app_configs() if table in declared_tables([c.name])]
    assert len(owners) == 1, (table.table, owners)
    return owners[0]


def test_every_declared_table_is_declared_once_by_the_app_whose_label_prefixes_it():
    tables = declared_tables()
    names = [t.table for t in tables]
    assert len(names) == len(set(names)), names
    assert set(names) == {
        "core_auditevent",
        "wallet_entry",
        "wallet_ledgertransaction",
        "limits_settledbet",
        "games_round",
        "jackpots_contribution",
    }
    for table in tables:
        assert table.table.startswith(f"{_owner(table)}_"), (table.table, _owner(table))
        assert all(c.table == table.table for c in table.claims)


@pytest.mark.django_db
def test_the_partitioned_tables_in_the_database_are_exactly_the_declared_ones():
    declared = {t.table for t in declared_tables()}
    assert set(partitioning.partitioned_tables(connection)) == declared
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname FROM pg_class WHERE relkind = 'r' AND relname LIKE '%%\\_claim'")
        claim_tables = {r[0] for r in cursor.fetchall()}
    assert claim_tables == {c.claim_table for c in declared_claims()}


def test_core_names_no_app_partitioned_table():
    """Core iterates the declarations: no core module (migrations and tests aside) spells another app's table or
    claim."""
    foreign = [t for t in declared_tables() if not t.table.startswith("core_")]
    words = {t.table for t in foreign} | {c.name for t in foreign for c in t.claims}
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, words))) + r")\b")
    offenders = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "core").rglob("*.py"))
        if "migrations" not in path.parts and "tests" not in path.parts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not offenders, offenders


def test_the_carry_forward_hooks_are_the_summed_declarations_and_all_registered():
    summed = {t.table for t in declared_tables() if t.summed_by}
    assert {hook.name for hook in archiving.CARRY_FORWARD} == summed
    assert archiving.carry_forward_missing() == []


def test_a_table_is_archived_after_the_declared_tables_whose_rows_point_at_it():
    order = [t.table for t in archiving.archive_order(declared_tables())]
    assert sorted(order) == sorted(t.table for t in declared_tables())
    assert order.index("wallet_entry") < order.index("wallet_ledgertransaction")
    for position, table in enumerate(order):
        later = set(order[position + 1 :])
        assert not {t for t, _ in archiving.references(table)} & later - {table}, table


def test_a_declaration_added_in_one_app_is_seen_by_the_retention_check(tmp_path, monkeypatch):
    """Declaring a table is one edit: a ``partitions.py`` in an app's package makes its retention checked at start
    and its claims known, with nothing in core."""
    package = tmp_path / "scratchapp"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "partitions.py").write_text(
        "from core.partition_tables import Claim, PartitionedTable\n"
        "TABLES = (PartitionedTable('scratchapp_log', 24, 'a test period', "
        "claims=(Claim('scratchapp_log', 'scratchapp_log_key', ('a',)),)),)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    app_names = [*settings.INSTALLED_APPS, "scratchapp"]
    retention = partition_retention({}, audit_years=5, audit_aml_years=10, app_names=app_names)
    assert retention["scratchapp_log"] == 24
    with pytest.raises(RetentionTooShort, match="a test period"):
        partition_retention({"scratchapp_log": 23}, audit_years=5, audit_aml_years=10, app_names=app_names)
    assert declared_tables(app_names)[-1].claims == (Claim("scratchapp_log", "scratchapp_log_key", ("a",)),)
    copy = tmp_path / "scratchcopy"
    copy.mkdir()
    (copy / "__init__.py").write_text("")
    (copy / "partitions.py").write_text((package / "partitions.py").read_text())
    with pytest.raises(ValueError, match="scratchapp_log is declared twice"):
        declared_tables([*app_names, "scratchcopy"])
