"""The kit's production start-up: the smallest production environment, and the settings read in this process.

``settings_started(env, expr)`` imports the settings package ``config/settings/`` afresh with exactly ``env`` as the
process
environment (restored after) and answers like a child process that ran ``django.setup()`` and printed ``expr``
(attributes of ``settings``, comma-separated): ``returncode`` 0 and ``stdout`` the printed values, or ``returncode``
1 and ``stderr`` the refusal (``ImproperlyConfigured``). It tests the start-up's rules (the refusals, the values
production takes) without a process per case; ONE process test shows that production really refuses to start
(``core/tests/test_health_and_settings.py``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import traceback

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


SETTINGS_PACKAGE = "config.settings"
SETTINGS_EXPR = re.compile(r"^settings\.[A-Z_0-9]+(\s*,\s*settings\.[A-Z_0-9]+)*$")


def settings_started(env: dict[str, str], expr: str) -> subprocess.CompletedProcess[str]:
    """The settings read with ``env`` as the whole environment; ``expr`` reads attributes of ``settings`` only."""
    if not SETTINGS_EXPR.match(expr.strip()):
        raise ValueError(f"settings_started reads settings attributes only, not {expr!r}")
    saved = dict(os.environ)
    # the running settings' modules are set aside and put back after: the package is read afresh, by area, with its
    # own reader of the environment, and the process's settings stay what they were
    ours = {n: m for n, m in sys.modules.items() if n == SETTINGS_PACKAGE or n.startswith(SETTINGS_PACKAGE + ".")}
    for name in ours:
        del sys.modules[name]
    os.environ.clear()
    os.environ.update(env)
    try:
        import config.settings as fresh  # executed afresh: its modules were taken out of sys.modules above

        namespace = vars(fresh)
    except Exception as exc:  # noqa: BLE001  (the refusal, as a child process would print it before exiting 1)
        return subprocess.CompletedProcess(["settings"], 1, "", "".join(traceback.format_exception(exc)))
    finally:
        os.environ.clear()
        os.environ.update(saved)
        for name in [n for n in sys.modules if n == SETTINGS_PACKAGE or n.startswith(SETTINGS_PACKAGE + ".")]:
            del sys.modules[name]
        sys.modules.update(ours)
        parent = sys.modules.get("config")
        if parent is not None and SETTINGS_PACKAGE in ours:
            parent.settings = ours[SETTINGS_PACKAGE]  # type: ignore[attr-defined]
    values = [namespace[name] for name in re.findall(r"settings\.([A-Z_0-9]+)", expr)]
    return subprocess.CompletedProcess(["settings"], 0, " ".join(str(v) for v in values) + "\n", "")
