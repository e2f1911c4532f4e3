"""A hot statement's parameters (core/sql.py ``params_of``) take a value as it is where the field's
``get_db_prep_save`` would give it back unchanged (``_AS_IS``), and send everything else through that call: both
ways give the same parameters. The one difference allowed: Django under psycopg 3 wraps an integer field's value in
psycopg's ``Int2``/``Int4``/``Int8`` (an ``int`` subclass that only names the size to send it as); a hot statement's
parameter is sent as its prepared statement declares it (``core/pgbackend/prepared.py``: a plain ``int`` goes as the
declared bigint), so the plain ``int`` is what it must get."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.apps import apps
from django.db import connection
from django.db.models import Field, JSONField, Model

from core.sql import _AS_IS, _preparers, params_of

#: psycopg's integer wrappers Django's ``adapt_integerfield_value`` gives (``int`` subclasses naming a wire size)
INT_WRAPPERS = {"Int2", "Int4", "Int8"}


def same_value(ours: Any, djangos: Any) -> bool:
    """The same value of the same type, an integer field's psycopg wrapper counted as the plain ``int`` it holds."""
    if type(ours) is int and type(djangos).__name__ in INT_WRAPPERS and isinstance(djangos, int):
        return int(djangos) == ours
    return bool(ours == djangos) and type(ours) is type(djangos)


SAMPLES: dict[type, list[Any]] = {
    int: [0, 1, -7, 2**62],
    str: ["", "roulette", "ř\u2028"],
    bool: [True, False],
    datetime: [datetime(2026, 12, 7, 1, 2, 3, 456789, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)],
    type(None): [None],
}


@pytest.mark.parametrize("field_class", list(_AS_IS), ids=lambda c: c.__name__)
def test_each_value_taken_as_is_is_what_get_db_prep_save_gives_back(field_class: type[Field[Any, Any]]):
    field = field_class(null=True) if field_class.__name__ != "CharField" else field_class(null=True, max_length=60)
    field.set_attributes_from_name("x")
    for kind in _AS_IS[field_class]:
        for value in SAMPLES[kind]:
            prepared = field.get_db_prep_save(value, connection)
            assert same_value(value, prepared), (field_class, value)


def test_values_it_does_not_take_as_is_still_go_through_the_field():
    from games.models import Round

    assert _AS_IS.get(JSONField) is None
    rnd = Round(pk=1, player_id=1, game_id=1, game_code="x", game_version=1, stake=True, state={"a": 1})
    params = params_of(Round, rnd, ("stake", "state", "started_at"), "r_")
    assert same_value(1, params["r_stake"])  # a bool in an integer field: int(True)
    assert params["r_state"] != {"a": 1} and params["r_state"].obj == {"a": 1}  # a JSONField's value: adapted
    naive = datetime(2026, 1, 1)  # noqa: DTZ001 - the case under test: a naive datetime is made aware (and warned)
    rnd.started_at = naive
    with pytest.warns(RuntimeWarning):
        params = params_of(Round, rnd, ("started_at",), "r_")
    assert params["r_started_at"].utcoffset() is not None


HOT = [m for m in apps.get_models() if m._meta.app_label in ("games", "wallet", "limits", "jackpots", "core")]


@pytest.mark.parametrize("model", HOT, ids=lambda m: m._meta.label)
def test_params_of_equals_every_value_through_get_db_prep_save(model: type[Model]):
    names = tuple(f.attname for f in model._meta.concrete_fields)
    obj = model()
    for f in model._meta.concrete_fields:
        kinds = _AS_IS.get(type(f), frozenset())
        sample = next((SAMPLES[k][0] for k in (int, str, bool, datetime) if k in kinds), None)
        setattr(obj, f.attname, sample)
    fast = params_of(model, obj, names, "p_")
    slow = {key: prep(getattr(obj, attname), connection) for key, attname, prep, _ in _preparers(model, names, "p_")}
    assert set(fast) == set(slow)
    for key in fast:
        a, b = getattr(fast[key], "obj", fast[key]), getattr(slow[key], "obj", slow[key])  # a JSON adapter
        assert same_value(a, b) if type(a) is int else (type(fast[key]) is type(slow[key]) and a == b), key
