from decimal import ROUND_FLOOR

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.money import Money, MoneyError


@pytest.mark.parametrize(
    "text,amount",
    [
        ("12,50 Kč", 1250),
        ("3 000,00 Kč", 300000),
        ("3\u00a0000,01\u00a0Kč", 300001),
        ("3000.01", 300001),
        ("12.50 CZK", 1250),
        ("3,000.50", 300050),
        ("12 Kč", 1200),
        ("100,-", 10000),
        ("0,10", 10),
        ("-5,5", -550),
        ("0.12", 12),
        ("10.05", 1005),
        ("1 000 000", 100_000_000),
        ("1,000,000.01 CZK", 100_000_001),
    ],
)
def test_parsing_accepts_czech_and_english_forms(text, amount):
    assert Money.parse(text).amount == amount


@pytest.mark.parametrize(
    "text",
    ["", "abc", "1,2,3", "12.5.5", "1,001,1", "12,505,5", "Kč", "1e5", "1 00", "10 0000,5", "1,00,000.00", "１２"],
)
def test_parsing_refuses_malformed_text(text):
    with pytest.raises(MoneyError):
        Money.parse(text)


@pytest.mark.parametrize(
    "text",
    [
        "0.125",
        "10.005",
        "0,125",
        "1,000",
        "1.000",
        "12.345,67",
        "1.000,50",
        "3,000",
        "0.1250",
        "12,5000 Kč",
        "1.000.000",
    ],
)
def test_more_than_two_decimals_and_foreign_thousands_are_refused_not_guessed(text):
    """Issue: "0.125" was read as 125 CZK and "10.005" as 10,005 CZK. Three decimals could be a thousands group
    or haléře fractions; dots between thousands are not the Czech format's; a comma-grouped number without its
    decimal point is ambiguous: all refused."""
    with pytest.raises(MoneyError):
        Money.parse(text)


@given(st.integers(min_value=0, max_value=10**12), st.sampled_from(["", " Kč", " CZK"]))
def test_two_decimals_with_either_decimal_mark_parse_exactly(amount, suffix):
    whole, frac = divmod(amount, 100)
    for mark in (",", "."):
        assert Money.parse(f"{whole}{mark}{frac:02d}{suffix}").amount == amount


def test_formatting_is_czech_with_nonbreaking_spaces_and_english_on_request():
    assert Money(300001).format() == "3\u00a0000,01\u00a0Kč"
    assert Money(1250).format("en") == "12.50 CZK"
    assert str(Money(-5)) == "-0,05\u00a0Kč"


def test_money_refuses_floats_and_mixed_currencies():
    with pytest.raises(MoneyError):
        Money(12.5)  # type: ignore[arg-type]  # the point of the test
    with pytest.raises(MoneyError):
        Money(1) + Money(1, "EUR")
    with pytest.raises(MoneyError):
        Money(100) * 1.5  # type: ignore[operator]  # the point of the test


def test_from_major_is_exact_and_refuses_sub_haler_amounts():
    assert Money.from_major("3000.01").amount == 300001
    with pytest.raises(MoneyError):
        Money.from_major("0.001")


def test_percent_is_the_one_rounding_place_with_named_modes():
    assert Money(1000).percent("5").amount == 50  # paysafecard 5 % fee, GP §8(6)
    assert Money(99).percent("5").amount == 5  # 4.95 -> 5 half-up
    assert Money(99).percent("5", rounding=ROUND_FLOOR).amount == 4


@given(st.integers(min_value=-(10**15), max_value=10**15))
def test_format_and_parse_round_trip(amount):
    m = Money(amount)
    assert Money.parse(m.format("cs")) == m
    assert Money.parse(m.format("en")) == m


def test_an_error_detail_may_be_called_status_or_code_without_clashing():
    from core.errors import ErrorDef

    err = ErrorDef("x.y", 409, "cs", "en")(status="active", code="abc")
    assert err.status == 409 and err.code == "x.y" and err.details == {"status": "active", "code": "abc"}


def test_an_error_message_names_its_details_and_an_unknown_name_stays_as_written():
    from core.errors import ErrorDef

    err = ErrorDef("x.round", 422, "Kolo {round_id} {missing}", "Round {round_id} {missing}")(round_id=7)
    assert err.message_en == "Round 7 {missing}" and err.message_cs == "Kolo 7 {missing}"


def test_times_in_error_details_are_written_like_the_serializers_write_them():
    from datetime import UTC, datetime

    from core.errors import ErrorDef

    err = ErrorDef("x.t", 409, "cs", "en")(resets_at=datetime(2026, 3, 2, 23, 0, tzinfo=UTC))
    assert err.as_dict()["details"]["resets_at"] == "2026-03-02T23:00:00Z"
