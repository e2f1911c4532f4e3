"""GP §10(1)-(2): carried bonuses are the player's money held by the game. They are shown beside the balance
(``held_in_games`` of the wallet's overview) and paid out with the balance when the account's balance is settled:
at the closure (``closure_request``), a temporary account's cancellation or refund and an account closed for misuse
(one place: ``accounts.services.balance_handoff_attempt`` asks the ``carried_money_release`` hook first). While a
round still holds them the hand-off is refused ``game.carried_round_open`` and its sweeper retries after the
round ends."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from accounts.models import Player
from accounts.services import balance_handoffs_retry_due, closure_request
from core.audit import Actor
from core.models import AuditEvent
from core.rng import SeededRNG, use_rng
from games import errors
from games.tests.platform.test_ismael_beiro_carry import (  # noqa: F401  (switched_off_cheapest_bet: a fixture)
    _engine,
    carried_balance,
    state_row,
    switched_off_cheapest_bet,
)
from games.tests.platform.test_ismael_beiro_e2e import chooser, play_api, recall_and_verify
from tests.kit.clients import client_for
from tests.kit.platform import act, balance, funded_player, ismael_beiro_version_2, start  # noqa: F401
from tests.kit.wallet import verified_bank
from wallet.models import Payout

pytestmark = pytest.mark.usefixtures("ismael_beiro_version_2")

BET = {"stake": 500}


def _carrying_player(request):
    """A player whose real-money machine carries bonuses (fewer than one upper game): (player, client, value,
    the game version)."""
    g3 = request.getfixturevalue("switched_off_cheapest_bet")(3)
    player = funded_player(1_000_000)
    verified_bank(player)
    c = client_for(player)
    make = chooser(risks=1)
    seed = next(s for s in range(60_000) if _engine(g3, s, BET, make)["carry_out"]["bonuses"] > 0)
    rnd = recall_and_verify(c, play_api(c, seed, BET, make))
    value = rnd.state["carry_out"]["bonuses"] * 400
    assert value > 0 and state_row(player).carried_value == value == carried_balance()
    return player, c, value, g3


def test_the_wallet_overview_shows_the_carried_bonuses_as_money_held_by_the_games(clock, request):
    player, c, value, _ = _carrying_player(request)
    body = c.get("/api/v1/wallet/overview").json()
    assert (body["held_in_games"]["amount"], body["held_in_games"]["currency"]) == (value, "CZK")
    other = client_for(funded_player(1_000)).get("/api/v1/wallet/overview").json()
    assert other["held_in_games"]["amount"] == 0  # another player's machine is not theirs


def test_a_closure_pays_the_carried_bonuses_out_with_the_balance_and_ends_the_machine(
    clock, request, django_capture_on_commit_callbacks
):
    player, c, value, _ = _carrying_player(request)
    before = balance(player)
    with django_capture_on_commit_callbacks(execute=True):
        closure_request(player=player, method="transfer", actor=Actor.player(player))
    player.refresh_from_db()
    assert player.status == Player.Status.CLOSING and player.balance_handoff_at is not None
    payout = Payout.objects.get(player=player, kind=Payout.Kind.CLOSURE)
    assert payout.amount == before + value  # the balance and the carried bonuses, one payout
    row = state_row(player)
    assert row.carried_value == 0 and row.state == {} and carried_balance() == 0
    event = AuditEvent.objects.get(action="games.carry_released")
    assert event.details["paid_out"] == value
    assert c.get("/api/v1/wallet/overview").json()["held_in_games"]["amount"] == 0
    call_command("ledger_check")


def test_a_round_still_holding_the_bonuses_defers_the_hand_off_until_it_ends(
    clock, request, django_capture_on_commit_callbacks
):
    player, c, value, g3 = _carrying_player(request)
    clock.shift(3)
    carry = state_row(player).state
    seed = next(
        s
        for s in range(5_000)
        if g3.start_carried(g3.validate_bet(BET), SeededRNG(s), carry)["status"] == "awaiting_action"
    )
    with use_rng(SeededRNG(seed)):
        body = start(c, game="ismael_beiro", bet=BET).json()
    assert body["status"] == "in_progress"  # the round took the carried state with it
    with django_capture_on_commit_callbacks(execute=True):
        closure_request(player=player, method="transfer", actor=Actor.player(player))
    player.refresh_from_db()
    assert player.balance_handoff_at is None and player.balance_handoff_error == errors.CARRIED_ROUND_OPEN.code
    assert not Payout.objects.filter(player=player).exists() and state_row(player).carried_value == value
    assert balance_handoffs_retry_due() == 0  # still open: nothing paid, nothing paid twice
    choose = chooser(risks=1)()
    with use_rng(SeededRNG(seed)):
        while body["status"] == "in_progress":  # the player finishes the round (a closing account may)
            r = act(c, body["id"], choose(body["pending"]))
            assert r.status_code == 200, r.json()
            body = r.json()
    left, before = state_row(player).carried_value, balance(player)
    assert balance_handoffs_retry_due() == 1
    player.refresh_from_db()
    assert player.balance_handoff_at is not None and state_row(player).carried_value == 0 == carried_balance()
    assert Payout.objects.get(player=player, kind=Payout.Kind.CLOSURE).amount == before + left
    call_command("ledger_check")


def test_a_cancelled_temporary_account_gets_its_carried_bonuses_back_with_its_refund(
    clock, request, django_capture_on_commit_callbacks
):
    """GP §5(2)e with §10(1)-(2): the temporary account's refund is the balance and what its games carried."""
    g3 = request.getfixturevalue("switched_off_cheapest_bet")(3)
    player = funded_player(1_000_000, status="temporary")
    c = client_for(player)
    make = chooser(risks=1)
    seed = next(s for s in range(60_000) if _engine(g3, s, BET, make)["carry_out"]["bonuses"] > 0)
    rnd = recall_and_verify(c, play_api(c, seed, BET, make))
    value, before = rnd.state["carry_out"]["bonuses"] * 400, balance(player)
    with django_capture_on_commit_callbacks(execute=True):
        closure_request(player=player, method="transfer", actor=Actor.player(player))
    player.refresh_from_db()
    assert player.status == Player.Status.CLOSED and player.balance_handoff_at is not None
    assert Payout.objects.get(player=player, kind=Payout.Kind.TEMPORARY_REFUND).amount == before + value
    assert state_row(player).carried_value == 0 == carried_balance()
    call_command("ledger_check")
