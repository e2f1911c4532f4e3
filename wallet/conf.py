"""The wallet's settings: ``settings.GP`` for the plan's figures, ``WALLET_*`` for the rest.

``config/settings.py`` belongs to the platform, so each ``WALLET_*`` setting is read as
``getattr(settings, NAME)`` when the project defines it, else from the environment variable of the same name,
else the documented default below (docs/wallet.md lists them). Amounts are minor units (haléře).
"""
from __future__ import annotations

import json
import os
from typing import Any

from django.conf import settings

# GP figures that are not blanks in the plan: constants with their rule.
VERIFY_METHOD_DAYS = 30  # GP §5(9): verify the method within 30 days from the start of registration
NEW_METHOD_DAYS = 30  # GP §5(11): 30 days to register another method
TEMPORARY_REFUND_DAYS = 7  # GP §5(2)e: return within 7 days of the cancellation
TEMPORARY_COLLECT_DAYS = 5  # GP §5(2)e: collect at a branch within 5 days
MISUSE_COLLECT_DAYS = 15  # GP §5(13): collect at a branch within 15 days
CLOSE_AFTER_SETTLEMENT_DAYS = 10  # GP §5(15): the account is closed within 10 days of settling the balance
DEBT_DAYS = 10  # GP §7(7): a negative balance is a debt payable within 10 days
REGULARITY_HOLD_DAYS = 60  # GP §10(3): a doubtful win is held at most 60 days

DEFAULTS: dict[str, Any] = {
    # Provider adapters
    "WALLET_SANDBOX_ENABLED": None,  # None = on unless DJANGO_ENV=production
    "WALLET_SANDBOX_SECRET": "sandbox-shared-secret-for-development-only",
    "WALLET_SANDBOX_CALLBACK_URL": "",  # "" = deliver callbacks in-process; else POST them to this URL
    "WALLET_SANDBOX_PAYOUT_OUTCOME": "succeeded",  # sandbox payouts: succeeded | failed (returned) | refused | none
    "WALLET_PROVIDER_BY_KIND": {},  # method kind -> provider code; missing kinds use "sandbox"
    # Deposits and withdrawals
    "WALLET_DEPOSIT_EXPIRY_HOURS": 24,
    "WALLET_WITHDRAWAL_APPROVAL_THRESHOLD": 1_000_000,  # 10,000 CZK: at or above, staff approve
    "WALLET_SEND_RETRY_MINUTES": 15,  # a payout stuck in "sending" is retried (same provider reference)
    # GP §10(3): AML law (253/2008 Sb.) hold period; follow the law in force.
    "WALLET_AML_HOLD_DAYS": 10,
    # GP §5(2)e, §5(13): postage deducted when a payout is sent by post.
    "WALLET_POSTAGE": 5_000,
    # GP §5(12): count branch cash in and out together against the 24 h cap (default: each way separately)
    "WALLET_BRANCH_CASH_COMBINED": False,
    # GP §5(8)b documents
    "WALLET_DOCUMENT_MAX_BYTES": 5 * 1024 * 1024,
    # GP §8(6) blanks (None = no limit)
    "WALLET_BANK_DEPOSIT_MIN": 300,  # "3(?) CZK" in the transcript
    "WALLET_PAYU_DEPOSIT_MIN": 300,  # "3(?) CZK"
    "WALLET_PAYSAFECARD_DEPOSIT_MIN": 300,  # "3(?) CZK"
    "WALLET_PAYSAFECARD_DEPOSIT_MAX": 1_000_000,  # blank; 10,000 CZK
    "WALLET_SKRILL_DEPOSIT_MIN": 10_000,  # blank; 100 CZK
    "WALLET_SKRILL_DEPOSIT_MAX": None,  # blank; no maximum
    "WALLET_BANK_WITHDRAWAL_MIN": 10_000,  # blank; 100 CZK (as at a branch)
    "WALLET_SKRILL_WITHDRAWAL_MIN": 10_000,  # blank; 100 CZK
    "WALLET_SKRILL_WITHDRAWAL_MAX": None,  # blank; no maximum
    "WALLET_BRANCH_DEPOSIT_MAX": None,  # blank; the 24 h cap of GP §5(12) applies
    "WALLET_BRANCH_WITHDRAWAL_MAX": None,  # blank; the 24 h cap of GP §5(12) applies
}


def get(name: str) -> Any:
    if hasattr(settings, name):
        return getattr(settings, name)
    default = DEFAULTS[name]
    raw = os.environ.get(name)
    if raw is None:
        if name == "WALLET_SANDBOX_ENABLED":
            return not getattr(settings, "PRODUCTION", False)
        return default
    if isinstance(default, bool) or name == "WALLET_SANDBOX_ENABLED":
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(default, int) or (default is None and raw.strip().lstrip("-").isdigit()):
        return int(raw)
    if isinstance(default, dict):
        return json.loads(raw)
    if default is None and raw.strip().lower() in ("", "none"):
        return None
    return raw


def gp(name: str) -> int:
    return settings.GP[name]


def temp_deposit_cap() -> int:
    return gp("TEMP_ACCOUNT_DEPOSIT_CAP")  # GP §5(2)b, §5(12)


def branch_cash_per_24h() -> int:
    return gp("BRANCH_CASH_PER_24H")  # GP §5(12)
