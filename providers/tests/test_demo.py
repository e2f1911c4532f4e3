"""The demo provider and its catalogue: the 41 games of Part two of the plan, unapproved except 5x Magic."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model

from core.management.commands.seed_demo import DEMO_ADMIN
from games.models import Game
from providers import demo
from providers.data.simstudio_games import GAMES
from providers.models import Provider

pytestmark = pytest.mark.django_db


def test_the_demo_lists_41_plan_games_unapproved_but_5x_magic_and_running_it_twice_changes_nothing(settings):
    get_user_model().objects.create_superuser(username=DEMO_ADMIN[0], password=DEMO_ADMIN[1])
    demo.seed(io.StringIO())
    demo.seed(io.StringIO())
    provider = Provider.objects.get(code="simstudio")
    assert provider.secret == settings.PROVIDERS_DEV_SECRET and provider.api_url == "http://127.0.0.1:8300/api"
    rows = Game.objects.filter(provider="simstudio")
    assert rows.count() == len(GAMES) == 41
    assert [r.code for r in rows.filter(approval_state=Game.Approval.APPROVED)] == ["simstudio_5x_magic"]
    book = rows.get(code="simstudio_book_of_dead")
    assert (str(book.rtp), book.max_bet, book.avg_hourly_loss, book.unfinished_deadline_days) == (
        "96.21",
        10_000,
        682_200,
        90,
    )
    derived = [g for g in GAMES if g.hourly_loss_derived]
    assert all(g.hourly_loss == g.max_bet * (10_000 - int(g.rtp * 100)) * 1_800 // 10_000 for g in derived)
