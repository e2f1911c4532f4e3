"""The wallet (docs/wallet.md): payment providers, deposits and withdrawals, the operator's bank account, the minimum
and maximum amounts of GP §8(6). Amounts in haléře; a limit "none" is no limit."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import env

env.area("Wallet")
WALLET_SANDBOX_ENABLED = env.bool(
    "WALLET_SANDBOX_ENABLED", True, "the sandbox payment provider; refused in production", production=False
)
DEV_WALLET_SANDBOX_SECRET = "sandbox-shared-secret-for-development-only"
WALLET_SANDBOX_SECRET = env.str(
    "WALLET_SANDBOX_SECRET", DEV_WALLET_SANDBOX_SECRET, "the sandbox provider's callback secret"
)
WALLET_SANDBOX_CALLBACK_URL = env.str(
    "WALLET_SANDBOX_CALLBACK_URL", "", "where the sandbox provider posts its callbacks; empty: delivered in-process"
)
WALLET_SANDBOX_PAYOUT_OUTCOME = env.str(
    "WALLET_SANDBOX_PAYOUT_OUTCOME",
    "succeeded",
    "what the sandbox answers a payout: succeeded, failed, refused or none",
)
WALLET_PROVIDER_BY_KIND: dict[str, str] = env.json(
    "WALLET_PROVIDER_BY_KIND",
    {},
    "a JSON object: payment method kind -> provider code; unlisted kinds go through "
    "the sandbox (production default: bank accounts through the operator's bank account)",
    production={"bank_account": "bank"},
)
WALLET_DEPOSIT_EXPIRY_HOURS = env.int("WALLET_DEPOSIT_EXPIRY_HOURS", 24, "hours an unpaid deposit stays open")
WALLET_WITHDRAWAL_APPROVAL_THRESHOLD = env.int(
    "WALLET_WITHDRAWAL_APPROVAL_THRESHOLD", 1_000_000, "haléře: a withdrawal from this amount waits for staff approval"
)
WALLET_SEND_RETRY_MINUTES = env.int(
    "WALLET_SEND_RETRY_MINUTES", 15, "a payout the provider did not take is sent again after this many minutes"
)
WALLET_AML_HOLD_DAYS = env.int("WALLET_AML_HOLD_DAYS", 10, "days a withdrawal may be held for AML (GP §10(3))")
WALLET_POSTAGE = env.int("WALLET_POSTAGE", 5_000, "haléře: the postage of a postal order (GP §5(2)e, §5(13))")
WALLET_BRANCH_CASH_COMBINED = env.bool(
    "WALLET_BRANCH_CASH_COMBINED", False, "the branch cash cap counts deposits and withdrawals together (GP §5(12))"
)
# The most one operation may move (haléře): above it is refused with a 400 before anything else, so no amount can
# overflow a column or a provider's field; the GP figures still apply below these.
WALLET_DEPOSIT_MAX_AMOUNT = env.int("WALLET_DEPOSIT_MAX_AMOUNT", 100_000_000, "haléře: the most one deposit may be")
WALLET_WITHDRAWAL_MAX_AMOUNT = env.int(
    "WALLET_WITHDRAWAL_MAX_AMOUNT", 100_000_000, "haléře: the most one withdrawal may be"
)
WALLET_BRANCH_CASH_MAX_AMOUNT = env.int(
    "WALLET_BRANCH_CASH_MAX_AMOUNT", 100_000_000, "haléře: the most one branch cash operation may be"
)
WALLET_DOCUMENT_MAX_BYTES = env.int(
    "WALLET_DOCUMENT_MAX_BYTES", 5 * 1024 * 1024, "bytes: the largest document a player uploads (GP §5(8)b)"
)
# Bank transfers (docs/wallet.md "Bank transfers"): statements (camt.053 / camt.054) of the operator's account are
# imported (another account's are refused) and payment orders (pain.001) paid from it. System check wallet.E001: with
# the "bank" provider in use, IBAN and name must be set; until then bank deposits and payment orders are refused.
WALLET_BANK_IBAN = (
    env.str("WALLET_BANK_IBAN", "", "the operator's account (IBAN; spaces ignored)").replace(" ", "").upper()
)
WALLET_BANK_BIC = env.str(
    "WALLET_BANK_BIC", "", "its BIC; empty: the BIC of the IBAN's bank (wallet/data/cz_banks.csv)"
)
WALLET_BANK_ACCOUNT_NAME = env.str("WALLET_BANK_ACCOUNT_NAME", "", "the payer named in payment orders")
WALLET_BANK_STATEMENT_MAX_BYTES = env.int(
    "WALLET_BANK_STATEMENT_MAX_BYTES", 64 * 1024 * 1024, "bytes: the largest bank statement file imported"
)
WALLET_BANK_ENTRY_MAX_AMOUNT = env.int(
    "WALLET_BANK_ENTRY_MAX_AMOUNT",
    100_000_000_000,
    "haléře: a statement line above this is not booked but recorded as invalid and staff told",
)
if not 0 < WALLET_BANK_ENTRY_MAX_AMOUNT < 2**62:
    raise ImproperlyConfigured("WALLET_BANK_ENTRY_MAX_AMOUNT must be positive and below 2^62")

# GP §8(6) blanks: minimum and maximum amounts per method (haléře; none: no limit)
WALLET_BANK_DEPOSIT_MIN = env.optional_int("WALLET_BANK_DEPOSIT_MIN", 300, "haléře: the smallest bank deposit")
WALLET_PAYU_DEPOSIT_MIN = env.optional_int("WALLET_PAYU_DEPOSIT_MIN", 300, "haléře: the smallest PayU deposit")
WALLET_PAYSAFECARD_DEPOSIT_MIN = env.optional_int(
    "WALLET_PAYSAFECARD_DEPOSIT_MIN", 300, "haléře: the smallest paysafecard deposit"
)
WALLET_PAYSAFECARD_DEPOSIT_MAX = env.optional_int(
    "WALLET_PAYSAFECARD_DEPOSIT_MAX", 1_000_000, "haléře: the largest paysafecard deposit"
)
WALLET_SKRILL_DEPOSIT_MIN = env.optional_int("WALLET_SKRILL_DEPOSIT_MIN", 10_000, "haléře: the smallest Skrill deposit")
WALLET_SKRILL_DEPOSIT_MAX = env.optional_int("WALLET_SKRILL_DEPOSIT_MAX", None, "haléře: the largest Skrill deposit")
WALLET_BANK_WITHDRAWAL_MIN = env.optional_int(
    "WALLET_BANK_WITHDRAWAL_MIN", 10_000, "haléře: the smallest bank withdrawal"
)
WALLET_SKRILL_WITHDRAWAL_MIN = env.optional_int(
    "WALLET_SKRILL_WITHDRAWAL_MIN", 10_000, "haléře: the smallest Skrill withdrawal"
)
WALLET_SKRILL_WITHDRAWAL_MAX = env.optional_int(
    "WALLET_SKRILL_WITHDRAWAL_MAX", None, "haléře: the largest Skrill withdrawal"
)
WALLET_BRANCH_DEPOSIT_MAX = env.optional_int(
    "WALLET_BRANCH_DEPOSIT_MAX", None, "haléře: the largest branch cash deposit"
)
WALLET_BRANCH_WITHDRAWAL_MAX = env.optional_int(
    "WALLET_BRANCH_WITHDRAWAL_MAX", None, "haléře: the largest branch cash withdrawal"
)
