"""One URL style for every route, and the Idempotency-Key declared in the schema exactly where the
server requires it (docs/player-api.md, "Conventions")."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from core.errors import NOT_CANONICAL_PATH, NOT_FOUND
from core.idempotency import idempotency_rule
from tests.kit.accounts import make_player, token_for

UNSAFE = ("post", "put", "patch", "delete")
DOC = Path(settings.BASE_DIR) / "docs" / "player-api.md"

# The unsafe calls that read no Idempotency-Key, each for a stated reason (docs/player-api.md, "Idempotency-Key").
# Anything else that changes state carries ``@idempotent()``; a new view without it fails the test below until it
# is added here and to the document.
NO_KEY = {
    # sign-up and sign-in: anonymous or before the client has a session; a retry is answered by the flow itself
    ("POST", "/api/v1/accounts/registration"): "a second registration of the person is 409 duplicate_personal_data",
    ("POST", "/api/v1/accounts/registration/confirm-email"): "the link works once, then already_confirmed",
    ("POST", "/api/v1/accounts/registration/resend-link"): "sends a new link; rate-limited",
    ("POST", "/api/v1/accounts/auth/login"): "a new session per login, nothing else changes",
    ("POST", "/api/v1/accounts/auth/logout"): "ends the session; a retry is 401",
    ("POST", "/api/v1/accounts/auth/password"): "a retry with the old password is refused",
    # signed server-to-server callbacks, deduplicated by the provider's event id
    ("POST", "/api/v1/wallet/callbacks/{provider}"): "deduplicated by the event id",
    ("POST", "/api/v1/aml/callbacks/{provider}"): "deduplicated by the event id",
    ("POST", "/api/v1/aml/identifications/bankid/callback"): "the OIDC state is used once",
    # a game provider's signed calls: exactly once per (provider, transaction_id); the session's launch
    # token works once; the balance changes nothing
    **{
        ("POST", f"/api/v1/providers/{{provider}}/{op}"): "deduplicated by the provider's transaction_id"
        for op in ("session", "balance", "bet", "play", "win", "rollback", "round-end")
    },
    # staff decisions that move no money: a second decision of the same thing is refused
    ("POST", "/api/v1/core/heartbeat"): "sends a test task",
    ("POST", "/api/v1/wallet/staff/bank/statements"): "the same file again is recognised (200)",
    ("POST", "/api/v1/aml/staff/identifications/{id}/review"): "a decided review is refused",
    ("POST", "/api/v1/aml/staff/players/{player_id}/identification-attempts"): "resets a counter",
    ("POST", "/api/v1/aml/staff/cases/{id}/decide"): "a decided case is refused",
    ("POST", "/api/v1/aml/staff/cases/{id}/holds"): "a held win is refused",
    ("POST", "/api/v1/aml/staff/source-of-funds/{id}/review"): "a decided review is refused",
    ("POST", "/api/v1/aml/staff/screening-lists/import"): "the same list version again is recognised",
}
# Required: every call that moves money or plays (docs/player-api.md); the others accept a key.
REQUIRED = {
    ("POST", "/api/v1/wallet/deposits"),
    ("POST", "/api/v1/wallet/sandbox/deposits/{id}/pay"),
    ("POST", "/api/v1/wallet/withdrawals"),
    ("POST", "/api/v1/wallet/withdrawals/{id}/cancel"),
    ("POST", "/api/v1/wallet/staff/branch-cash"),
    ("POST", "/api/v1/wallet/staff/bank/entries/{id}/assign"),
    ("POST", "/api/v1/wallet/staff/bank/entries/{id}/return"),
    ("POST", "/api/v1/wallet/staff/bank/payment-orders"),
    ("POST", "/api/v1/games/rounds"),
    ("POST", "/api/v1/games/rounds/{round_id}/actions"),
    ("POST", "/api/v1/games/play-money/rounds"),
}


def routes(resolver: URLResolver | None = None, prefix: str = "") -> list[tuple[str, Any]]:
    """Every route of the URL configuration, as (pattern, callback)."""
    out: list[tuple[str, Any]] = []
    for entry in (resolver or get_resolver()).url_patterns:
        if isinstance(entry, URLResolver):
            out += routes(entry, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            out.append((prefix + str(entry.pattern), entry.callback))
    return out


def openapi_path(route: str) -> str:
    """``api/v1/wallet/withdrawals/<int:pk>/cancel`` as the schema writes it: ``/api/v1/.../{id}/cancel``
    (drf-spectacular names a ``pk`` after the model's ``id``)."""
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: "{id}" if m.group(1) == "pk" else "{" + m.group(1) + "}", route)


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    generated: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return generated


