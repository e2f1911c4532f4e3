"""Money: integer minor units + currency. No float anywhere.

``Money(1250)`` is 12,50 Kč. Rounding happens in one place, :meth:`Money.percent`,
with a named mode. Formatting and parsing follow Czech conventions ("3 000,50 Kč")
and accept the English form ("3,000.50 CZK") on input.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from decimal import ROUND_FLOOR, ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

MINOR_PER_MAJOR = {"CZK": 100, "EUR": 100}
SYMBOLS = {"CZK": "Kč", "EUR": "€"}
NBSP = "\u00a0"


class MoneyError(ValueError):
    """Raised for malformed amounts and currency mismatches."""


@dataclass(frozen=True, slots=True, order=False)
class Money:
    amount: int  # minor units
    currency: str = "CZK"

    def __post_init__(self) -> None:
        if isinstance(self.amount, bool) or not isinstance(self.amount, int):
            raise MoneyError(f"Money amount must be an int of minor units, got {type(self.amount).__name__}")
        if self.currency not in MINOR_PER_MAJOR:
            raise MoneyError(f"unsupported currency {self.currency!r}")

    # construction -----------------------------------------------------------
    @classmethod
    def zero(cls, currency: str = "CZK") -> Money:
        return cls(0, currency)

    @classmethod
    def from_major(cls, value: str | int | Decimal, currency: str = "CZK") -> Money:
        """Exact conversion from a major-unit number; more decimals than the currency has is an error."""
        try:
            d = Decimal(str(value)) if not isinstance(value, Decimal) else value
        except InvalidOperation as exc:
            raise MoneyError(f"not a number: {value!r}") from exc
        minor = d * MINOR_PER_MAJOR[currency]
        if minor != minor.to_integral_value():
            raise MoneyError(f"{value!r} has more decimal places than {currency} allows")
        return cls(int(minor), currency)

    _PARSE = re.compile(
        r"^\s*(?P<sign>[-−])?\s*(?:(?P<cur1>Kč|CZK|€|EUR)\s*)?(?P<num>[0-9][0-9 \u00a0.,]*)\s*"
        r"(?P<cur2>Kč|CZK|€|EUR|,-)?\s*$"
    )

    @classmethod
    def parse(cls, text: str, currency: str = "CZK") -> Money:
        """Parse an amount as a person writes it, exactly, refusing anything ambiguous.

        Accepted: "12,50 Kč", "3 000,00 Kč" (Czech: space or no-break space between thousands, decimal comma),
        "12.50 CZK", "3000.01" (a decimal point), "3,000.50 CZK" (English grouping, only with its decimal point),
        "12 Kč", "100,-". At most two decimal places. Refused (``MoneyError`` naming the reason): three or more
        decimals ("0.125", "10.005", "1,000" - a thousand or one and no haléře?), dots between thousands
        ("1.000,50"), commas between thousands without a decimal point ("3,000"), malformed groups."""
        if not isinstance(text, str):
            raise MoneyError("amount text must be a string")
        m = cls._PARSE.match(text)
        if not m:
            raise MoneyError(f"cannot parse amount {text!r}")
        cur_token = m.group("cur1") or m.group("cur2")
        if cur_token and cur_token != ",-":
            currency = {"Kč": "CZK", "CZK": "CZK", "€": "EUR", "EUR": "EUR"}[cur_token]
        num = m.group("num").strip(" " + NBSP)
        dec_pos = max(num.rfind(","), num.rfind("."))
        int_part, frac, dec_sep = num, "", ""
        if dec_pos >= 0:
            int_part, frac, dec_sep = num[:dec_pos], num[dec_pos + 1 :], num[dec_pos]
            if not frac.isdigit():
                raise MoneyError(f"cannot parse amount {text!r}")
            if len(frac) > 2:
                raise MoneyError(f"more than two decimal places (or thousands written with {dec_sep!r}): {text!r}")
        if " " in int_part or NBSP in int_part:  # Czech grouping
            ok = re.fullmatch(r"\d{1,3}([ \u00a0]\d{3})+", int_part) is not None
        elif "," in int_part:  # English grouping: only with its decimal point, else "3,000" is ambiguous
            ok = dec_sep == "." and re.fullmatch(r"\d{1,3}(,\d{3})+", int_part) is not None
        else:  # dots between thousands are not the Czech format's and read as decimals elsewhere
            ok = int_part.isdigit()
        if not ok:
            raise MoneyError(f"cannot parse amount {text!r}")
        digits = int_part.replace(" ", "").replace(NBSP, "").replace(",", "")
        minor_digits = len(str(MINOR_PER_MAJOR[currency])) - 1
        amount = int(digits) * MINOR_PER_MAJOR[currency] + int(frac.ljust(minor_digits, "0") or 0)
        return cls(-amount if m.group("sign") else amount, currency)

    # arithmetic ---------------------------------------------------------------
    def _same(self, other: Money) -> None:
        if not isinstance(other, Money):
            raise MoneyError(f"cannot combine Money with {type(other).__name__}")
        if other.currency != self.currency:
            raise MoneyError(f"currency mismatch: {self.currency} vs {other.currency}")

    def __add__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount - other.amount, self.currency)

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)

    def __abs__(self) -> Money:
        return Money(abs(self.amount), self.currency)

    def __mul__(self, factor: int) -> Money:
        if isinstance(factor, bool) or not isinstance(factor, int):
            raise MoneyError("Money can only be multiplied by an int; use percent() for rates")
        return Money(self.amount * factor, self.currency)

    __rmul__ = __mul__

    def __lt__(self, other: Money) -> bool:
        self._same(other)
        return self.amount < other.amount

    def __le__(self, other: Money) -> bool:
        self._same(other)
        return self.amount <= other.amount

    def __gt__(self, other: Money) -> bool:
        self._same(other)
        return self.amount > other.amount

    def __ge__(self, other: Money) -> bool:
        self._same(other)
        return self.amount >= other.amount

    def __bool__(self) -> bool:
        return self.amount != 0

    def percent(self, rate: str | Decimal, rounding: str = ROUND_HALF_UP) -> Money:
        """``rate`` percent of this amount, rounded to a whole minor unit by the named mode.

        The only place the platform rounds money. Fees use ROUND_HALF_UP; ROUND_FLOOR is
        available where the player must never get more than the exact figure."""
        exact = Decimal(self.amount) * Decimal(str(rate)) / Decimal(100)
        return Money(int(exact.quantize(Decimal(1), rounding=rounding)), self.currency)

    # presentation ---------------------------------------------------------------
    @property
    def major(self) -> Decimal:
        return Decimal(self.amount) / MINOR_PER_MAJOR[self.currency]

    def format(self, lang: str = "cs") -> str:
        return _formatted(self.amount, self.currency, lang)

    def __str__(self) -> str:
        return self.format("cs")

    def to_json(self) -> dict[str, Any]:
        return {"amount": self.amount, "currency": self.currency, "formatted": self.format("cs")}


@functools.lru_cache(maxsize=4096)
def _formatted(amount: int, currency: str, lang: str) -> str:
    """:meth:`Money.format`'s text, kept for the amounts formatted lately (a round's answer formats its stake, wins
    and balances, ~7 a round, the same stakes and wins again and again): a pure function of its three arguments."""
    per = MINOR_PER_MAJOR[currency]
    sign = "-" if amount < 0 else ""
    whole, frac = divmod(abs(amount), per)
    digits = len(str(per)) - 1
    if lang == "en":
        return f"{sign}{whole:,}.{frac:0{digits}d} {currency}"
    grouped = f"{whole:,}".replace(",", NBSP)
    return f"{sign}{grouped},{frac:0{digits}d}{NBSP}{SYMBOLS[currency]}"


ROUNDING_FLOOR = ROUND_FLOOR
ROUNDING_HALF_UP = ROUND_HALF_UP


def points_text(minor: int) -> str:
    """A play-money amount as staff and players read it: points, never Kč ("1 736,00 bodů"): the same integer
    scale as money (two decimals), with the unit that says it is not money."""
    text = Money(minor).format("cs")
    return text.rsplit(NBSP, 1)[0] + NBSP + "bodů"
