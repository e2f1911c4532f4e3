"""The kit's money and time: amounts as ``core.money.Money`` (integer haléře), instants given in Prague wall-clock
time (Europe/Prague, where the rules' days and hours are counted)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from core.money import Money

PRAGUE = ZoneInfo("Europe/Prague")


def czk(major: str | int | Money) -> Money:
    """Money from koruny: ``czk(500)``, ``czk("12.50")`` (a Money is returned as it is)."""
    return major if isinstance(major, Money) else Money.from_major(str(major))


def api_money(minor: int) -> dict[str, object]:
    """``{"amount": minor, "currency": "CZK"}``: an amount as a request or a provider's call carries it."""
    return {"amount": minor, "currency": "CZK"}


def kc(minor: int) -> str:
    """An amount as the Czech pages show it (``Money.format("cs")``)."""
    return Money(minor).format("cs")


def prague(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    """An instant given in Prague wall-clock time, as aware UTC."""
    return datetime(year, month, day, hour, minute, second, tzinfo=PRAGUE).astimezone(UTC)
