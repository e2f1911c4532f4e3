"""Wallet demo data (idempotent): the accounts demo players get a bank account and a deposit through the
sandbox provider (its signed callback verifies the account, GP §5(8)a)."""
from __future__ import annotations

DEMO = [
    # username, account number, deposit (CZK)
    ("demo_active", "1234567004/0100", "5000"),
    ("demo_temporary", "1234567012/0300", "500"),
]


def seed(stdout) -> None:
    from accounts.models import Player
    from core.audit import Actor
    from core.errors import DomainError
    from core.money import Money
    from wallet import adapters, conf
    from wallet.services import deposit_start, payment_method_register, provider_callback_handle
    from wallet.services.deposits import default_sandbox_payer

    if not conf.get("WALLET_SANDBOX_ENABLED"):
        stdout.write("wallet demo: sandbox provider disabled, nothing seeded")
        return
    for username, number, amount in DEMO:
        player = Player.objects.filter(user__username=username).select_related("user").first()
        if player is None:
            continue
        actor = Actor.system("wallet.demo")
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
        from wallet.selectors import balance

        stdout.write(f"wallet demo: {username} has bank account {number} (verified) and balance {balance(player)}")
