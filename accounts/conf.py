"""Settings of the accounts app, with documented development defaults.

Each value is read from Django settings first (``ACCOUNTS_<NAME>``), then from the
environment variable of the same name, then the default below. See docs/accounts.md.
"""
from __future__ import annotations

from datetime import timedelta

import environ
from django.conf import settings

_env = environ.Env()

DEFAULTS: dict = {
    # Adapters: "sandbox" (tables filled by staff/tests) or "http" (a JSON gateway).
    "ACCOUNTS_POPULATION_REGISTER": "sandbox",
    "ACCOUNTS_POPULATION_REGISTER_URL": "",
    "ACCOUNTS_EXCLUSION_REGISTER": "sandbox",
    "ACCOUNTS_EXCLUSION_REGISTER_URL": "",
    "ACCOUNTS_SMS_GATEWAY": "sandbox",
    "ACCOUNTS_SMS_GATEWAY_URL": "",
    "ACCOUNTS_GATEWAY_TOKEN": "",
    "ACCOUNTS_GATEWAY_TIMEOUT_SECONDS": 5.0,
    # GP §5(2)a: lifetime of a temporary account from its activation (also settings.GP).
    "ACCOUNTS_TEMPORARY_LIFETIME_DAYS": None,
    # GP §4(7): the e-mail confirmation link that releases the first password by SMS.
    "ACCOUNTS_EMAIL_LINK_MAX_AGE_HOURS": 48,
    "ACCOUNTS_EMAIL_CONFIRM_URL": "/api/v1/accounts/registration/confirm-email/?token={token}",
    # Login sessions: idle timeout (minutes), checked on each request and by a sweeper.
    "ACCOUNTS_SESSION_IDLE_MINUTES": 30,
    # ... and an absolute lifetime of a login session (hours), however active.
    "ACCOUNTS_SESSION_MAX_HOURS": 24,
    # Register checks that could not run (register unavailable): retry schedule.
    "ACCOUNTS_CHECK_RETRY_FIRST_MINUTES": 15,
    "ACCOUNTS_CHECK_RETRY_MAX_MINUTES": 360,
    "ACCOUNTS_CHECK_LEASE_MINUTES": 10,
    # Online, the population-register match is the AML identification (GP §4(4)b "through an authority").
    "ACCOUNTS_ONLINE_AML_BY_REGISTER": True,
    # GP §5(9): registration must finish within 30 days of its start.
    "ACCOUNTS_REGISTRATION_MAX_DAYS": 30,
    # Versions of the documents the applicant accepts (GP §4(4)d); bump to require re-acceptance.
    "ACCOUNTS_TERMS_VERSION": "2026-01",
    "ACCOUNTS_DATA_PROCESSING_VERSION": "2026-01",
    "ACCOUNTS_GAME_PLAN_VERSION": "2026-01",
    "ACCOUNTS_MARKETING_VERSION": "2026-01",
    # GP §5(15): close the account at the latest this many days after the balance is settled.
    "ACCOUNTS_CLOSE_AFTER_SETTLEMENT_DAYS": 10,
    "ACCOUNTS_SUPPORT_CONTACT": "podpora@platform.example / +420 800 000 000",
}


def get(name: str):
    if hasattr(settings, name):
        return getattr(settings, name)
    default = DEFAULTS[name]
    if default is None:
        return _env.str(name, default="") or None
    cast = {bool: _env.bool, int: _env.int, float: _env.float}.get(type(default), _env.str)
    return cast(name, default=default)


def temporary_lifetime() -> timedelta:
    days = get("ACCOUNTS_TEMPORARY_LIFETIME_DAYS")
    if days in (None, ""):
        days = getattr(settings, "GP", {}).get("TEMP_ACCOUNT_LIFETIME_DAYS", 30)
    return timedelta(days=int(days))


def session_idle() -> timedelta:
    return timedelta(minutes=int(get("ACCOUNTS_SESSION_IDLE_MINUTES")))


def session_max_age() -> timedelta:
    return timedelta(hours=float(get("ACCOUNTS_SESSION_MAX_HOURS")))


def document_versions() -> dict[str, str]:
    return {
        "terms": get("ACCOUNTS_TERMS_VERSION"),
        "data_processing": get("ACCOUNTS_DATA_PROCESSING_VERSION"),
        "game_plan": get("ACCOUNTS_GAME_PLAN_VERSION"),
        "marketing": get("ACCOUNTS_MARKETING_VERSION"),
    }
