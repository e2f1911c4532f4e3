"""What production refuses to start with (config/settings/__init__.py ``production_refusals``; docs/core.md "Production
refusals"): the rules, kept out of the settings module so that it holds settings. Each refusal names the variable,
never its value. The functions read the settings' module namespace (``refusals_of(globals())``)."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from cryptography.hazmat.primitives.serialization import pkcs12


def refusals_of(namespace: Mapping[str, Any]) -> list[str]:
    """Why production must not start with the settings of ``namespace`` (empty: it may)."""
    return _refusals(SimpleNamespace(**namespace))


def _secret_refusals(s: SimpleNamespace) -> list[str]:
    refusals: list[str] = []
    secrets_in_use = {
        "SECRET_KEY": s.SECRET_KEY,
        "WALLET_SANDBOX_SECRET": s.env.raw("WALLET_SANDBOX_SECRET"),
        "AML_SANDBOX_SECRET": s.env.raw("AML_SANDBOX_SECRET"),
    }
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
    return [
        f"{name} is missing or not a file (the regulator's record must be sealed)"
        for name, value in (
            ("REPORTS_SEAL_KEY_FILE", s.REPORTS_SEAL_KEY_FILE),
            ("REPORTS_SEAL_CERT_FILE", s.REPORTS_SEAL_CERT_FILE),
        )
        if not value or not Path(value).is_file()
    ]


def regulator_seal_problem(path: str, password: str, now: datetime | None = None) -> str:
    """Why the seal's PKCS#12 cannot seal now ("" when it can): missing, unreadable, no key, not yet or no longer
    valid. Read with ``cryptography`` only (no Django)."""
    if not path or not Path(path).is_file():
        return "is missing or not a file"
    try:
        key, cert, _ = pkcs12.load_key_and_certificates(Path(path).read_bytes(), password.encode() or None)
    except ValueError:
        return "cannot be read with REGULATOR_SEAL_P12_PASSWORD"
    if key is None or cert is None:
        return "holds no key or no certificate"
    now = now or datetime.now(UTC)
    if not cert.not_valid_before_utc <= now < cert.not_valid_after_utc:
        return "holds a certificate that is not valid now (expired or not yet valid)"
    return ""


def _regulator_refusals(s: SimpleNamespace) -> list[str]:
    """Remote access for the Ministry (decree 10/2019 Sb.): packages are sealed with a valid seal, encrypted for the
    Ministry, downloaded only by the Ministry's client certificates, under the operator's own id."""
    if not s.REGULATOR_ENABLED:
        return []
    refusals = []
    problem = regulator_seal_problem(s.REGULATOR_SEAL_P12, s.REGULATOR_SEAL_P12_PASSWORD)
    if problem:
        refusals.append(f"REGULATOR_SEAL_P12 {problem} (the packages must be sealed)")
    if not s.REGULATOR_MINISTRY_ENCRYPTION_CERTS or not all(
        Path(p).is_file() for p in s.REGULATOR_MINISTRY_ENCRYPTION_CERTS
    ):
        refusals.append("REGULATOR_MINISTRY_ENCRYPTION_CERTS is empty or names a missing file")
    if not s.REGULATOR_MINISTRY_CLIENTS:
        refusals.append("REGULATOR_MINISTRY_CLIENTS is empty (the download location would admit no one)")
    if s.REGULATOR_OPERATOR_ID == "12345678":
        refusals.append("REGULATOR_OPERATOR_ID is the development value (set the operator's IČO)")
    return refusals


def _providers_refusals(s: SimpleNamespace) -> list[str]:
    """Game providers: their calls are accepted only from their listed addresses. (A provider row whose
    secret is the development value or shorter than MIN_SECRET_BYTES is refused at each call in production:
    providers.services.production_refusal; rows are data, not settings.)"""
    if s.PROVIDERS_ALLOW_ANY_SOURCE:
        return ["PROVIDERS_ALLOW_ANY_SOURCE=true (a game provider's calls accepted from any address)"]
    return []


AISG_PLAYGROUND = "api-pg.hazard.mfcr.cz"


def _register_refusals(s: SimpleNamespace) -> list[str]:
    """The population register and the register of excluded persons are the Ministry's AISG interface in production
    (one signed SOAP answer for both); the sandbox tables and the development HTTP gateway are refused."""
    refusals: list[str] = []
    for name in ("ACCOUNTS_POPULATION_REGISTER", "ACCOUNTS_EXCLUSION_REGISTER"):
        kind = getattr(s, name)
        if kind != "aisg":
            refusals.append(f"{name}={kind} (production asks the Ministry's AISG interface: set it to aisg)")
    if "aisg" not in (s.ACCOUNTS_POPULATION_REGISTER, s.ACCOUNTS_EXCLUSION_REGISTER):
        return refusals
    url = s.ACCOUNTS_AISG_URL
    if not url.startswith("https://"):
        refusals.append("ACCOUNTS_AISG_URL is not an https:// address")
    elif AISG_PLAYGROUND in url:
        refusals.append("ACCOUNTS_AISG_URL is the Ministry's playground (test) interface")
    for name in ("ACCOUNTS_AISG_KEY_FILE", "ACCOUNTS_AISG_CERT_FILE", "ACCOUNTS_AISG_MINISTRY_CERT_FILE"):
        if not getattr(s, name):
            refusals.append(f"{name} is not set (requests are signed and answers verified)")
    if not s.ACCOUNTS_AISG_REQUIRE_ECHO:
        refusals.append("ACCOUNTS_AISG_REQUIRE_ECHO=false (a signed answer to another request would be taken)")
    return refusals


#: cache backends every web process and machine share (the DRF throttles and login lockouts count in the cache)
SHARED_CACHES = (
    "django.core.cache.backends.redis.RedisCache",
    "django_redis.cache.RedisCache",
    "django.core.cache.backends.memcached.PyMemcacheCache",
    "django.core.cache.backends.memcached.PyLibMCCache",
    "django.core.cache.backends.db.DatabaseCache",
)
#: the widest proxy network production trusts to name a client's address (a /8 of IPv4, a /16 of IPv6)
WIDEST_PROXY_PREFIX = {4: 8, 6: 16}
#: the sanctions lists screening must always require (a PEP list alone would answer "clear" to a sanctioned person)
REQUIRED_SANCTIONS_SOURCES = ("eu", "un", "cz")
#: bounds of tunables where an unbounded value opens something (a replay window of years, unlimited guesses)
BOUNDS = {
    "PROVIDERS_SIGNATURE_WINDOW_SECONDS": (30, 900),
    "AXES_FAILURE_LIMIT": (1, 20),
    "ACCOUNTS_SESSION_IDLE_MINUTES": (1, 240),
}
MAX_LOGIN_RATE_PER_MINUTE = 60


def cache_refusals(s: SimpleNamespace) -> list[str]:
    backend = str(s.CACHES.get("default", {}).get("BACKEND", ""))
    if backend not in SHARED_CACHES:
        return [
            "CACHE_URL names no shared cache (redis, memcached or a database cache): each worker would count "
            "the rate limits and login lockouts on its own"
        ]
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
            refusals.append(
                f"TRUSTED_PROXIES holds a network wider than /{WIDEST_PROXY_PREFIX[net.version]} "
                "(every client could name its own address)"
            )
    return refusals


def screening_refusals(s: SimpleNamespace) -> list[str]:
    missing = [src for src in REQUIRED_SANCTIONS_SOURCES if src not in s.AML_SCREENING_REQUIRED_SOURCES]
    if missing:
        return [
            f"AML_SCREENING_REQUIRED_SOURCES lacks {', '.join(missing)} (screening would answer 'clear' without "
            "the sanctions lists)"
        ]
    return []


def email_refusals(s: SimpleNamespace) -> list[str]:
    if s.EMAIL_BACKEND.endswith(
        (
            "console.EmailBackend",
            "locmem.EmailBackend",
            "dummy.EmailBackend",
            "filebased.EmailBackend",
            "SandboxEmailBackend",
        )
    ):
        return ["EMAIL_BACKEND writes e-mails to the log, a file or nowhere (players' personal data)"]
    return []


def tunable_refusals(s: SimpleNamespace) -> list[str]:
    refusals = []
    if s.PROVIDERS_DEV_SECRET != s.PROVIDERS_DEV_SECRET_DEFAULT:
        refusals.append(
            "PROVIDERS_DEV_SECRET is set (a development variable: production compares the providers' "
            "secrets with its public default)"
        )
    for name, (low, high) in BOUNDS.items():
        value = getattr(s, name)
        if not low <= int(value) <= high:
            refusals.append(f"{name} is outside {low}..{high}")
    rate = str(s.THROTTLE_RATES.get("login") or "")
    num, _, period = rate.partition("/")
    per_minute = {"s": 60.0, "m": 1.0, "h": 1 / 60, "d": 1 / 1440}.get(period[:1], 0.0)
    if not num.isdigit() or not per_minute or int(num) * per_minute > MAX_LOGIN_RATE_PER_MINUTE:
        refusals.append(
            f"THROTTLE_RATE_LOGIN allows more than {MAX_LOGIN_RATE_PER_MINUTE} sign-ins a minute "
            "(or is not N/s|min|hour|day)"
        )
    return refusals


def _refusals(s: SimpleNamespace) -> list[str]:
    """Why production must not start with these settings (empty: it may). Each names the variable, never a value."""
    refusals = _secret_refusals(s) + _register_refusals(s)
    if s.ACCOUNTS_SMS_GATEWAY == "sandbox":
        refusals.append(
            "ACCOUNTS_SMS_GATEWAY=sandbox (set it to the real implementation, http, with ACCOUNTS_SMS_GATEWAY_URL)"
        )
    elif s.ACCOUNTS_SMS_GATEWAY == "http" and not s.ACCOUNTS_SMS_GATEWAY_URL:
        refusals.append("ACCOUNTS_SMS_GATEWAY=http without ACCOUNTS_SMS_GATEWAY_URL")
    if s.ACCOUNTS_SMS_GATEWAY == "http" and len(s.ACCOUNTS_GATEWAY_TOKEN.encode()) < s.MIN_SECRET_BYTES:
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
    refusals += _regulator_refusals(s)
    return refusals
