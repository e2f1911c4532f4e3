"""Test helpers of the core rails."""
from __future__ import annotations

#: the smallest environment with which DJANGO_ENV=production starts (tests start processes with it and change one
#: variable at a time); every secret is long and none is a development default
PRODUCTION_ENV: dict[str, str] = {
    "DJANGO_ENV": "production",
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/x",
    "SECRET_KEY": "k" * 50,
    "CELERY_BROKER_URL": "amqp://guest:guest@127.0.0.1:5672//",
    "GP_MAX_HOURLY_LOSS": "1000000",
    "JACKPOTS_ENABLED": "false",
    "ALLOWED_HOSTS": "casino.example",
    "ACCOUNTS_POPULATION_REGISTER": "aisg",
    "ACCOUNTS_EXCLUSION_REGISTER": "aisg",
    "ACCOUNTS_AISG_URL": "https://api.hazard.mfcr.cz/rovo/v1",
    "ACCOUNTS_AISG_KEY_FILE": "/etc/platform/aisg/operator-key.pem",
    "ACCOUNTS_AISG_CERT_FILE": "/etc/platform/aisg/operator-cert.pem",
    "ACCOUNTS_AISG_MINISTRY_CERT_FILE": "/etc/platform/aisg/ministry.pem",
    "ACCOUNTS_SMS_GATEWAY": "http",
    "ACCOUNTS_SMS_GATEWAY_URL": "http://127.0.0.1:9/sms",
    "ACCOUNTS_GATEWAY_TOKEN": "g" * 40,
    "AML_IDENTIFICATION_PROVIDER": "none",  # no document provider: players identify with Bank iD
    "AML_BANKID_ENABLED": "true",
    "AML_BANKID_ISSUER": "https://oidc.bankid.example/",
    "AML_BANKID_CLIENT_ID": "platform-client",
    "AML_BANKID_CLIENT_SECRET": "b" * 40,
    "AML_BANKID_REDIRECT_URLS": "https://hraj.example.cz/bankid",
    "AML_SCREENING_LIST": "imported",
    "CACHE_URL": "redis://127.0.0.1:6379/0",  # shared by every worker (not connected to by a start-up check)
    # reports need the operator's seal files (REPORTS_SEAL_KEY_FILE / _CERT_FILE); reports/tests prove the refusal
    "REPORTS_ENABLED": "false",
    # the remote-access packages need the seal (PKCS#12), the Ministry's certificates and client identities;
    # regulator/tests/test_refusals.py proves the refusals
    "REGULATOR_ENABLED": "false",
}
