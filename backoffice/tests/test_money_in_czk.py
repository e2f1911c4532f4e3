"""Staff read money in Kč with two decimals wherever the admin shows a haléře field read-only: the providers'
transactions (list and record), the deposit's record page, a play-money round in points; never the raw haléře."""

from __future__ import annotations

import re

import pytest
from django.contrib import admin as django_admin
from django.db import models
from django.test import Client

from core import clock
from core.admin_money import MONEY_FIELDS
from core.audit import Actor
from providers.models import Provider, ProviderTransaction
from providers.services import provider_save
from tests.kit.accounts import make_player, make_staff

pytestmark = pytest.mark.django_db


def _staff(role: str | None = None) -> Client:
    c = Client(headers={"accept-language": "cs"})
    c.force_login(make_staff(role=role, superuser=role is None))
    return c


def _text(page: bytes) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.decode())).replace("\xa0", " ")


def test_the_providers_transactions_read_in_czk_in_the_list_and_on_the_record() -> None:
    provider = provider_save(
        provider=Provider(
            code="sim", name="Sim", launch_url="https://sim.example/play", api_url="https://sim.example/api"
        ),
        new_secret="s" * 40,
        actor=Actor.system("tests"),
    )
    txn = ProviderTransaction.objects.create(
        provider=provider,
        transaction_id="T-550",
        kind="win",
        amount=123_455,
        credited=550,
        request_sha256="0" * 64,
        response_status=200,
        created_at=clock.now(),
    )
    finance = _staff("finance")
    listing = _text(finance.get("/admin/providers/providertransaction/").content)
    assert "1 234,55 Kč" in listing and "5,50 Kč" in listing
    assert "123455" not in listing and "123 455" not in listing
    record = _text(finance.get(f"/admin/providers/providertransaction/{txn.pk}/change/").content)
    assert "1 234,55 Kč" in record and "5,50 Kč" in record and " 550 " not in record


def test_a_refused_stakes_list_and_record_page_read_in_czk() -> None:
    from limits.models import StakeRefusal

    refusal = StakeRefusal.objects.create(
        player=make_player(), kind="stake", stake=50_005, code="limits.daily_stake", refused_at=clock.now()
    )
    staff = _staff()
    for url in ("/admin/limits/stakerefusal/", f"/admin/limits/stakerefusal/{refusal.pk}/change/"):
        page = _text(staff.get(url).content)
        assert "500,05 Kč" in page, url
        assert "50005" not in page and "50 005" not in page, url


def test_every_listed_money_field_exists_and_holds_integers() -> None:
    """The table of haléře fields names real integer fields of registered models (a renamed field would
    otherwise show raw again, silently)."""
    for label, names in MONEY_FIELDS.items():
        model = next(m for m in django_admin.site._registry if m._meta.label_lower == label)
        for name in names:
            assert isinstance(model._meta.get_field(name), models.BigIntegerField), (label, name)
