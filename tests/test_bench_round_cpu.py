"""`scripts/bench_round_cpu.py run --callgrind-backend` (docs/bench.md "The backend's instructions per round"): the
backend's callgrind counts are zeroed by a call of ``pg_backend_pid()`` right before the counted rounds and dumped by
the next call of ``pg_current_wal_lsn()``, the first statement after them. The figure is only the rounds' if the
script makes those calls there and no statement of the platform (a hot statement, a trigger or function a migration
makes) calls either function. Speed itself is never asserted here."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import bench_round_cpu  # noqa: E402  (scripts/ is a folder of scripts, not a package)

MARKERS = (bench_round_cpu.BACKEND_ZERO, bench_round_cpu.BACKEND_DUMP)


class _Recorder:
    """A connection whose cursor records the SQL it is given and answers every fetch with one row of zeros."""

    def __init__(self) -> None:
        self.sql: list[str] = []

    def cursor(self) -> _Recorder:
        return self

    def __enter__(self) -> _Recorder:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def execute(self, sql: str, params: Any = None) -> None:
        self.sql.append(sql)

    def fetchone(self) -> tuple[int, bool]:
        return (0, False)

    def fetchall(self) -> list[Any]:
        return []


def test_the_markers_are_the_functions_the_server_is_told_to_zero_and_dump_at():
    assert MARKERS == ("pg_backend_pid", "pg_current_wal_lsn")
    doc = (ROOT / "docs" / "bench.md").read_text()
    assert "--zero-before=pg_backend_pid --dump-before=pg_current_wal_lsn" in doc


def test_the_mark_before_the_rounds_zeroes_and_the_first_statement_after_them_dumps():
    before, after = _Recorder(), _Recorder()
    bench_round_cpu._callgrind_backend_mark(before)
    bench_round_cpu._wal_report(after, 0, 30)
    assert [s for s in before.sql if any(m in s for m in MARKERS)] == ["SELECT pg_backend_pid()"]
    assert bench_round_cpu.BACKEND_DUMP + "()" in after.sql[0]
    assert not any(bench_round_cpu.BACKEND_ZERO in s for s in after.sql)


def test_no_statement_of_the_platform_calls_the_marker_functions():
    """Every hot statement (core.sql.REGISTRY, filled by the apps' sql modules) and every file of the apps (their
    migrations make the triggers and functions a round runs): a call of either would zero or dump mid-round."""
    import django
    from django.apps import apps

    from core.sql import REGISTRY

    django.setup()
    assert len(REGISTRY) > 20
    for stmt in REGISTRY.values():
        assert not any(m in stmt.sql for m in MARKERS), stmt.name
    pattern = re.compile("|".join(MARKERS))
    own = [Path(c.path) for c in apps.get_app_configs() if Path(c.path).is_relative_to(ROOT)]
    assert len(own) > 5
    hits = [
        str(f.relative_to(ROOT))
        for d in own
        for f in d.rglob("*")
        if f.suffix in (".py", ".sql") and "tests" not in f.parts and pattern.search(f.read_text(errors="replace"))
    ]
    assert hits == []


def test_the_run_keeps_the_snapshots_a_round_reads_for_its_whole_length():
    """The per-process snapshots a round reads are named by their settings and kept an hour (a server process
    rereads them once per TTL for all its rounds; the run plays a round or two a second)."""
    from django.conf import settings

    assert set(bench_round_cpu.SNAPSHOTS) == {"JACKPOTS_CONFIG_TTL_SECONDS", "ACCOUNTS_TERMS_SNAPSHOT_SECONDS"}
    for name, seconds in bench_round_cpu.SNAPSHOTS.items():
        assert hasattr(settings, name)
        assert float(seconds) >= 3600


def test_the_orm_queries_of_the_counted_rounds_are_counted_and_the_compilers_restored(db):
    from django.contrib.auth.models import Group
    from django.db.models.sql.compiler import SQLCompiler, SQLInsertCompiler

    originals = (SQLCompiler.__dict__["execute_sql"], SQLInsertCompiler.__dict__["execute_sql"])
    orm = bench_round_cpu._OrmQueries().start()
    try:
        Group.objects.create(name="bench-orm-count")
        assert Group.objects.filter(name="bench-orm-count").count() == 1
    finally:
        orm.stop()
    assert orm.calls == {"SQLInsertCompiler": 1, "SQLCompiler": 1}
    assert (SQLCompiler.__dict__["execute_sql"], SQLInsertCompiler.__dict__["execute_sql"]) == originals
    Group.objects.filter(name="bench-orm-count").delete()
    assert orm.calls == {"SQLInsertCompiler": 1, "SQLCompiler": 1}  # stopped: nothing counted after
