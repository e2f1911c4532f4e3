"""A player's whole picture: one page, sections by permission, identifiers masked for roles that may not
see them, decisions offered only to the roles that take them, each on a page that says what it does first, and a
fixed number of statements whatever the player's history."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from core.models import AuditEvent
from tests.kit.accounts import make_staff
from tests.kit.backoffice import build_world
from wallet.models import MethodDocument, PaymentMethod, Withdrawal

pytestmark = pytest.mark.django_db


def client_as(role: str | None = None, *, superuser: bool = False, lang: str = "cs") -> Client:
    c = Client(raise_request_exception=True, headers={"accept-language": lang})
    c.force_login(make_staff(role=role, superuser=superuser))
    return c


def page(c: Client, player) -> str:
    r = c.get(f"/admin/accounts/player/{player.pk}/change/")
    assert r.status_code == 200
    return r.content.decode()


def test_the_finance_officer_sees_money_methods_and_payments_with_their_decisions_and_no_aml(world):
    html = page(client_as("finance"), world.player)
    for section in ("state", "identity", "money", "methods", "payments", "rounds"):
        assert f'id="section-{section}"' in html, section
    assert 'id="section-aml"' not in html  # complaints: finance credits their money remedies, so it reads them
    assert f"/confirm/document_approve/{world.document.pk}/" in html
    assert f"/confirm/withdrawal_approve/{world.withdrawal.pk}/" in html
    assert world.player.personal.birth_number in html  # finance holds view_unmasked_identifiers
    from wallet.selectors import balance, held_balance

    assert f"<strong>{balance(world.player)}</strong>" in html  # the available balance, as the wallet reads it
    assert str(held_balance(world.player)) in html


def test_the_support_agent_sees_the_player_masked_and_no_money_or_aml_decision(world):
    html = page(client_as("support"), world.player)
    bn = world.player.personal.birth_number
    assert bn not in html and bn[-3:] in html and "rodné číslo (maskováno)" in html
    assert world.method.identifier not in html and world.method.display not in html
    assert world.player.personal.document_number not in html
    assert "/confirm/" not in html and "_decide/" not in html and "/decide/" not in html
    assert 'id="section-aml"' not in html
    assert "Vynutit odhlášení" in html and "Pozastavit" not in html  # the support's one account action


def test_the_compliance_officer_sees_the_screening_hit_with_its_decision(world):
    html = page(client_as("compliance"), world.player)
    assert 'id="section-aml"' in html and "sanctions list entry" in html
    assert f"/admin/aml/compliancecase/{world.case.pk}/decide/" in html
    assert "/confirm/withdrawal_approve/" not in html  # the money decisions are finance's


def test_a_role_that_may_not_read_players_gets_no_page(world):
    assert client_as("game_manager").get(f"/admin/accounts/player/{world.player.pk}/change/").status_code == 403


def test_the_actions_sit_in_their_section_not_over_the_players_name(world):
    html = page(client_as(superuser=True), world.player)
    head = html.index('id="player-name"')
    tools = html.index('<ul class="object-tools player-actions">')
    assert tools > html.index('id="section-state"') > head


def test_the_page_costs_the_same_statements_whatever_the_players_history(games, clock, settings):
    small = build_world(rounds=1, clock=clock, settings=settings)
    large = build_world(rounds=25, clock=clock, settings=settings, extra_history=30)
    c = client_as(superuser=True)
    page(c, small.player)  # warm the session and the content types
    counts = []
    for w in (small, large):
        with CaptureQueriesContext(connection) as ctx:
            page(c, w.player)
        counts.append(len(ctx.captured_queries))
    print(f"player page statements: small history {counts[0]}, large history {counts[1]}")
    assert counts[0] == counts[1]
    assert counts[1] <= 40


def test_approving_a_document_says_what_it_does_first_and_only_a_post_does_it(world):
    c = client_as("finance")
    url = f"/admin/accounts/player/{world.player.pk}/confirm/document_approve/{world.document.pk}/"
    r = c.get(url)
    assert r.status_code == 200 and "Co se stane" in r.content.decode() and "ověřenou" in r.content.decode()
    assert f"/admin/wallet/methoddocument/{world.document.pk}/change/" in r.content.decode()  # the file to look at
    assert MethodDocument.objects.get(pk=world.document.pk).status == "pending"
    r = c.post(url)
    assert r.status_code == 302 and r["Location"].endswith(f"/admin/accounts/player/{world.player.pk}/change/")
    assert MethodDocument.objects.get(pk=world.document.pk).status == "approved"
    assert PaymentMethod.objects.get(pk=world.pending_method.pk).status == "verified"
    event = AuditEvent.objects.filter(action__contains="document", actor_type="staff").latest("id")
    assert event.actor_role == "finance"
    r = c.get(url)  # decided: no button any more
    assert "už nečeká na rozhodnutí" in r.content.decode() and 'name="confirm"' not in r.content.decode()  # Czech


def test_approving_a_withdrawal_from_the_players_page(world):
    c = client_as("finance")
    url = f"/admin/accounts/player/{world.player.pk}/confirm/withdrawal_approve/{world.withdrawal.pk}/"
    assert "odešle se na platební metodu" in c.get(url).content.decode()
    assert c.post(url).status_code == 302
    assert Withdrawal.objects.get(pk=world.withdrawal.pk).status != "requested"


def test_the_support_agent_cannot_post_a_money_decision(world):
    c = client_as("support")
    url = f"/admin/accounts/player/{world.player.pk}/confirm/withdrawal_approve/{world.withdrawal.pk}/"
    assert c.get(url).status_code == 403 and c.post(url).status_code == 403
    assert Withdrawal.objects.get(pk=world.withdrawal.pk).status == "requested"


def test_a_decision_on_another_players_record_is_not_found(world, games, clock, settings):
    other = build_world(rounds=0, clock=clock, settings=settings)
    c = client_as("finance")
    url = f"/admin/accounts/player/{other.player.pk}/confirm/document_approve/{world.document.pk}/"
    assert c.post(url).status_code == 404
    assert MethodDocument.objects.get(pk=world.document.pk).status == "pending"


def test_the_identity_section_says_how_the_person_was_verified(world):
    from accounts.models import IdentityVerification, RegisterCheck
    from core import clock

    IdentityVerification.objects.create(
        player=world.player,
        method=IdentityVerification.Method.BANKID,
        document_type="id_card",
        document_number="123456789",
        document_valid_until=clock.business_date().replace(year=2030),
        verified_at=clock.now(),
    )
    RegisterCheck.objects.create(
        player=world.player,
        register=RegisterCheck.Register.POPULATION,
        context="registration",
        result=RegisterCheck.Result.FOUND,
        checked_at=clock.now(),
    )
    html = page(client_as("compliance", lang="en"), world.player)  # the values in English
    assert "online, Bank iD" in html and "population register: found, data match" in html
    assert "123456789" in html  # compliance reads the document number
    html = page(client_as("support", lang="en"), world.player)
    assert "online, Bank iD" in html and "123456789" not in html and "••••••789" in html


def test_the_player_list_shows_the_name_in_a_fixed_number_of_statements(world, games, clock, settings):
    c = client_as("support")
    c.get("/admin/accounts/player/")
    with CaptureQueriesContext(connection) as one:
        html = c.get("/admin/accounts/player/").content.decode()
    assert world.player.personal.surname in html
    build_world(rounds=0, clock=clock, settings=settings)
    with CaptureQueriesContext(connection) as two:
        c.get("/admin/accounts/player/")
    assert len(two.captured_queries) == len(one.captured_queries)
