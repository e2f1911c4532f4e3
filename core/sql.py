"""The hand-written SQL of the hot paths: one registry, one way to name columns and to map rows back.

Each app keeps its hot statements in ``<app>/sql.py`` (``wallet/sql.py``, ``limits/sql.py``, ``games/sql.py``,
``jackpots/sql.py``, ``accounts/sql.py``), each built from the models' ``_meta`` (table names, column names of the
field list, enum values passed as parameters) and registered here with :func:`register`: the models it reads and
writes, the columns it names of each, its parameters (by type, for ``EXPLAIN``) and the tables that grow.
``tests/test_sql_contracts.py`` checks every registered statement against its models (every declared column is a
field of the model, an ``INSERT`` lists every column the database cannot fill itself) and runs ``EXPLAIN`` on each
against tables holding enough rows that a sequential scan of a growing table shows (it fails on one).

Rows come back as model instances through :func:`instance` (``Model.from_db``: a field that was not selected is
deferred, so it loads on access and ``save()`` never writes it with a Python default); keyed sub-rows arrive as
``json_build_object`` keyed by the fields' ``attname`` (:func:`json_object`) and go through :func:`instance_from_json`.
The verification SQL (``limits_reconcile``, ``ledger_check``) stays apart on purpose: it is the independent proof.
"""
from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, TypeVar

from django.db import connection
from django.db.models import Field, Model

M = TypeVar("M", bound=Model)


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


REGISTRY: dict[str, Statement] = {}


def register(name: str, sql: str, *, columns: Mapping[type[Model], Iterable[str]],
             params: Mapping[str, type | tuple[type, ...]] | None = None, positional: Sequence[type] = (),
             inserts: Iterable[type[Model]] = (), doc: str = "") -> Statement:
    """Register a hot statement (a module-level call in ``<app>/sql.py``); returns it."""
    if name in REGISTRY and REGISTRY[name].sql != sql:
        raise ValueError(f"two statements named {name}")
    stmt = Statement(name=name, sql=sql, columns={m: tuple(c) for m, c in columns.items()}, params=dict(params or {}),
                     inserts=tuple(inserts), doc=doc, positional=tuple(positional))
    REGISTRY[name] = stmt
    return stmt


def table(model: type[Model]) -> str:
    return model._meta.db_table


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


def col(model: type[Model], attname: str) -> str:
    """The column of a field (``player`` -> ``player_id``): the one way statements name columns."""
    return field_of(model, attname).column


def cols(model: type[Model], attnames: Iterable[str] | None = None, *, alias: str = "") -> str:
    """A comma-separated column list (all concrete fields when ``attnames`` is None), optionally qualified."""
    names = [f.attname for f in model._meta.concrete_fields] if attnames is None else list(attnames)
    prefix = f"{alias}." if alias else ""
    return ", ".join(f'{prefix}"{col(model, n)}"' for n in names)


def attnames(model: type[Model], *, exclude: Iterable[str] = ()) -> tuple[str, ...]:
    skip = set(exclude)
    return tuple(f.attname for f in model._meta.concrete_fields if f.attname not in skip and f.name not in skip)


def json_object(model: type[Model], alias: str, names: Iterable[str] | None = None) -> str:
    """``json_build_object('attname', alias.column, ...)`` of the given fields (all concrete fields by default)."""
    names = attnames(model) if names is None else tuple(names)
    return "json_build_object(" + ", ".join(f"'{n}', {alias}.\"{col(model, n)}\"" for n in names) + ")"


def instance(model: type[M], names: Sequence[str], values: Sequence[Any]) -> M:
    """A model instance from selected columns (``Model.from_db``): unselected fields are deferred; each value goes
    through its field's ``from_db_value`` where it has one (a JSONField's text), as the ORM's compiler does."""
    converted = []
    for name, value in zip(names, values, strict=True):
        f = field_of(model, name)
        converter = getattr(f, "from_db_value", None)
        converted.append(converter(value, None, connection) if converter is not None and value is not None else value)
    return _instance_raw(model, names, converted)


def _instance_raw(model: type[M], names: Sequence[str], values: Sequence[Any]) -> M:
    """``from_db`` takes a subset of fields in the model's field order: put them in it (any order may come)."""
    given = dict(zip((field_of(model, n).attname for n in names), values, strict=True))
    ordered = [f.attname for f in model._meta.concrete_fields if f.attname in given]
    return model.from_db(connection.alias, ordered, [given[n] for n in ordered])


def _from_json(f: Field[Any, Any], value: Any) -> Any:
    if value is None:
        return None
    internal = f.get_internal_type()
    if internal == "DateTimeField":
        return datetime.fromisoformat(value)
    if internal == "DateField":
        return date.fromisoformat(value)
    return value


def instance_from_json(model: type[M], obj: Mapping[str, Any]) -> M:
    """A model instance from a ``json_object`` of it: the JSON values converted back by each field's type."""
    names = list(obj)
    values = [_from_json(field_of(model, n), obj[n]) for n in names]
    return _instance_raw(model, names, values)  # JSON values arrive decoded already


def cast_type(f: Field[Any, Any]) -> str:
    """The type a parameter is cast to for a field's column: its database type, a character field without its
    length (a cast to ``varchar(n)`` would cut a long value silently; the column itself refuses it)."""
    if f.get_internal_type() in ("CharField", "SlugField", "EmailField", "URLField"):
        return "varchar"
    return str(f.cast_db_type(connection))  # type: ignore[attr-defined]  # not in the stubs


def choice(value: Any) -> str:
    """An enum member as the parameter a statement takes (never a literal in the SQL)."""
    return str(value.value if hasattr(value, "value") else value)


#: every transaction-scoped advisory lock of the platform, by name (one registry: two names can never share a key)
ADVISORY_LOCKS: dict[str, int] = {
    "accounts.registration": 0x41434352454731,  # the duplicate check + insert of registrations
    "accounts.terms": 0x41434354524D53,  # publications of the game plan / terms (the version number, the order)
    "wallet.bank_export": 0x62616E6B,  # the payment-order export
}

ADVISORY_LOCK = register("core.advisory_lock", "SELECT pg_advisory_xact_lock(%(key)s)", columns={},
                         params={"key": int})


def advisory_lock(name: str) -> None:
    """``pg_advisory_xact_lock`` of a registered name (until the transaction ends); an unknown name is a KeyError."""
    with connection.cursor() as cur:
        cur.execute(ADVISORY_LOCK.sql, {"key": ADVISORY_LOCKS[name]})
