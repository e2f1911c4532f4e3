"""The sandbox provider's side of the wallet: its callbacks leave after commit through a Celery task.

``sandbox_outbox`` is the outbox the services hand to ``adapters.get_provider`` (payout callbacks);
``sandbox_pay`` makes the sandbox confirm or fail a deposit (API ``POST /api/v1/wallet/sandbox/deposits/{id}/pay``,
``manage.py sandbox_pay``). The task delivers each callback with ``services.callbacks.sandbox_callback_deliver``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from accounts.models import Player
from core.audit import Actor, audit_record
from wallet import adapters, errors, jobs
from wallet.models import Deposit
from wallet.selectors import player_identity


def sandbox_outbox(body: bytes, signature: str) -> None:
    """The sandbox sends the callback after the current transaction commits (Celery task)."""
    jobs.sandbox_callback_send(body.decode(), signature)


def default_sandbox_payer(player: Player) -> dict[str, Any]:
    """Whom the sandbox reports as the payer by default: the player as the accounts personal data know them
    (so the first payment verifies the method, GP §5(8)a); without personal data, the user's name (which then
    matches nothing: the payer check fails closed)."""
    identity = player_identity(player)
    if identity is not None:
        return {"name": f"{identity.given_names} {identity.surname}", "birth_date": identity.date_of_birth.isoformat()}
    user = player.user
    return {"name": f"{user.first_name} {user.last_name}".strip()}


def sandbox_pay(
    *,
    deposit: Deposit,
    actor: Actor,
    outcome: str = "succeeded",
    payer: dict[str, Any] | None = None,
    amount: int | None = None,
) -> dict[str, Any]:
    """Make the sandbox provider confirm (or fail) a deposit: a correctly signed callback is sent by a Celery
    task after commit. ``payer`` defaults to the player's own identity (so the first payment verifies the
    method, GP §5(8)a)."""
    if not settings.WALLET_SANDBOX_ENABLED:
        raise errors.SANDBOX_DISABLED()
    if deposit.provider != "sandbox":
        raise errors.UNKNOWN_PROVIDER(provider=deposit.provider)
    if outcome not in ("succeeded", "failed"):
        raise errors.BAD_CALLBACK(reason="outcome must be succeeded or failed")
    if payer is None:
        payer = default_sandbox_payer(deposit.player)
    body, sig = adapters.sandbox_event(
        f"payment.{outcome}", deposit.payment_reference, deposit.amount if amount is None else amount, payer=payer
    )
    with transaction.atomic():
        sandbox_outbox(body, sig)
        audit_record(
            actor=actor, action="wallet.sandbox_pay", obj=deposit, outcome=outcome, player_id=deposit.player_id
        )
    return {"deposit_id": deposit.pk, "outcome": outcome, "callback_queued": True}
