"""Test support of the games app (the platform never imports it): game versions approved for the tests.

Real money needs a version approved in the game plan (GP §13(6)) and a version the catalogue sync adds starts
unapproved, so a test that plays real money needs approved versions. This module is also a pytest plugin: the
project's root ``conftest.py`` loads it (``pytest_plugins = ("games.testing",)``) so that every test with
database access has the current version of each game approved, as the demo does: before its other fixtures (an
autouse fixture: a fixture may play a round) and again just before its body (a fixture may have registered and
synced a game of its own, the test-only pick game). A test of the refusal sets its version unapproved itself, in
its body.
"""
from __future__ import annotations

from collections.abc import Generator

import pytest

TEST_PLAN_VERSION = "tests"
TEST_REFERENCE = "test data - not a decision of the Ministry of Finance"
DB_FIXTURES = frozenset({"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback"})


def approve_current_games() -> int:
    """Mark the current version of every registered game approved, as test data (ONE statement, no audit event;
    staff record real approvals with ``games.services.game_approve``). Returns how many rows it approved."""
    from core import clock
    from games.models import Game

    return (Game.objects.filter(current=True, registered=True, provider="").exclude(approval_state=Game.Approval.APPROVED)
            .update(approval_state=Game.Approval.APPROVED, approval_plan_version=TEST_PLAN_VERSION,
                    approval_reference=TEST_REFERENCE, approved_at=clock.now()))


def _uses_database(item: pytest.Item) -> bool:
    names = getattr(item, "fixturenames", ())
    return item.get_closest_marker("django_db") is not None or not DB_FIXTURES.isdisjoint(names)


@pytest.fixture(autouse=True)
def _approved_game_versions(request: pytest.FixtureRequest) -> None:
    """Before the test's other fixtures (autouse, with the database as the test asked for it)."""
    if _uses_database(request.node):
        request.getfixturevalue("db")  # pytest-django picks the kind (transactional or not) from the test
        approve_current_games()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """After the test's fixtures, before its body: the current versions approved (tests with the database only,
    which pytest-django has unblocked for the whole test by then)."""
    if _uses_database(item):
        approve_current_games()
    return (yield)


def api_bet(bet: object) -> object:
    """A bet written in engine units (``{"bets": [{"type": "red", "amount": 100}]}``) as the API takes it, every
    amount a Money object (``core.api_money``): the tests write bets as the engine keeps them and post them as a
    client must. Values that are not integers (a test of a malformed bet) are left as written."""
    from games.serializers import bet_to_api

    return bet_to_api(bet, formatted=False)


def api_money(minor: int) -> dict[str, object]:
    """``{"amount": minor, "currency": "CZK"}``: an amount as a request carries it."""
    return {"amount": minor, "currency": "CZK"}
