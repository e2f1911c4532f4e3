"""Provider callbacks: each signed event handled exactly once, then routed to the deposit or payout it is for."""

from __future__ import annotations

import logging
import urllib.request
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from core import clock
from core.audit import Actor
from core.parsers import loads_bounded
from wallet import adapters, errors
from wallet.models import Deposit, ProviderEvent, Withdrawal
from wallet.services.deposits import payment_event
from wallet.services.payouts import _payout_for, payout_event

logger = logging.getLogger("wallet.callbacks")

STORED_BODY_CHARS = 20000  # what ProviderEvent keeps of a body (a provider's event is a few hundred bytes)


def provider_callback_handle(*, provider: str, raw_body: bytes, signature: str) -> dict[str, Any]:
    """Handle one signed provider callback exactly once.

    A bad signature or body changes nothing (``wallet.callback_bad_signature`` / ``wallet.callback_invalid``);
    a repeated event id with the same content (a provider's retry; its delivery time may differ) returns the first
    result and changes nothing; the same event id with another type, reference, amount, currency or payer is
    refused (``wallet.callback_replay_mismatch``, 409: a signed body cannot be altered in transit, so it is a
    provider fault or a leaked secret) and changes nothing; events for unknown
    references are recorded and ignored. The API view records both replays as security events."""
    prov = adapters.get_provider(provider)
    if not prov.verify_signature(raw_body, signature or ""):
        logger.warning("provider callback with a bad signature", extra={"provider": provider})
        raise errors.BAD_SIGNATURE()
    event = prov.parse_callback(raw_body)
    actor = Actor.system(f"provider:{provider}")
    with transaction.atomic():
        try:
            with transaction.atomic():
                rec = ProviderEvent.objects.create(
                    provider=provider,
                    provider_txn_id=event.event_id,
                    event_type=event.type,
                    raw_body=raw_body.decode()[:STORED_BODY_CHARS],
                    received_at=clock.now(),
                    result="processing",
                )
        except IntegrityError:
            rec = ProviderEvent.objects.get(provider=provider, provider_txn_id=event.event_id)
            if _material(prov.parse_callback(rec.raw_body.encode())) != _material(event):
                raise errors.REPLAY_MISMATCH(event_id=event.event_id)
            return {"status": "duplicate", "event_id": event.event_id, "result": rec.result}
        if event.currency != "CZK":
            result, detail = "ignored_currency", event.currency
        elif event.type.startswith("payment."):
            result, detail = payment_event(provider, event, actor)
        else:
            result, detail = payout_event(provider, event, actor)
        rec.result, rec.detail = result, detail[:255]
        rec.player_id = _player_of(provider, event.reference)
        rec.save(update_fields=["result", "detail", "player"])
        return {"status": "processed", "event_id": event.event_id, "result": result}


def _player_of(provider: str, reference: str) -> int | None:
    """Whose deposit, withdrawal or payout a provider reference names (None: unknown)."""
    for qs in (
        Deposit.objects.filter(provider=provider, payment_reference=reference),
        Withdrawal.objects.filter(provider=provider, reference=reference),
    ):
        found = qs.values_list("player_id", flat=True).first()
        if found is not None:
            return int(found)
    payout, _ = _payout_for(provider, reference)
    return payout.player_id if payout is not None else None


def _material(event: adapters.CallbackEvent) -> tuple[Any, ...]:
    """What an event says (a retry may carry another delivery time, never another content)."""
    return event.type, event.reference, event.amount, event.currency, event.payer


def sandbox_callback_deliver(*, body_text: str, signature: str) -> dict[str, Any]:
    """Deliver one sandbox callback: HTTP POST to ``WALLET_SANDBOX_CALLBACK_URL`` when set, else in-process to
    the same handler the callback endpoint uses."""
    url: str = settings.WALLET_SANDBOX_CALLBACK_URL
    if not url:
        return provider_callback_handle(provider="sandbox", raw_body=body_text.encode(), signature=signature)
    req = urllib.request.Request(
        url,
        data=body_text.encode(),
        method="POST",
        headers={"Content-Type": "application/json", adapters.SIGNATURE_HEADER: signature},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:  # the configured sandbox URL
        answer: dict[str, Any] = loads_bounded(resp.read().decode() or "{}")
        return answer
