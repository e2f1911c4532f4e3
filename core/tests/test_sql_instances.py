"""The hot statements' rows become model instances without ``Model.__init__`` where that gives the same instance
(core/sql.py ``_instance_raw``): the same fields set, the unselected ones deferred, the same state."""

from __future__ import annotations

from typing import Any, cast

import pytest
from django.apps import apps
from django.db.models import DEFERRED, ForeignKey, Model, signals

from core.sql import _instance_raw, _new_layout, _plain_init, new_instance

PLAIN = [m for m in apps.get_models() if _plain_init(m) is not None]


def _same(fast: Model, slow: Model) -> None:
    assert type(fast) is type(slow)
    assert {k: v for k, v in fast.__dict__.items() if k != "_state"} == {
        k: v for k, v in slow.__dict__.items() if k != "_state"
    }
    assert (fast._state.adding, fast._state.db) == (slow._state.adding, slow._state.db) == (False, "default")
    assert fast.get_deferred_fields() == slow.get_deferred_fields()


def test_most_models_take_the_plain_path_and_a_file_field_does_not():
    from wallet.models import BankStatement

    assert len(PLAIN) > 50
    assert _plain_init(BankStatement) is None  # FileDescriptor: through from_db


@pytest.mark.parametrize("model", PLAIN, ids=lambda m: m._meta.label)
def test_a_plain_instance_is_the_instance_from_db_makes(model: type[Model]):
    fields = model._meta.concrete_fields
    names = [f.attname for f in reversed(fields)]  # the columns in any order
    values: list[Any] = [f"value of {n}" for n in names]
    slow = model.from_db("default", [f.attname for f in fields], list(reversed(values)))
    _same(_instance_raw(model, names, values), slow)
    # a subset: the unselected fields are deferred (read from the database on first access)
    some = [f.attname for f in fields][::2]
    slow = model.from_db("default", some, [f"value of {n}" for n in some])
    fast = _instance_raw(model, some, [f"value of {n}" for n in some])
    _same(fast, slow)
    assert fast.get_deferred_fields() == {f.attname for f in fields} - set(some)


def test_with_an_init_receiver_connected_every_instance_goes_through_from_db():
    from accounts.models import AuthToken

    seen: list[Any] = []

    def receiver(sender: Any, instance: Any, **kwargs: Any) -> None:
        seen.append(instance)

    signals.post_init.connect(receiver, sender=AuthToken)
    try:
        names = [f.attname for f in AuthToken._meta.concrete_fields]
        token = _instance_raw(AuthToken, names, [DEFERRED if n != "id" else 7 for n in names])
    finally:
        signals.post_init.disconnect(receiver, sender=AuthToken)
    assert seen == [token] and token.pk == 7


# New rows (``new_instance``): what ``model(**values)`` makes ----------------------------------------------------------

NEW = [m for m in PLAIN if _new_layout(m) is not None]


def _same_new(fast: Model, slow: Model) -> None:
    assert type(fast) is type(slow)
    assert (fast._state.adding, fast._state.db) == (slow._state.adding, slow._state.db)
    assert fast._state.adding
    assert fast.__dict__.keys() == slow.__dict__.keys()
    for key, value in slow.__dict__.items():
        if key == "_state":
            assert fast._state.fields_cache == value.fields_cache
            continue
        field = next((f for f in type(slow)._meta.concrete_fields if f.attname == key), None)
        if field is not None and callable(field.default) and fast.__dict__[key] != value:  # a time or a fresh token
            assert type(fast.__dict__[key]) is type(value), key
        else:
            assert fast.__dict__[key] == value, key


def test_most_models_are_made_new_without_model_init():
    from core.models import AuditEvent
    from games.models import Round

    assert len(NEW) > 50 and Round in NEW and AuditEvent in NEW


@pytest.mark.parametrize("model", NEW, ids=lambda m: m._meta.label)
def test_a_new_instance_is_what_model_init_makes(model: type[Model]):
    _same_new(new_instance(model), model())  # every field its default
    given = {f.attname: f"value of {f.attname}" for f in model._meta.concrete_fields[::2]}
    _same_new(new_instance(model, **given), model(**given))
    related = [f for f in model._meta.concrete_fields if isinstance(f, ForeignKey)]
    if related:  # a relation given as its object: its id set and the object cached
        f = related[0]
        target_model = cast(type[Model], f.related_model)
        target = target_model(pk=41) if f.target_field.primary_key else None
        if target is not None:
            fast, slow = new_instance(model, **{f.name: target}), model(**{f.name: target})
            _same_new(fast, slow)
            assert getattr(fast, f.attname) == 41 and getattr(fast, f.name) is target


def test_what_it_does_not_cover_goes_to_model_init():
    from accounts.models import Player
    from games.models import Round

    with pytest.raises(TypeError, match="unexpected keyword"):
        new_instance(Round, no_such_field=1)
    both = {"player_id": 2, "player": Player(pk=1)}
    _same_new(new_instance(Round, **both), Round(**both))  # the relation both ways: Django's result
    seen: list[Any] = []

    def receiver(sender: Any, instance: Any, **kwargs: Any) -> None:
        seen.append(instance)

    signals.post_init.connect(receiver, sender=Round)
    try:
        rnd = new_instance(Round, game_code="x")
    finally:
        signals.post_init.disconnect(receiver, sender=Round)
    assert seen == [rnd] and rnd.game_code == "x"
