"""The wallet's system checks (``manage.py check``, run by ``migrate`` and every management command)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks

from wallet.methods import valid_iban


@checks.register()
def bank_account_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """wallet.E001: the ``bank`` provider (bank transfers: statements in, payment orders out) is in use but the
    operator's account is not configured, or its IBAN is not valid."""
    by_kind: dict[str, str] = settings.WALLET_PROVIDER_BY_KIND
    if "bank" not in by_kind.values():
        return []
    iban, name = str(settings.WALLET_BANK_IBAN or ""), str(settings.WALLET_BANK_ACCOUNT_NAME or "")
    if iban and name and valid_iban(iban):
        return []
    return [
        checks.Error(
            "bank transfers are on (WALLET_PROVIDER_BY_KIND) but the operator's account is not set up",
            hint="set WALLET_BANK_IBAN (a valid IBAN) and WALLET_BANK_ACCOUNT_NAME",
            id="wallet.E001",
        )
    ]
