import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_health_reports_database_broker_and_migrations_green():
    r = Client().get("/health")
    body = r.json()
    assert r.status_code == 200, body
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] and body["checks"]["broker"]["ok"]
    assert body["checks"]["migrations"] == {"ok": True, "pending": []}


@pytest.mark.django_db
def test_health_is_503_when_the_broker_is_unreachable(settings):
    settings.CELERY_BROKER_URL = "amqp://guest:guest@127.0.0.1:1//"
    r = Client().get("/health")
    assert r.status_code == 503 and r.json()["checks"]["broker"]["ok"] is False


def _django_check_expr(env_extra: dict, expr: str) -> subprocess.CompletedProcess:
    """Start Django in a fresh process with ``env_extra`` and print ``expr``."""
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "CELERY_BROKER_URL", "GP_MAX_HOURLY_LOSS")}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", "import django,os;os.environ.setdefault('DJANGO_SETTINGS_MODULE',"
                           "'config.settings');django.setup();from django.conf import settings;"
                           f"print({expr})"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def _django_check(env_extra: dict) -> subprocess.CompletedProcess:
    return _django_check_expr(env_extra, "settings.SESSION_COOKIE_SECURE, settings.SECURE_HSTS_SECONDS, settings.DEBUG")


def test_production_refuses_to_start_without_secret_key_database_and_broker():
    r = _django_check({"DJANGO_ENV": "production", "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/x"})
    assert r.returncode != 0
    assert "SECRET_KEY" in r.stderr and "CELERY_BROKER_URL" in r.stderr


def test_production_with_its_settings_turns_on_secure_cookies_and_hsts():
    r = _django_check({"DJANGO_ENV": "production", "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/x",
                       "SECRET_KEY": "k" * 50, "CELERY_BROKER_URL": "amqp://guest:guest@127.0.0.1:5672//",
                       "GP_MAX_HOURLY_LOSS": "1000000", "ALLOWED_HOSTS": "casino.example"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "31536000", "False"]


def test_admin_login_page_and_api_docs_are_served(db):
    c = Client()
    assert c.get("/admin/login/").status_code == 200
    assert c.get("/api/docs/").status_code == 200
    r = c.get("/api/schema/")
    assert r.status_code == 200 and b"openapi" in r.content
