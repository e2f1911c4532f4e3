"""``Money.format`` keeps the text of the amounts formatted lately (``core.money._formatted``, a bounded cache): the
same text as the formatting itself for any amount, currency and language."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.money import MINOR_PER_MAJOR, NBSP, SYMBOLS, Money, _formatted


def reference(amount: int, currency: str, lang: str) -> str:
    """The formatting as ``Money.format`` wrote it before the cache (the rule itself)."""
    per = MINOR_PER_MAJOR[currency]
    sign = "-" if amount < 0 else ""
    whole, frac = divmod(abs(amount), per)
    digits = len(str(per)) - 1
    if lang == "en":
        return f"{sign}{whole:,}.{frac:0{digits}d} {currency}"
    grouped = f"{whole:,}".replace(",", NBSP)
    return f"{sign}{grouped},{frac:0{digits}d}{NBSP}{SYMBOLS[currency]}"


@settings(max_examples=500, deadline=None)
@given(
    st.integers(min_value=-(10**15), max_value=10**15),
    st.sampled_from(sorted(MINOR_PER_MAJOR)),
    st.sampled_from(["cs", "en"]),
)
def test_the_same_text_as_the_formatting(amount: int, currency: str, lang: str) -> None:
    money = Money(amount, currency)
    assert money.format(lang) == reference(amount, currency, lang)
    assert money.format(lang) == reference(amount, currency, lang)  # from the cache the second time
    assert str(money) == reference(amount, currency, "cs")


def test_known_texts() -> None:
    assert Money(300050).format() == f"3{NBSP}000,50{NBSP}Kč"
    assert Money(300050).format("en") == "3,000.50 CZK"
    assert Money(-5, "EUR").format() == f"-0,05{NBSP}€"
    assert Money(1250).to_json() == {"amount": 1250, "currency": "CZK", "formatted": f"12,50{NBSP}Kč"}


def test_a_repeated_amount_is_not_formatted_again() -> None:
    _formatted.cache_clear()
    Money(10_000).format()
    Money(10_000).format()
    info = _formatted.cache_info()
    assert (info.hits, info.misses) == (1, 1)
    assert info.maxsize == 4096  # bounded: amounts are the players' balances, unbounded in number
