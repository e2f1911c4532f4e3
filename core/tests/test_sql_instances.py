"""The hot statements' rows become model instances without ``Model.__init__`` where that gives the same instance
(core/sql.py ``_instance_raw``): the same fields set, the unselected ones deferred, the same state."""

from __future__ import annotations

from typing import Any

import pytest
from django.apps import apps
from django.db.models import DEFERRED, Model, signals

from core.sql import _instance_raw, _plain_init

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
