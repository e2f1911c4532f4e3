"""The platform's connections parse ``json`` columns with ``core.pgbackend.json.loads`` (orjson where its result is
``json.loads``'s, ``json.loads`` otherwise): both must give the same value of the same types, or the same error, for
any text; and the connections must really use it, with what PostgreSQL sends (integers beyond 64 bits included)."""

from __future__ import annotations

import dataclasses
import json
import uuid
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from django.db import Error as DatabaseError
from django.db import connection, transaction
from django.db.backends.postgresql.psycopg_any import Jsonb  # type: ignore[import-untyped]  # not in the stubs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.pgbackend.json import FastJsonb, FastJsonLoader, loads
from core.tests.test_json_copy import Colour, Items, Level, Number, Plain, Real, Text, typed


def outcome(fn: Any, text: str | bytes) -> tuple[str, Any]:
    try:
        result = fn(text)
    except (ValueError, RecursionError) as exc:
        return "error", (type(exc), str(exc))
    return "value", (typed(result), repr(result))


def assert_same(text: str) -> None:
    assert outcome(loads, text) == outcome(json.loads, text), text
    try:
        data = text.encode("utf-8")  # what a loader is handed: the server's UTF-8 bytes
    except UnicodeEncodeError:  # a lone surrogate: no server sends one
        return
    assert outcome(loads, data) == outcome(json.loads, data), text


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


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(VALUES, st.booleans(), st.sampled_from([(", ", ": "), (",", ":"), (", ", " : ")]))
def test_written_values_parse_as_json_loads_parses_them(value, ascii_only, separators):
    assert_same(json.dumps(value, ensure_ascii=ascii_only, separators=separators))  # NaN written as NaN too


@settings(max_examples=1000, deadline=None)
@given(NUMBERS, st.sampled_from(["{}", '{{"n" : {}}}', "[{}, 1]", " {} ", '["x", {}]']))
def test_numbers_parse_to_the_same_int_or_float(number, template):
    assert_same(template.format(number))


#: texts built from JSON's own characters and some that are not: mostly malformed, where both must refuse
JSONISH = st.text(
    st.sampled_from(list('{}[],:"\\ \t\n\r\x0c0123456789.eE+-truefalsnNIinfyu\ud800\ufeffa')), max_size=30
)


@settings(max_examples=1500, deadline=None)
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
        assert cur.cursor.adapters.get_loader(114, psycopg.pq.Format.TEXT) is FastJsonLoader  # this connection's


# --- parameters: FastJsonb against Django's Jsonb, compared by what PostgreSQL keeps ----------------------------------
@dataclasses.dataclass
class Point:
    x: int


def stored(adapter: Any) -> tuple[str, Any]:
    """What PostgreSQL keeps of the adapted value (jsonb's own text of it), or the error (Python's or the server's)."""
    try:
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute("SELECT (%s)::text", [adapter])
            return "stored", cur.fetchone()[0]
    except DatabaseError as exc:  # the server's refusal, wrapped by Django
        return "refused", getattr(exc.__cause__, "sqlstate", None)
    except (TypeError, ValueError) as exc:  # the encoder's own errors
        return "error", (type(exc), str(exc))


PARAM_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 3, max_value=2**64 + 3)
    | st.floats()
    | st.text(st.characters(exclude_categories=()), max_size=6)
    | st.sampled_from(["ř\u2028", "\x00", "\x7f\x1f", "'", "\\", "\ud83d\ude00", "\U0001f600"])
    | st.sampled_from([Colour.RED, Level.HIGH, Plain.A, Text("t"), Number(5), Real(1.5), uuid.UUID(int=5)])
    | st.sampled_from([Point(1), datetime(2026, 1, 1, tzinfo=UTC), b"x"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.lists(children, max_size=4).map(tuple)
        | st.lists(children, max_size=4).map(Items)
        | st.dictionaries(
            st.text(max_size=4) | st.integers() | st.sampled_from([Colour.RED, None]), children, max_size=4
        )
    ),
    max_leaves=20,
)


@pytest.mark.django_db
@settings(
    max_examples=200, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture], deadline=None
)
@given(PARAM_VALUES)
def test_a_value_is_stored_as_djangos_jsonb_stores_it(value):
    assert stored(FastJsonb(value)) == stored(Jsonb(value)), value


@pytest.mark.django_db
@pytest.mark.parametrize(
    "value",
    [
        {"status": Colour.RED, "game": "european_roulette@1", "stake": 100, "ok": True, "none": None},
        {"bets": [{"type": "red", "amount": 100}], "ř": "Evropská ruleta\u2028"},
        [2**63 - 1, -(2**63)],
        [2**64],
        [float("nan")],
        {"f": float("inf")},
        {"f": 1e16, "g": 1e-05, "h": 1.0},
        {"k": "\x00"},
        ["\ud800"],
        {1: "a", "1": "b"},
        [uuid.UUID(int=1)],
        [Plain.A],
        [Point(2)],
        [datetime(2026, 1, 1, tzinfo=UTC)],
        [Level.LOW, Number(3)],
    ],
)
def test_odd_values_are_stored_or_refused_as_djangos_jsonb_does(value):
    assert stored(FastJsonb(value)) == stored(Jsonb(value))


@pytest.mark.django_db
def test_a_circular_value_is_the_same_error():
    looped: list[Any] = []
    looped.append(looped)
    assert stored(FastJsonb(looped)) == stored(Jsonb(looped)) == ("error", (ValueError, "Circular reference detected"))


@pytest.mark.django_db
def test_json_fields_without_an_encoder_get_it_and_plain_values_take_orjson():
    """The backend hands a JSONField's value to FastJsonb (with its own encoder: Django's), and a round's plain
    values are written by orjson (its text: no escapes, no spaces), the audit event's enumeration member included."""
    from django.core.serializers.json import DjangoJSONEncoder

    assert type(connection.ops.adapt_json_value({"a": 1}, None)) is FastJsonb
    assert type(connection.ops.adapt_json_value({"a": 1}, DjangoJSONEncoder)) is Jsonb
    with connection.cursor() as cur:
        sent = cur.cursor.mogrify("SELECT %s", [FastJsonb({"status": Colour.RED, "name": "ř"})])
    assert sent == 'SELECT \'{"status":"red","name":"ř"}\'::jsonb'


@pytest.mark.django_db
def test_a_fast_jsonb_is_sent_as_orjsons_text_and_in_binary_as_jsonb():
    """Quoted client-side (the ORM) and dumped in binary (a hot statement's bound parameter), the value is orjson's
    text as ``jsonb``."""
    value = FastJsonb({"a": [1, "ř"]})
    with connection.cursor() as cur:
        assert cur.cursor.mogrify("SELECT %s", [value]) == 'SELECT \'{"a":[1,"ř"]}\'::jsonb'
        tx = cur.cursor._tx
        dumper = tx.get_dumper(value, psycopg.adapt.PyFormat.BINARY)
        assert dumper.oid == 3802 and bytes(dumper.dump(value)) == b"\x01" + '{"a":[1,"ř"]}'.encode()
