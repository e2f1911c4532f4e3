"""Fixtures of the games platform tests: test-only games in the registry, a synced catalogue whose current versions
are approved (GP §13(6); a test of the refusal unapproves its version), a frozen clock."""

from __future__ import annotations

import pytest
import time_machine

from tests.kit.platform import START, test_games  # noqa: F401  (the autouse fixture of these tests)


@pytest.fixture
def clock():
    """A frozen clock (time-machine, tick=False); ``clock.shift(seconds)`` moves it."""
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller
