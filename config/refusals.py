"""What production refuses to start with (config/settings.py ``production_refusals``; docs/core.md "Production
refusals"): the rules, kept out of the settings module so that it holds settings. Each refusal names the variable,
never its value. The functions read the settings' module namespace (``refusals_of(globals())``)."""
from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any


def refusals_of(namespace: Mapping[str, Any]) -> list[str]:
    """Why production must not start with the settings of ``namespace`` (empty: it may)."""
    return _refusals(SimpleNamespace(**namespace))


def _secret_refusals(s: SimpleNamespace) -> list[str]:
    refusals: list[str] = []
    secrets_in_use = {"SECRET_KEY": s.SECRET_KEY, "WALLET_SANDBOX_SECRET": s.env.str("WALLET_SANDBOX_SECRET", default=""),
                      "AML_SANDBOX_SECRET": s.env.str("AML_SANDBOX_SECRET", default="")}
    if s.JACKPOTS_ENABLED:
        secrets_in_use["JACKPOTS_SEAL_KEY"] = s.JACKPOTS_SEAL_KEY
    for name, value in secrets_in_use.items():
        if not value and name not in ("SECRET_KEY", "JACKPOTS_SEAL_KEY"):
            continue  # a sandbox secret not set: the sandbox is refused anyway, nothing signs with it
        if value == s.DEV_SECRETS[name]:
            refusals.append(f"{name} is the repository's public development value")
        elif len(value.encode()) < s.MIN_SECRET_BYTES:
            refusals.append(f"{name} is shorter than {s.MIN_SECRET_BYTES} bytes")
    return refusals


def _reports_refusals(s: SimpleNamespace) -> list[str]:
    """With reports on, the regulator's record must be sealed with the operator's own key and certificate."""
    if not s.REPORTS_ENABLED:
        return []
    return [f"{name} is missing or not a file (the regulator's record must be sealed)"
            for name, value in (("REPORTS_SEAL_KEY_FILE", s.REPORTS_SEAL_KEY_FILE),
                                ("REPORTS_SEAL_CERT_FILE", s.REPORTS_SEAL_CERT_FILE))
            if not value or not Path(value).is_file()]


def _providers_refusals(s: SimpleNamespace) -> list[str]:
    """Game providers (issue 23): their calls are accepted only from their listed addresses. (A provider row whose
    secret is the development value or shorter than MIN_SECRET_BYTES is refused at each call in production:
    providers.services.production_refusal; rows are data, not settings.)"""
    if s.PROVIDERS_ALLOW_ANY_SOURCE:
        return ["PROVIDERS_ALLOW_ANY_SOURCE=true (a game provider's calls accepted from any address)"]
    return []


#: cache backends every web process and machine share (the DRF throttles and login lockouts count in the cache)
SHARED_CACHES = ("django.core.cache.backends.redis.RedisCache", "django_redis.cache.RedisCache",
                 "django.core.cache.backends.memcached.PyMemcacheCache",
                 "django.core.cache.backends.memcached.PyLibMCCache",
                 "django.core.cache.backends.db.DatabaseCache")
#: the widest proxy network production trusts to name a client's address (a /8 of IPv4, a /16 of IPv6)
WIDEST_PROXY_PREFIX = {4: 8, 6: 16}
#: the sanctions lists screening must always require (a PEP list alone would answer "clear" to a sanctioned person)
REQUIRED_SANCTIONS_SOURCES = ("eu", "un", "cz")
#: bounds of tunables where an unbounded value opens something (a replay window of years, unlimited guesses)
BOUNDS = {"PROVIDERS_SIGNATURE_WINDOW_SECONDS": (30, 900), "AXES_FAILURE_LIMIT": (1, 20),
          "ACCOUNTS_SESSION_IDLE_MINUTES": (1, 240)}
MAX_LOGIN_RATE_PER_MINUTE = 60


def cache_refusals(s: SimpleNamespace) -> list[str]:
    backend = str(s.CACHES.get("default", {}).get("BACKEND", ""))
    if backend not in SHARED_CACHES:
        return ["CACHE_URL names no shared cache (redis, memcached or a database cache): each worker would count "
                "the rate limits and login lockouts on its own"]
    return []


def proxy_refusals(s: SimpleNamespace) -> list[str]:
    refusals = []
    for value in s.TRUSTED_PROXIES:
        try:
            net = ipaddress.ip_network(str(value).strip(), strict=False)
        except ValueError:
            refusals.append("TRUSTED_PROXIES holds a value that is not an address or a network")
            continue
        if net.prefixlen < WIDEST_PROXY_PREFIX[net.version]:
            refusals.append(f"TRUSTED_PROXIES holds a network wider than /{WIDEST_PROXY_PREFIX[net.version]} "
                            "(every client could name its own address)")
    return refusals


def screening_refusals(s: SimpleNamespace) -> list[str]:
    missing = [src for src in REQUIRED_SANCTIONS_SOURCES if src not in s.AML_SCREENING_REQUIRED_SOURCES]
    if missing:
        return [f"AML_SCREENING_REQUIRED_SOURCES lacks {', '.join(missing)} (screening would answer 'clear' without "
                "the sanctions lists)"]
    return []


