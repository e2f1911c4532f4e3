"""The hot SQL cannot drift from the models (core/sql.py): every registered statement names only fields its models
have, an INSERT lists every column the database cannot fill itself, the apps write no hand-written SQL outside
their ``sql.py`` or ``sql_*.py`` (and the few places listed here, with their reason), and ``EXPLAIN`` of every
statement, against tables holding enough rows that a sequential scan would show, reads each growing table through
an index."""

from __future__ import annotations

import ast
import io
import re
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import NOT_PROVIDED, Model
from psycopg.types.json import Json

import accounts.sql
import games.sql
import jackpots.sql
import limits.sql
import limits.sql_archive
import limits.sql_voids
import providers.sql
import wallet.sql
from core.sql import (
    ADVISORY_LOCK,
    REGISTRY,
    Statement,
    _prepared_on,
    cast_type,
    execute,
    field_of,
    prepare_hot_statements,
)

ROOT = Path(__file__).resolve().parent.parent
# an app's hot SQL: <app>/sql.py, and the parts of it a large one is split into, <app>/sql_<part>.py
_SQL_FILE = re.compile(r"^[a-z_]+/sql(_[a-z_]+)?\.py$")


def _sql_files() -> list[Path]:
    return sorted(p for p in ROOT.glob("*/sql*.py") if _SQL_FILE.search(p.relative_to(ROOT).as_posix()))


SQL_MODULES = (
    accounts.sql,
    wallet.sql,
    limits.sql,
    limits.sql_voids,
    limits.sql_archive,
    games.sql,
    jackpots.sql,
    providers.sql,
)
APPS = (
    "core",
    "accounts",
    "wallet",
    "limits",
    "games",
    "jackpots",
    "aml",
    "complaints",
    "providers",
    "reports",
    "backoffice",
)
# hand-written SQL that stays outside the sql modules, on purpose
ALLOWED = {
    "core/views.py": "the health check's SELECT 1",
    "core/audit.py": "the security-event window counter on the side connection",
    "core/sql.py": "the registry's own advisory lock",
    "core/pgbackend/base.py": "the backend's create_cursor: the driver's cursor (no SQL)",
    "core/pgbackend/prepared.py": "the cursor's own execute: a hot statement bound, else Django's (no SQL of its own)",
    "aml/services/lists.py": "an advisory lock serialising the imports of one list source",
    "complaints/services.py": "nextval of the complaints' reference sequence",
    "limits/reconcile.py": "the verification SQL is the independent proof (limits_reconcile)",
    "wallet/management/commands/ledger_check.py": "the verification SQL is the independent proof",
    "limits/management/commands/limits_bench.py": "a benchmark's data and EXPLAIN",
    "core/admin.py": "the large lists' row estimate (the partitions' pg_class.reltuples) and a free-value filter's "
    "distinct values of the newest rows (core.admin.LargeTableAdmin: the back office, not a hot statement)",
    "core/partitioning.py": "DDL of the monthly partitions (CREATE/ATTACH/DETACH), built from the models' tables",
    "core/archiving.py": "the retention job: its advisory lock, the reference probes built from the models' foreign "
    "keys, a month's row count (the DETACH itself is core/partitioning.py's)",
    "reports/ledger_queries.py": "the daily report's read-only aggregation of the ledger's game postings and day-end "
    "balances on the read alias (once a day, not a hot statement)",
    "core/management/development.py": "a management command's execute() (not SQL)",
}
# an execute() in an sql module that does not run a registered statement's ``.sql``, with its reason
UNREGISTERED: dict[tuple[str, str], str] = {
    ("core/sql.py", "prepare_hot_statements"): "the PREPARE of each registered statement, and the plan cache mode",
    ("core/sql.py", "execute"): "runs a registered Statement given to it: its EXECUTE or its text",
    ("core/sql.py", "warm_hot_statements"): "EXPLAIN of each prepared statement's EXECUTE: its plan built ahead",
}
# jackpots_pending is not among them: the fold job drains it every second and reads a pool's pending rows whole (the
# live value of a pool reads its running counter, jackpots_pendingtotal, not these rows); it is filled here all the same
GROWING = (
    "games_round",
    "games_roundaction",
    "wallet_ledgertransaction",
    "wallet_entry",
    "core_auditevent",
    "limits_minutebucket",
    "limits_settledbet",
    "limits_periodtotal",
    "jackpots_contribution",
)
ROWS = 30_000


