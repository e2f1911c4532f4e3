"""Production refuses settings that would open it (a file e-mail backend, no shared cache, a proxy network naming
every client, screening without the sanctions lists, the providers' development secret changed, unbounded
tunables), tested on the refusal rules themselves; and refuses the demo and QA commands before they write."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import CommandError, call_command

import config.settings as dev_settings
from config.refusals import refusals_of


def _namespace(**changes: Any) -> dict[str, Any]:
    from django.conf import settings

    configured = {k: getattr(settings, k) for k in dir(settings) if k.isupper()}  # Django's defaults included
    safe = {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "CACHES": {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache"}},
    }
    return {**configured, **vars(dev_settings), **safe, **changes}


BASE = refusals_of(_namespace())  # what the development settings are refused for anyway (their sandboxes)


def _new(**changes: Any) -> list[str]:
    return [r for r in refusals_of(_namespace(**changes)) if r not in BASE]


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend"}, "EMAIL_BACKEND"),
        ({"CACHES": {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}}, "CACHE_URL"),
        ({"CACHES": {"default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache"}}}, "CACHE_URL"),
        ({"TRUSTED_PROXIES": ["0.0.0.0/0"]}, "TRUSTED_PROXIES"),
        ({"TRUSTED_PROXIES": ["::/0"]}, "TRUSTED_PROXIES"),
        ({"TRUSTED_PROXIES": ["10.0.0.1", "0.0.0.0/1"]}, "TRUSTED_PROXIES"),
        ({"TRUSTED_PROXIES": ["not-an-address"]}, "TRUSTED_PROXIES"),
        ({"AML_SCREENING_REQUIRED_SOURCES": ["pep"]}, "AML_SCREENING_REQUIRED_SOURCES lacks eu, un, cz"),
        ({"AML_SCREENING_REQUIRED_SOURCES": []}, "AML_SCREENING_REQUIRED_SOURCES"),
        ({"AML_SCREENING_REQUIRED_SOURCES": ["eu", "un"]}, "AML_SCREENING_REQUIRED_SOURCES lacks cz"),
        ({"PROVIDERS_DEV_SECRET": "x" * 40}, "PROVIDERS_DEV_SECRET is set"),
        ({"PROVIDERS_SIGNATURE_WINDOW_SECONDS": 10**8}, "PROVIDERS_SIGNATURE_WINDOW_SECONDS"),
        ({"AXES_FAILURE_LIMIT": 10**6}, "AXES_FAILURE_LIMIT"),
        ({"ACCOUNTS_SESSION_IDLE_MINUTES": 10**6}, "ACCOUNTS_SESSION_IDLE_MINUTES"),
        ({"THROTTLE_RATES": {**dev_settings.THROTTLE_RATES, "login": "100000/min"}}, "THROTTLE_RATE_LOGIN"),
    ],
)
def test_production_refuses(changes, named):
    new = _new(**changes)
    assert any(named in r for r in new), new
    for value in (v for k, v in changes.items() if k == "PROVIDERS_DEV_SECRET"):
        assert not any(value in r for r in new), "a refusal must not print the secret"


@pytest.mark.parametrize(
    "changes",
    [
        {"EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend"},
        {"CACHES": {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache"}}},
        {"CACHES": {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache"}}},
        {"TRUSTED_PROXIES": ["10.0.0.0/8", "192.168.1.10", "fd00::/16"]},
        {"AML_SCREENING_REQUIRED_SOURCES": ["eu", "un", "cz", "pep"]},
        {"PROVIDERS_DEV_SECRET": dev_settings.PROVIDERS_DEV_SECRET_DEFAULT},
        {"THROTTLE_RATES": {**dev_settings.THROTTLE_RATES, "login": "10/min"}},
    ],
)
def test_production_accepts_the_safe_values(changes):
    assert _new(**changes) == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    "command", [["seed_demo"], ["sandbox_pay", "1"], ["limits_bench", "--rounds", "10"], ["regulator_sandbox_answer"]]
)
def test_demo_and_qa_commands_refuse_production_before_they_write(settings, command):
    from django.contrib.auth import get_user_model

    settings.PRODUCTION = True
    users = get_user_model().objects.count()
    with pytest.raises(CommandError, match="DJANGO_ENV=production"):
        call_command(*command)
    assert get_user_model().objects.count() == users
