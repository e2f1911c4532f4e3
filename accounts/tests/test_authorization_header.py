"""``accounts.auth.authorization_header`` gives DRF's ``get_authorization_header`` answer without building
``request.headers`` (a Python function per ``META`` key) on every API call."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import RequestFactory
from rest_framework.authentication import get_authorization_header
from rest_framework.request import Request

from accounts.auth import PlayerTokenAuthentication, authorization_header

CASES: list[dict[str, Any]] = [
    {},
    {"HTTP_AUTHORIZATION": ""},
    {"HTTP_AUTHORIZATION": "Token abc"},
    {"HTTP_AUTHORIZATION": "Token  abc def"},
    {"HTTP_AUTHORIZATION": "token \xe9\xff"},  # latin-1 text, as a WSGI server decodes the header's bytes
    {"HTTP_AUTHORIZATION": b"Token raw-bytes"},
    {"HTTP_authorization": "Token lower"},  # no WSGI server writes it; DRF's own function answers
    {"HTTP_X_AUTHORIZATION": "Token other"},
    {"HTTP_AUTHORIZATION": "Token a", "HTTP_X_REQUEST_ID": "abcdefgh", "HTTP_ACCEPT_LANGUAGE": "cs"},
]


@pytest.mark.parametrize("meta", CASES, ids=[repr(sorted(c.items())) for c in CASES])
def test_the_same_answer_as_drf(meta: dict[str, Any]) -> None:
    ours = RequestFactory().post("/api/v1/games/roulette/rounds", **meta)
    theirs = RequestFactory().post("/api/v1/games/roulette/rounds", **meta)
    assert authorization_header(ours) == get_authorization_header(theirs)  # type: ignore[arg-type]  # DRF reads .headers
    assert type(authorization_header(ours)) is bytes


def test_request_headers_not_built_when_the_header_is_in_meta() -> None:
    request = RequestFactory().post("/api/v1/games/roulette/rounds", HTTP_AUTHORIZATION="Bearer x")
    assert authorization_header(request) == b"Bearer x"
    assert "headers" not in request.__dict__  # Django's cached_property would have built it


def test_the_token_authentication_reads_it_so() -> None:
    django_request = RequestFactory().post("/api/v1/games/roulette/rounds", HTTP_AUTHORIZATION="Bearer x")
    assert PlayerTokenAuthentication().authenticate(Request(django_request)) is None  # not a token: no statement
    assert "headers" not in django_request.__dict__