def _statements() -> list[Statement]:
    assert {m.__name__.split(".")[0] for m in SQL_MODULES} <= {s.name.split(".")[0] for s in REGISTRY.values()}
    return sorted(REGISTRY.values(), key=lambda s: s.name)


def test_every_sql_module_of_the_apps_is_checked_and_registers_its_statements() -> None:
    """A new ``<app>/sql.py`` (or ``<app>/sql_*.py``, a part of it) is imported by the checks below only if it is in
    SQL_MODULES: a module left out, or one with no registered statement, fails here."""
    found = {p.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".") for p in _sql_files()} - {"core.sql"}
    assert found == {m.__name__ for m in SQL_MODULES}, "add the new sql module to SQL_MODULES"
    empty = [
        m.__name__
        for m in SQL_MODULES
        if not any(isinstance(v, Statement) and REGISTRY.get(v.name) is v for v in vars(m).values())
    ]
    assert not empty, f"sql modules that register no statement: {empty}"


def test_every_statement_an_sql_module_runs_is_a_registered_one() -> None:
    """Each ``execute()`` in an ``<app>/sql.py`` runs ``<NAME>.sql`` (or a suffix of it) of a module-level
    ``<NAME> = register(...)``, so the column and EXPLAIN checks cover every statement the module sends; the one
    exception is listed in UNREGISTERED with its reason."""
    found = []
    for path in _sql_files():
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text())
        registered = {
            t.id
            for node in tree.body
            if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", "") == "register"
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            local = {}  # a name bound in the function to a registered statement's .sql (+ a suffix)
            for node in ast.walk(fn):
                if isinstance(node, ast.Assign) and _runs_registered(node.value, registered, {}):
                    local.update({t.id: True for t in node.targets if isinstance(t, ast.Name)})
            for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
                if getattr(call.func, "attr", "") != "execute" or not call.args:
                    continue
                if not _runs_registered(call.args[0], registered, local) and (rel, fn.name) not in UNREGISTERED:
                    found.append(f"{rel}:{call.lineno} {fn.name}")
    assert not found, f"statements run without register(): {found}"


def _runs_registered(node: ast.expr, registered: set[str], local: dict[str, bool]) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == "sql" and isinstance(node.value, ast.Name) and node.value.id in registered
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _runs_registered(node.left, registered, local)
    return isinstance(node, ast.Name) and node.id in local


@pytest.mark.parametrize("stmt", _statements(), ids=lambda s: s.name)
def test_every_column_a_statement_names_is_a_field_of_its_model(stmt: Statement) -> None:
    for model, names in stmt.columns.items():
        assert model._meta.db_table in stmt.sql, (stmt.name, model.__name__)
        for name in names:
            column = field_of(model, name).column  # a KeyError is a drift: the model has no such field
            assert re.search(rf"\b{re.escape(column)}\b", stmt.sql), (stmt.name, model.__name__, column)


@pytest.mark.parametrize("stmt", _statements(), ids=lambda s: s.name)
def test_every_table_a_statement_names_is_declared_with_its_columns(stmt: Statement) -> None:
    """A table of the platform's models named in the text is one the statement declares (so its columns are checked
    above): a statement cannot read or write a table the contract does not know of."""
    from django.apps import apps

    tables = {m._meta.db_table: m for m in apps.get_models() if m._meta.app_label in APPS}
    named = {t for t in tables if re.search(rf'(?<![\w."]){re.escape(t)}(?![\w"])|"{re.escape(t)}"', stmt.sql)}
    declared = {m._meta.db_table for m in (*stmt.columns, *stmt.inserts)}
    assert named <= declared, (stmt.name, sorted(named - declared))


@pytest.mark.parametrize("stmt", [s for s in _statements() if s.inserts], ids=lambda s: s.name)
def test_every_insert_lists_each_column_the_database_cannot_fill(stmt: Statement) -> None:
    for model in stmt.inserts:
        listed = {field_of(model, n).attname for n in stmt.columns[model]}
        for f in model._meta.concrete_fields:
            if f.primary_key or f.null or f.db_default is not NOT_PROVIDED:
                continue
            assert f.attname in listed, f"{stmt.name}: {model.__name__}.{f.attname} is NOT NULL and not written"


# The rows a statement reads or writes whole: every concrete field of the model but those named. A field added to the
# model fails here until the statement's text and its column tuple name it (a read would load it by a query of its
# own, a write would never save it).
WHOLE_ROWS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("providers.call_context", "providers.Provider", ()),
    ("providers.call_context", "providers.GameSession", ()),
    ("providers.call_context", "accounts.Player", ()),
    ("providers.call_context", "accounts.User", ()),
    ("providers.call_context", "games.Game", ("description",)),
    ("providers.call_context", "providers.ProviderTransaction", ()),
    ("limits.gate_state", "limits.PlayerKindState", ()),
    ("limits.gate_state", "limits.OpenBet", ()),
    ("limits.gate_state", "limits.PeriodTotal", ()),
    ("games.round_lock", "games.Round", ()),
    ("games.round_write", "games.Round", ()),
    ("games.round_write", "games.RoundAction", ()),
    ("games.round_write", "core.AuditEvent", ()),
    ("games.round_insert", "games.Round", ()),
    ("games.round_insert", "core.AuditEvent", ()),
    ("jackpots.fold", "jackpots.Contribution", ("id",)),
)


