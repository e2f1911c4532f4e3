"""The one search and the work queues of the home page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client

from backoffice.tests.test_player_page import client_as
from core.models import AuditEvent
from tests.kit.accounts import make_staff

pytestmark = pytest.mark.django_db


def START_EVENT(clock):
    from core import clock as platform_clock

    return platform_clock.now() - timedelta(hours=1)


def found(c: Client, q: str):
    return c.get("/admin/accounts/player/search/", {"q": q})


def lands_on(r, player) -> bool:
    return r.status_code == 302 and r["Location"] == f"/admin/accounts/player/{player.pk}/change/"


def test_one_search_finds_the_player_by_username_name_email_phone_and_every_reference(world):
    from tests.kit.money import czk
    from tests.kit.wallet import fund

    c = client_as("finance")
    p, pd = world.player, world.player.personal
    ledger = fund(p, czk(1), reference=f"bo-ledger-{p.pk}")  # a ledger transaction's own reference
    texts = [
        p.user.username,
        f"{pd.given_names} {pd.surname}",
        pd.email.upper(),
        pd.phone,
        str(world.rounds[0].pk),
        world.withdrawal.reference,
        ledger.reference,
    ]
    for q in texts:
        assert lands_on(found(c, q), p), q
    # the deposit's payment reference (a bank transfer's variable symbol) has its own test below


def test_a_bank_transfers_variable_symbol_finds_the_deposit_and_its_player(world):
    from core.audit import Actor
    from tests.kit.money import czk
    from wallet.services import deposit_start

    d = deposit_start(
        player=world.player, method=world.method, amount=czk(500), reference="bo-vs", actor=Actor.player(world.player)
    )
    assert lands_on(found(client_as("finance"), d.payment_reference), world.player)


def test_a_birth_number_is_found_by_exact_match_only_and_the_search_is_audited(world):
    c = client_as("compliance")
    bn = world.player.personal.birth_number
    assert lands_on(found(c, f"{bn[:6]}/{bn[6:]}"), world.player)
    [event] = AuditEvent.objects.filter(action="backoffice.birth_number_searched")
    assert event.actor_type == "staff" and event.actor_role == "compliance"
    assert bn not in str(event.details) and event.details["found_player_ids"] == [world.player.pk]
    r = found(c, bn[:8])  # a part of it finds nothing
    assert r.status_code == 200 and "0 hráčů" in r.content.decode()


def test_the_support_agent_sees_a_birth_number_result_masked(world, games, clock, settings):
    from tests.kit.backoffice import build_world

    twin = build_world(rounds=0, clock=clock, settings=settings)
    # two players found by one surname: the list shows their birth numbers masked to the support role
    r = found(client_as("support"), world.player.personal.surname[:4])
    assert r.status_code == 200  # a list, not one player
    html = r.content.decode()
    for p in (world.player, twin.player):
        if p.personal.surname.startswith(world.player.personal.surname[:4]):
            assert p.personal.birth_number not in html and p.personal.birth_number[-3:] in html


def test_a_role_that_may_not_read_players_cannot_search():
    c = Client()
    c.force_login(make_staff(role="game_manager"))
    assert found(c, "anything").status_code == 403


def home(c: Client) -> str:
    r = c.get("/admin/", HTTP_ACCEPT_LANGUAGE="en")  # the English labels (Czech: test_czech_back_office)
    assert r.status_code == 200
    return r.content.decode()


def test_the_finance_home_page_shows_its_queues_with_counts_and_age(world, clock):
    clock.shift(3 * 86400)
    html = home(client_as("finance"))
    assert "Payment-method documents to review" in html and "Withdrawals to approve" in html
    assert "Screening hits" not in html and "Complaints asking for money" in html
    row = html[html.index("Withdrawals to approve") :]
    assert '<td class="count">1</td>' in row[:600] and "oldest 3 d" in row[:600]


def test_the_compliance_home_page_shows_the_screening_hit_and_not_the_money_queues(world):
    html = home(client_as("compliance"))
    row = html[html.index("Screening hits") :]
    assert '<td class="count">1</td>' in row[:600]
    assert "Withdrawals to approve" not in html and "Payment-method documents" not in html


def test_the_support_home_page_shows_the_complaint_deadlines_and_the_search(world):
    html = home(client_as("support"))
    assert "Complaints due within 7 days" in html and "Complaints past their 30-day deadline" in html
    assert 'action="/admin/accounts/player/search/"' in html
    assert "Withdrawals to approve" not in html and "Screening hits" not in html


def test_the_home_page_counts_its_queues_in_one_statement_each(world):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    c = client_as(superuser=True)
    home(c)
    with CaptureQueriesContext(connection) as ctx:
        home(c)
    counts = [q["sql"] for q in ctx.captured_queries if "COUNT(" in q["sql"] and "MIN(" in q["sql"]]
    from backoffice.queues import QUEUES

    assert len(counts) == len([link for link in QUEUES.links if link.queue is not None])


def test_technical_tables_are_moved_into_one_section_at_the_end():
    html = home(client_as(superuser=True))
    technical = html.index('class="app-technical')
    assert "Idempotency records" in html[technical:] and "Task heartbeats" in html[technical:]
    assert "Idempotency records" not in html[:technical]
    assert html.index("app-wallet") < technical


def test_a_queue_past_its_age_is_marked_late(world, clock):
    clock.shift(2 * 86400 + 60)
    html = home(client_as("finance"))
    row = html[html.rindex("<tr", 0, html.index("Payment-method documents to review")) :]
    assert row.startswith('<tr class="queue late">')


def test_a_queue_just_under_its_age_is_not_late(world, clock):
    clock.shift(2 * 86400 - 60)
    html = home(client_as("finance"))
    row = html[html.rindex("<tr", 0, html.index("Payment-method documents to review")) :]
    assert row.startswith('<tr class="queue">')


def test_complaints_near_and_past_their_deadline_are_counted_at_the_boundary(clock, settings):
    from complaints.selectors import complaints_near_deadline_queue, complaints_overdue_queue
    from complaints.services import complaint_file
    from core.audit import Actor
    from tests.kit.accounts import make_player

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    player = make_player()
    complaint = complaint_file(
        player=player,
        reason="other",
        description="the page froze",
        actor=Actor.player(player),
        event_at=START_EVENT(clock),
    )
    due = complaint.respond_by
    clock.move_to(due - timedelta(days=7, seconds=1))
    assert complaints_near_deadline_queue().count == 0
    clock.move_to(due - timedelta(days=7))
    assert complaints_near_deadline_queue().count == 1 and complaints_overdue_queue().count == 0
    clock.move_to(due)
    assert complaints_near_deadline_queue().count == 0 and complaints_overdue_queue().count == 1
