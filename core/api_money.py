"""The one money convention of the API: every amount in a request body is a Money object.

    {"amount": 150000, "currency": "CZK"}        # 1 500,00 Kč

``amount`` is a JSON integer of minor units (haléře, 1/100 CZK), ``currency`` the account currency (CZK). Both keys
are required. ``formatted`` (which every answer carries) is accepted and ignored, so a client may send back an amount
it received; any other key is refused. A string ("3000.00"), a float (30.5), a boolean, a bare number in place of the
object, a missing or foreign currency: all are refused with one error, ``request.invalid_money`` (400), whose message
names the unit and the shape and whose details name the field and give the expected shape. Nothing is stored.

This is the convention of the payments APIs: Adyen's ``Amount`` object (``{"value": 1000, "currency": "EUR"}``) and
Stripe's integer ``amount`` in the currency's smallest unit. An integer cannot carry a rounding error or a decimal
separator of the wrong locale, and the currency travels with the number. Answers already use the same shape
(:meth:`core.money.Money.to_json`).

:class:`MoneyField` is the DRF field every request serializer uses; :func:`money_from_json` is the same check for a
value outside a serializer (a game's bet parameters, ``games.serializers``).
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.http import QueryDict
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.errors import ErrorDef
from core.money import Money

INVALID_MONEY = ErrorDef(
    "request.invalid_money",
    400,
    'Částka v poli {field} musí být objekt {{"amount": celé číslo v haléřích, "currency": "CZK"}}, '
    'např. {{"amount": 150000, "currency": "CZK"}} pro 1 500,00 Kč.',
    'The amount in {field} must be an object {{"amount": <integer, minor units (haléře)>, "currency": "CZK"}}, '
    'e.g. {{"amount": 150000, "currency": "CZK"}} for 1,500.00 CZK.',
)

ACCEPTED_KEYS = frozenset({"amount", "currency", "formatted"})
MAX_AMOUNT = 10**15  # far above any configured maximum; keeps a huge integer out of every column


def currency() -> str:
    """The account currency (one per platform)."""
    return settings.PLATFORM_CURRENCY


def expected_shape() -> dict[str, str]:
    return {"amount": "JSON integer, minor units (haléře, 1/100 CZK)", "currency": currency()}


def example(amount: int = 150000) -> dict[str, Any]:
    return {"amount": amount, "currency": currency()}


def _problem(value: Any) -> str | None:
    if not isinstance(value, dict):
        if isinstance(value, bool):
            return "a boolean instead of an amount object"
        if isinstance(value, (int, float)):
            return "a bare number instead of an amount object"
        if isinstance(value, str):
            return "a string instead of an amount object"
        return f"{type(value).__name__ if value is not None else 'null'} instead of an amount object"
    extra = sorted(str(k) for k in value if k not in ACCEPTED_KEYS)
    if extra:
        return f"unknown keys {extra}"
    if "amount" not in value:
        return "the amount key is missing"
    if "currency" not in value:
        return "the currency key is missing"
    amount = value["amount"]
    if isinstance(amount, bool) or not isinstance(amount, int):
        return f"amount is a {type(amount).__name__ if amount is not None else 'null'}, not a JSON integer of haléře"
    if not -MAX_AMOUNT <= amount <= MAX_AMOUNT:
        return "amount is out of range"
    if value["currency"] != currency():
        return f"currency must be {currency()!r} (the account currency)"
    return None


def money_from_json(value: Any, *, field: str) -> Money:
    """The Money in ``value`` (a Money object of the request), or ``request.invalid_money`` naming ``field``."""
    problem = _problem(value)
    if problem is not None:
        raise INVALID_MONEY(field=field, problem=problem, expected=expected_shape(), example=example())
    return Money(int(value["amount"]), currency())


def money_to_json(value: Money | int) -> dict[str, Any]:
    return (value if isinstance(value, Money) else Money(int(value), currency())).to_json()


class MoneyInSerializer(serializers.Serializer[Any]):
    """A Money object in a request (``formatted`` may be sent back and is ignored)."""

    amount = serializers.IntegerField(help_text="JSON integer of minor units (haléře, 1/100 CZK): 150000 = 1 500,00 Kč")
    currency = serializers.ChoiceField(choices=[("CZK", "CZK")], help_text="the account currency")
    formatted = serializers.CharField(required=False, help_text="ignored (answers carry it; a client may send it back)")


class MoneyOutSerializer(serializers.Serializer[Any]):
    """A Money object in an answer."""

    amount = serializers.IntegerField(help_text="minor units (haléře, 1/100 CZK)")
    currency = serializers.CharField()
    formatted = serializers.CharField(help_text='for display, Czech format ("1 500,00 Kč")')


def field_path(field: serializers.Field[Any, Any, Any, Any]) -> str:
    """``remedy_amount_requested``, ``bets.0.amount``: the field's name within the request body."""
    parts: list[str] = []
    node: Any = field
    while node is not None and getattr(node, "field_name", None) is not None:
        if node.field_name:
            parts.append(str(node.field_name))
        node = node.parent
    return ".".join(reversed(parts)) or "amount"


@extend_schema_field(MoneyInSerializer)
class MoneyField(serializers.Field[Money, Any, dict[str, Any], Any]):
    """A request amount in the house convention (see the module); gives a :class:`~core.money.Money`.

    ``min_amount`` / ``max_setting`` (a setting in haléře) bound the value; a value out of bounds is a
    ``request.invalid`` field error naming the bound (the shape was right, the number was not)."""

    money = True  # the schema lists request.invalid_money on a body with such a field (core.schema)

    def __init__(
        self, *, min_amount: int | None = None, max_amount: int | None = None, max_setting: str | None = None, **kw: Any
    ) -> None:
        self.min_amount = min_amount
        self.max_amount = max_amount
        self.max_setting = max_setting
        super().__init__(**kw)

    def to_internal_value(self, data: Any) -> Money:
        if isinstance(data, str) and isinstance(getattr(self.root, "initial_data", None), QueryDict):
            # a multipart/form-data field carries text: the Money object as its JSON text
            try:
                data = json.loads(data)
            except ValueError:
                pass
        money = money_from_json(data, field=field_path(self))
        if self.min_amount is not None and money.amount < self.min_amount:
            raise serializers.ValidationError(
                f"at least {Money(self.min_amount, money.currency).format('en')} "
                f'({{"amount": {self.min_amount}, "currency": "{money.currency}"}})'
            )
        if self.max_setting is not None or self.max_amount is not None:
            top = int(getattr(settings, self.max_setting)) if self.max_setting else int(self.max_amount or 0)
            highest = Money(top, money.currency)
            if money > highest:
                raise serializers.ValidationError(
                    f'at most {highest.format("en")} ({{"amount": {highest.amount}, "currency": '
                    f'"{money.currency}"}}{", " + self.max_setting if self.max_setting else ""})'
                )
        return money

    def to_representation(self, value: Money | int) -> dict[str, Any]:
        return money_to_json(value)


@extend_schema_field(MoneyOutSerializer)
class MoneyOutField(serializers.Field[Money, Any, dict[str, Any], Any]):
    """An amount in an answer (a Money, or an int of minor units) as the Money object; read-only."""

    def __init__(self, **kw: Any) -> None:
        kw.setdefault("read_only", True)
        super().__init__(**kw)

    def to_representation(self, value: Money | int) -> dict[str, Any]:
        return money_to_json(value)
