"""The one search ignores case and accents: "novakova" finds "Nováková", "NOVÁK jan" finds Jan Novák; exact
identifiers still jump straight to their player."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import PersonalData
from accounts.selectors import fold, players_search
from tests.kit.accounts import make_player, make_staff

pytestmark = pytest.mark.django_db


def _named(given: str, surname: str):
    p = make_player(status="active")
    PersonalData.objects.filter(player=p).update(given_names=given, surname=surname)
    return p


def test_a_name_typed_without_accents_or_in_capitals_finds_the_player():
    eva = _named("Eva", "Nováková")
    jan = _named("Jan", "Novák")
    _named("Petr", "Dvořák")
    assert {p.pk for p in players_search("novakova")} == {eva.pk}
    assert {p.pk for p in players_search("NOVÁK jan")} == {jan.pk}
    assert {p.pk for p in players_search("novak")} == {eva.pk, jan.pk}
    assert len(players_search("dvorak")) == 1 and len(players_search("Dvořák")) == 1
    assert fold("Žluťoučký kůň Łódź") == "zlutoucky kun lodz"


def test_the_back_office_search_page_finds_novakova_from_novakova():
    eva = _named("Eva", "Nováková")
    c = Client()
    c.force_login(make_staff(role="support"))
    r = c.get("/admin/accounts/player/search/", {"q": "novakova"})
    assert r.status_code == 302 and r["Location"].endswith(f"/admin/accounts/player/{eva.pk}/change/")
