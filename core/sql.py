"""The hand-written SQL of the hot paths: one registry, one way to map rows back.

Each app keeps its hot statements in ``<app>/sql.py`` (``wallet/sql.py``, ``limits/sql.py``, ``games/sql.py``,
``jackpots/sql.py``, ``accounts/sql.py``, ``providers/sql.py``), written as the SQL text PostgreSQL receives, with
named placeholders (``%(name)s``; enum values are parameters, never literals in the text), and registered here with
:func:`register`: the models it reads and writes, the fields it names of each, its parameters (by type, for
``EXPLAIN``) and the tables it inserts into. ``tests/test_sql_contracts.py`` checks every registered statement
against its models (every declared field is a column the text names, every model table the text names is declared,
an ``INSERT`` lists every column the database cannot fill itself, a statement that reads or writes whole rows names
every field of the model) and runs ``EXPLAIN`` and ``PREPARE`` on each against tables holding enough rows that a
sequential scan of a growing table shows (it fails on one, and on a column the database does not have).
``manage.py sql_statements`` prints them (``--write``: ``docs/hot-sql.md``).

Rows come back as model instances through :func:`instance` (``Model.from_db``: a field that was not selected is
deferred, so it loads on access and ``save()`` never writes it with a Python default); keyed sub-rows arrive as
``json_build_object('attname', alias.column, ...)`` keyed by the fields' ``attname`` and go through
:func:`instance_from_json`.
The verification SQL (``limits_reconcile``, ``ledger_check``) stays apart on purpose: it is the independent proof.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.db.models import DEFERRED, Field, ForeignObjectRel, Model, signals
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute

from core.pgbackend.prepared import PreparedSQL, internals_present

M = TypeVar("M", bound=Model)
log = logging.getLogger("platform.sql")


@dataclass(frozen=True)
class Statement:
    """One registered hot statement. ``columns`` names, per model, the columns the statement reads or writes;
    ``inserts`` the models it inserts rows into (their NOT NULL columns without a default must be listed);
    ``params`` the type of each named parameter (for ``EXPLAIN`` with typed dummies); ``sql`` the text (with
    ``{values}`` already expanded where a statement grows a VALUES list, the one-row form here)."""

    name: str
    sql: str
    columns: Mapping[type[Model], tuple[str, ...]]
    params: Mapping[str, type | tuple[type, ...]]
    inserts: tuple[type[Model], ...] = ()
    doc: str = ""
    positional: Sequence[type] = field(default_factory=tuple)
    #: the server-side prepared form (:func:`prepare_hot_statements`): its name, its PREPARE and its EXECUTE
    #: (empty for a statement with positional parameters, whose text grows per call)
    prepared_name: str = ""
    prepare_sql: str = ""
    execute_sql: str = ""
    #: what :func:`execute` sends for the prepared form: the ``EXECUTE`` text as a ``PreparedSQL``, which the
    #: platform's cursor runs as the protocol's Bind/Execute of ``prepared_name`` (``core/pgbackend/prepared.py``)
    run_sql: str = ""


REGISTRY: dict[str, Statement] = {}


def register(
    name: str,
    sql: str,
    *,
    columns: Mapping[type[Model], Iterable[str]],
    params: Mapping[str, type | tuple[type, ...]] | None = None,
    positional: Sequence[type] = (),
    inserts: Iterable[type[Model]] = (),
    doc: str = "",
) -> Statement:
    """Register a hot statement (a module-level call in ``<app>/sql.py``); returns it."""
    if name in REGISTRY and REGISTRY[name].sql != sql:
        raise ValueError(f"two statements named {name}")
    prepared = ("", "", "") if positional else _prepared_forms(name, sql, dict(params or {}))
    stmt = Statement(
        name=name,
        sql=sql,
        columns={m: tuple(c) for m, c in columns.items()},
        params=dict(params or {}),
        inserts=tuple(inserts),
        doc=doc,
        positional=tuple(positional),
        prepared_name=prepared[0],
        prepare_sql=prepared[1],
        execute_sql=prepared[2],
        run_sql=_run_sql(prepared, sql, dict(params or {})),
    )
    REGISTRY[name] = stmt
    return stmt


# Server-side prepared statements ----------------------------------------------------------------------------------
# Django's psycopg cursor sends every statement as text with its parameters inline (client-side binding), so
# PostgreSQL parses and plans each anew: for the hot statements (subqueries over partitioned tables, CTEs with
# triggers) planning was most of their time (`make bench`, "plan" in the top statements). On a connection of its own
# (not through PgBouncer in transaction mode, where a server connection serves many clients and SQL-level PREPARE is
# session state it cannot carry: settings.DATABASE_PREPARED_STATEMENTS), each registered statement is prepared once
# per connection, right after it connects (:func:`prepare_hot_statements`), and then run as the protocol's
# Bind/Execute of that prepared statement (``core/pgbackend/prepared.py``; its text in logs and tests is
# ``EXECUTE name(params)``): parsed once, planned once the generic plan is chosen (``plan_cache_mode =
# force_generic_plan`` on those connections: partitions are pruned when the statement runs, as a generic plan does).

_PARAM = re.compile(r"%\((\w+)\)s")
_PG_TYPES: dict[type, str] = {bool: "boolean", int: "bigint", str: "text", datetime: "timestamptz", date: "date"}


def _pg_type(declared: type | tuple[type, ...] | None) -> str:
    """The declared type of a prepared statement's parameter: the registry's Python type, ``unknown`` (inferred by
    PostgreSQL from where the parameter stands) where it gives none or several."""
    if isinstance(declared, tuple):
        kinds = {t for t in declared if t is not type(None)}
        declared = kinds.pop() if len(kinds) == 1 else None
    return _PG_TYPES.get(declared, "unknown") if isinstance(declared, type) else "unknown"


#: whether the hot statements are bound at the protocol level (psycopg's internals the cursor uses are there)
BOUND = internals_present()


def _run_sql(prepared: tuple[str, str, str], sql: str, params: Mapping[str, type | tuple[type, ...]]) -> str:
    """The prepared form's text to run: a ``PreparedSQL`` (Bind/Execute), or the ``EXECUTE`` text where the cursor
    cannot bind it (:data:`BOUND`); empty without a prepared form."""
    pname, _, execute_sql = prepared
    if not pname or not BOUND:
        return execute_sql
    declared = {n: _pg_type(params.get(n)) for n in _PARAM.findall(sql)}
    return PreparedSQL.of(pname, execute_sql, declared)


def _prepared_forms(name: str, sql: str, params: Mapping[str, type | tuple[type, ...]]) -> tuple[str, str, str]:
    """(the prepared statement's name, its PREPARE, its EXECUTE with the same named parameters as ``sql``)."""
    order: list[str] = []

    def positional(match: re.Match[str]) -> str:
        if match.group(1) not in order:
            order.append(match.group(1))
        return f"${order.index(match.group(1)) + 1}"

    body = _PARAM.sub(positional, sql).replace("%%", "%")  # the PREPARE is sent without parameters
    pname = "hot_" + re.sub(r"\W", "_", name) + "_" + hashlib.sha256(sql.encode()).hexdigest()[:8]
    types = f"({', '.join(_pg_type(params.get(n)) for n in order)})" if order else ""
    args = f"({', '.join(f'%({n})s' for n in order)})" if order else ""
    return pname, f"PREPARE {pname}{types} AS {body}", f"EXECUTE {pname}{args}"


PREPARE_LOCK_TIMEOUT = "100ms"
UNDEFINED_TABLE, LOCK_NOT_AVAILABLE = "42P01", "55P03"  # SQLSTATEs of a PREPARE that is not a defect


def _prepared_on(wrapper: Any) -> set[str]:
    """The hot statements prepared on ``wrapper``'s current database connection (a new connection has none)."""
    state = getattr(wrapper, "_hot_prepared", None)
    return state[1] if state is not None and state[0] is wrapper.connection else set()


def prepare_hot_statements(wrapper: Any) -> list[str]:
    """Prepare every registered statement on ``wrapper``'s connection, afresh (``DEALLOCATE ALL`` first), in
    autocommit: called when the connection is made and after ``migrate`` (``core.apps``). Returns the names of
    those PostgreSQL refused: each then runs as text (``tests/test_sql_contracts.py`` fails on any in a migrated
    database; before ``migrate`` every one is refused, its tables do not exist yet)."""
    done: set[str] = set()
    refused: dict[str, str] = {}
    with wrapper.connection.cursor() as cur:  # the raw connection: not a round's statement
        cur.execute("DEALLOCATE ALL")
        cur.execute("SET plan_cache_mode = force_generic_plan")
        # A PREPARE takes a share lock on its tables: one held by DDL (a month's partition made or archived) is not
        # waited for; the statement runs as text on this connection instead.
        cur.execute(f"SET lock_timeout = '{PREPARE_LOCK_TIMEOUT}'")
        try:
            for stmt in REGISTRY.values():
                if not stmt.prepared_name:
                    continue
                try:
                    cur.execute(stmt.prepare_sql)
                    done.add(stmt.prepared_name)
                except Exception as exc:  # noqa: BLE001  (a statement PostgreSQL cannot prepare runs as text)
                    refused[stmt.name] = getattr(exc, "sqlstate", None) or str(exc).strip()
        finally:
            cur.execute("RESET lock_timeout")
    wrapper._hot_prepared = (wrapper.connection, done)
    expected = {c: v for c, v in refused.items() if v not in (UNDEFINED_TABLE, LOCK_NOT_AVAILABLE)}
    if expected:
        log.error("hot statements not prepared (they run as text): %s", expected)
    elif refused:
        log.info(
            "%d hot statements run as text on this connection (tables not migrated yet or locked by DDL)", len(refused)
        )
    return sorted(refused)


def warm_hot_statements(wrapper: Any) -> int:
    """Plan every hot statement prepared on ``wrapper``'s connection (``EXPLAIN EXECUTE`` with NULL parameters: the
    generic plan is built and kept, nothing runs), so that the connection's first rounds do not pay the planning and
    the loading of the catalogue caches of their tables. For a connection opened before it serves (a gunicorn worker
    just forked, ``config/gunicorn.conf.py``). Returns how many were planned."""
    planned = 0
    with wrapper.connection.cursor() as cur:  # the raw connection, in autocommit: not a round's statement
        for stmt in REGISTRY.values():
            if stmt.prepared_name in _prepared_on(wrapper):
                params = dict.fromkeys(_PARAM.findall(stmt.sql))
                try:
                    cur.execute("EXPLAIN " + stmt.execute_sql, params)
                    cur.fetchall()
                    planned += 1
                except Exception as exc:  # noqa: BLE001  (unplanned: the first EXECUTE plans it, as without this)
                    log.warning("hot statement %s not planned ahead: %s", stmt.name, str(exc).strip()[:200])
    return planned


def connection_warm() -> int:
    """Open this thread's connection of the default database (its hot statements prepared as every new connection
    does, ``core.apps``) and plan them ahead (:func:`warm_hot_statements`), where connections are kept between
    requests and the statements are prepared (not behind PgBouncer); 0 and nothing opened elsewhere. Returns how
    many statements were planned. For a web worker's threads before it serves (``config/gunicorn.conf.py``)."""

    wrapper = connections[DEFAULT_DB_ALIAS]
    kept = wrapper.settings_dict.get("CONN_MAX_AGE") != 0
    if not (kept and wrapper.vendor == "postgresql" and settings.DATABASE_PREPARED_STATEMENTS):
        return 0
    wrapper.ensure_connection()
    return warm_hot_statements(wrapper)


def hot_statements_complete(wrapper: Any) -> bool:
    """Whether ``wrapper``'s connection has every registered statement prepared."""
    return {s.prepared_name for s in REGISTRY.values() if s.prepared_name} <= _prepared_on(wrapper)


def cursor() -> Any:
    """A cursor of the default database's connection, as ``django.db.connection.cursor()`` gives it, without the
    ``connection`` proxy: its own lookup of ``cursor`` fails (an AttributeError formatted and dropped) before its
    ``__getattr__`` asks ``connections`` for the connection, as this does directly (~8 times a round)."""
    return connections[DEFAULT_DB_ALIAS].cursor()


def execute(cursor: Any, stmt: Statement, params: Mapping[str, Any] | None = None) -> None:
    """Run a registered statement on a Django cursor: its prepared form where this connection has it, else its text."""
    if stmt.prepared_name and stmt.prepared_name in _prepared_on(cursor.db):
        cursor.execute(stmt.run_sql, params)
    else:
        cursor.execute(stmt.sql, params)


def readable(sql: str) -> str:
    """The text of a registered statement for an ``EXECUTE`` of its prepared form (tests that read captured SQL) or
    for the prepared statement's own text (what ``pg_stat_activity`` shows for one bound at the protocol level:
    ``PREPARE hot_...(types) AS ...``); any other SQL as it is."""
    for prefix in ("EXECUTE hot_", "PREPARE hot_"):
        if sql.startswith(prefix):
            pname = re.split(r"[(\s]", sql[len("EXECUTE ") :], maxsplit=1)[0]
            for stmt in REGISTRY.values():
                if stmt.prepared_name == pname:
                    return stmt.sql
    return sql


@functools.cache
def _fields(model: type[Model]) -> dict[str, Field[Any, Any]]:
    """The concrete fields of a model by ``attname`` and by name (built once per model: a hot lookup)."""
    out: dict[str, Field[Any, Any]] = {}
    for f in model._meta.concrete_fields:
        out[f.attname] = out[f.name] = f
    return out


def field_of(model: type[Model], attname: str) -> Field[Any, Any]:
    """The concrete field of ``model`` whose ``attname`` (or name) this is; a KeyError names a drift."""
    try:
        return _fields(model)[attname]
    except KeyError:
        raise KeyError(f"{model.__name__} has no concrete field {attname!r}") from None


def instance(model: type[M], names: Sequence[str], values: Sequence[Any]) -> M:
    """A model instance from selected columns (``Model.from_db``): unselected fields are deferred; each value goes
    through its field's ``from_db_value`` where it has one (a JSONField's text), as the ORM's compiler does."""
    converters = _converters(model, tuple(names))
    conn = connections[DEFAULT_DB_ALIAS]  # the wrapper itself, not the proxy (``connection``) per value
    converted = [
        c(v, None, conn) if c is not None and v is not None else v for c, v in zip(converters, values, strict=True)
    ]
    return _instance_raw(model, names, converted)


@functools.cache
def _converters(model: type[Model], names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(getattr(field_of(model, n), "from_db_value", None) for n in names)


@functools.cache
def _layout(model: type[Model], names: tuple[str, ...]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """For each concrete field of ``model`` in its order, the index of its value among ``names`` (-1: not
    selected, deferred), and the fields' attnames: built once per model and column list (a round maps ~20 rows)."""
    position = {field_of(model, n).attname: i for i, n in enumerate(names)}
    if len(position) != len(names):
        raise ValueError(f"{model.__name__}: a field named twice in {names}")
    fields = model._meta.concrete_fields
    return tuple(position.get(f.attname, -1) for f in fields), tuple(f.attname for f in fields)


@functools.cache
def _plain_init(model: type[Model]) -> tuple[tuple[str, int], ...] | None:
    """Whether ``Model.from_db`` of ``model`` comes down to setting each selected field's attname in the instance's
    ``__dict__`` (Django's ``Model.__init__`` with positional values: ``setattr`` per field, a ``DEFERRED`` one
    skipped, and ``_state``): true when the model keeps Django's own ``__init__`` and ``from_db`` and every concrete
    field's class attribute is Django's plain ``DeferredAttribute`` (no ``__set__``) or the foreign key's, whose
    ``__set__`` only drops a cached related object (a new instance has none). Returns the attnames with their index
    in the model's field order, or None (such a model goes through ``from_db``: a file field's descriptor, say)."""
    own_from_db = getattr(model.from_db, "__func__", None) is not getattr(Model.from_db, "__func__", None)
    if model.__init__ is not Model.__init__ or own_from_db:
        return None
    fields = model._meta.concrete_fields
    plain = (DeferredAttribute, ForeignKeyDeferredAttribute)
    if any(type(inspect.getattr_static(model, f.attname, None)) not in plain for f in fields):
        return None
    return tuple((f.attname, i) for i, f in enumerate(fields))


def _instance_raw(model: type[M], names: Sequence[str], values: Sequence[Any]) -> M:
    """``from_db`` with every concrete field in the model's order, an unselected one ``DEFERRED`` (what ``from_db``
    itself makes of a subset, without its per-field membership test); the columns may come in any order.

    For a model :func:`_plain_init` accepts, and while no ``pre_init``/``post_init`` receiver is connected, the
    instance is built as ``Model.__init__`` builds it, without its generic per-field work (~20 rows a round):
    ``core/tests/test_sql_instances.py`` checks both give the same instance."""
    if len(values) != len(names):
        raise ValueError(f"{model.__name__}: {len(names)} fields, {len(values)} values")
    layout, fields = _layout(model, tuple(names))
    plain = _plain_init(model)
    if plain is None or signals.pre_init.receivers or signals.post_init.receivers:
        # ``connection`` is always the default alias: named without a lookup through the proxy
        return model.from_db(DEFAULT_DB_ALIAS, fields, [values[i] if i >= 0 else DEFERRED for i in layout])
    obj = model.__new__(model)
    state = ModelState()
    state.adding, state.db = False, DEFAULT_DB_ALIAS
    d = obj.__dict__
    d["_state"] = state
    for attname, i in plain:
        at = layout[i]
        if at >= 0 and values[at] is not DEFERRED:
            d[attname] = values[at]
    return obj


@functools.cache
def _new_layout(model: type[Model]) -> tuple[tuple[Field[Any, Any], str, str, bool], ...] | None:
    """For a model :func:`_plain_init` accepts whose ``Meta.fields`` are its concrete fields: each field with its name,
    attname and whether it is a relation (a foreign key or one-to-one, given as the object or its id); else None."""
    fields = model._meta.fields
    if _plain_init(model) is None or list(fields) != list(model._meta.concrete_fields):
        return None
    if any(f.column is None or f.generated for f in fields):
        return None
    return tuple((f, f.name, f.attname, isinstance(f.remote_field, ForeignObjectRel)) for f in fields)


def new_instance(model: type[M], /, **values: Any) -> M:
    """``model(**values)``, a new row not saved yet, for the hot path (a round, its audit event): each field set from
    ``values`` (by name, a relation also by its object) or its default, as ``Model.__init__`` with keywords does,
    without its generic work (a ``pop`` and a caught ``KeyError`` per field not given). A model it does not cover, a
    keyword that is not a field's name or attname (a property, a typo: Django's error), a relation given both ways
    (Django sets the object, then the id), or a ``pre_init``/``post_init`` receiver: ``model(**values)`` itself.
    ``core/tests/test_sql_instances.py`` checks both give the same instance."""
    layout = _new_layout(model)
    if layout is None or signals.pre_init.receivers or signals.post_init.receivers:
        return model(**values)
    obj = model.__new__(model)
    d = obj.__dict__
    d["_state"] = ModelState()
    taken = 0
    for f, name, attname, related in layout:
        if related and name in values:
            if attname in values:  # both ways: Django's order (the object, then the id over it)
                return model(**values)
            taken += 1
            rel = values[name]
            if rel is not DEFERRED:
                setattr(obj, name, rel)  # the relation's descriptor: the id set, the object cached, its type checked
            continue
        if attname in values:
            taken += 1
            val = values[attname]
        else:
            val = f.get_default()
        if val is not DEFERRED:
            d[attname] = val
    if taken != len(values):  # a keyword that names no field: Django's own handling (a property) or its TypeError
        return model(**values)
    return obj


def _from_json_parser(f: Field[Any, Any]) -> Any:
    internal = f.get_internal_type()
    if internal == "DateTimeField":
        return datetime.fromisoformat
    if internal == "DateField":
        return date.fromisoformat
    return None


@functools.cache
def _json_parsers(model: type[Model], names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(_from_json_parser(field_of(model, n)) for n in names)


def values_from_json(model: type[Model], obj: Mapping[str, Any], names: Sequence[str]) -> tuple[Any, ...]:
    """The values of ``names`` in a ``json_build_object`` of ``model``'s fields by attname, converted back by each
    field's type, as a tuple (a row read only for its figures: no model instance built)."""
    return tuple(
        p(obj[n]) if p is not None and obj[n] is not None else obj[n]
        for p, n in zip(_json_parsers(model, tuple(names)), names, strict=True)
    )


def instance_from_json(model: type[M], obj: Mapping[str, Any]) -> M:
    """A model instance from a ``json_build_object`` of its fields by attname: the JSON values converted back by
    each field's type."""
    names = tuple(obj)
    values = [
        p(v) if p is not None and v is not None else v
        for p, v in zip(_json_parsers(model, names), obj.values(), strict=True)
    ]
    return _instance_raw(model, names, values)  # JSON values arrive decoded already


#: Django's own field classes (exactly these, not subclasses) whose ``get_db_prep_save`` gives back a value of the
#: listed types unchanged on PostgreSQL: ``int(v)`` of an int, ``to_python`` of a str or bool, None as None; an
#: aware datetime as it is (``get_prep_value`` only warns about a naive one, ``adapt_datetimefield_value`` is the
#: identity on PostgreSQL). A JSONField's value is never taken as is (it is adapted).
_NONE = type(None)
_AS_IS: dict[type[Field[Any, Any]], frozenset[type]] = {
    **dict.fromkeys(
        (
            models.IntegerField,
            models.BigIntegerField,
            models.SmallIntegerField,
            models.PositiveIntegerField,
            models.PositiveBigIntegerField,
            models.PositiveSmallIntegerField,
        ),
        frozenset((int, _NONE)),
    ),
    models.CharField: frozenset((str, _NONE)),
    models.TextField: frozenset((str, _NONE)),
    models.BooleanField: frozenset((bool, _NONE)),
    models.DateTimeField: frozenset((datetime, _NONE)),
}


def _as_is(f: Field[Any, Any]) -> frozenset[type]:
    """The value types :func:`params_of` passes as they are for field ``f`` (none when the backend is not
    PostgreSQL, whose adaptations :data:`_AS_IS` relies on)."""
    if connections[DEFAULT_DB_ALIAS].vendor != "postgresql":
        return frozenset()
    return _AS_IS.get(type(f), frozenset())


@functools.cache
def _preparers(
    model: type[Model], names: tuple[str, ...], prefix: str
) -> tuple[tuple[str, str, Any, frozenset[type]], ...]:
    """For each of ``names``: the parameter name ``<prefix><attname>``, the attname, the field's
    ``get_db_prep_save`` and the value types it gives back unchanged (built once per model, column list and
    prefix)."""
    return tuple(
        (f"{prefix}{f.attname}", f.attname, f.get_db_prep_save, _as_is(f)) for f in (field_of(model, n) for n in names)
    )


def params_of(model: type[Model], obj: Model, names: Sequence[str], prefix: str) -> dict[str, Any]:
    """The values of ``names`` of ``obj`` as a statement's parameters ``<prefix><attname>``, each through its field's
    ``get_db_prep_save`` (what the ORM sends for it) on the default connection; a value that call would give back
    unchanged (:data:`_AS_IS`: an int for an integer field, a str, a bool, an aware datetime, None) is taken as it
    is without the call (~45 values a round; ``core/tests/test_sql_params.py`` checks both give the same)."""
    conn = connections[DEFAULT_DB_ALIAS]
    out: dict[str, Any] = {}
    for key, attname, prep, as_is in _preparers(model, tuple(names), prefix):
        value = getattr(obj, attname)
        kind = type(value)
        if kind in as_is and (kind is not datetime or value.utcoffset() is not None):
            out[key] = value
        else:
            out[key] = prep(value, conn)
    return out


def cast_type(f: Field[Any, Any]) -> str:
    """The type a parameter is cast to for a field's column: its database type, a character field without its
    length (a cast to ``varchar(n)`` would cut a long value silently; the column itself refuses it). The casts the
    statements write out are checked against it (``tests/test_sql_contracts.py``)."""
    if f.get_internal_type() in ("CharField", "SlugField", "EmailField", "URLField"):
        return "varchar"
    return str(f.cast_db_type(connection))  # type: ignore[attr-defined]  # not in the stubs


#: every transaction-scoped advisory lock of the platform, by name (one registry: two names can never share a key)
ADVISORY_LOCKS: dict[str, int] = {
    "accounts.registration": 0x41434352454731,  # the duplicate check + insert of registrations
    "accounts.terms": 0x41434354524D53,  # publications of the game plan / terms (the version number, the order)
    "wallet.bank_export": 0x62616E6B,  # the payment-order export
}

ADVISORY_LOCK = register("core.advisory_lock", "SELECT pg_advisory_xact_lock(%(key)s)", columns={}, params={"key": int})


def advisory_lock(name: str) -> None:
    """``pg_advisory_xact_lock`` of a registered name (until the transaction ends); an unknown name is a KeyError."""
    with cursor() as cur:
        execute(cur, ADVISORY_LOCK, {"key": ADVISORY_LOCKS[name]})