@pytest.mark.parametrize(("name", "label", "left_out"), WHOLE_ROWS, ids=lambda x: x if isinstance(x, str) else "")
def test_a_statement_that_reads_or_writes_a_whole_row_names_every_field_of_its_model(
    name: str, label: str, left_out: tuple[str, ...]
) -> None:
    from django.apps import apps

    model = apps.get_model(label)
    declared = {field_of(model, n).attname for n in REGISTRY[name].columns[model]}
    missing = [
        f.attname
        for f in model._meta.concrete_fields
        if f.attname not in declared and f.name not in left_out and f.attname not in left_out
    ]
    assert not missing, f"{name}: {label} fields not in the statement: {missing}"


def test_the_token_statement_reads_or_declares_deferred_every_field_of_its_four_models() -> None:
    """``accounts.token_with_owner`` reads the columns API requests use and defers the others on purpose
    (``accounts/sql.py`` ``DEFERRED``, each with who reads it): a field added to the token, user, login session or
    player fails here until it is placed in one of the two, so that no new field is deferred by accident (a request
    reading it would pay a statement of its own) nor read on every request without a reason. A field named in both,
    or a deferred name that is no field, fails too."""
    from accounts import sql as accounts_sql

    stmt = REGISTRY["accounts.token_with_owner"]
    for model, names, _ in accounts_sql._PARTS:
        selected = [field_of(model, n).attname for n in names]
        deferred = {field_of(model, n).attname for n in accounts_sql.DEFERRED[model]}
        fields = {f.attname for f in model._meta.concrete_fields}
        assert deferred <= fields, f"{model.__name__}: declared deferred but no field: {deferred - fields}"
        assert not deferred & set(selected), f"{model.__name__}: both read and deferred: {deferred & set(selected)}"
        missing = fields - deferred - set(selected)
        assert not missing, f"{model.__name__}: fields neither read nor declared deferred: {missing}"
        assert all(len(why) > 10 for why in accounts_sql.DEFERRED[model].values())
        alias = {"AuthToken": "t", "User": "u", "LoginSession": "s", "Player": "p"}[model.__name__]
        assert all(f"{alias}.{field_of(model, n).column}" in stmt.sql for n in names), model.__name__
    assert set(accounts_sql.DEFERRED) == {model for model, _, _ in accounts_sql._PARTS}


def test_every_cast_of_a_whole_row_write_is_its_field_s_database_type() -> None:
    """``games.round_write`` and ``games.round_insert`` cast each parameter ``<prefix><attname>`` to its column's type
    (``core.sql.cast_type``): a field whose type changes fails here until the statement's cast follows it."""
    casts = [
        (m.group(1), m.group(2), m.group(3))
        for stmt in (games.sql.ROUND_WRITE, games.sql.ROUND_INSERT)
        for m in re.finditer(r"CAST\(%\(([a-z]_)(\w+)\)s AS ([\w ]+)\)", stmt.sql)
    ]
    assert len(casts) > 60
    wrong = [
        (p + n, t, cast_type(field_of(games.sql.PREFIXES[p], n)))
        for p, n, t in casts
        if t != cast_type(field_of(games.sql.PREFIXES[p], n))
    ]
    assert not wrong, wrong


