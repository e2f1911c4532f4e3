"""Fixtures of the jackpots tests: a frozen clock, a fresh per-process level snapshot, the synced catalogue."""

from __future__ import annotations

import pytest
import time_machine

from tests.kit.jackpots import START


@pytest.fixture(autouse=True)
def _fresh_snapshot(db):
    """Kobushi's pools (drafts from the catalogue sync) started, as an operator offering them would."""
    from games.services import games_sync
    from jackpots.levels import snapshot_clear
    from jackpots.models import Jackpot
    from jackpots.services import jackpot_start
    from jackpots.tests.helpers import STAFF

    snapshot_clear()
    games_sync()
    for jp in Jackpot.objects.filter(family=Jackpot.Family.KOBUSHI, status=Jackpot.Status.DRAFT):
        jackpot_start(jackpot=jp, actor=STAFF)
    yield
    snapshot_clear()


@pytest.fixture
def clock():
    """A frozen clock (time-machine, tick=False); ``clock.shift(seconds)`` moves it."""
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture(autouse=True)
def _pick_game(db):
    """The games platform's test-only interactive game (two picks), registered for these tests too."""
    from games.engine import registry
    from games.services import games_sync
    from games.tests.platform.testgames import PICK
    from tests.kit.games import approve_current_games

    registry.list_games()
    registry.register(PICK)
    games_sync()
    approve_current_games()  # its version too (GP §13(6), test data)
    yield
    versions = registry._GAMES.get(PICK.code, {})
    versions.pop(PICK.version, None)
    if not versions:
        registry._GAMES.pop(PICK.code, None)
