"""Play money (no wallet, no limits) and the QA forced-outcome hook (play money only, off by default)."""

from __future__ import annotations

import pytest

from core.rng import use_rng
from games.errors import QA_FORCED_DISABLED, QA_FORCED_REAL_MONEY, ROUND_IN_PROGRESS
from games.models import Round
from games.tests.platform.testgames import FixedRNG
from tests.kit.clients import client_for
from tests.kit.platform import ROULETTE, act, balance, funded_player, play_money, rounds_count, start

PICK = "test_pick"


def _ledger_rows(player) -> int:
    """Every row the wallet app keeps for this player (to prove play money never touches the ledger)."""
    from django.apps import apps

    total = 0
    for model in apps.get_app_config("wallet").get_models():
        fields = {f.name for f in model._meta.get_fields()}
        if "player" in fields:
            total += model._default_manager.filter(player=player).count()
    return total


def test_a_play_money_round_never_touches_the_wallet_or_limits(clock):
    player = funded_player(10_000)
    c = client_for(player)
    rows = _ledger_rows(player)
    with use_rng(FixedRNG(1)):
        r = play_money(c)
    assert r.status_code == 201
    body = r.json()
    assert body["play_money"] is True and body["status"] == "finished" and body["win"]["amount"] == 200
    assert body["balance_before"] is None and body["balance_after"] is None
    assert balance(player) == 10_000 and _ledger_rows(player) == rows
    # No 2-second spacing and no real-money history for play money; it does not block real money either.
    assert play_money(c).status_code == 201
    assert c.get("/api/v1/games/rounds").json()["count"] == 0
    assert c.get("/api/v1/games/rounds?play_money=true").json()["count"] == 2
    assert start(c).status_code == 201


def test_a_play_money_interactive_round_is_resumed_and_finished_through_actions(clock):
    player = funded_player(0)
    c = client_for(player)
    with use_rng(FixedRNG(1, 2)):
        rid = play_money(c, game=PICK, bet={"stake": 1_000}).json()["id"]
        assert c.get("/api/v1/games/rounds/open?play_money=1").json()["round"]["id"] == rid
        assert c.get("/api/v1/games/rounds/open").json()["round"] is None
        assert play_money(c, game=PICK, bet={"stake": 1_000}).json()["error"]["code"] == ROUND_IN_PROGRESS.code
        act(c, rid, {"pick": 0})
        done = act(c, rid, {"pick": 0}).json()
    assert done["status"] == "finished" and done["win"]["amount"] == 3_000
    assert c.get(f"/api/v1/games/rounds/{rid}/verify").json()["outcome"] == "match"


def test_forced_outcomes_are_refused_in_play_money_while_the_setting_is_off(clock, settings):
    assert not getattr(settings, "GAMES_QA_FORCED_OUTCOMES", False)
    player = funded_player()
    c = client_for(player)
    r = play_money(c, forced_draws=[[37, 17]])
    assert r.status_code == 403 and r.json()["error"]["code"] == QA_FORCED_DISABLED.code
    assert rounds_count(player) == 0


def test_forced_outcomes_are_refused_with_real_money_even_when_the_setting_is_on(clock, settings):
    settings.GAMES_QA_FORCED_OUTCOMES = True
    player = funded_player(10_000)
    c = client_for(player)
    r = start(c, bet={"bets": [{"type": "straight", "numbers": [17], "amount": 100}]}, forced_draws=[[37, 17]])
    assert r.status_code == 403 and r.json()["error"]["code"] == QA_FORCED_REAL_MONEY.code
    assert rounds_count(player) == 0 and balance(player) == 10_000
    from core.audit import Actor
    from core.errors import DomainError
    from games.services import round_play

    with pytest.raises(DomainError) as exc:
        round_play(
            player=player,
            game_code=ROULETTE,
            bet={"bets": [{"type": "red", "amount": 100}]},
            idempotency_key="qa",
            actor=Actor.player(player),
            forced_draws=[[37, 1]],
        )
    assert exc.value.code == QA_FORCED_REAL_MONEY.code and balance(player) == 10_000


def test_forced_outcomes_in_play_money_decide_the_result_when_the_setting_is_on(clock, settings):
    settings.GAMES_QA_FORCED_OUTCOMES = True
    c = client_for(funded_player())
    r = play_money(c, bet={"bets": [{"type": "straight", "numbers": [17], "amount": 100}]}, forced_draws=[[37, 17]])
    assert r.status_code == 201
    body = r.json()
    assert body["forced_outcome"] is True and body["steps"][0]["number"] == 17 and body["win"]["amount"] == 3_600
    # An interactive round: forced draws are used across start and actions, then the platform RNG takes over.
    rid = play_money(c, game=PICK, bet={"stake": 100}, forced_draws=[[4, 3], [4, 2]]).json()["id"]
    act(c, rid, {"pick": 1})
    done = act(c, rid, {"pick": 2}).json()
    assert done["win"]["amount"] == 700 and done["draws"] == [[4, 3], [4, 2]]
    assert c.get(f"/api/v1/games/rounds/{rid}/verify").json()["verified"] is True


def test_forced_draws_that_do_not_fit_the_game_are_refused_and_nothing_is_kept(clock, settings):
    settings.GAMES_QA_FORCED_OUTCOMES = True
    player = funded_player()
    c = client_for(player)
    for draws in ([[10, 3]], [[37, 40]], [[0, 0]], [[37]]):
        r = play_money(c, forced_draws=draws)
        assert r.status_code in (400, 422), r.json()
    assert rounds_count(player) == 0
    assert Round.objects.filter(forced_outcome=True).count() == 0