def test_the_round_context_reads_the_claim_tables_and_the_month_bits_of_the_partitioning() -> None:
    """``games.start_context`` names the claim tables of the round's two unique constraints and shifts the month
    index by ``MONTH_BITS`` (core/partitioning.py) in its text."""
    from core.partitioning import MONTH_BITS
    from games.partitions import TABLES

    claims = {c.name: c.claim_table for t in TABLES for c in t.claims}
    text = games.sql.START_CONTEXT.sql
    for name in ("games_round_unique_player_key", "games_round_one_open_per_player"):
        assert f"FROM {claims[name]} c" in text, name
    assert text.count(f") << {MONTH_BITS})") == 2


def test_a_row_maps_back_by_field_name_whatever_the_order_of_its_columns() -> None:
    """``Model.from_db`` takes its values in the model's field order; the mappers of core.sql accept any order (a
    statement lists the columns it needs in its own order) and defer the rest."""
    from core.sql import instance, instance_from_json
    from games.models import Game

    game = instance(Game, ("enabled", "name", "id", "code"), (True, "Roulette", 5, "roulette"))
    assert (game.pk, game.code, game.name, game.enabled) == (5, "roulette", "Roulette", True)
    assert "kind" in game.get_deferred_fields()
    again = instance_from_json(Game, {"approval_state": "approved", "id": 6, "name_cs": "Ruleta"})
    assert (again.pk, again.approval_state, again.name_cs) == (6, "approved", "Ruleta")


def test_the_apps_write_no_sql_outside_their_sql_modules() -> None:
    calls = {"execute", "raw", "RawSQL", "cursor"}
    found: list[str] = []
    used: set[str] = set()
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            if "/tests/" in rel or "/migrations/" in rel or _SQL_FILE.search(rel) and rel != "core/sql.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call):
                    name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                    if name in calls and rel not in ALLOWED:
                        found.append(f"{rel}:{node.lineno} {name}")
                    elif name in calls:
                        used.add(rel)
    assert not found, found
    assert set(ALLOWED) - used == set(), "an ALLOWED file that runs no SQL any more: drop its entry"


def _dummy(kind: Any) -> Any:
    """A typed dummy value for EXPLAIN (``(list, str)``: a list of str)."""
    if isinstance(kind, tuple):
        return [_dummy(kind[1])] if kind[0] is list else _dummy(kind[0])
    return {
        int: 1,
        str: "x",
        bool: True,
        datetime: datetime(2026, 3, 2, 9, tzinfo=UTC),
        date: date(2026, 3, 2),
        list: [1],
        dict: Json({}),
        Model: None,
    }[kind]


