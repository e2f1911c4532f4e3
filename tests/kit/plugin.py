"""The kit's pytest plugin, loaded by the root ``conftest.py``: every test with database access has the current
version of each game approved (GP §13(6)), as test data (``tests.kit.games.approve_current_games``)."""
from __future__ import annotations

import pytest

from tests.kit.games import approve_current_games

DB_FIXTURES = frozenset({"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback"})


def _uses_database(item: pytest.Item) -> bool:
    names = getattr(item, "fixturenames", ())
    return item.get_closest_marker("django_db") is not None or not DB_FIXTURES.isdisjoint(names)


@pytest.fixture(autouse=True)
def _approved_game_versions(request: pytest.FixtureRequest) -> None:
    """Once per test, before its other fixtures (autouse, with the database as the test asked for it): a fixture may
    play a round. A fixture that registers or syncs a game version of its own approves it itself (the test-only pick
    game: ``tests.kit.platform.test_games``, ``jackpots/tests/conftest.py``)."""
    if _uses_database(request.node):
        request.getfixturevalue("db")  # pytest-django picks the kind (transactional or not) from the test
        approve_current_games()


@pytest.fixture
def staff_client(db):
    """A browser session of the admin signed in as a new superuser (``staff_client.staff``): ``tests.kit.clients``."""
    from tests.kit.clients import admin_session

    return admin_session()
