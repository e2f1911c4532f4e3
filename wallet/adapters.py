"""Payment providers: the interface the wallet talks to, and a sandbox that behaves like a real one.

A real provider: the player is redirected to its page (cards, e-wallets) or given payment instructions with
a reference (bank transfer); the provider later confirms by a signed callback (HMAC-SHA256 over the raw body
with a shared secret, header ``X-Signature: sha256=<hex>``). Callbacks may come twice, late, out of order or
forged; the wallet handles each event id once and ignores a bad signature. Payouts are requested with our
reference (the provider de-duplicates on it) and confirmed or returned by callbacks as well.

The sandbox signs with ``WALLET_SANDBOX_SECRET``. Its callbacks leave through an *outbox*, a callable the
caller passes in (``get_provider(code, outbox=...)``): the wallet's services pass
``wallet.services.sandbox.sandbox_outbox``, which sends them by a Celery task after commit. This module talks
to the outside world only; it imports no service and no task.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from core import clock
from core.money import Money
from core.parsers import contains_nul, loads_bounded
from wallet import errors
from wallet.methods import bic_for_bank_code, czech_account_iban
from wallet.models import Deposit, PaymentMethod

SIGNATURE_HEADER = "X-Signature"
EVENT_TYPES = ("payment.succeeded", "payment.failed", "payout.succeeded", "payout.failed")

# Where a provider's own callbacks go: ``outbox(raw_body, signature)`` (the sandbox sends its callbacks so).
Outbox = Callable[[bytes, str], None]


@dataclass(frozen=True)
class PaymentStart:
    provider_payment_id: str
    redirect_url: str = ""
    instructions: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PayoutResult:
    accepted: bool
    provider_payout_id: str = ""
    reason: str = ""


@dataclass(frozen=True)
class CallbackEvent:
    event_id: str
    type: str
    reference: str  # our deposit payment_reference, or our payout/withdrawal reference
    amount: int
    currency: str
    payer: dict[str, Any] | None
    occurred_at: str
    reason: str = ""


def hmac_signature(secret: str, raw_body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), raw_body, hashlib.sha256).hexdigest()


class PaymentProvider(ABC):
    code: str

    def __init__(self, *, outbox: Outbox | None = None) -> None:
        self.outbox = outbox

    @abstractmethod
    def secret(self) -> str: ...

    @abstractmethod
    def start_payment(self, *, deposit: Deposit) -> PaymentStart: ...

    @abstractmethod
    def send_payout(self, *, reference: str, method: PaymentMethod | None, amount: Money) -> PayoutResult: ...

    def verify_signature(self, raw_body: bytes, signature: str) -> bool:
        expected = hmac_signature(self.secret(), raw_body)
        return bool(signature) and hmac.compare_digest(expected, signature.strip())

    def parse_callback(self, raw_body: bytes) -> CallbackEvent:
        try:
            data = loads_bounded(raw_body.decode("utf-8"))  # too deep: JsonTooDeep, a ValueError (N-6)
            if contains_nul(data):  # nothing with a NUL can be stored (PostgreSQL): malformed, never a 500
                raise ValueError("NUL character")
            event = CallbackEvent(
                event_id=str(data["event_id"]),
                type=str(data["type"]),
                reference=str(data["reference"]),
                amount=int(data["amount"]),
                currency=str(data.get("currency", "CZK")),
                payer=data.get("payer"),
                occurred_at=str(data.get("occurred_at", "")),
                reason=str(data.get("reason", "")),
            )
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            raise errors.BAD_CALLBACK(reason="malformed body")
        if event.type not in EVENT_TYPES or not event.event_id or len(event.event_id) > 120 or event.amount < 0:
            raise errors.BAD_CALLBACK(reason="unknown type or bad fields")
        if event.payer is not None and not isinstance(event.payer, dict):
            raise errors.BAD_CALLBACK(reason="payer must be an object")
        return event


#: The sandbox's published test instruments that refuse every payout sent to them, as card and bank sandboxes publish
#: declining test cards and accounts (docs/wallet.md "Sandbox provider"): a card whose number ends in these four
#: digits (charges to it succeed; a refund or payout to it is declined, as to a closed card), and this bank account.
SANDBOX_REFUSING_CARD_LAST4 = "0002"
SANDBOX_REFUSING_ACCOUNT = "9999999999/0800"


def sandbox_payout_refusal(method: PaymentMethod | None) -> str:
    """Why the sandbox refuses a payout to ``method`` by its test-instrument rule, or "" when the rule does not apply
    (then ``WALLET_SANDBOX_PAYOUT_OUTCOME`` answers, the switch for every payout at once)."""
    if method is None:
        return ""
    if method.kind == "card" and method.card_masked.replace(" ", "").endswith(SANDBOX_REFUSING_CARD_LAST4):
        return f"sandbox: card declined (test card ending {SANDBOX_REFUSING_CARD_LAST4} refuses payouts)"
    if method.kind == "bank_account" and method.iban and method.iban == czech_account_iban(SANDBOX_REFUSING_ACCOUNT):
        return f"sandbox: account closed (test account {SANDBOX_REFUSING_ACCOUNT} refuses payouts)"
    return ""


class SandboxProvider(PaymentProvider):
    """A provider for development and tests: signs like a real one, pays when told to; refuses payouts to its
    published test instruments (:func:`sandbox_payout_refusal`)."""

    code = "sandbox"

    def secret(self) -> str:
        secret: str = settings.WALLET_SANDBOX_SECRET
        return secret

    def start_payment(self, *, deposit: Deposit) -> PaymentStart:
        pid = f"sbx_{uuid.uuid4().hex[:20]}"
        base = settings.PUBLIC_BASE_URL.rstrip("/")
        if deposit.method.kind == "bank_account":
            return PaymentStart(
                pid,
                instructions={
                    "account_number": "2001234561/2010",
                    "iban": "CZ0520100000002001234561",
                    "variable_symbol": deposit.payment_reference,
                    "amount": Money(deposit.amount).to_json(),
                    "sandbox_pay_url": f"{base}/api/v1/wallet/sandbox/deposits/{deposit.pk}/pay",
                },
            )
        return PaymentStart(pid, redirect_url=f"{base}/api/v1/wallet/sandbox/deposits/{deposit.pk}/pay")

    def send_payout(self, *, reference: str, method: PaymentMethod | None, amount: Money) -> PayoutResult:
        """Refuse a payout to a test instrument that refuses (:func:`sandbox_payout_refusal`); otherwise accept (or
        refuse) per ``WALLET_SANDBOX_PAYOUT_OUTCOME``, then call back through the outbox."""
        payout_id = "sbxp_" + hashlib.sha256(reference.encode()).hexdigest()[:20]  # same reference, same payout
        refusal = sandbox_payout_refusal(method)
        if refusal:
            return PayoutResult(False, "", refusal)
        outcome = settings.WALLET_SANDBOX_PAYOUT_OUTCOME
        if outcome == "refused":
            return PayoutResult(False, "", "sandbox refuses payouts (WALLET_SANDBOX_PAYOUT_OUTCOME=refused)")
        if outcome in ("succeeded", "failed"):
            if self.outbox is None:  # the callback could not be sent: refuse to pretend it will come
                raise RuntimeError("the sandbox provider needs an outbox to send its payout callback")
            body, sig = self.event(f"payout.{outcome}", reference, amount.amount)
            self.outbox(body, sig)
        return PayoutResult(True, payout_id)

    # the sandbox's own "server side" ------------------------------------------------------------------
    def event(
        self,
        type_: str,
        reference: str,
        amount: int,
        payer: dict[str, Any] | None = None,
        event_id: str | None = None,
        reason: str = "",
    ) -> tuple[bytes, str]:
        body = json.dumps(
            {
                "event_id": event_id or f"evt_{uuid.uuid4().hex}",
                "type": type_,
                "reference": reference,
                "amount": amount,
                "currency": "CZK",
                "payer": payer,
                "occurred_at": clock.now().isoformat(),
                "reason": reason,
            },
            sort_keys=True,
        ).encode()
        return body, hmac_signature(self.secret(), body)


class BankTransferProvider(PaymentProvider):
    """Bank transfers to and from the operator's own account (``WALLET_BANK_IBAN``): no provider API, no callbacks.

    The player is told the account and the variable symbol (our ``payment_reference``); the credit arrives in the
    operator's bank statement (camt.053 / camt.054), which ``services.bank`` imports and matches. A payout is accepted
    into the next payment-order file (pain.001, ``services.bank.bank_payment_order_export``); the statement's debit
    confirms it and a returned payment fails it. Nothing here touches the network."""

    code = "bank"

    def secret(self) -> str:
        return ""

    def verify_signature(self, raw_body: bytes, signature: str) -> bool:
        return False  # the bank sends no callbacks: anything posted to callbacks/bank is refused

    def start_payment(self, *, deposit: Deposit) -> PaymentStart:
        iban = bank_account_iban()
        bic = bank_account_bic()
        vs = deposit.payment_reference
        amount = Money(deposit.amount)
        major = f"{deposit.amount // 100}.{deposit.amount % 100:02d}"
        return PaymentStart(
            f"bank:{vs}",
            instructions={
                "account_number": czech_account_number(iban),
                "iban": iban,
                "bic": bic,
                "variable_symbol": vs,
                "amount": amount.to_json(),
                "message": f"VS:{vs}",
                # QR Platba (the Czech banks' Short Payment Descriptor, SPD 1.0) for the player's banking app
                "qr_payment": f"SPD*1.0*ACC:{iban}{'+' + bic if bic else ''}*AM:{major}*CC:CZK*X-VS:{vs}*MSG:VS {vs}",
            },
        )

    def send_payout(self, *, reference: str, method: PaymentMethod | None, amount: Money) -> PayoutResult:
        """Accepted into the next payment-order file (pain.001); the bank statement confirms it or returns it."""
        bank_account_iban()  # refuses when the operator's account is not configured
        return PayoutResult(True, "", "queued for the next payment-order file")


def bank_account_iban() -> str:
    """The operator's account (``WALLET_BANK_IBAN``); ``wallet.bank_not_configured`` when it is not set."""
    iban = str(settings.WALLET_BANK_IBAN or "").replace(" ", "").upper()
    if not iban:
        raise errors.BANK_NOT_CONFIGURED(setting="WALLET_BANK_IBAN")
    return iban


