"""No accounts endpoint answers 500, whatever it is sent; anonymous callers reach only the public ones."""

import pytest

from core.errors import NOT_AUTHENTICATED, VALIDATION
from tests.kit.accounts import make_player
from tests.kit.clients import client_for

pytestmark = pytest.mark.django_db
API = "/api/v1/accounts"
PRIVATE = [
    "registration/steps",
    "registration/complete",
    "auth/logout",
    "auth/password",
    "auth/sessions",
    "me",
    "me/export",
    "me/consents",
    "me/consents/marketing/withdraw",
    "me/corrections",
    "me/closure",
]
GARBAGE = [
    {},
    {"consents": "yes", "date_of_birth": "31.12.1990", "document_valid_until": 5},
    {
        "changes": ["x"],
        "settlement": None,
        "kind": 3,
        "version": {"a": 1},
        "token": ["t"],
        "username": None,
        "password": 7,
        "old_password": [],
        "new_password": {},
    },
    {"birth_number": "x" * 500, "email": "@" * 300, "username": "a" * 300},
]


def test_anonymous_callers_get_401_from_every_private_endpoint(api):
    for path in PRIVATE:
        r = (
            api.post(f"{API}/{path}", {}, format="json")
            if "withdraw" in path or path.endswith(("complete/", "logout/", "password/", "closure/"))
            else api.get(f"{API}/{path}")
        )
        assert r.status_code == 401, path
        assert r.json()["error"]["code"] == NOT_AUTHENTICATED.code


def test_garbage_never_causes_a_server_error(api):
    c = client_for(make_player())
    public = ["registration", "registration/confirm-email", "registration/resend-link", "auth/login"]
    for body in GARBAGE:
        for path in public:
            r = api.post(f"{API}/{path}", body, format="json")
            assert r.status_code < 500, (path, body, r.content[:300])
            assert "error" in r.json(), path
        for path in PRIVATE:
            if path in ("auth/logout", "me/closure", "me/consents/marketing/withdraw"):
                continue  # these succeed or change state; covered elsewhere
            r = c.post(f"{API}/{path}", body, format="json")
            assert r.status_code < 500, (path, body, r.content[:300])
    r = api.get(f"{API}/registration/confirm-email", {"token": "eyJwIjoiYSJ9:xyz:abc"})
    assert r.status_code == 400
    r = api.post(f"{API}/registration", "not json", content_type="application/json")
    assert r.status_code == 400 and r.json()["error"]["code"] == VALIDATION.code
