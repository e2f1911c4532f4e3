"""``core.jsonable.deep_copy`` is ``copy.deepcopy`` (the games' services copy each bet, state and action before the
engine reads it): the same copy, compared here on generated trees and on what makes it hand the value to deepcopy
(shared parts, cycles, tuples, subclasses, other types)."""

from __future__ import annotations

import copy
import math
from collections import OrderedDict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.jsonable import deep_copy
from core.money import Money
from core.tests.test_json_copy import Colour, Level


def shape(value: Any, original: Any, ids: dict[int, int]) -> Any:
    """The copy spelled out: each container's type and a number per distinct container (so sharing shows), each leaf
    with its type and whether it is the original's own object."""
    if isinstance(value, (dict, list, tuple)):
        number = ids.setdefault(id(value), len(ids))
        if isinstance(value, dict):
            items = [(k, shape(v, original[k], ids)) for k, v in value.items()]
        else:
            items = [shape(v, o, ids) for v, o in zip(value, original, strict=True)]
        return type(value), number, value is original, items
    return type(value), repr(value), value is original


def assert_same(value: Any) -> None:
    ours, theirs = deep_copy(value), copy.deepcopy(value)
    assert shape(ours, value, {}) == shape(theirs, value, {}), value


TREES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=3), children, max_size=4),
    max_leaves=30,
)


@settings(max_examples=2000, deadline=None)
@given(TREES)
def test_a_tree_is_copied_as_deepcopy_copies_it(value):
    assert_same(value)
    assert_same({"bet": value, "n": [value]})


def test_shared_parts_cycles_and_other_types_are_copied_by_deepcopy_itself():
    shared = {"amount": 100}
    assert_same({"a": shared, "b": shared})
    assert_same([shared, [shared]])
    cycle: list[Any] = [1]
    cycle.append(cycle)
    copied = deep_copy(cycle)
    assert copied[1] is copied and copied is not cycle
    for value in (
        {"t": (1, [2])},
        {"o": OrderedDict(a=1)},
        [Colour.RED, Level.HIGH],
        {"m": Money(100, "CZK")},
        {(1, 2): "tuple key"},
        {"nan": math.nan, "inf": -math.inf},
    ):
        assert_same(value)


def test_a_round_s_bet_is_a_new_tree_with_the_same_leaves():
    bet = {"bets": [{"type": "red", "amount": {"amount": 100, "currency": "CZK"}}]}
    copied = deep_copy(bet)
    assert copied == bet and copied is not bet and copied["bets"][0]["amount"] is not bet["bets"][0]["amount"]
    assert copied["bets"][0]["type"] is bet["bets"][0]["type"]
    assert_same(bet)


def test_nesting_too_deep_for_the_copy_goes_to_deepcopy():
    """Past the copy's recursion the value goes to deepcopy: it copies it, or raises as it raises."""

    def kind(fn: Any, value: Any) -> str:
        try:
            fn(value)
        except RecursionError:
            return "RecursionError"
        return "copied"

    for depth in (100, 5000):
        deep: Any = []
        for _ in range(depth):
            deep = [deep]
        assert kind(deep_copy, deep) == kind(copy.deepcopy, deep), depth
