"""The back office follows the staff member's language: Czech by default and for a Czech browser (its work queues,
header and money confirmations), English for an English one; numbers and dates in the Czech format either way."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.kit.accounts import make_staff

pytestmark = pytest.mark.django_db


def _home(role: str, language: str) -> str:
    c = Client(headers={"accept-language": language})
    c.force_login(make_staff(role=role))
    r = c.get("/admin/")
    assert r.status_code == 200
    return r.content.decode()


def test_the_home_page_is_czech_for_a_czech_browser_and_english_for_an_english_one():
    cs = _home("support", "cs-CZ,cs;q=0.9")
    assert "Nové a nepřidělené reklamace" in cs and "Dnešní práce" in cs and "pražském čase" in cs
    assert "New and unassigned complaints" not in cs
    en = _home("support", "en-US,en;q=0.9")
    assert "New and unassigned complaints" in en and "Today&#x27;s work" in en and "Prague time" in en
    finance = _home("finance", "cs")
    assert "Výběry ke schválení" in finance and "Reklamace s požadavkem na peníze" in finance


def test_the_players_page_names_its_sections_in_czech():
    from tests.kit.accounts import make_player

    player = make_player(status="active")
    c = Client(headers={"accept-language": "cs"})
    c.force_login(make_staff(role="support"))
    html = c.get(f"/admin/accounts/player/{player.pk}/change/").content.decode()
    assert "Stav účtu" in html and "Zůstatky a účetní záznamy" in html and "celý seznam" in html
