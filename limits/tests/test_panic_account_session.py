"""The panic button excludes the person from gambling for 48 hours, not from their money (GP: "excludes them from
all gambling for 48 hours"; issue: "can still see balances and withdraw"): pressing it logs the player out at once;
signing in again during the 48 hours opens a session for the account only: the balance reads, a withdrawal to the
verified account is requested, and every stake and deposit is refused with ``limits.panic_exclusion`` and its end.
At 48 hours exactly play is back. Through the real API, the sandbox register listing the press."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from rest_framework.test import APIClient

from core.money import Money
from limits.errors import PANIC_EXCLUSION
from tests.kit.accounts import DEFAULT_PASSWORD, make_player
from tests.kit.wallet import fund, verified_bank

pytestmark = pytest.mark.django_db

T = datetime(2026, 5, 14, 8, 0, tzinfo=UTC)
H48 = timedelta(hours=48)
LOGIN = "/api/v1/accounts/auth/login"


def _login(player, at: datetime) -> tuple[int, APIClient, dict]:
    c = APIClient(raise_request_exception=False)
    with time_machine.travel(at, tick=False):
        r = c.post(LOGIN, {"username": player.user.username, "password": DEFAULT_PASSWORD}, format="json")
    body = r.json()
    if r.status_code in (200, 201):
        c.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    return r.status_code, c, body


def _deposit(c: APIClient, method_id: int, key: str):
    return c.post(
        "/api/v1/wallet/deposits",
        {"method_id": method_id, "amount": {"amount": 10_000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key,
    )


def test_during_the_panic_period_the_player_signs_in_sees_the_balance_and_withdraws_but_cannot_deposit():
    player = make_player()
    method = verified_bank(player)
    fund(player, Money(150_000))
    status, c, _ = _login(player, T - timedelta(minutes=5))
    assert status in (200, 201)
    with time_machine.travel(T, tick=False):
        pressed = c.post("/api/v1/limits/panic")
        assert pressed.status_code == 201
        assert c.get("/api/v1/wallet/overview").status_code == 401  # logged out at once

    during = T + H48 - timedelta(seconds=1)
    status, c, body = _login(player, during)
    assert status in (200, 201), body
    with time_machine.travel(during, tick=False):
        balance = c.get("/api/v1/wallet/overview")
        assert balance.status_code == 200, balance.json()
        assert "150000" in balance.content.decode().replace(" ", "")
        w = c.post(
            "/api/v1/wallet/withdrawals",
            {"method_id": method.pk, "amount": {"amount": 50_000, "currency": "CZK"}},
            format="json",
            HTTP_IDEMPOTENCY_KEY="panic-w-1",
        )
        assert w.status_code == 201, w.json()
        d = _deposit(c, method.pk, "panic-d-1")
        assert d.status_code == 403 and d.json()["error"]["code"] == PANIC_EXCLUSION.code, d.json()
        assert d.json()["error"]["details"]["ends_at"].startswith("2026-05-16T")
        assert c.get("/api/v1/limits/panic").json()["active"] is True

    after = T + H48
    status, c, _ = _login(player, after)
    assert status in (200, 201)
    with time_machine.travel(after, tick=False):
        assert _deposit(c, method.pk, "panic-d-2").status_code == 201
