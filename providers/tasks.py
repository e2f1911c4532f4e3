"""Celery tasks of the providers (thin): telling a provider the platform ended its round, the daily reconciliation."""

from __future__ import annotations

from typing import Any

from core.money import Money
from core.tasks import platform_task
from providers import adapters
from providers.models import Provider
from providers.reconciliation import reconcile_previous_day


@platform_task(
    name="providers.round_cancelled",
    autoretry_for=(adapters.ProviderUnavailable,),
    retry_backoff=30,
    retry_backoff_max=3600,
    max_retries=12,
    time_limit=60,
    soft_time_limit=50,
)
def round_cancelled_notify(
    provider: str, provider_round_id: str, reason: str, refunded: int, currency: str = "CZK", credited: int = 0
) -> str:
    """POST ``round-cancelled`` (signed) to the provider; retried with backoff until it answers 200. ``outcome``:
    ``refunded`` (the stake returned) or ``settled`` (the round closed with the wins already credited)."""
    row = Provider.objects.filter(code=provider).first()
    if row is None:
        return "unknown provider"
    adapters.post(
        row,
        "round-cancelled",
        {
            "round_id": provider_round_id,
            "reason": reason,
            "outcome": "refunded" if refunded else "settled",
            "refunded": {"amount": refunded, "currency": currency},
            "credited": {"amount": credited, "currency": currency},
        },
    )
    return "told"


def round_cancelled_enqueue(
    *, provider: str, provider_round_id: str, round_id: int, reason: str, refunded: Money, credited: Money
) -> None:
    """The games hook ``remote_round_cancelled`` (games/hooks.py; called after commit): enqueue the notice."""
    round_cancelled_notify.delay(
        provider, provider_round_id, reason, refunded.amount, refunded.currency, credited.amount
    )


@platform_task(name="providers.reconcile_previous_day", time_limit=1800, soft_time_limit=1700)
def reconcile_previous_day_task() -> dict[str, Any]:
    """The daily reconciliation of the previous Prague operating day (providers/reconciliation.py)."""
    return reconcile_previous_day()
