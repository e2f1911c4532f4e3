"""The token statement (``accounts/sql.py``) reads the columns API requests use and defers the rest: the hot
endpoints must never load one of its deferred fields, each such load being a statement of its own on every request.

A round's start, a player action, the balance and the wallet's, limits' and account's endpoints a playing client
calls are made here through the API with a login session's token (the session path of the authentication too);
``accounts.tests.deferred_loads.recording`` collects every deferred-field load of the token, user, session and
player. A field added to a hot path's reads (``accounts.selectors.betting_refusal`` on every stake, GP §3(5), §4,
§5; ``money_movement_refusal`` on deposits and withdrawals) without adding it to the statement fails here, naming
the field and the code that read it."""

from __future__ import annotations

from typing import Any

import pytest
import time_machine

from accounts.tests.deferred_loads import recording
from core.rng import SeededRNG, use_rng
from games.tests.platform.test_action_cost import FREE_SPINS_SEED
from games.tests.platform.test_round_cost import (  # noqa: F401 - the jackpot snapshot fixture
    KOBUSHI_BET,
    LOSS,
    ROULETTE_RED,
    _jackpot_snapshot,
    _limited_player,
)
from tests.kit.accounts import login_session_for
from tests.kit.clients import client_for
from tests.kit.games import api_bet
from tests.kit.platform import (
    START,
    key,
    test_games,  # noqa: F401  (autouse: the shipped games synced and approved)
)
from tests.kit.wallet import verified_bank

pytestmark = pytest.mark.django_db(transaction=True)

MONEY_100 = {"amount": 100_00, "currency": "CZK"}


@pytest.fixture
def clock() -> Any:
    """A frozen clock (``clock.shift(seconds)`` moves it), as the games platform tests use."""
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def test_the_hot_endpoints_load_no_deferred_field_of_the_token_user_session_or_player(clock: Any) -> None:
    player = _limited_player()
    method = verified_bank(player)
    _, raw = login_session_for(player)
    c = client_for(key=raw)
    answers = []
    with recording() as loads:
        for game, bet, rng in (("european_roulette", ROULETTE_RED, LOSS), ("kobushi", KOBUSHI_BET, None)):
            clock.shift(3)  # GP §7(9): 2 s between rounds
            with use_rng(rng or SeededRNG(FREE_SPINS_SEED)):
                r = c.post(
                    "/api/v1/games/rounds",
                    {"game": game, "bet": api_bet(bet)},
                    format="json",
                    HTTP_IDEMPOTENCY_KEY=key(),
                )
            answers.append((game, r.status_code, r.json()))
        kobushi = answers[-1][2]
        assert kobushi["status"] == "in_progress", kobushi  # free spins: the player's action follows
        clock.shift(1)
        with use_rng(SeededRNG(FREE_SPINS_SEED * 1000)):
            r = c.post(
                f"/api/v1/games/rounds/{kobushi['id']}/actions",
                {"action": kobushi["pending"]["options"][0]},
                format="json",
                HTTP_IDEMPOTENCY_KEY=key(),
            )
        answers.append(("action", r.status_code, r.json()))
        for path in (
            "/api/v1/wallet/overview",
            "/api/v1/wallet/statement",
            "/api/v1/wallet/holds",
            "/api/v1/wallet/deductions",
            "/api/v1/wallet/payouts",
            "/api/v1/wallet/deposits",
            "/api/v1/wallet/withdrawals",
            "/api/v1/wallet/payment-methods",
            "/api/v1/games/rounds",
            "/api/v1/games/rounds/open",
            f"/api/v1/games/rounds/{kobushi['id']}",
            "/api/v1/games/catalogue",
            "/api/v1/limits/play-status",
            "/api/v1/limits/self-limits",
            "/api/v1/accounts/me",
        ):
            r = c.get(path)
            answers.append((path, r.status_code, r.content[:300]))
        for path in ("/api/v1/wallet/deposits", "/api/v1/wallet/withdrawals"):
            r = c.post(path, {"method_id": method.pk, "amount": MONEY_100}, format="json", HTTP_IDEMPOTENCY_KEY=key())
            answers.append((path, r.status_code, r.json()))
    assert [a for a in answers if a[1] >= 300] == [], answers
    assert loads == [], "deferred fields of the token statement loaded on a hot endpoint (model, field, reader):\n" + (
        "\n".join(map(str, loads))
    )
