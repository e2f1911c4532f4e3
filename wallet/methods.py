"""Payment-method kinds: their limits and fees (GP §8(6)) and the validation of their identifiers.

Bank accounts must be held at a bank seated in the Czech Republic (GP §5(7)): Czech account numbers and
CZ IBANs are checked with their check digits (python-stdnum) and the bank code against the CNB list shipped
in ``wallet/data/cz_banks.csv``. Cards are stored only as the provider's token and a masked number.
"""

from __future__ import annotations

import csv
import functools
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.conf import settings
from stdnum import iban as stdnum_iban
from stdnum.cz import bankaccount
from stdnum.exceptions import ValidationError as StdnumError

from core.money import ROUNDING_HALF_UP, Money
from wallet import errors

BANKS_CSV = Path(__file__).with_name("data") / "cz_banks.csv"
BRANCH = "branch_cash"  # cash at a branch: not a registered method, but it has GP §8(6) limits


@dataclass(frozen=True)
class Bank:
    code: str
    bic: str
    name: str
    category: str
    seated_in_cz: bool

    @property
    def accepted(self) -> bool:
        """GP §5(7): a bank seated in the Czech Republic."""
        return self.category == "bank" and self.seated_in_cz


@functools.cache
def czech_banks() -> dict[str, Bank]:
    with BANKS_CSV.open(encoding="utf-8") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {
            r["code"]: Bank(r["code"], r["bic"], r["name"], r["category"], r["seated_in_cz"] == "yes") for r in rows
        }


@dataclass(frozen=True)
class MethodRule:
    """GP §8(6) figures for one kind (minor units; None = no limit); blanks come from settings."""

    deposit: bool
    withdrawal: bool
    deposit_min: int | None = None
    deposit_max: int | None = None
    withdrawal_min: int | None = None
    withdrawal_max: int | None = None
    fee_percent: str | None = None  # deposit fee, deducted from the amount

    def fee(self, amount: Money) -> Money:
        if not self.fee_percent:
            return Money.zero(amount.currency)
        return amount.percent(Decimal(self.fee_percent), ROUNDING_HALF_UP)


def method_rules() -> dict[str, MethodRule]:
    """The table of GP §8(6); the plan's blanks are ``settings.WALLET_*`` read at call time, so overrides apply."""
    return {
        # bank transfer: deposit min "3(?) CZK", no max; withdrawal min blank, no max
        "bank_account": MethodRule(
            deposit=True,
            withdrawal=True,
            deposit_min=settings.WALLET_BANK_DEPOSIT_MIN,
            withdrawal_min=settings.WALLET_BANK_WITHDRAWAL_MIN,
        ),
        # card: deposit min 100 CZK, no max (withdrawals to cards are not in the plan)
        "card": MethodRule(deposit=True, withdrawal=False, deposit_min=10_000),
        # PayU online: deposit min "3(?) CZK", no max
        "payu": MethodRule(deposit=True, withdrawal=False, deposit_min=settings.WALLET_PAYU_DEPOSIT_MIN),
        # Skrill: all blank
        "skrill": MethodRule(
            deposit=True,
            withdrawal=True,
            deposit_min=settings.WALLET_SKRILL_DEPOSIT_MIN,
            deposit_max=settings.WALLET_SKRILL_DEPOSIT_MAX,
            withdrawal_min=settings.WALLET_SKRILL_WITHDRAWAL_MIN,
            withdrawal_max=settings.WALLET_SKRILL_WITHDRAWAL_MAX,
        ),
        # paysafecard: deposit min "3(?) CZK", max blank, fee 5 %
        "paysafecard": MethodRule(
            deposit=True,
            withdrawal=False,
            deposit_min=settings.WALLET_PAYSAFECARD_DEPOSIT_MIN,
            deposit_max=settings.WALLET_PAYSAFECARD_DEPOSIT_MAX,
            fee_percent="5",
        ),
        # branch cash: deposit min 1 CZK, max blank; withdrawal min 100 CZK, max blank (+ GP §5(12) 24 h cap)
        BRANCH: MethodRule(
            deposit=True,
            withdrawal=True,
            deposit_min=100,
            deposit_max=settings.WALLET_BRANCH_DEPOSIT_MAX,
            withdrawal_min=10_000,
            withdrawal_max=settings.WALLET_BRANCH_WITHDRAWAL_MAX,
        ),
    }


