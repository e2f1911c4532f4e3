"""The platform's connections parse ``json`` columns with ``core.pgbackend.json.loads`` (orjson where its result is
``json.loads``'s, ``json.loads`` otherwise): both must give the same value of the same types, or the same error, for
any text; and the connections must really use it, with what PostgreSQL sends (integers beyond 64 bits included)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.pgbackend.json import loads
from core.tests.test_json_copy import typed


def outcome(fn: Any, text: str) -> tuple[str, Any]:
    try:
        result = fn(text)
    except (ValueError, RecursionError) as exc:
        return "error", (type(exc), str(exc))
    return "value", (typed(result), repr(result))


def assert_same(text: str) -> None:
    assert outcome(loads, text) == outcome(json.loads, text), text


VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 5, max_value=2**64 + 5)
    | st.integers(max_value=-(2**63) + 5, min_value=-(2**64) - 5)
    | st.floats()
    | st.text(st.characters(exclude_categories=()), max_size=8),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5), children, max_size=5),
    max_leaves=30,
)
#: a JSON number as any writer may spell it (PostgreSQL writes numeric columns with all their digits)
NUMBERS = st.from_regex(r"-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,25})?([eE][+-]?[0-9]{1,3})?", fullmatch=True)


@settings(max_examples=2000, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(VALUES, st.booleans(), st.sampled_from([(", ", ": "), (",", ":"), (", ", " : ")]))
def test_written_values_parse_as_json_loads_parses_them(value, ascii_only, separators):
    assert_same(json.dumps(value, ensure_ascii=ascii_only, separators=separators))  # NaN written as NaN too


@settings(max_examples=2000, deadline=None)
@given(NUMBERS, st.sampled_from(["{}", '{{"n" : {}}}', "[{}, 1]", " {} ", '["x", {}]']))
def test_numbers_parse_to_the_same_int_or_float(number, template):
    assert_same(template.format(number))


#: texts built from JSON's own characters and some that are not: mostly malformed, where both must refuse
JSONISH = st.text(
    st.sampled_from(list('{}[],:"\\ \t\n\r\x0c0123456789.eE+-truefalsnNIinfyu\ud800\ufeffa')), max_size=30
)


@settings(max_examples=3000, deadline=None)
@given(JSONISH)
def test_any_text_gives_the_same_value_or_the_same_error(text):
    assert_same(text)


@pytest.mark.parametrize(
    "text",
    [
        "18446744073709551616",
        "-9223372036854775809",
        "[123456789012345678901234567890]",
        '{"a": 1, "b": 2, "a": 3}',
        '{"id" : 2, "value" : 99999999999999999999}',
        "NaN",
        "[Infinity, -Infinity]",
        "1e999",
        "1e-999",
        '"\\ud800"',
        '"\\ud83d\\ude00"',
        "0.1000000000000000055511151231257827",
        "-0.0",
        "-0",
        "\ufeff1",
        "",
        "[" * 2000 + "]" * 2000,
        '"\t"',
    ],
)
def test_texts_orjson_reads_otherwise_or_refuses(text):
    assert_same(text)


@pytest.mark.django_db
def test_the_connection_parses_json_columns_with_it():
    """What PostgreSQL sends for ``json`` and ``json[]``: the exact integers beyond 64 bits, NULL as None."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT json_build_object('big', 18446744073709551616::numeric, 'neg', -9223372036854775809::numeric,"
            " 'n', 2::bigint, 'f', 0.5::float8, 'at', now()), NULL::json,"
            " ARRAY['[1, 2]'::json, '{\"x\" : null}'::json], '123456789012345678901234567890.5'::json"
        )
        obj, null, array, long_fraction = cur.fetchone()
        assert obj["big"] == 18446744073709551616 and type(obj["big"]) is int
        assert obj["neg"] == -9223372036854775809 and type(obj["neg"]) is int
        assert obj["n"] == 2 and obj["f"] == 0.5 and isinstance(obj["at"], str)
        assert null is None and array == [[1, 2], {"x": None}]
        assert long_fraction == json.loads("123456789012345678901234567890.5")
        assert cur.cursor.connection.string_types[114].name == "JSON"  # registered on this connection
