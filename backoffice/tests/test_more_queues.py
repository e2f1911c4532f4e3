"""The work queues hold all the work from day 0: a complaint filed a minute ago (new, unassigned), one asking for
money (finance, the complaint supervisor), an open duplicate case, a current game version awaiting approval."""

from __future__ import annotations

import pytest
from django.test import Client

from complaints import services as complaints_services
from core import clock
from core.audit import Actor
from core.money import Money
from tests.kit.accounts import make_player, make_staff

pytestmark = pytest.mark.django_db


def _home(role: str) -> str:
    c = Client()
    c.force_login(make_staff(role=role))
    r = c.get("/admin/", HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 200
    return r.content.decode()


def _count(html: str, label: str) -> str:
    row = html.split(label, 1)[1][:700]
    return row.split('<td class="count">', 1)[1].split("<", 1)[0]


def test_a_complaint_filed_now_is_in_supports_queue_and_one_asking_for_money_in_finances():
    from complaints.selectors import complaints_money_queue, complaints_new_queue

    player = make_player(status="active")
    assert complaints_new_queue().count == 0
    complaints_services.complaint_file(
        player=player, reason="other", description="x", event_at=clock.now(), actor=Actor.player(player)
    )
    complaints_services.complaint_file(
        player=player,
        reason="other",
        description="y",
        event_at=clock.now(),
        remedy_amount_requested=Money(550),
        actor=Actor.player(player),
    )
    assert complaints_new_queue().count == 2 and complaints_money_queue().count == 1
    assert _count(_home("support"), "New and unassigned complaints") == "2"
    assert "Complaints asking for money" not in _home("support")
    assert _count(_home("finance"), "Complaints asking for money") == "1"
    assert _count(_home("complaint_supervisor"), "Complaints asking for money") == "1"


def test_duplicate_cases_and_game_versions_awaiting_approval_have_queues():
    from accounts.models import DuplicateCase
    from accounts.selectors import duplicate_cases_queue
    from games.models import Game
    from games.selectors import versions_awaiting_approval_queue

    before = versions_awaiting_approval_queue().count
    waiting = Game.objects.filter(current=True, approval_state=Game.Approval.UNAPPROVED).count()
    assert before == waiting
    DuplicateCase.objects.create(kind=DuplicateCase.Kind.values[0], created_at=clock.now())
    assert duplicate_cases_queue().count == 1
    assert _count(_home("compliance"), "Duplicate accounts to resolve") == "1"
    assert "Game versions awaiting approval" in _home("game_manager")


def test_register_answers_to_review_and_ministry_error_notices_have_queues():
    """The AISG interface's answers that failed closed (compliance) and the Ministry's error notices on the remote
    access (compliance) wait on the home page from the day they arrive."""
    from accounts.models import RegisterReview
    from accounts.selectors import register_reviews_queue
    from regulator.models import MinistryNotice
    from regulator.selectors import error_notices_queue, packages_rejected_queue
    from wallet.selectors import bank_attention_queue

    player = make_player(status="active")
    assert register_reviews_queue().count == 0
    RegisterReview.objects.create(
        kind=RegisterReview.Kind.OUTAGE,
        player=player,
        context="login",
        reason="timeout",
        created_at=clock.now(),
        last_at=clock.now(),
    )
    RegisterReview.objects.create(
        kind=RegisterReview.Kind.MANUAL_REVIEW,
        player=player,
        context="registration",
        reason="NENALEZENA",
        created_at=clock.now(),
        last_at=clock.now(),
        resolved_at=clock.now(),
    )
    MinistryNotice.objects.create(
        kind=MinistryNotice.Kind.ERROR,
        package_name="12345678-V-2026030200-T-01",
        error_code="ERR_STRUCTURE",
        client_identity="CN=mf",
        received_at=clock.now(),
        staff_task_open=True,
    )
    assert register_reviews_queue().count == 1 and error_notices_queue().count == 1
    assert packages_rejected_queue().count == 0 and bank_attention_queue().count == 0
    home = _home("compliance")
    assert _count(home, "Register answers to review") == "1"
    assert _count(home, "Ministry error notices to handle") == "1"
    assert "Register answers to review" not in _home("game_manager")