@pytest.fixture
def grown(django_db_blocker: Any) -> Any:
    """Every growing table with ROWS rows (one player's history: the worst case for the statistics of an index
    on the player), analysed."""
    from games.models import Game
    from jackpots.models import Jackpot
    from tests.kit.accounts import make_player
    from wallet.ledger import operator_account

    player = make_player()
    house, adjustments = operator_account("house"), operator_account("adjustments")
    game = Game.objects.order_by("id").first()
    jackpot = Jackpot.objects.order_by("id").first()
    assert game is not None
    with connection.cursor() as cur:
        p, g = player.pk, game.pk
        cur.execute(
            """
            INSERT INTO games_round (player_id, game_id, game_code, game_version, play_money, forced_outcome,
                forced_draws_left, idempotency_key, status, void_reason, void_detail, bet_request, bet_params, stake,
                currency, win_engine, win, jackpot_win, win_capped, balance_before, balance_after, state, draws,
                actions, jackpot_events, started_at, last_activity_at, settled_at, deadline)
            SELECT %s, %s, 'g', 1, false, false, '[]', 'h-' || n, 'finished', '', '', '{}', '{}', 100, 'CZK', 0, 0,
                0, false, 0, 0, '{}', '[]', '[]', '[]', now() - n * interval '3 s', now(), now(), now()
            FROM generate_series(1, %s) n""",
            [p, g, ROWS],
        )
        cur.execute(
            """INSERT INTO games_roundaction (round_id, seq, action, idempotency_key, draws_before, draws_after,
            created_at) SELECT id, 0, '{}', 'a', 0, 0, now() FROM games_round WHERE player_id = %s""",
            [p],
        )
        cur.execute(
            """INSERT INTO wallet_ledgertransaction (kind, reference, player_id, amount, currency, memo,
            created_at, actor_label) SELECT 'stake', 'h-' || n, %s, 1, 'CZK', '', now(), ''
            FROM generate_series(1, %s) n""",
            [p, ROWS],
        )
        cur.execute(
            """INSERT INTO wallet_entry (transaction_id, account_id, amount, balance_after, created_at)
            SELECT t.id, a.id, a.amount, NULL, now() FROM wallet_ledgertransaction t,
                (VALUES (%s::bigint, 1), (%s::bigint, -1)) a(id, amount) WHERE t.player_id = %s""",
            [house.pk, adjustments.pk, p],
        )  # balanced between two operator accounts (the ledger's triggers)
        cur.execute(
            """INSERT INTO core_auditevent (occurred_at, actor_type, actor_id, actor_label, actor_role, action,
            object_type, object_id, old_values, new_values, details, request_id)
            SELECT now(), 'system', '', '', '', 'x', 'games.round', n::text, NULL, NULL, '{}', ''
            FROM generate_series(1, %s) n""",
            [ROWS],
        )
        cur.execute(
            """INSERT INTO limits_minutebucket (player_id, kind, minute, stakes, wins, peak)
            SELECT %s, 'technical', date_trunc('minute', now()) - n * interval '1 minute', 1, 0, 1
            FROM generate_series(1, %s) n""",
            [p, ROWS],
        )
        cur.execute(
            """INSERT INTO limits_settledbet (player_id, kind, game_code, round_ref, stake, win, placed_at,
            started_at, settled_at, voided) SELECT %s, 'technical', 'g', 'h-' || n, 1, 0, now(), now(), now(), false
            FROM generate_series(1, %s) n""",
            [p, ROWS],
        )
        cur.execute(
            """INSERT INTO limits_periodtotal (player_id, kind, period, start, stakes_placed, bets_placed,
            stakes_decided, wins_decided, bets_decided) SELECT %s, 'technical', 'day', DATE '2000-01-01' + n, 0, 0, 0,
            0, 0 FROM generate_series(1, %s) n""",
            [p, ROWS],
        )
        if jackpot is not None:
            cur.execute(
                """INSERT INTO jackpots_pending (jackpot_id, round_id, reversal, player_id, basis_amount,
                active_micro, future_micro, created_at) SELECT %s, n, false, %s, 1, 1, 0, now()
                FROM generate_series(1, %s) n""",
                [jackpot.pk, p, ROWS],
            )
        for t in (*GROWING, "jackpots_pending"):
            cur.execute(f"ANALYZE {t}")
    return player


@pytest.mark.django_db
def test_explain_of_every_statement_reads_no_growing_table_by_a_sequential_scan(grown: Any) -> None:
    scans = {}
    with connection.cursor() as cur:
        for stmt in _statements():
            params: Any = (
                [_dummy(t) for t in stmt.positional]
                if stmt.positional
                else {k: _dummy(v) for k, v in stmt.params.items()}
            )
            cur.execute("EXPLAIN " + stmt.sql, params or None)
            plan = "\n".join(r[0] for r in cur.fetchall())
            seq = _sequential_scans(plan)
            if seq:
                scans[stmt.name] = (seq, plan)
    assert not scans, "\n\n".join(f"{n}: {s}\n{p}" for n, (s, p) in scans.items())


def _sequential_scans(plan: str) -> list[str]:
    """The growing tables a plan reads by a sequential scan. A monthly partition of a growing table
    (games_round_2026_12 ...) counts as the table; a partition the planner knows to be empty (cost 0.00..0.00: no
    page at all, e.g. the legacy partition of a database created after the partitioning, which a dummy id of 1
    prunes to; a generic plan costs that scan 0.02) is not a scan of a growing table."""
    return [
        t
        for t in GROWING
        if re.search(rf"Seq Scan on {t}(?:_\w+)?\b(?! \w+ +\(cost=0\.00\.\.0\.0\d )(?!  \(cost=0\.00\.\.0\.0\d )", plan)
    ]


def _eligible() -> set[str]:
    return {s.prepared_name for s in REGISTRY.values() if s.prepared_name}


