"""The kit's pytest plugin, loaded by the root ``conftest.py``: every test with database access starts with an empty
ContentType cache and the current version of each game approved (GP §13(6)), as test data
(``tests.kit.games.approve_current_games``); the test databases are made once per run and cloned per xdist worker,
with ``synchronous_commit = off`` (``tests/kit/database.py``). A test in which a hot statement ran as ``EXECUTE``
text instead of its bound prepared form (a parameter not of its declared type: ``core/pgbackend/prepared.py``) fails
unless it is marked ``hot_statement_text`` (a test about that fallback itself)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection
from django.test.utils import setup_databases, teardown_databases
from pytest_django.fixtures import _disable_migrations, _get_databases_for_setup

from core.pgbackend import prepared
from tests.kit import database
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


@pytest.fixture(scope="session")
def django_db_setup(
    request,
    django_test_environment,
    django_db_blocker,
    django_db_use_migrations,
    django_db_keepdb,
    django_db_createdb,
    django_db_modify_db_settings,
):
    """pytest-django's database set-up, made once per run under xdist and cloned by the other workers, each test
    database with ``synchronous_commit = off`` (``tests/kit/database.py`` says why that is safe)."""
    if not django_db_use_migrations:
        _disable_migrations()
    aliases, serialized_aliases = _get_databases_for_setup(request.session.items)
    keepdb = django_db_keepdb and not django_db_createdb
    worker = getattr(request.config, "workerinput", {}).get("workerid")
    with django_db_blocker.unblock():
        name = database.worker_database_name()
        setup = {
            "verbosity": request.config.option.verbose,
            "interactive": False,
            "aliases": aliases,
            "serialized_aliases": serialized_aliases,
        }
        if worker and "default" in aliases and not (keepdb and database.database_exists(connection, name)):
            template = f"{name.removesuffix(f'_{worker}')}_template"
            with database.run_lock(template) as made:
                cloned = made.exists()
                if cloned:  # another worker migrated this run: a copy of it
                    database.template_copy(connection, template, name)
                else:  # the first: every migration, then the template the others copy
                    db_cfg = setup_databases(**setup)
                    database.template_copy(connection, name, template)
                    made.touch()
            if cloned:  # Django's migrate on the copy: no migration left, only the post_migrate handlers
                db_cfg = setup_databases(**setup, keepdb=True)
        else:
            db_cfg = setup_databases(**setup, keepdb=keepdb)
        if "default" in aliases:
            database.commit_without_waiting(connection, name)
    yield
    if not django_db_keepdb:
        with django_db_blocker.unblock():
            teardown_databases(db_cfg, verbosity=request.config.option.verbose)


@pytest.fixture(autouse=True)
def _hot_statements_bound(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every path a test takes runs the hot statements bound: a fallback to ``EXECUTE`` text is a slower path no
    benchmark would show (a value of another type than its statement declares)."""
    before = prepared.FALLBACKS.copy()
    yield
    new = prepared.FALLBACKS - before
    if new and request.node.get_closest_marker("hot_statement_text") is None:
        pytest.fail(f"hot statements ran as EXECUTE text (statement, parameter, value's type): {sorted(new)}")
