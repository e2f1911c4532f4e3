"""In development, a mailbox page and API list the e-mails and SMS the sandbox would have sent (the
confirmation link, the first password), so a player-app developer needs no admin access; production has neither."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

import config.settings as config_settings
from core.errors import NOT_FOUND
from tests.kit.accounts import make_register_record, registration_payload

API = "/api/v1/accounts/dev/mailbox"
PAGE = "/dev/mailbox"


@pytest.fixture
def sandbox_mail(settings):
    settings.EMAIL_BACKEND = "core.mail.SandboxEmailBackend"
    settings.DEV_MAILBOX_ENABLED = True


@pytest.mark.django_db(transaction=True)
def test_the_mailbox_shows_the_confirmation_link_and_then_the_first_password_sms(sandbox_mail):
    payload = registration_payload()
    make_register_record(payload)
    api = APIClient()
    assert api.post("/api/v1/accounts/registration", payload, format="json").status_code == 201
    box = api.get(API, {"to": payload["email"]}).json()
    assert [e["to"] for e in box["emails"]] == [[payload["email"]]] and box["sms"] == []
    link = next(link for link in box["emails"][0]["links"] if "confirm-email?token=" in link)
    token = link.split("token=", 1)[1]
    assert api.get("/api/v1/accounts/registration/confirm-email", {"token": token}).json()["status"] == "password_sent"
    sms = api.get(API, {"to": payload["phone"]}).json()["sms"]
    assert len(sms) == 1 and payload["username"] in sms[0]["text"]
    found = re.search(r"first password: (\S+)", sms[0]["text"])
    assert found, sms[0]["text"]
    password = found.group(1)
    login = api.post(
        "/api/v1/accounts/auth/login", {"username": payload["username"], "password": password}, format="json"
    )
    assert login.status_code == 200, (sms[0]["text"], login.content)
    page = Client().get(PAGE)
    assert page.status_code == 200 and sms[0]["text"].encode() in page.content and token.encode() in page.content
    assert (
        "script-src" not in page["Content-Security-Policy"] and "default-src 'none'" in page["Content-Security-Policy"]
    )
    assert api.get(API, {"to": "nobody@example.cz"}).json() == {"emails": [], "sms": []}


@pytest.mark.django_db
def test_without_the_setting_the_mailbox_page_and_api_do_not_exist(settings):
    settings.DEV_MAILBOX_ENABLED = False
    r = APIClient().get(API)
    assert r.status_code == 404 and r.json()["error"]["code"] == NOT_FOUND.code
    assert Client().get(PAGE).status_code == 404


def test_production_refuses_to_start_with_the_mailbox_or_the_sandbox_mail_backend(monkeypatch):
    monkeypatch.setattr(config_settings, "SECURE_HSTS_SECONDS", 31_536_000, raising=False)  # production-only names
    monkeypatch.setattr(config_settings, "DEV_MAILBOX_ENABLED", True)
    monkeypatch.setattr(config_settings, "EMAIL_BACKEND", "core.mail.SandboxEmailBackend")
    refusals = config_settings.production_refusals()
    assert any(r.startswith("DEV_MAILBOX_ENABLED=true") for r in refusals)
    assert any(r.startswith("EMAIL_BACKEND writes") for r in refusals)
    monkeypatch.setattr(config_settings, "DEV_MAILBOX_ENABLED", False)
    monkeypatch.setattr(config_settings, "EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
    refusals = config_settings.production_refusals()
    assert not any("DEV_MAILBOX" in r or r.startswith("EMAIL_BACKEND") for r in refusals)


def test_the_default_is_on_in_development_and_off_in_production():
    from config.env import Env

    declared = config_settings.env.registry["DEV_MAILBOX_ENABLED"]
    assert (declared.default, declared.production) == ("true", "false")
    assert Env({}, production=False).bool("DEV_MAILBOX_ENABLED", True, "m", production=False) is True
    assert Env({}, production=True).bool("DEV_MAILBOX_ENABLED", True, "m", production=False) is False
