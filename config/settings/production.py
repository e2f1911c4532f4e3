"""What production refuses (docs/core.md "Production refusals"): the public development secrets, the development
switches, and the outside systems left at their sandbox. The rules themselves live in config/refusals.py and read the
whole settings namespace (``production_refusals`` in config/settings/__init__.py)."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config.settings.accounts import (
    ACCOUNTS_EXCLUSION_REGISTER,
    ACCOUNTS_POPULATION_REGISTER,
    ACCOUNTS_SMS_GATEWAY,
)
from config.settings.aml import (
    AML_BANKID_ENABLED,
    AML_IDENTIFICATION_PROVIDER,
    AML_SCREENING_LIST,
    DEV_AML_SANDBOX_SECRET,
)
from config.settings.base import PRODUCTION
from config.settings.core import (
    ADMIN_REQUIRE_2FA,
    AXES_ENABLED,
    BENCH_FLOOR,
    DEBUG,
    DEV_SECRET_KEY,
    SECURE_SSL_REDIRECT,
    TLS_REDIRECT_AT_PROXY,
)
from config.settings.games import DEV_JACKPOTS_SEAL_KEY
from config.settings.wallet import DEV_WALLET_SANDBOX_SECRET, WALLET_PROVIDER_BY_KIND, WALLET_SANDBOX_ENABLED

# The repository's development secrets are public: production refuses each of them, and any key shorter than 32 bytes
# (with the public seal key the must-hit values can be unsealed from the database; with the public SECRET_KEY e-mail
# links can be forged). The outside systems must be named, never left at their sandbox: the sandbox register of
# excluded persons is a local table, so an excluded person would never be found (ZHH §15, GP §4).
DEV_SECRETS = {
    "SECRET_KEY": DEV_SECRET_KEY,
    "JACKPOTS_SEAL_KEY": DEV_JACKPOTS_SEAL_KEY,
    "WALLET_SANDBOX_SECRET": DEV_WALLET_SANDBOX_SECRET,
    "AML_SANDBOX_SECRET": DEV_AML_SANDBOX_SECRET,
}
MIN_SECRET_BYTES = 32
#: what production uses for each outside system (printed at start: core.apps)
EXTERNAL_SYSTEMS = {
    "population register": ACCOUNTS_POPULATION_REGISTER,
    "register of excluded persons": ACCOUNTS_EXCLUSION_REGISTER,
    "SMS gateway": ACCOUNTS_SMS_GATEWAY,
    "identification provider": AML_IDENTIFICATION_PROVIDER,
    "Bank iD": "on" if AML_BANKID_ENABLED else "off",
    "screening list": AML_SCREENING_LIST,
    "payment providers": ",".join(sorted(set(WALLET_PROVIDER_BY_KIND.values()))) or "sandbox",
}

# A development switch left on would open the platform to anyone. The one documented escape hatch:
# SECURE_SSL_REDIRECT=false when the proxy in front terminates TLS and redirects plain HTTP itself
# (TLS_REDIRECT_AT_PROXY=true).
if PRODUCTION:
    _unsafe = [
        name
        for name, bad in (
            ("DEBUG=true", DEBUG),
            (
                "WALLET_SANDBOX_ENABLED=true (the sandbox payment provider and its public secret)",
                WALLET_SANDBOX_ENABLED,
            ),
            ("ADMIN_REQUIRE_2FA=false", not ADMIN_REQUIRE_2FA),
            ("AXES_ENABLED=false (no login lock-out)", not AXES_ENABLED),
            (
                "SECURE_SSL_REDIRECT=false without TLS_REDIRECT_AT_PROXY=true",
                not SECURE_SSL_REDIRECT and not TLS_REDIRECT_AT_PROXY,
            ),
            ("BENCH_FLOOR must be off in production", BENCH_FLOOR),
        )
        if bad
    ]
    if _unsafe:
        raise ImproperlyConfigured("DJANGO_ENV=production refuses: " + "; ".join(_unsafe))
