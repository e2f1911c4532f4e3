"""Every game offers a bet example in the request's shape, taken from its definition, and the API's money
convention round-trips to the engine's integer haléře (games.serializers)."""

from __future__ import annotations

import pytest

from core.api_money import INVALID_MONEY
from games.engine import registry
from games.serializers import api_bet_example, bet_from_api, bet_to_api, engine_bet_example, money_bet_fields

SHIPPED = [game.code for game in registry.list_games()]


@pytest.mark.parametrize("code", SHIPPED)
def test_every_shipped_game_has_a_bet_example_the_engine_takes_once_converted_from_the_api_shape(code):
    game = registry.get_game(code)
    example = api_bet_example(game)
    assert example, f"{code} declares no bet example (bet_example or default_bet_params)"
    assert "formatted" not in str(example)  # a request example carries no display text
    engine_bet = bet_from_api(example, money_bet_fields(code))
    assert engine_bet == engine_bet_example(game)
    bet = game.validate_bet(engine_bet)  # raises BetError if the example is not a valid bet
    assert bet.total_stake > 0


def test_amounts_in_a_bet_are_money_objects_at_any_depth_and_other_values_pass_as_sent():
    api = {
        "bets": [
            {"type": "red", "amount": {"amount": 100, "currency": "CZK"}},
            {"type": "straight", "numbers": [17], "amount": {"amount": 50, "currency": "CZK", "formatted": "0,50 Kč"}},
        ]
    }
    roulette, kobushi = money_bet_fields("european_roulette"), money_bet_fields("kobushi")
    assert roulette == {"amount"} and kobushi == {"coin_value"}
    assert bet_from_api(api, roulette) == {
        "bets": [{"type": "red", "amount": 100}, {"type": "straight", "numbers": [17], "amount": 50}]
    }
    assert bet_from_api(
        {"lines": 30, "coins": 2, "coin_value": {"amount": 10, "currency": "CZK"}, "progressive": True}, kobushi
    ) == {"lines": 30, "coins": 2, "coin_value": 10, "progressive": True}
    assert bet_to_api({"stake": 300, "auto_play": False}, {"stake"}) == {
        "stake": {"amount": 300, "currency": "CZK", "formatted": "3,00\xa0Kč"},
        "auto_play": False,
    }
    # a bet already in the API's shape is left as it is (a client sends back the last bet it got)
    assert bet_to_api(bet_to_api({"stake": 300}, {"stake"}), {"stake"}) == bet_to_api({"stake": 300}, {"stake"})


def test_a_key_is_an_amount_only_in_the_games_that_declare_it_so():
    """Money by the game's declaration, not by a key's name: a key that is an amount in one game is passed as sent
    in a game whose bet does not declare it money (and refused there by the game's own bet check if it is wrong)."""
    assert money_bet_fields("european_roulette") == {"amount"}
    bet = {"lines": 30, "coins": 1, "coin_value": {"amount": 10, "currency": "CZK"}, "stake": 5}
    assert bet_from_api(bet, money_bet_fields("kobushi")) == {"lines": 30, "coins": 1, "coin_value": 10, "stake": 5}
    assert bet_to_api({"stake": 5, "amount": 7}, money_bet_fields("european_roulette"), formatted=False) == {
        "stake": 5,
        "amount": {"amount": 7, "currency": "CZK"},
    }
    # every version of every shipped game is looked up by its own declaration; a code no game has declares none
    for versions in registry._GAMES.values():
        for game in versions.values():
            assert money_bet_fields(game.code, game.version) == set(game.money_bet_fields)
    assert money_bet_fields("no_such_game") == frozenset() and money_bet_fields(None) == frozenset()
    # a round of a version the engine no longer ships is shown with the game's newest version's money fields
    assert money_bet_fields("kobushi", 10_000) == {"coin_value"}


@pytest.mark.parametrize("wrong", [100, "1.00", 1.0, {"amount": 100}, {"amount": 100, "currency": "EUR"}])
def test_an_amount_of_a_bet_in_another_form_is_refused_naming_its_place(wrong):
    from core.errors import DomainError

    with pytest.raises(DomainError) as refused:
        bet_from_api(
            {
                "bets": [
                    {"type": "red", "amount": {"amount": 100, "currency": "CZK"}},
                    {"type": "black", "amount": wrong},
                ]
            },
            money_bet_fields("european_roulette"),
        )
    assert refused.value.code == INVALID_MONEY.code
    assert refused.value.details["field"] == "bet.bets.1.amount"
