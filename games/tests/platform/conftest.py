"""Fixtures of the games platform tests: test-only games in the registry, a synced catalogue whose current versions
are approved (GP §13(6); a test of the refusal unapproves its version), a frozen clock."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest
import time_machine

from games.tests.platform.testgames import PICK

START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def test_games(db):
    """Registers the test-only games for this test (after the real ones are loaded), syncs the catalogue and
    approves its current versions (test data, ``games.testing``)."""
    from games.engine import registry
    from games.services import games_sync
    from games.testing import approve_current_games

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


@pytest.fixture
def clock():
    """A frozen clock (time-machine, tick=False); ``clock.shift(seconds)`` moves it."""
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller
