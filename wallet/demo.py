"""Wallet demo data (idempotent): the accounts demo players get a bank account and a deposit through the
sandbox provider (its signed callback verifies the account, GP §5(8)a)."""
from __future__ import annotations

from typing import TextIO

from django.conf import settings

from accounts.models import Player
from core.audit import Actor
from core.errors import DomainError
from core.money import Money
from wallet import adapters
from wallet.selectors import balance
from wallet.services import deposit_start, payment_method_register, provider_callback_handle
from wallet.services.sandbox import default_sandbox_payer

DEMO = [
    # username, account number, deposit (CZK)
    ("demo_active", "1234567004/0100", "5000"),
    ("demo_temporary", "1234567012/0300", "500"),
]


def seed(stdout: TextIO) -> None:
    if not settings.WALLET_SANDBOX_ENABLED:
        stdout.write("wallet demo: sandbox provider disabled, nothing seeded")
        return
    actor = Actor.system("wallet.demo")
    for username, number, amount in DEMO:
        player = Player.objects.filter(user__username=username).select_related("user").first()
        if player is None:
            continue
        try:
            method = payment_method_register(player=player, kind="bank_account", data={"account_number": number},
                                             actor=actor)
            d = deposit_start(player=player, method=method, amount=Money.parse(amount),
                              reference=f"demo:{username}:first-deposit", actor=actor)
            body, sig = adapters.sandbox_event("payment.succeeded", d.payment_reference, d.amount,
                                               payer=default_sandbox_payer(player), event_id=f"demo-{username}-1")
            provider_callback_handle(provider="sandbox", raw_body=body, signature=sig)
        except DomainError as exc:
            stdout.write(f"wallet demo: {username}: {exc.code}")
            continue
        stdout.write(f"wallet demo: {username} has bank account {number} (verified) and balance {balance(player)}")