def test_every_route_has_no_trailing_slash_the_one_url_style():
    """No trailing slash, the style of most routes and of every money-moving one (wallet, games); DRF serves
    either. Django's admin keeps its own convention (its pages and redirects assume slashes)."""
    ours = [route for route, _ in routes() if not route.startswith("admin/")]
    assert len(ours) > 90  # the walk sees the whole configuration, not an empty list
    slashed = [route for route in ours if route.endswith("/")]
    assert not slashed, f"routes with a trailing slash (docs/player-api.md: no trailing slash): {slashed}"
    assert "api/v1/wallet/overview" in ours and "api/v1/accounts/me" in ours and "api/v1/jackpots" in ours


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("slashed", "canonical"),
    [
        ("/api/v1/wallet/overview/", "/api/v1/wallet/overview"),
        ("/api/v1/accounts/me/", "/api/v1/accounts/me"),
        ("/api/v1/jackpots/", "/api/v1/jackpots"),
        ("/api/v1/complaints/", "/api/v1/complaints"),
        ("/api/v1/games/rounds/", "/api/v1/games/rounds"),
    ],
)
def test_the_other_style_is_a_404_in_the_error_shape_naming_the_canonical_path(slashed, canonical):
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(make_player().user)}")
    for method in ("get", "post"):
        r = getattr(c, method)(slashed, HTTP_ACCEPT_LANGUAGE="en")
        assert r.status_code == 404, (method, slashed, r.status_code)
        error = r.json()["error"]
        assert error["code"] == NOT_CANONICAL_PATH.code and canonical in error["message"]
        assert error["details"] == {"path": slashed, "canonical": canonical}
    assert c.get(canonical).status_code == 200
    assert c.get("/api/v1/no-such-thing/").json()["error"]["code"] == NOT_FOUND.code  # nothing to point at


def _operations(schema: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (method.upper(), path): op
        for path, item in schema["paths"].items()
        for method, op in item.items()
        if method in UNSAFE
    }


def _key_header(op: dict[str, Any]) -> dict[str, Any] | None:
    return next((p for p in op.get("parameters", []) if p["in"] == "header" and p["name"] == "Idempotency-Key"), None)


def test_the_schema_declares_the_idempotency_key_exactly_where_a_view_carries_the_decorator(schema):
    operations = _operations(schema)
    checked = 0
    for route, callback in routes():
        view = getattr(callback, "cls", None)
        if view is None or route.startswith("admin/"):
            continue
        path = openapi_path(route)
        for method in UNSAFE:
            handler = getattr(view, method, None)
            if handler is None or (method.upper(), path) not in operations:
                continue
            rule = idempotency_rule(handler)
            header = _key_header(operations[(method.upper(), path)])
            if rule is None:
                assert header is None, (method, path, "declares a key the view does not read")
                assert (method.upper(), path) in NO_KEY, (
                    f"{method.upper()} {path} changes state without @idempotent(): add the decorator, or list it "
                    "in NO_KEY and in docs/player-api.md with the reason"
                )
            else:
                assert header is not None, (method, path, "reads a key the schema does not declare")
                assert header["required"] is rule.required, (method, path)
                assert ((method.upper(), path) in REQUIRED) is rule.required, (method, path, rule)
            checked += 1
    assert checked == len(operations) > 40


def test_the_documented_lists_are_the_servers():
    text = DOC.read_text()
    section = text[text.index("### Idempotency-Key") :]
    section = section[: section.index("\n### ", 4)]
    for method, path in set(NO_KEY) | REQUIRED:
        assert f"`{method} {path.removeprefix('/api/v1')}`" in section, (method, path)


@pytest.mark.django_db
def test_a_replay_answers_exactly_as_the_first_call_times_included():
    """A replay (same key, same body) once wrote the stored times as ``str(datetime)`` ("2026-03-10 09:00:00+00:00"),
    not as the first answer ("2026-03-10T09:00:00Z"): a client checking the schema refused it (found when the
    schema began to declare the key on complaints)."""
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(make_player().user)}")
    body = {"reason": "other", "description": "The page froze.", "event_at": "2026-03-01T10:00:00Z"}
    first = c.post("/api/v1/complaints", body, format="json", HTTP_IDEMPOTENCY_KEY="replay-1")
    again = c.post("/api/v1/complaints", body, format="json", HTTP_IDEMPOTENCY_KEY="replay-1")
    assert first.status_code == again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert "T" in first.json()["confirmation"]["received_at"]
