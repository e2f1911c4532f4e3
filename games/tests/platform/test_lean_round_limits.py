"""The lean round path (stake_gate + stake_decided_now) keeps the self-limits exact at their boundary (GP §6(6)a,
§6(7)): what one statement counted is what the next decision reads, and a refused stake changes nothing."""
from __future__ import annotations

from typing import Any

import pytest

from core.audit import Actor
from core.rng import use_rng
from games.models import Round
from games.tests.platform.helpers import balance, client_for, funded_player, key
from games.tests.platform.testgames import FixedRNG
from limits.services import self_limit_set

pytestmark = pytest.mark.django_db

RED = {"bets": [{"type": "red", "amount": 100}]}  # 1.00 CZK
LOSS, WIN = FixedRNG(0), FixedRNG(1)


def _player_with(limit_type: str, value: int) -> Any:
    player = funded_player(100_000)
    self_limit_set(player=player, kind="technical", limit_type=limit_type, value=value, actor=Actor.player(player))
    return player


def _spin(c: Any, clock: Any, rng: Any, bet: dict[str, Any] = RED) -> Any:
    clock.shift(3)  # GP §7(9)
    with use_rng(rng):
        return c.post("/api/v1/games/rounds", {"game": "european_roulette", "bet": bet}, format="json",
                      HTTP_IDEMPOTENCY_KEY=key())


def test_the_daily_stake_limit_allows_the_stake_that_reaches_it_and_refuses_one_more_step(clock):
    player = _player_with("daily_stake", 300)  # 3.00 CZK a day
    c = client_for(player)
    for _ in range(3):  # 1.00 + 1.00 + 1.00 = exactly the limit
        assert _spin(c, clock, WIN).status_code == 201
    before, rounds = balance(player), Round.objects.filter(player=player).count()
    r = _spin(c, clock, WIN, {"bets": [{"type": "red", "amount": 10}]})  # 0.10 CZK over
    assert r.status_code == 403 and r.json()["error"]["code"] == "limits.daily_stake_exceeded"
    assert r.json()["error"]["details"]["used"]["amount"] == 300
    assert balance(player) == before and Round.objects.filter(player=player).count() == rounds


def test_the_daily_loss_limit_counts_decided_bets_of_the_lean_path(clock):
    player = _player_with("daily_loss", 200)  # 2.00 CZK net loss a day
    c = client_for(player)
    assert _spin(c, clock, WIN).status_code == 201  # +1.00: net loss -1.00
    for _ in range(3):  # three lost 1.00 stakes: net loss 2.00 = the limit
        assert _spin(c, clock, LOSS).status_code == 201
    r = _spin(c, clock, LOSS, {"bets": [{"type": "red", "amount": 10}]})
    assert r.status_code == 403 and r.json()["error"]["code"] == "limits.daily_loss_exceeded"
    assert r.json()["error"]["details"]["used"]["amount"] == 200
