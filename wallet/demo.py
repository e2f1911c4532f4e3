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
from wallet.models import MethodDocument, PaymentMethod, Withdrawal
from wallet.selectors import balance
from wallet.services import (
    adjustment_credit,
    deposit_start,
    method_document_upload,
    payment_method_register,
    provider_callback_handle,
    withdrawal_request,
)
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
        if username == "demo_active":
            _finance_queues(player, method, actor, stdout)


def _finance_queues(player: Player, method: PaymentMethod, actor: Actor, stdout: TextIO) -> None:
    """One item in each of finance's queues to practise on: a withdrawal above the approval threshold and a
    payment-method document to review (idempotent: skipped when there)."""
    if not Withdrawal.objects.filter(reference="demo:withdrawal-to-approve").exists():
        threshold = Money(settings.WALLET_WITHDRAWAL_APPROVAL_THRESHOLD)
        adjustment_credit(player=player, amount=threshold + Money(100_000), reference="demo:withdrawal-funds",
                          reason="demo: money for a withdrawal staff approve", actor=actor)
        w = withdrawal_request(player=player, method=method, amount=threshold + Money(50_000),
                               reference="demo:withdrawal-to-approve", actor=actor)
        stdout.write(f"wallet demo: withdrawal {w.reference} of {Money(w.amount)} waits for finance's approval")
    if not MethodDocument.objects.filter(method__player=player).exists():
        # a second account, not yet verified: its ownership document waits for finance (GP §5(8)b)
        second = payment_method_register(player=player, kind="bank_account",
                                         data={"account_number": "1234567100/0800"}, actor=actor)
        method_document_upload(method=second, name="demo-bank-statement.pdf",
                               content=b"%PDF-1.4\n% demo: the account holder's statement\n%%EOF\n", actor=actor)
        stdout.write("wallet demo: a payment-method document waits for finance's review")