@pytest.mark.django_db
def test_the_generic_plan_of_every_prepared_statement_reads_no_growing_table_by_a_sequential_scan(grown: Any) -> None:
    """What a persistent connection runs: ``EXECUTE`` of the statement prepared when it connected, planned once for
    any parameters (``plan_cache_mode = force_generic_plan``, core/sql.py); the planner does not know the player."""
    assert _eligible() <= _prepared_on(connection), "the test's connection did not prepare the hot statements"
    scans = {}
    with connection.cursor() as cur:
        cur.execute("SHOW plan_cache_mode")
        assert cur.fetchone()[0] == "force_generic_plan"
        for stmt in _statements():
            if not stmt.prepared_name:
                continue
            cur.execute("EXPLAIN " + stmt.execute_sql, {k: _dummy(v) for k, v in stmt.params.items()} or None)
            plan = "\n".join(r[0] for r in cur.fetchall())
            seq = _sequential_scans(plan)
            if seq:
                scans[stmt.name] = (seq, plan)
    assert not scans, "\n\n".join(f"{n}: {s}\n{p}" for n, (s, p) in scans.items())


@pytest.mark.django_db
def test_a_new_connection_prepares_every_hot_statement_and_none_is_refused(settings: Any) -> None:
    """Every registered statement (but those with positional parameters, whose text grows per call) is prepared when
    the primary's connection is made; PostgreSQL refusing one (a parameter whose type it cannot infer) fails here,
    not in a round. With the setting off (behind PgBouncer) nothing is prepared and the statements run as text."""
    assert {s.name for s in REGISTRY.values() if not s.prepared_name} == {
        s.name for s in REGISTRY.values() if s.positional
    }
    fresh = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        fresh.ensure_connection()
        assert _prepared_on(fresh) == _eligible()
        assert prepare_hot_statements_refused(fresh) == []
        with fresh.cursor() as cur:
            cur.execute("SELECT name FROM pg_prepared_statements")
            assert _eligible() <= {r[0] for r in cur.fetchall()}
    finally:
        fresh.close()
    settings.DATABASE_PREPARED_STATEMENTS = False
    plain = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        plain.ensure_connection()
        assert _prepared_on(plain) == set()
        with plain.cursor() as cur:
            execute(cur, ADVISORY_LOCK, {"key": 1})  # its text: the advisory lock taken and released at once
            cur.execute("SELECT count(*) FROM pg_prepared_statements")
            assert cur.fetchone()[0] == 0
    finally:
        plain.close()


def prepare_hot_statements_refused(wrapper: Any) -> list[str]:
    """Prepare again on a connection of its own (``DEALLOCATE ALL`` first): what PostgreSQL refused."""
    with wrapper.connection.cursor() as cur:
        cur.execute("DEALLOCATE ALL")
    return prepare_hot_statements(wrapper)


@pytest.mark.django_db
def test_a_generic_plan_made_while_the_table_is_empty_still_finds_one_transaction_by_its_key() -> None:
    """A connection prepares its statements when it connects, perhaps before a table holds a row (a new database,
    a new studio): with no statistics every index led by the provider looks as good as the unique key, and the plan
    kept for the connection's life scanned all of a provider's transactions for one (1.2 ms a call in `make bench`).
    The provider's transactions have one index led by the provider: the unique (provider, transaction_id)."""
    from providers.sql import CALL_CONTEXT

    with connection.cursor() as cur:
        cur.execute(
            "EXPLAIN " + CALL_CONTEXT.execute_sql, {"provider": "p", "session": "s", "txn": "t", "bet_txn": "b"}
        )
        plan = "\n".join(r[0] for r in cur.fetchall())
    scans = re.findall(r"Scan using (\w+) on providers_providertransaction", plan)
    assert scans == ["providers_txn_unique_per_provider"] * 2, plan


def test_the_generated_document_shows_the_final_text_of_every_registered_statement() -> None:
    """docs/hot-sql.md is what ``manage.py sql_statements --write`` writes now (a statement changed without it, or the
    document edited by hand, fails here), and it holds each statement's whole text."""
    from core.management.commands.sql_statements import DOC

    call_command("sql_statements", "--check", stdout=io.StringIO())
    text = DOC.read_text(encoding="utf-8")
    for stmt in REGISTRY.values():
        assert stmt.sql.strip() in text, stmt.name
