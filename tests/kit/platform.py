"""Helpers of the games platform tests (personas with money, API calls)."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, datetime

import pytest

from games.tests.platform.testgames import PICK
from tests.kit.accounts import make_player
from tests.kit.games import api_bet, approve_current_games
from tests.kit.wallet import fund

ROULETTE = "european_roulette"
RED_100 = {"bets": [{"type": "red", "amount": 100}]}  # pocket 1 is red (wins 200), pocket 0 loses
_refs = itertools.count(1)


def balance(player) -> int:
    from wallet.selectors import balance as wallet_balance

    return wallet_balance(player).amount


def funded_player(amount: int = 100_000, **kw):
    player = make_player(**kw)
    if amount:
        fund(player, amount)
    return player


def key() -> str:
    return f"k-{uuid.uuid4().hex}"


def start(c, game=ROULETTE, bet=None, idem=None, **extra):
    """POST a round; ``bet`` in engine units (integer haléře), posted in the API's shape (Money objects)."""
    body = {"game": game, "bet": api_bet(RED_100 if bet is None else bet, game), **extra}
    return c.post("/api/v1/games/rounds", body, format="json", HTTP_IDEMPOTENCY_KEY=idem or key())


def act(c, round_id, action, idem=None):
    return c.post(
        f"/api/v1/games/rounds/{round_id}/actions",
        {"action": action},
        format="json",
        HTTP_IDEMPOTENCY_KEY=idem or key(),
    )


def play_money(c, game=ROULETTE, bet=None, idem=None, **extra):
    body = {"game": game, "bet": api_bet(RED_100 if bet is None else bet, game), **extra}
    return c.post("/api/v1/games/play-money/rounds", body, format="json", HTTP_IDEMPOTENCY_KEY=idem or key())


def rounds_count(player, **filters) -> int:
    from games.models import Round

    return Round.objects.filter(player=player, **filters).count()


@pytest.fixture
def ismael_beiro_version_2(monkeypatch, db):
    """Tests of Ismael Beiro version 2 (the player's holds, nudges and upper bet) through the platform, which starts
    rounds on a game's newest version: version 2 is the registry's newest while they run (catalogue synced)."""
    from games.engine import registry
    from games.services.catalogue import games_sync

    registry._load()
    versions = {v: g for v, g in registry._GAMES["ismael_beiro"].items() if v <= 2}
    monkeypatch.setitem(registry._GAMES, "ismael_beiro", versions)
    games_sync()
    approve_current_games()  # version 2 is now the current one (GP §13(6), test data)
    yield


START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def test_games(db):
    """Registers the test-only games for this test (after the real ones are loaded), syncs the catalogue and
    approves its current versions (test data, ``tests.kit.games``)."""
    from games.engine import registry
    from games.services import games_sync
    from tests.kit.games import approve_current_games

    registry.list_games()  # load the shipped games first (the registry loads lazily once)
    registry.register(PICK)
    try:
        games_sync()
        approve_current_games()
        yield
    finally:
        versions = registry._GAMES.get(PICK.code, {})
        versions.pop(PICK.version, None)
        if not versions:
            registry._GAMES.pop(PICK.code, None)
