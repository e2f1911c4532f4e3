"""The kit's pytest plugin, loaded by the root ``conftest.py``: every test with database access starts with an empty
ContentType cache and the current version of each game approved (GP §13(6)), as test data
(``tests.kit.games.approve_current_games``)."""
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
        # A transactional test empties the tables and post_migrate makes the content types again with new ids; the
        # process's ContentType cache would hand the next test (the admin's log entries) ids that no longer exist.
        # Which test runs after which depends on the xdist worker, so every database test starts with no cache.
        from django.contrib.contenttypes.models import ContentType

        ContentType.objects.clear_cache()
        approve_current_games()


@pytest.fixture
def staff_client(db):
    """A browser session of the admin signed in as a new superuser (``staff_client.staff``): ``tests.kit.clients``."""
    from tests.kit.clients import admin_session

    return admin_session()
