"""Production refuses the sandbox AML provider and list (like the sandbox payment provider)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from core.testing import PRODUCTION_ENV as PROD

ROOT = Path(__file__).resolve().parents[2]


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


def test_production_refuses_the_sandbox_identification_provider_and_screening_list():
    """Issue 19 (I-2): production used to start with both at their sandbox default and fail only at use."""
    r = _start({"AML_IDENTIFICATION_PROVIDER": "sandbox"})
    assert r.returncode != 0 and "AML_IDENTIFICATION_PROVIDER=sandbox" in r.stderr, r.stderr[-500:]
    r = _start({"AML_SCREENING_LIST": "sandbox"})
    assert r.returncode != 0 and "AML_SCREENING_LIST=sandbox" in r.stderr, r.stderr[-500:]