def bank_account_bic() -> str:
    """``WALLET_BANK_BIC``, else the BIC of the IBAN's (Czech) bank."""
    bic = str(settings.WALLET_BANK_BIC or "").upper()
    iban = bank_account_iban()
    return bic or (bic_for_bank_code(iban[4:8]) if iban.startswith("CZ") else "")


def czech_account_number(iban: str) -> str:
    """The domestic form ``[prefix-]number/bank`` of a CZ IBAN ("" for another country's)."""
    if not iban.startswith("CZ") or len(iban) != 24:
        return ""
    bank, prefix, number = iban[4:8], iban[8:14].lstrip("0"), iban[14:24].lstrip("0")
    return f"{prefix + '-' if prefix else ''}{number}/{bank}"


_PROVIDERS: dict[str, type[PaymentProvider]] = {"sandbox": SandboxProvider, "bank": BankTransferProvider}


def get_provider(code: str, *, outbox: Outbox | None = None) -> PaymentProvider:
    """The provider ``code`` (``wallet.unknown_provider`` / ``wallet.sandbox_disabled`` when it may not be used);
    ``outbox`` is where the provider's own callbacks go (only the sandbox sends any)."""
    cls = _PROVIDERS.get(code)
    if cls is None:
        raise errors.UNKNOWN_PROVIDER(provider=code)
    if code == "sandbox" and not settings.WALLET_SANDBOX_ENABLED:
        raise errors.SANDBOX_DISABLED()
    if code == BankTransferProvider.code:
        bank_account_iban()  # wallet.bank_not_configured before anything is written for it
    return cls(outbox=outbox)


def provider_for_kind(kind: str) -> PaymentProvider:
    """The provider that handles methods of ``kind`` (``WALLET_PROVIDER_BY_KIND``; "sandbox" by default)."""
    by_kind: dict[str, str] = settings.WALLET_PROVIDER_BY_KIND
    return get_provider(by_kind.get(kind, "sandbox"))


def sandbox_event(
    type_: str,
    reference: str,
    amount: int,
    payer: dict[str, Any] | None = None,
    event_id: str | None = None,
    reason: str = "",
) -> tuple[bytes, str]:
    """A correctly signed sandbox callback (body, signature)."""
    return SandboxProvider().event(type_, reference, amount, payer, event_id, reason)
