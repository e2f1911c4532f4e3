"""Production refuses the sandbox AML provider and list (like the sandbox payment provider)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROD = {"DJANGO_ENV": "production", "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/x", "SECRET_KEY": "k" * 50,
        "CELERY_BROKER_URL": "amqp://guest:guest@127.0.0.1:5672//", "GP_MAX_HOURLY_LOSS": "1000000",
        "JACKPOTS_ENABLED": "false"}


def _start(extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AML_")}
    env.update({**PROD, **extra})
    return subprocess.run([sys.executable, "-c", "import django,os;os.environ.setdefault('DJANGO_SETTINGS_MODULE',"
                           "'config.settings');django.setup();from django.conf import settings;"
                           "print(settings.AML_SANDBOX_ENABLED)"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)


def test_production_turns_the_aml_sandbox_off_and_refuses_it_switched_on():
    r = _start({})
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr[-500:]
    r = _start({"AML_SANDBOX_ENABLED": "true"})
    assert r.returncode != 0 and "AML_SANDBOX_ENABLED" in r.stderr


def _list_setting(extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AML_")}
    env.update({**PROD, **extra})
    return subprocess.run([sys.executable, "-c", "import django,os;os.environ.setdefault('DJANGO_SETTINGS_MODULE',"
                           "'config.settings');django.setup();from django.conf import settings;"
                           "print(settings.AML_SCREENING_LIST, settings.AML_SCREENING_MATCH_THRESHOLD,"
                           "','.join(settings.AML_SCREENING_REQUIRED_SOURCES))"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


def test_production_screens_against_the_imported_lists_and_refuses_the_sandbox_list():
    r = _list_setting({})
    assert r.returncode == 0 and r.stdout.split() == ["imported", "85", "eu,un,cz"], r.stderr[-500:]
    r = _list_setting({"AML_SCREENING_LIST": "sandbox"})
    assert r.returncode != 0 and "AML_SCREENING_LIST=sandbox" in r.stderr
    r = _list_setting({"AML_SCREENING_MATCH_THRESHOLD": "101"})
    assert r.returncode != 0 and "AML_SCREENING_MATCH_THRESHOLD" in r.stderr
    r = _list_setting({"AML_SCREENING_MATCH_THRESHOLD": "100", "AML_SCREENING_REQUIRED_SOURCES": "eu,pep"})
    assert r.returncode == 0 and r.stdout.split() == ["imported", "100", "eu,pep"], r.stderr[-500:]
    r = _list_setting({"AML_SCREENING_REQUIRED_SOURCES": "eu,ofac"})
    assert r.returncode != 0 and "AML_SCREENING_REQUIRED_SOURCES" in r.stderr
