from __future__ import annotations

import random

import pytest

from provider_simulator.client import WalletClient
from provider_simulator.journal import Journal
from provider_simulator.slot import Slot
from provider_simulator.studio import Studio
from provider_simulator.tests.fakewallet import FakeWallet
from tests.kit.simulator import SECRET


@pytest.fixture
def wallet():
    w = FakeWallet(SECRET)
    yield w
    w.stop()


@pytest.fixture
def journal():
    return Journal()


@pytest.fixture
def client(wallet, journal):
    c = WalletClient(wallet.url, "simstudio", SECRET, journal=journal)
    yield c
    c.close()


@pytest.fixture
def studio(client):
    return Studio(client, Slot(random.Random(7)))


@pytest.fixture
def session(wallet, client):
    return client.session(wallet.launch_token()).body["session"]
