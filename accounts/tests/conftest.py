import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.testing import token_for


@pytest.fixture(autouse=True)
def _fresh_throttles():
    """DRF throttles count in the cache: every test starts with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def api():
    return APIClient(raise_request_exception=False)


@pytest.fixture
def client_for():
    def make(player_or_user, key=None):
        user = getattr(player_or_user, "user", player_or_user)
        c = APIClient(raise_request_exception=False)
        c.credentials(HTTP_AUTHORIZATION=f"Token {key or token_for(user)}")
        return c

    return make


@pytest.fixture
def commit(django_capture_on_commit_callbacks):
    """Run on-commit callbacks (e-mails, SMS) of what happens inside ``with commit():``."""

    def run():
        return django_capture_on_commit_callbacks(execute=True)

    return run


REG = "/api/v1/accounts/registration"


@pytest.fixture
def register(api, commit):
    """POST a registration (on-commit e-mails run); returns the response."""

    def post(payload, client=None):
        with commit():
            return (client or api).post(REG, payload, format="json")

    return post


@pytest.fixture(autouse=True)
def _fresh_terms_snapshot():
    """The per-process snapshot of the published game plan and terms (accounts.terms) starts empty in every test and
    is forgotten after it, so that no version a test published reaches another test."""
    from accounts.terms import snapshot_clear

    snapshot_clear()
    yield
    snapshot_clear()