def email_refusals(s: SimpleNamespace) -> list[str]:
    if s.EMAIL_BACKEND.endswith(("console.EmailBackend", "locmem.EmailBackend", "dummy.EmailBackend",
                                 "filebased.EmailBackend", "SandboxEmailBackend")):
        return ["EMAIL_BACKEND writes e-mails to the log, a file or nowhere (players' personal data)"]
    return []


def tunable_refusals(s: SimpleNamespace) -> list[str]:
    refusals = []
    if s.PROVIDERS_DEV_SECRET != s.PROVIDERS_DEV_SECRET_DEFAULT:
        refusals.append("PROVIDERS_DEV_SECRET is set (a development variable: production compares the providers' "
                        "secrets with its public default)")
    for name, (low, high) in BOUNDS.items():
        value = getattr(s, name)
        if not low <= int(value) <= high:
            refusals.append(f"{name} is outside {low}..{high}")
    rate = str(s.THROTTLE_RATES.get("login") or "")
    num, _, period = rate.partition("/")
    per_minute = {"s": 60.0, "m": 1.0, "h": 1 / 60, "d": 1 / 1440}.get(period[:1], 0.0)
    if not num.isdigit() or not per_minute or int(num) * per_minute > MAX_LOGIN_RATE_PER_MINUTE:
        refusals.append(f"THROTTLE_RATE_LOGIN allows more than {MAX_LOGIN_RATE_PER_MINUTE} sign-ins a minute "
                        "(or is not N/s|min|hour|day)")
    return refusals


def _refusals(s: SimpleNamespace) -> list[str]:
    """Why production must not start with these settings (empty: it may). Each names the variable, never a value."""
    refusals = _secret_refusals(s)
    for name, kind, url in (("ACCOUNTS_POPULATION_REGISTER", s.ACCOUNTS_POPULATION_REGISTER,
                             s.ACCOUNTS_POPULATION_REGISTER_URL),
                            ("ACCOUNTS_EXCLUSION_REGISTER", s.ACCOUNTS_EXCLUSION_REGISTER, s.ACCOUNTS_EXCLUSION_REGISTER_URL),
                            ("ACCOUNTS_SMS_GATEWAY", s.ACCOUNTS_SMS_GATEWAY, s.ACCOUNTS_SMS_GATEWAY_URL)):
        if kind == "sandbox":
            refusals.append(f"{name}=sandbox (set it to the real implementation, http, with {name}_URL)")
        elif kind == "http" and not url:
            refusals.append(f"{name}=http without {name}_URL")
    if "http" in (s.ACCOUNTS_POPULATION_REGISTER, s.ACCOUNTS_EXCLUSION_REGISTER, s.ACCOUNTS_SMS_GATEWAY) and \
            len(s.ACCOUNTS_GATEWAY_TOKEN.encode()) < s.MIN_SECRET_BYTES:
        refusals.append(f"ACCOUNTS_GATEWAY_TOKEN is missing or shorter than {s.MIN_SECRET_BYTES} bytes")
    if not s.ACCOUNTS_TERMS_REQUIRED:
        refusals.append("ACCOUNTS_TERMS_REQUIRED=false (GP §3(5): stakes before any published game plan and terms)")
    if s.AML_IDENTIFICATION_PROVIDER == "sandbox":
        refusals.append("AML_IDENTIFICATION_PROVIDER=sandbox (name the real document provider, or none with Bank iD)")
    elif s.AML_IDENTIFICATION_PROVIDER in ("", "none") and not s.AML_BANKID_ENABLED:
        refusals.append("no online identification: AML_IDENTIFICATION_PROVIDER=none and AML_BANKID_ENABLED=false")
    if s.AML_SCREENING_LIST == "sandbox":
        refusals.append("AML_SCREENING_LIST=sandbox (name the real PEP / sanctions list)")
    if "*" in s.ALLOWED_HOSTS:
        refusals.append("ALLOWED_HOSTS=* (name the hosts)")
    if s.SECURE_HSTS_SECONDS <= 0:
        refusals.append("SECURE_HSTS_SECONDS=0")
    if not s.HEALTH_REQUIRE_JOBS:
        refusals.append("HEALTH_REQUIRE_JOBS=false (a dead worker or beat would go unnoticed)")
    if s.CELERY_TASK_ALWAYS_EAGER:
        refusals.append("CELERY_TASK_ALWAYS_EAGER=true (deadline jobs would run inside web requests)")
    if s.DEV_MAILBOX_ENABLED:
        refusals.append("DEV_MAILBOX_ENABLED=true (the development mailbox lists every e-mail and SMS)")
    refusals += email_refusals(s)
    refusals += cache_refusals(s)
    refusals += proxy_refusals(s)
    refusals += screening_refusals(s)
    refusals += tunable_refusals(s)
    refusals += _providers_refusals(s)
    refusals += _reports_refusals(s)
    return refusals
