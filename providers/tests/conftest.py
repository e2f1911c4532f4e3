"""Fixtures of the providers' tests: a provider with a remote game approved in the plan, a funded player with a
game session, a frozen clock, and the signing client (tests.kit.providers)."""

from __future__ import annotations

import pytest
import time_machine
from rest_framework.test import APIClient

from tests.kit.accounts import make_player
from tests.kit.providers import CODE, SECRET, START, SignedClient, make_game, make_provider, open_session
from tests.kit.wallet import fund


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


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
