"""Wallet demo data (idempotent): the accounts demo players get a bank account and a deposit through the
sandbox provider (its signed callback verifies the account, GP §5(8)a); finance's queues get one item each, the
unmatched bank credit through a bank statement imported as every statement is (``bank_statement_import``), the
stopped refund through a card payment the sandbox provider reports as paid by another person (GP §5(6)) and a
return of it the sandbox refuses."""

from __future__ import annotations

from typing import TextIO

from django.conf import settings

from accounts.models import Player
from core import clock
from core.audit import Actor
from core.errors import DomainError
from core.money import Money
from wallet import adapters
from wallet.bank_statement_builder import StatementLine, camt053
from wallet.methods import czech_account_iban
from wallet.models import BankEntry, MethodDocument, PaymentMethod, Payout, Withdrawal
from wallet.selectors import balance
from wallet.services import (
    adjustment_credit,
    bank_statement_import,
    deposit_start,
    method_document_upload,
    payment_method_register,
    payout_dispatch,
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
    _unmatched_credit(actor, stdout)
    for username, number, amount in DEMO:
        player = Player.objects.filter(user__username=username).select_related("user").first()
        if player is None:
            continue
        try:
            method = payment_method_register(
                player=player, kind="bank_account", data={"account_number": number}, actor=actor
            )
            d = deposit_start(
                player=player,
                method=method,
                amount=Money.parse(amount),
                reference=f"demo:{username}:first-deposit",
                actor=actor,
            )
            body, sig = adapters.sandbox_event(
                "payment.succeeded",
                d.payment_reference,
                d.amount,
                payer=default_sandbox_payer(player),
                event_id=f"demo-{username}-1",
            )
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
        adjustment_credit(
            player=player,
            amount=threshold + Money(100_000),
            reference="demo:withdrawal-funds",
            reason="demo: money for a withdrawal staff approve",
            actor=actor,
        )
        w = withdrawal_request(
            player=player,
            method=method,
            amount=threshold + Money(50_000),
            reference="demo:withdrawal-to-approve",
            actor=actor,
        )
        stdout.write(f"wallet demo: withdrawal {w.reference} of {Money(w.amount)} waits for finance's approval")
    if not MethodDocument.objects.filter(method__player=player).exists():
        # a second account, not yet verified: its ownership document waits for finance (GP §5(8)b)
        second = payment_method_register(
            player=player, kind="bank_account", data={"account_number": "1234567100/0800"}, actor=actor
        )
        method_document_upload(
            method=second,
            name="demo-bank-statement.pdf",
            content=b"%PDF-1.4\n% demo: the account holder's statement\n%%EOF\n",
            actor=actor,
        )
        stdout.write("wallet demo: a payment-method document waits for finance's review")
    _refund_stopped(player, actor, stdout)


#: the person the sandbox provider reports as the payer of the demo's refused card payment (not the player)
STRANGER = {"name": "Petr Svoboda", "birth_date": "1970-01-01"}


def _refund_stopped(player: Player, actor: Actor, stdout: TextIO) -> None:
    """A card payment the sandbox provider reports as paid by another person: the deposit is refused and its money
    is owed back to its source, never to the player (GP §5(6)); the card is the sandbox's declining test card
    (``adapters.SANDBOX_REFUSING_CARD_LAST4``: charges succeed, a payout to it is refused), so the return is refused
    when it is sent, the payout stops and waits in finance's queue "refunds and payouts due" to be sent again
    (``payout_resend``). Idempotent: skipped when the payout exists."""
    if Payout.objects.filter(player=player, kind=Payout.Kind.DEPOSIT_REFUSED).exists():
        return
    card = payment_method_register(
        player=player,
        kind="card",
        data={
            "card_token": "demo_tok_paid_by_another",
            "card_masked": f"**** **** **** {adapters.SANDBOX_REFUSING_CARD_LAST4}",
        },
        actor=actor,
    )
    deposit = deposit_start(
        player=player, method=card, amount=Money.parse("250"), reference="demo:paid-by-another", actor=actor
    )
    body, sig = adapters.sandbox_event(
        "payment.succeeded", deposit.payment_reference, deposit.amount, payer=STRANGER, event_id="demo-refused-1"
    )
    provider_callback_handle(provider="sandbox", raw_body=body, signature=sig)
    payout = Payout.objects.get(player=player, kind=Payout.Kind.DEPOSIT_REFUSED)
    result = payout_dispatch(payout_id=payout.pk, actor=actor)
    payout.refresh_from_db()
    stdout.write(
        f"wallet demo: a card payment of {Money(deposit.amount)} by {STRANGER['name']} was refused; its return was "
        f"{result} and the payout is {payout.status}: it waits for finance"
    )


#: the bank's ids of the demo's unmatched credit and unmatched reversal (lines of the operator's account)
UNMATCHED_REFERENCE, REVERSAL_REFERENCE = "DEMO-UNMATCHED-0001", "DEMO-REVERSAL-0001"


def _unmatched_credit(actor: Actor, stdout: TextIO) -> None:
    """A bank credit whose variable symbol names no deposit, and a reversal of a credit the platform never booked:
    the end-of-day statement that brings them is imported through the bank import service, which puts the credit's
    money aside and both lines in finance's queues (idempotent)."""
    try:
        account = adapters.bank_account_iban()
    except DomainError:
        stdout.write("wallet demo: the operator's bank account is not set (WALLET_BANK_IBAN): no bank statement")
        return
    if BankEntry.objects.filter(bank_reference=UNMATCHED_REFERENCE).exists():
        return
    now = clock.now()
    payer = czech_account_iban("670100-2202165013/6210")
    lines = [
        StatementLine(
            amount=150_000,
            bank_reference=UNMATCHED_REFERENCE,
            variable_symbol="9999999901",
            message="vklad na herni ucet",
            counterparty_name="Jana Novakova",
            counterparty_iban=payer,
        ),
        StatementLine(
            amount=20_000,
            bank_reference=REVERSAL_REFERENCE,
            credit=False,
            reversal=True,
            variable_symbol="9999999902",
            counterparty_name="Petr Svoboda",
            counterparty_iban=payer,
        ),
    ]
    raw = camt053(
        account_iban=account,
        message_id="DEMO-STATEMENT-0001",
        created_at=now,
        booked=clock.business_date(now),
        lines=lines,
    )
    statement, summary = bank_statement_import(raw=raw, name="demo-statement.xml", actor=actor)
    stdout.write(
        f"wallet demo: bank statement {statement.message_id} imported ({summary['by_status']}): a credit of "
        f"{Money(lines[0].amount)} with an unknown variable symbol and a reversal naming no deposit wait "
        "for finance"
    )
