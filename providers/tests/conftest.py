"""Fixtures of the providers' tests: a provider with a remote game approved in the plan, a funded player with a
game session, a frozen clock, and the signing client (providers.testing)."""
from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
import time_machine
from rest_framework.test import APIClient

from accounts.testing import login_session_for, make_player
from core.audit import Actor
from core.money import Money
from games.models import Game
from games.services import game_approve, remote_game_upsert
from providers.models import Provider
from providers.services import provider_save
from providers.testing import SignedClient

START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)
SECRET = "test-provider-secret-0123456789-abcdefghij"
CODE = "sim"


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def make_provider(code: str = CODE, **kw: Any) -> Provider:
    fields = {"name": "Sim", "enabled": True, "launch_url": "http://127.0.0.1:8300/play",
              "api_url": "http://127.0.0.1:8300/api", "allowed_sources": ["127.0.0.1/32"], **kw}
    return provider_save(provider=Provider(code=code, **fields), new_secret=SECRET, actor=Actor.system("tests"))


def make_game(provider: str = CODE, slug: str = "wild", *, approved: bool = True, max_bet: int = 100_000,
              deadline_days: int = 90) -> Game:
    row = remote_game_upsert(provider=provider, provider_game_id=slug, name=f"Game {slug}", kind="slot",
                             rtp=Decimal("96.00"), min_bet=10, max_bet=max_bet, max_win=5_000_000,
                             avg_hourly_loss=max_bet * 4 * 1800 // 100, unfinished_deadline_days=deadline_days,
                             actor=Actor.system("tests"))
    if approved:
        row = game_approve(game=row, plan_version="test", reference="TEST-1", actor=Actor.system("tests"))
    return row


def fund(player: Any, amount: int) -> None:
    import uuid

    from wallet.services import adjustment_credit

    adjustment_credit(player=player, amount=Money(amount), reference=f"test-fund-{uuid.uuid4().hex}",
                      reason="test funding", actor=Actor.system("tests"))


def player_client(player: Any) -> APIClient:
    """The player's API client, signed in through a login session (a studio's game session belongs to it)."""
    c = APIClient(raise_request_exception=False)
    c.credentials(HTTP_AUTHORIZATION=f"Token {login_session_for(player)[1]}")
    return c


def open_session(player: Any, signed: SignedClient, game: str = f"{CODE}_wild") -> str:
    launch = player_client(player).post(f"/api/v1/providers/{signed.provider}/launch", {"game": game, "lang": "cs"},
                                        format="json")
    assert launch.status_code == 201, launch.content
    answer = signed.call("session", {"launch_token": launch.json()["launch_token"]})
    assert answer.status_code == 200, answer.content
    return str(answer.json()["session"])


@pytest.fixture
def provider(db):
    return make_provider()


@pytest.fixture
def game(provider):
    return make_game()


@pytest.fixture
def signed(provider):
    return SignedClient(APIClient(raise_request_exception=False), CODE, SECRET)


@pytest.fixture
def player(game):
    p = make_player()
    fund(p, 100_000)
    return p


@pytest.fixture
def session(player, signed, clock):
    return open_session(player, signed)
