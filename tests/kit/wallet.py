"""The kit's helpers of the wallet tests (moved from ``wallet/tests/conftest.py``, which keeps the fixtures)."""

from __future__ import annotations

import itertools

from core.audit import Actor
from core.money import Money
from tests.kit.accounts import make_player, make_staff, token_for  # noqa: F401

_ref = itertools.count(1)


def ref(prefix: str = "r") -> str:
    return f"{prefix}-{next(_ref)}"


SYSTEM = Actor.system("test")


def fund(player, amount: int | Money = 100_000, *, reference: str | None = None):
    """Put ``amount`` (haléře, or a Money) on the player's live account through the wallet's contract function (an
    adjustment from the operator); returns the adjustment."""
    from wallet.services import adjustment_credit

    money = amount if isinstance(amount, Money) else Money(amount)
    return adjustment_credit(
        player=player, amount=money, reference=reference or ref("fund"), reason="test funding", actor=SYSTEM
    )


_acct = itertools.count(1_000_000_000)


def bank_number(bank: str = "0800") -> str:
    """A fresh valid Czech account number (check digits right) at ``bank``."""
    from stdnum.cz import bankaccount

    while True:
        number = f"{next(_acct)}/{bank}"
        if bankaccount.is_valid(number):
            return number


def verified_bank(player, number: str | None = None):
    from wallet.models import PaymentMethod
    from wallet.services import payment_method_register, payment_method_verify

    m = payment_method_register(
        player=player, kind="bank_account", data={"account_number": number or bank_number()}, actor=Actor.player(player)
    )
    return payment_method_verify(method=m, by=PaymentMethod.VerifiedBy.DOCUMENTS, actor=SYSTEM)


def bank(player, number: str | None = None):
    from wallet.services import payment_method_register

    return payment_method_register(
        player=player, kind="bank_account", data={"account_number": number or bank_number()}, actor=Actor.player(player)
    )


def ledger_clean() -> None:
    from django.core.management import call_command

    call_command("ledger_check", verbosity=0)


def pay_deposit(
    deposit,
    *,
    outcome: str = "succeeded",
    payer: dict | None = None,
    event_id: str | None = None,
    amount: int | None = None,
) -> dict:
    """The sandbox provider's callback for ``deposit``, delivered straight to the handler (signed)."""
    from wallet.adapters import sandbox_event
    from wallet.services import provider_callback_handle

    body, sig = sandbox_event(
        f"payment.{outcome}",
        deposit.payment_reference,
        deposit.amount if amount is None else amount,
        payer=payer,
        event_id=event_id,
    )
    return provider_callback_handle(provider="sandbox", raw_body=body, signature=sig)


def deposit(player, method, amount: Money, *, payer: dict | None = None):
    """Start and confirm a deposit through the sandbox (payer = the player's name unless given)."""
    from wallet.services import deposit_start
    from wallet.services.sandbox import default_sandbox_payer

    d = deposit_start(player=player, method=method, amount=amount, reference=ref("dep"), actor=Actor.player(player))
    pay_deposit(d, payer=payer if payer is not None else default_sandbox_payer(player))
    d.refresh_from_db()
    return d
