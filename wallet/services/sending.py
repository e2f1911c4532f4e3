"""Claim-then-send, shared by withdrawals and payouts: no lock is held while the provider is called.

1. In one short transaction the row is claimed: ``claimable -> sending`` (or a row stuck in ``sending`` for
   ``WALLET_SEND_RETRY_MINUTES``), ``select_for_update(skip_locked=True)`` so two workers never claim it twice.
2. The provider is asked to send, with our reference (providers de-duplicate on it, so a retry never pays twice).
   A failed call leaves the row ``sending``: the sweeper retries it later with the same reference.
3. The caller records the provider's answer in another transaction under the wallet lock (the provider's
   callback may have come first; the caller checks the row is still ``sending``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Generic, TypeVar

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from core import clock
from core.money import Money
from wallet import adapters
from wallet.adapters import PayoutResult
from wallet.models import Payout, Withdrawal
from wallet.services.sandbox import sandbox_outbox

logger = logging.getLogger("wallet.sending")
SENDING = "sending"  # Payout.Status.SENDING == Withdrawal.Status.SENDING

Sendable = TypeVar("Sendable", Payout, Withdrawal)


@dataclass(frozen=True)
class SendAttempt(Generic[Sendable]):
    """A claimed row and the provider's answer (None when the call failed: the row stays ``sending``)."""

    row: Sendable
    result: PayoutResult | None


def claim_and_send(
    model: type[Sendable], *, pk: int, claimable: str, amount: Callable[[Sendable], int]
) -> SendAttempt[Sendable] | None:
    """Claim row ``pk`` of ``model`` for sending and ask its provider to send ``amount(row)`` to its method.

    None when the row is not due (another worker has it, it is not ``claimable``, or it is ``sending`` but not
    yet stale)."""
    now = clock.now()
    stale = now - timedelta(minutes=settings.WALLET_SEND_RETRY_MINUTES)
    with transaction.atomic():
        row = (
            model.objects.select_for_update(skip_locked=True, of=("self",), no_key=True)
            .select_related("method")
            .filter(Q(status=claimable) | Q(status=SENDING, sending_since__lte=stale), pk=pk)
            .first()
        )
        if row is None:
            return None
        row.status, row.sending_since = SENDING, now
        row.save(update_fields=["status", "sending_since"])
    try:
        provider = adapters.get_provider(row.provider, outbox=sandbox_outbox)
        result = provider.send_payout(reference=row.send_reference, method=row.method, amount=Money(amount(row)))
    except Exception:  # a network or provider failure: stays "sending", the sweeper retries with the same reference
        logger.exception("%s %s: provider call failed", model.__name__, row.pk)
        return SendAttempt(row, None)
    return SendAttempt(row, result)
