"""``core.jsonable.json_copy`` is ``json.loads(json.dumps(value, allow_nan=False))`` without the text: the games'
services copy every state, bet and action through it (``games.services.common.jsonable``), and a state that the
round trip refuses is a malfunction (``clean_state``). Both must give the same value of the same types, or the same
error, for anything an engine or a request could hand over: compared here over generated values and every odd case
the standard library treats specially."""

from __future__ import annotations

import enum
import json
import sys
from collections import OrderedDict
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from django.db import models
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.jsonable import json_copy


def old(value: Any) -> Any:
    return json.loads(json.dumps(value, allow_nan=False))


def outcome(fn: Any, value: Any) -> tuple[str, Any]:
    """What ``fn(value)`` gives: the value with every type spelled out (``repr`` tells 1, 1.0, True and -0.0 apart),
    or the error's type and message."""
    try:
        result = fn(value)
    except (TypeError, ValueError, RecursionError) as exc:
        return "error", (type(exc), str(exc))
    return "value", (typed(result), repr(result))


def typed(value: Any) -> Any:
    if isinstance(value, dict):
        return (type(value), [(type(k), k, typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return (type(value), [typed(v) for v in value])
    return (type(value), value)


def assert_same(value: Any) -> None:
    assert outcome(json_copy, value) == outcome(old, value), value


class Colour(models.TextChoices):
    RED = "red"
    BLACK = "black"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Plain(enum.Enum):
    A = "a"


class Text(str):
    pass


class Number(int):
    pass


class Real(float):
    pass


class Items(list[Any]):
    pass


#: integers around the process's digit limit (4,300 digits) and the least limit it accepts (640): built by a map, so
#: that hypothesis never writes the bounds out (its repr of them would hit the limit itself)
HUGE = st.tuples(st.integers(630, 5000), st.integers(-3, 3), st.sampled_from([1, -1])).map(
    lambda t: t[2] * (10 ** t[0] + t[1])
)
# every character, surrogates included (hypothesis leaves them out by default)
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=8)
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    HUGE,
    st.floats(),  # NaN and the infinities included
    ANY_TEXT,
    st.sampled_from(["\ud83d\ude00", "\ud800", "a\udc00b", "ř\u2028", "\x00", "", "status"]),
    st.sampled_from([Colour.RED, Level.HIGH, Plain.A, Text("t"), Number(5), Real(1.5), Real("nan")]),
    st.sampled_from([Decimal("1.5"), datetime(2026, 12, 7, tzinfo=UTC), b"x", {1, 2}, object()]),
)
KEYS = st.one_of(
    ANY_TEXT,
    st.integers(),
    st.floats(),
    st.booleans(),
    st.none(),
    st.sampled_from(["1", "true", "null", "1.5", Colour.BLACK, (1, 2), "\ud83d\ude00"]),
    HUGE,
)


def containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=5).map(tuple),
        st.lists(children, max_size=5).map(Items),
        st.dictionaries(KEYS, children, max_size=5),
        st.dictionaries(st.text(max_size=5), children, max_size=5),  # the common case: text keys only
        st.dictionaries(st.text(max_size=5), children, max_size=5).map(OrderedDict),
    )


VALUES = st.recursive(LEAVES, containers, max_leaves=30)


@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(VALUES)
def test_the_copy_is_the_round_trip_for_generated_values(value):
    assert_same(value)


PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5), children, max_size=5),
    max_leaves=40,
)


@settings(max_examples=500, deadline=None)
@given(PLAIN)
def test_plain_data_is_copied_not_shared(value):
    """The copy of plain data is new containers all the way down (the engine cannot change the stored row)."""
    assert_same(value)
    copy = json_copy(value)
    stack = [(value, copy)]
    while stack:
        a, b = stack.pop()
        if isinstance(a, (dict, list)):
            assert a is not b
            stack.extend(zip(a.values(), b.values(), strict=True) if isinstance(a, dict) else zip(a, b, strict=True))


@pytest.mark.parametrize(
    "value",
    [
        {1: "a", "1": "b"},  # keys equal as text: the last value, in the first key's place
        {"1": "a", 1: "b", "true": "d", None: "e", 1.5: "f", -0.0: "g"},
        {True: "c", "true": "d", False: 0, "false": 1},
        {float("nan"): 1},
        {float("inf"): 1},
        {(1, 2): 1},
        {Colour.RED: Level.LOW},
        {10**5000: 1},
        [10**5000],
        [10**639, -(10**639), 2**2000 - 1, -(2**2000) + 1, 2**2000],
        [float("nan")],
        [float("-inf")],
        {"a": [1, (2, 3.0, -0.0, 5e-324, 1e308)]},
        ["\ud83d\ude00", "\ud83d", "\ude00\ud83d", "ř", "\U0001f600"],
        {"\ud83d\ude00": 1, "\U0001f600": 2},
        Colour.RED,
        [Level.HIGH, Plain.A],
        Real("inf"),
        OrderedDict(b=1, a=2),
        Items([1, 2]),
        Decimal("1"),
        [datetime(2026, 1, 1, tzinfo=UTC)],
        "plain",
        None,
        True,
        0,
        -0.0,
    ],
)
def test_odd_values_as_the_round_trip(value):
    assert_same(value)


def test_a_circular_structure_is_the_round_trips_value_error():
    looped: list[Any] = [1]
    looped.append({"again": looped})
    assert outcome(json_copy, looped) == outcome(old, looped) == ("error", (ValueError, "Circular reference detected"))


def test_data_nested_too_deep_is_a_recursion_error_either_way():
    deep: list[Any] = []
    for _ in range(sys.getrecursionlimit() * 3):
        deep = [deep]
    assert outcome(json_copy, deep)[1][0] is outcome(old, deep)[1][0] is RecursionError


def test_the_integer_digit_limit_of_the_process_is_the_round_trips(monkeypatch):
    """A process with a lower digit limit refuses shorter integers: the copy's bound is below the least limit."""
    previous = sys.get_int_max_str_digits()
    try:
        sys.set_int_max_str_digits(640)
        for value in ([10**639], [10**640], {"a": -(10**700)}):
            assert_same(value)
    finally:
        sys.set_int_max_str_digits(previous)
