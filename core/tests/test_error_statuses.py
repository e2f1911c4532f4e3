"""A body over the limits is a 413 and a database that cannot be reached a 503 with Retry-After,
never a 500."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import OperationalError
from rest_framework.test import APIClient

from core.errors import NOT_FOUND, TOO_LARGE, UNAVAILABLE


@pytest.mark.django_db
def test_a_body_over_the_upload_limit_is_a_413_with_the_error_shape(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100_000
    c = APIClient(raise_request_exception=False)
    big = '{"username": "' + "a" * 200_000 + '", "password": "x"}'
    r = c.generic("POST", "/api/v1/accounts/auth/login", big, content_type="application/json")
    assert r.status_code == 413 and r.json()["error"]["code"] == TOO_LARGE.code, r.content[:200]
    r = c.post(
        "/api/v1/accounts/auth/login",
        {"username": "u" * 200_000, "password": "x", "f": SimpleUploadedFile("a.bin", b"x" * 10)},
    )
    assert r.status_code == 413 and r.json()["error"]["code"] == TOO_LARGE.code, r.content[:200]
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    r = c.post("/api/v1/accounts/auth/login", {f"f{i}": "x" for i in range(50)})
    assert r.status_code == 413


@pytest.mark.django_db
def test_a_database_outage_is_a_503_with_retry_after_and_no_traceback(monkeypatch, caplog):
    from accounts import auth

    def down(*args, **kwargs):
        raise OperationalError("could not connect to server: Connection refused")

    monkeypatch.setattr(auth, "token_with_owner", down)
    c = APIClient(raise_request_exception=False)
    c.credentials(HTTP_AUTHORIZATION="Token abc")
    with caplog.at_level("WARNING"):
        r = c.get("/api/v1/games/rounds")
    assert r.status_code == 503 and r["Retry-After"] == "5"
    assert r.json()["error"]["code"] == UNAVAILABLE.code
    assert not [rec for rec in caplog.records if rec.exc_info]  # a warning line, no traceback per request


@pytest.mark.django_db
def test_an_api_path_no_route_matches_is_a_404_in_the_error_shape_in_both_languages():
    """Found by the hostile-input suite (tests/test_hostile_input.py): an identifier of the wrong form
    (``/rounds/abc``) matched no route and got Django's HTML page."""
    c = APIClient(raise_request_exception=False)
    for path in ("/api/v1/games/rounds/abc", "/api/v1/wallet/payment-methods/null,null", "/api/v1/no-such-thing"):
        r = c.get(path, HTTP_ACCEPT_LANGUAGE="en")
        assert r.status_code == 404 and r["Content-Type"] == "application/json", (path, r.content[:200])
        error = r.json()["error"]
        assert error["code"] == NOT_FOUND.code and error["message"] == "Not found." and error["message_cs"], error
        assert error["request_id"] == r["X-Request-ID"]
    page = c.get("/no-such-page")  # outside the API Django's own page stays
    assert page.status_code == 404 and not page["Content-Type"].startswith("application/json")
