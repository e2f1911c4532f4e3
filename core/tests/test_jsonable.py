"""``core.jsonable.jsonable`` (the audit trail's values, the round's answer) walks nested exact dicts and lists
without its own checks per container (``_dict``/``_list``): what it gives must be what the single recursive function
it replaced gave, kept here as the reference, for anything the services hand it (money, datetimes in any zone, dates,
enumeration members as keys and values, tuples, subclasses of dict and list, other types written as text)."""

from __future__ import annotations

from collections import OrderedDict
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from core.jsonable import jsonable
from core.money import Money
from core.tests.test_json_copy import Colour, Items, Level, Number, Plain, Real, Text, typed

_PLAIN = frozenset((str, int, float, bool, type(None)))


def former(value: Any) -> Any:
    """The function as it was before ``_dict``/``_list`` (the reference)."""
    if type(value) in _PLAIN:
        return value
    if isinstance(value, Money):
        return value.to_json()
    if isinstance(value, dict):
        return {(k if type(k) is str else str(k)): (v if type(v) in _PLAIN else former(v)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [v if type(v) in _PLAIN else former(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "isoformat"):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return str(value)


def described(value: Any) -> Any:
    """The value with its types (an enumeration member stays one: both functions keep str and int subclasses)."""
    return typed(value), repr(value)


LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=6),
    st.builds(Money, st.integers(-(10**12), 10**12), st.sampled_from(["CZK", "EUR"])),
    st.datetimes(timezones=st.sampled_from([UTC, ZoneInfo("Europe/Prague"), timezone(timedelta(hours=-3))])),
    st.datetimes(),
    st.dates(),
    st.sampled_from([Colour.RED, Level.HIGH, Plain.A, Text("t"), Number(5), Real(1.5), Decimal("1.50"), b"x"]),
)
KEYS = st.one_of(st.text(max_size=4), st.integers(), st.booleans(), st.none(), st.sampled_from([Colour.RED, (1, 2)]))
VALUES = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.lists(children, max_size=4).map(Items),
        st.dictionaries(KEYS, children, max_size=4),
        st.dictionaries(st.text(max_size=4), children, max_size=4).map(OrderedDict),
    ),
    max_leaves=30,
)


@settings(max_examples=1500, deadline=None)
@given(VALUES)
def test_jsonable_gives_what_the_former_function_gave(value):
    assert described(jsonable(value)) == described(former(value))


def test_a_rounds_answer_as_before():
    at = datetime(2026, 12, 7, 7, 41, 31, 618696, tzinfo=UTC)
    answer = {
        "id": 91259465105915,
        "game": {"code": "european_roulette", "version": 1, "name_cs": "Evropská ruleta"},
        "status": Colour.RED,
        "started_at": at,
        "deadline": date(2027, 6, 5),
        "stake": Money(100, "CZK"),
        "bet": {"bets": [{"type": "red", "amount": Money(100, "CZK")}]},
        "state": {"steps": [{"bets": [{"win": 0}], "number": 28}], "pending": None},
        "draws": [(37, 28)],
        "jackpot_events": [{"value": 507069464, "of": 1000000000}],
        1: "a key that is not text",
    }
    assert described(jsonable(answer)) == described(former(answer))
    assert jsonable(answer)["started_at"] == "2026-12-07T07:41:31.618696Z"
