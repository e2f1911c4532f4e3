"""A schema a client can be generated from - tags by area, every error response with the house
error shape and the codes the operation can give (derived from the code, core.api_errors), Retry-After on 429, and
a request example for every body, each game's bet and actions among them (from the game definitions)."""

from __future__ import annotations

from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from core.api_errors import view_errors
from core.errors import NOT_FOUND
from core.idempotency import KEY_REQUIRED
from games.engine.registry import list_games
from limits.errors import INVALID_DATE

AREAS = {"accounts", "wallet", "limits", "games", "jackpots", "complaints", "aml", "core", "reports", "providers"}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    generated: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return generated


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, op)
        for path, item in schema["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "responses" in op
    ]


def test_every_operation_is_tagged_by_its_area(schema):
    ops = operations(schema)
    assert len(ops) > 90
    for method, path, op in ops:
        (tag,) = op["tags"]
        area = tag.removesuffix(" (staff)")
        assert area in AREAS and path.startswith(f"/api/v1/{area}"), (method, path, tag)
        assert tag.endswith(" (staff)") == ("/staff/" in path), (method, path, tag)
    described = {t["name"] for t in schema["tags"] if t["description"]}
    assert {op["tags"][0] for _, _, op in ops} <= described  # each area says what it is in the documentation


def test_every_operation_lists_its_errors_in_the_error_shape_with_their_codes(schema):
    error = schema["components"]["schemas"]["Error"]
    assert error["required"] == ["error"]
    body = schema["components"]["schemas"]["ErrorBody"]
    assert set(body["required"]) >= {"code", "message", "message_cs", "message_en", "details", "request_id"}
    for method, path, op in operations(schema):
        errors = {status: r for status, r in op["responses"].items() if status.startswith(("4", "5"))}
        assert {"400", "429", "500", "503"} <= set(errors), (method, path, sorted(op["responses"]))
        for status, response in errors.items():
            assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
            codes = response["x-error-codes"]
            assert codes and all(f"`{code}`" in response["description"] for code in codes), (method, path, status)
        assert "Retry-After" in errors["429"]["headers"] and "600/min" in errors["429"]["description"]
        if "{" in path:
            assert NOT_FOUND.code in errors["404"]["x-error-codes"], (method, path)


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        (
            "POST",
            "/api/v1/wallet/deposits",
            {
                "wallet.temporary_deposit_cap",
                "request.invalid_money",
                "idempotency.key_required",
                "auth.password_change_required",
            },
        ),
        (
            "POST",
            "/api/v1/games/rounds",
            {
                "game.round_too_soon",
                "limits.daily_stake_exceeded",
                "wallet.insufficient_funds",
                "request.invalid_money",
                "idempotency.key_required",
            },
        ),
        ("PUT", "/api/v1/limits/self-limits/{kind}/{limit_type}", {"request.invalid_money", "limits.unknown_limit"}),
        ("POST", "/api/v1/accounts/auth/login", {"auth.invalid_credentials", "auth.staff_account", "auth.locked_out"}),
        ("GET", "/api/v1/limits/statistics", {"limits.invalid_date", "limits.invalid_period"}),
        ("POST", "/api/v1/complaints", {"request.invalid_money", "idempotency.conflict"}),
    ],
)
def test_the_codes_come_from_the_code_the_operation_runs(schema, method, path, expected):
    op = schema["paths"][path][method.lower()]
    listed = {code for status, r in op["responses"].items() if status[0] in "45" for code in r["x-error-codes"]}
    assert expected <= listed, expected - listed
    if method == "POST" and path == "/api/v1/complaints":
        assert KEY_REQUIRED.code not in listed  # the key is optional there


def test_an_undeclared_code_is_not_listed():
    """The derivation follows the code: a view that raises nothing of the wallet lists no wallet code."""
    from limits.api import PlayStatisticsView

    codes = {e.code for e in view_errors(PlayStatisticsView, "get")}
    assert INVALID_DATE.code in codes and not any(c.startswith(("wallet.", "game.")) for c in codes)


def test_every_request_body_has_an_example(schema):
    missing = []
    for method, path, op in operations(schema):
        for media_type, content in op.get("requestBody", {}).get("content", {}).items():
            if media_type == "application/json" and not content.get("examples"):
                missing.append((method, path))
    # the providers' signed callbacks take the provider's own format (docs/wallet.md, docs/aml.md)
    assert sorted(missing) == [
        ("POST", "/api/v1/aml/callbacks/{provider}"),
        ("POST", "/api/v1/wallet/callbacks/{provider}"),
    ]


def test_each_game_has_a_bet_example_and_the_interactive_ones_their_actions(schema):
    rounds = schema["paths"]["/api/v1/games/rounds"]["post"]["requestBody"]["content"]["application/json"]
    bets = {e["value"]["game"]: e["value"]["bet"] for e in rounds["examples"].values()}
    assert set(bets) == {g.code for g in list_games()}
    coin = bets["kobushi"]["coin_value"]
    assert set(coin) == {"amount", "currency"} and isinstance(coin["amount"], int) and coin["currency"] == "CZK"
    assert bets["european_roulette"]["bets"][0]["amount"]["currency"] == "CZK"
    actions = schema["paths"]["/api/v1/games/rounds/{round_id}/actions"]["post"]["requestBody"]["content"][
        "application/json"
    ]["examples"]
    by_name = {e["summary"]: e["value"] for e in actions.values()}
    assert by_name["kobushi: free_spin"] == {"action": {"type": "spin"}}
    assert by_name["kobushi: pick"]["action"]["type"] == "pick"
    assert by_name["any game: play through"] == {"action": {"type": "play_through"}}


def test_the_idempotency_key_and_the_money_shape_are_components_a_generator_reads(schema):
    deposit = schema["paths"]["/api/v1/wallet/deposits"]["post"]
    assert list(deposit["requestBody"]["content"]) == ["application/json"]  # one encoding: no guessing
    header = next(p for p in deposit["parameters"] if p["name"] == "Idempotency-Key")
    assert header["required"] is True and header["in"] == "header"
    assert "MoneyValue" in schema["components"]["schemas"]


def test_the_rate_limits_the_schema_describes_are_the_ones_the_deployment_configures(settings):
    """THROTTLE_RATE_* set in the environment reach the schema's 429 description, not the defaults."""
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "anon": "120/min", "user": "900/min", "login": "5/min"}
    generated = SchemaGenerator().get_schema(request=None, public=True)
    op = generated["paths"]["/api/v1/wallet/overview"]["get"]
    text = op["responses"]["429"]["description"]
    assert "120/min per address" in text and "900/min per signed-in user" in text and "5/min for the login" in text
