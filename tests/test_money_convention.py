"""One money convention in every request body (docs/player-api.md, "Conventions").

Every amount is a Money object ``{"amount": <JSON integer of haléře>, "currency": "CZK"}``. Each endpoint that takes
money refuses every other form - a CZK string, a bare integer, a float, a missing currency, a foreign currency, an
unknown key, a string amount - with the same error, ``request.invalid_money`` (400), naming the field and the expected
shape, and stores nothing. The same endpoint takes the right shape (so the refusals are not a refusal of everything).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine
from rest_framework.test import APIClient

from core.api_money import INVALID_MONEY
from core.errors import VALIDATION
from core.models import AuditEvent, IdempotencyRecord
from core.money import Money
from tests.kit.accounts import make_player, make_staff, token_for

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)
_keys = itertools.count(1)

WRONG_FORMS: dict[str, Any] = {
    "czk_string": "500",
    "czk_text_with_decimals": "3000.00",
    "czech_text": "3 000,00 Kč",
    "bare_integer": 50000,
    "float": 500.0,
    "boolean": True,
    "list": [50000, "CZK"],
    "missing_currency": {"amount": 50000},
    "missing_amount": {"currency": "CZK"},
    "wrong_currency": {"amount": 50000, "currency": "EUR"},
    "extra_key": {"amount": 50000, "currency": "CZK", "value": 1},
    "string_amount": {"amount": "50000", "currency": "CZK"},
    "float_amount": {"amount": 500.5, "currency": "CZK"},
    "decimal_text_amount": {"amount": "500.00", "currency": "CZK"},
    "boolean_amount": {"amount": True, "currency": "CZK"},
}


def money(minor: int) -> dict[str, Any]:
    return {"amount": minor, "currency": "CZK"}


def client(user) -> APIClient:
    c = APIClient(raise_request_exception=False)
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return c


class Endpoint:
    """One money-taking call: its method, path, body with the amount in ``field`` and what it may have stored."""

    def __init__(
        self,
        name: str,
        method: str,
        path: str,
        body: Callable[[Any], dict[str, Any]],
        field: str,
        stored: Callable[[], int],
        ok_status: int,
        ok_amount: int = 50000,
        staff: bool = False,
    ):
        self.name, self.method, self.path, self.body, self.field = name, method, path, body, field
        self.stored, self.ok_status, self.ok_amount, self.staff = stored, ok_status, ok_amount, staff

    def call(self, c: APIClient, amount: Any):
        return getattr(c, self.method)(
            self.path, self.body(amount), format="json", HTTP_IDEMPOTENCY_KEY=f"money-{next(_keys)}"
        )


@pytest.fixture
def world(db):
    from tests.kit.wallet import fund, verified_bank

    with time_machine.travel(NOW, tick=False):
        player = make_player()
        method = verified_bank(player)
        fund(player, Money(10_000_00))
        yield {"player": player, "method": method, "staff": make_staff(role="finance")}


def endpoints(world: dict[str, Any]) -> list[Endpoint]:
    from complaints.models import Complaint
    from games.models import Round
    from limits.models import SelfLimit
    from wallet.models import BranchCash, Deposit, Withdrawal

    player, method = world["player"], world["method"]
    limit = SelfLimit.objects.filter(player=player, decided_at__isnull=False).count
    complaint = {"reason": "other", "description": "I want this back.", "event_at": NOW.isoformat()}
    return [
        Endpoint(
            "deposit",
            "post",
            "/api/v1/wallet/deposits",
            lambda a: {"method_id": method.pk, "amount": a},
            "amount",
            Deposit.objects.count,
            201,
        ),
        Endpoint(
            "withdrawal",
            "post",
            "/api/v1/wallet/withdrawals",
            lambda a: {"method_id": method.pk, "amount": a},
            "amount",
            Withdrawal.objects.count,
            201,
        ),
        Endpoint(
            "branch cash (staff)",
            "post",
            "/api/v1/wallet/staff/branch-cash",
            lambda a: {"player_id": player.pk, "direction": "in", "amount": a, "branch": "Praha 1"},
            "amount",
            BranchCash.objects.count,
            201,
            staff=True,
        ),
        *[
            Endpoint(
                f"self-limit {kind}",
                "put",
                f"/api/v1/limits/self-limits/technical/{kind}",
                lambda a: {"value": a},
                "value",
                limit,
                200,
            )
            for kind in ("daily_stake", "monthly_stake", "daily_loss", "monthly_loss")
        ],
        Endpoint(
            "complaint remedy",
            "post",
            "/api/v1/complaints",
            lambda a: {**complaint, "remedy_amount_requested": a},
            "remedy_amount_requested",
            Complaint.objects.count,
            201,
        ),
        Endpoint(
            "roulette bet",
            "post",
            "/api/v1/games/rounds",
            lambda a: {"game": "european_roulette", "bet": {"bets": [{"type": "red", "amount": a}]}},
            "bet.bets.0.amount",
            Round.objects.count,
            201,
            ok_amount=100,
        ),
        Endpoint(
            "kobushi coin value",
            "post",
            "/api/v1/games/rounds",
            lambda a: {"game": "kobushi", "bet": {"lines": 30, "coins": 1, "coin_value": a}},
            "bet.coin_value",
            Round.objects.count,
            201,
            ok_amount=1,
        ),
        Endpoint(
            "play-money bet",
            "post",
            "/api/v1/games/play-money/rounds",
            lambda a: {"game": "european_roulette", "bet": {"bets": [{"type": "red", "amount": a}]}},
            "bet.bets.0.amount",
            Round.objects.count,
            201,
            ok_amount=100,
        ),
    ]


def test_every_money_taking_endpoint_refuses_every_other_form_of_an_amount_with_one_code_and_stores_nothing(world):
    with time_machine.travel(NOW, tick=False) as clock:
        for endpoint in endpoints(world):
            c = client(world["staff"] if endpoint.staff else world["player"].user)
            before = (endpoint.stored(), IdempotencyRecord.objects.count(), AuditEvent.objects.count())
            for form, wrong in WRONG_FORMS.items():
                if endpoint.field == "value" and form == "bare_integer":
                    wrong = 500  # the review's trap on a money limit: {"value": 500}
                r = endpoint.call(c, wrong)
                assert r.status_code == 400, (endpoint.name, form, r.status_code, r.content[:300])
                error = r.json()["error"]
                assert error["code"] == INVALID_MONEY.code, (endpoint.name, form, error)
                assert error["details"]["field"] == endpoint.field, (endpoint.name, form, error["details"])
                assert error["details"]["expected"] == {
                    "amount": "JSON integer, minor units (haléře, 1/100 CZK)",
                    "currency": "CZK",
                }
                assert "haléř" in error["message_cs"] and "minor units (haléře)" in error["message_en"]
                assert (endpoint.stored(), IdempotencyRecord.objects.count(), AuditEvent.objects.count()) == before
            # the right shape is taken, and so is an amount sent back as an answer carries it ("formatted")
            r = endpoint.call(c, {**money(endpoint.ok_amount), "formatted": "ignored"})
            assert r.status_code == endpoint.ok_status, (endpoint.name, r.status_code, r.content[:400])
            assert endpoint.stored() > before[0], endpoint.name
            clock.shift(3)  # the next round is not too soon (GP §7(9))


def test_a_czk_string_on_a_money_self_limit_is_refused_not_stored_as_five_crowns(world):
    """The review's trap: ``{"value": "500"}`` was stored as 500 haléře, below the day's stakes; the
    player was locked out, and the correction counted as a loosening that waits 7 days (GP §6(4))."""
    from limits.models import SelfLimit

    c = client(world["player"].user)
    with time_machine.travel(NOW, tick=False):
        r = c.put("/api/v1/limits/self-limits/technical/daily_stake", {"value": "500"}, format="json")
        assert r.status_code == 400 and r.json()["error"]["code"] == INVALID_MONEY.code
        assert r.json()["error"]["details"]["field"] == "value"
        assert r.json()["error"]["details"]["problem"] == "a string instead of an amount object"
        assert not SelfLimit.objects.filter(player=world["player"], decided_at__isnull=False).exists()
        r = c.put("/api/v1/limits/self-limits/technical/daily_stake", {"value": money(50000)}, format="json")
        assert r.status_code == 200
        assert r.json()["value"] == {"amount": 50000, "currency": "CZK", "formatted": "500,00\xa0Kč"}
        assert r.json()["unit"] == "CZK_minor"


def test_limits_that_are_not_money_stay_json_integers_and_refuse_text_and_money_objects(world):
    c = client(world["player"].user)
    with time_machine.travel(NOW, tick=False):
        for wrong in ("60", 60.0, money(60), True):
            r = c.put("/api/v1/limits/self-limits/technical/daily_time", {"value": wrong}, format="json")
            assert r.status_code == 400 and r.json()["error"]["code"] == VALIDATION.code, wrong
        r = c.put("/api/v1/limits/self-limits/technical/daily_time", {"value": 60}, format="json")
        assert r.status_code == 200 and r.json()["value"] == 60 and r.json()["unit"] == "minutes"


def test_a_multipart_complaint_carries_its_remedy_amount_as_the_json_text_of_a_money_object(world):
    from complaints.models import Complaint

    c = client(world["player"].user)
    base = {"reason": "other", "description": "I want this back.", "event_at": NOW.isoformat()}
    with time_machine.travel(NOW, tick=False):
        r = c.post("/api/v1/complaints", {**base, "remedy_amount_requested": "500"}, format="multipart")
        assert r.status_code == 400 and r.json()["error"]["code"] == INVALID_MONEY.code
        assert not Complaint.objects.exists()
        r = c.post(
            "/api/v1/complaints",
            {**base, "remedy_amount_requested": '{"amount": 50000, "currency": "CZK"}'},
            format="multipart",
        )
        assert r.status_code == 201, r.content
        assert r.json()["remedy_amount_requested"]["amount"] == 50000
