"""Personas of the back-office tests: one player with a little of everything staff look at."""

from __future__ import annotations

import pytest
import time_machine

from tests.kit.backoffice import START, World, build_world


@pytest.fixture
def games(db):
    from games.services import games_sync
    from tests.kit.games import approve_current_games

    games_sync()
    approve_current_games()


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def world(games, clock, settings) -> World:
    return build_world(rounds=2, clock=clock, settings=settings)