def rule_for(kind: str) -> MethodRule:
    return method_rules()[kind]


def check_deposit_amount(kind: str, amount: Money) -> None:
    rule = rule_for(kind)
    if not rule.deposit:
        raise errors.METHOD_NOT_FOR_DEPOSIT(kind=kind)
    if rule.deposit_min is not None and amount.amount < rule.deposit_min:
        raise errors.BELOW_METHOD_MIN(kind=kind, minimum=Money(rule.deposit_min), amount=amount)
    if rule.deposit_max is not None and amount.amount > rule.deposit_max:
        raise errors.ABOVE_METHOD_MAX(kind=kind, maximum=Money(rule.deposit_max), amount=amount)


def check_withdrawal_amount(kind: str, amount: Money) -> None:
    rule = rule_for(kind)
    if not rule.withdrawal:
        raise errors.METHOD_NOT_FOR_WITHDRAWAL(kind=kind)
    if rule.withdrawal_min is not None and amount.amount < rule.withdrawal_min:
        raise errors.BELOW_METHOD_MIN(kind=kind, minimum=Money(rule.withdrawal_min), amount=amount)
    if rule.withdrawal_max is not None and amount.amount > rule.withdrawal_max:
        raise errors.ABOVE_METHOD_MAX(kind=kind, maximum=Money(rule.withdrawal_max), amount=amount)


# Identifiers -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NormalisedMethod:
    kind: str
    identifier: str
    bank_code: str = ""
    iban: str = ""
    card_token: str = ""
    card_masked: str = ""


def _bank_from_code(code: str) -> Bank:
    bank = czech_banks().get(code)
    if bank is None or not bank.accepted:
        raise errors.BANK_NOT_CZECH(bank_code=code, bank=bank.name if bank else None)
    return bank


def normalise_bank_account(*, account_number: str = "", iban: str = "") -> NormalisedMethod:
    """A Czech account number ``[prefix-]number/bank`` or a CZ IBAN, check digits verified (GP §5(7))."""
    account_number, iban = (account_number or "").strip(), (iban or "").strip()
    if iban:
        try:
            compact = stdnum_iban.validate(iban)
        except StdnumError:
            raise errors.METHOD_INVALID(field="iban", reason="invalid IBAN (check digits or format)")
        if not compact.startswith("CZ"):
            raise errors.BANK_NOT_CZECH(iban_country=compact[:2])
        bank_code, prefix, number = compact[4:8], compact[8:14], compact[14:24]
        derived = f"{prefix}-{number}/{bank_code}"
        if account_number and bankaccount.compact(account_number) != derived:
            raise errors.METHOD_INVALID(field="account_number", reason="the account number and the IBAN differ")
        account_number = derived
    if not account_number:
        raise errors.METHOD_INVALID(field="account_number", reason="an account number or IBAN is required")
    if not re.fullmatch(r"\s*(\d{0,6}-)?\d{2,10}/\d{4}\s*", account_number):
        raise errors.METHOD_INVALID(field="account_number", reason="format [prefix-]number/bank code")
    compact_number = bankaccount.compact(account_number)
    bank_code = compact_number[-4:]
    _bank_from_code(bank_code)
    try:
        compact_number = bankaccount.validate(compact_number)
    except StdnumError:
        raise errors.METHOD_INVALID(field="account_number", reason="invalid Czech account number (check digits)")
    prefix, rest = compact_number.split("-")
    number = rest.split("/")[0]
    bban = f"{bank_code}{prefix}{number}"
    check = stdnum_iban.calc_check_digits(f"CZ00{bban}")
    return NormalisedMethod(
        kind="bank_account", identifier=compact_number, bank_code=bank_code, iban=f"CZ{check}{bban}"
    )


_MASKED = re.compile(r"^[0-9*Xx•\s-]{12,23}$")


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def normalise_card(*, card_token: str, card_masked: str) -> NormalisedMethod:
    """Only the provider token and a masked number are kept; a full card number is refused (PCI DSS)."""
    token, masked = (card_token or "").strip(), (card_masked or "").strip()
    if not re.fullmatch(r"[A-Za-z0-9_\-:.]{8,128}", token):
        raise errors.METHOD_INVALID(field="card_token", reason="a provider token is required")
    if not _MASKED.match(masked):
        raise errors.METHOD_INVALID(field="card_masked", reason="a masked number such as **** **** **** 1234")
    digits = re.sub(r"\D", "", masked)
    compact = re.sub(r"[\s-]", "", masked)
    if len(digits) > 10 or (len(compact) >= 12 and compact.isdigit() and _luhn_ok(compact)):
        raise errors.METHOD_INVALID(field="card_masked", reason="never send the full card number")
    last4 = compact[-4:]
    if not last4.isdigit():
        raise errors.METHOD_INVALID(field="card_masked", reason="the last four digits must be visible")
    return NormalisedMethod(
        kind="card", identifier=f"card:{token}"[:64], card_token=token, card_masked=f"**** **** **** {last4}"
    )


_EMAILISH = re.compile(r"^[A-Za-z0-9._%+\-]{1,64}(@[A-Za-z0-9.\-]{1,190}\.[A-Za-z]{2,})?$")


def normalise_ewallet(*, kind: str, account_id: str) -> NormalisedMethod:
    """Skrill, PayU, paysafecard (GP §8(6)): the wallet's account id (usually the e-mail)."""
    account_id = (account_id or "").strip().lower()
    if not _EMAILISH.match(account_id) or len(account_id) > 64:
        raise errors.METHOD_INVALID(field="account_id", reason="the e-wallet account id (e-mail)")
    return NormalisedMethod(kind=kind, identifier=account_id)


def normalise(kind: str, data: dict[str, Any]) -> NormalisedMethod:
    if kind == "bank_account":
        return normalise_bank_account(account_number=data.get("account_number", ""), iban=data.get("iban", ""))
    if kind == "card":
        return normalise_card(card_token=data.get("card_token", ""), card_masked=data.get("card_masked", ""))
    if kind in ("skrill", "payu", "paysafecard"):
        return normalise_ewallet(kind=kind, account_id=data.get("account_id", ""))
    raise errors.METHOD_INVALID(field="kind", reason=f"unknown kind {kind!r}")


def czech_account_iban(account: str) -> str:
    """The IBAN of a Czech account number ``[prefix-]number/bank`` (check digits verified, any bank code), or ""
    when it is not one. Bank statements give the payer's account so; unlike :func:`normalise_bank_account` this
    refuses no bank (a payment may come from any account; GP §5(7) applies to registered methods)."""
    text = (account or "").strip()
    if not re.fullmatch(r"(\d{0,6}-)?\d{2,10}/\d{4}", text):
        return ""
    try:
        compact = bankaccount.validate(text)
    except StdnumError:
        return ""
    prefix, rest = compact.split("-")
    number, bank_code = rest.split("/")
    bban = f"{bank_code}{prefix}{number}"
    return f"CZ{stdnum_iban.calc_check_digits(f'CZ00{bban}')}{bban}"


def valid_iban(iban: str) -> bool:
    try:
        stdnum_iban.validate(iban)
    except StdnumError:
        return False
    return True


def bic_for_bank_code(code: str) -> str:
    """The BIC of a Czech bank code from the CNB list ("" when unknown)."""
    bank = czech_banks().get(code)
    return bank.bic if bank else ""


def bank_code_for_bic(bic: str) -> str:
    """The Czech bank code of a BIC (its first 8 characters), "" when it is not a Czech bank's."""
    head = (bic or "").upper()[:8]
    if len(head) < 8:
        return ""
    for bank in czech_banks().values():
        if bank.bic[:8] == head:
            return bank.code
    return ""


def same_bank_account(method: Any, account: str) -> bool:
    """GP §5(6): is ``account`` (an IBAN, or a Czech ``[prefix-]number/bank``) the account of the bank-account
    ``method``? Any other kind of method is never a bank account."""
    if getattr(method, "kind", "") != "bank_account" or not account:
        return False
    text = re.sub(r"\s+", "", account).upper()
    iban = text if re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]+", text) else czech_account_iban(text)
    return bool(iban) and iban == str(method.iban).upper()
