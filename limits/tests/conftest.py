"""Helpers for the limits tests: Prague clock times, the caller's lock, one-call stakes and rounds."""

from __future__ import annotations

import pytest


@pytest.fixture
def player(db):
    from tests.kit.accounts import make_player

    return make_player(status="active")


@pytest.fixture
def other_player(db):
    from tests.kit.accounts import make_player

    return make_player(status="active")
