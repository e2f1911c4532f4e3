"""The one game-definition layer (games.engine.definition): every shipped game takes its bet through one typed bet
model and states its catalogue entry as one typed CatalogueEntry; the bet models at their boundaries."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import Game, list_games
from games.engine.base import BetError
from games.engine.definition import (
    BetModel,
    CatalogueEntry,
    LevelCoins,
    LinesBetPerLine,
    LinesCoins,
    StakeChoice,
    TotalStake,
    bet_model_from_dict,
)
from games.engine.registry import _GAMES, _load
from games.errors import INVALID_BET


def _all_versions() -> list[Game]:
    _load()
    return [g for versions in _GAMES.values() for g in versions.values()]


def _money_values(bet: Any, keys: tuple[str, ...]) -> list[Any]:
    if isinstance(bet, dict):
        return [v for k, v in bet.items() if k in keys] + [
            x for k, v in bet.items() if k not in keys for x in _money_values(v, keys)
        ]
    if isinstance(bet, list):
        return [x for item in bet for x in _money_values(item, keys)]
    return []


@pytest.mark.parametrize("game", _all_versions(), ids=lambda g: f"{g.code}@{g.version}")
def test_every_game_is_defined_one_way(game: Game) -> None:
    assert isinstance(game.bet_model, BetModel)
    entry = game.catalogue_entry()
    assert isinstance(entry, CatalogueEntry) and entry.bet is game.bet_model
    # describe() is the catalogue entry; no game writes its own
    assert type(game).describe is Game.describe
    assert game.describe() == entry.as_json()
    d = game.describe()
    assert d["declared"]["min_bet"] == game.declared.min_bet == game.bet_model.min_bet
    assert d["declared"]["max_bet"] == game.declared.max_bet == game.bet_model.max_bet
    assert d["bet_options"]["money_fields"] == list(game.money_bet_fields) != []
    assert d["bet_example"] == d["default_bet"] == game.bet_model.default
    # the default bet is valid, and its money fields hold amounts in haléř
    bet = game.validate_bet(game.bet_model.default)
    assert game.declared.min_bet <= bet.total_stake <= game.declared.max_bet
    amounts = _money_values(bet.params, game.money_bet_fields)
    assert amounts and all(type(a) is int and a > 0 for a in amounts)


def test_shipped_games_take_every_bet_model_but_none_of_their_own() -> None:
    kinds = {type(g.bet_model).__name__ for g in _all_versions()}
    assert kinds == {"TotalStake", "LevelCoins", "LinesCoins", "LinesBetPerLine", "StakeChoice", "TableBets"}
    assert {g.code for g in list_games()} >= {"kobushi", "fruit_king", "ismael_beiro", "european_roulette"}


def _code(model: BetModel, params: dict[str, Any]) -> str:
    with pytest.raises(BetError) as e:
        model.validate(params)
    return e.value.code


def test_total_stake_at_its_limits_and_grid() -> None:
    m = bet_model_from_dict(
        {"model": "total", "min": 500, "max": 10_000, "step": 10, "unit": 10, "default": {"stake": 1000}}
    )
    assert isinstance(m, TotalStake) and m.default == {"stake": 1000}
    assert m.validate({"stake": 500}).total_stake == 500 and m.validate({"stake": 10_000}).total_stake == 10_000
    assert _code(m, {"stake": 490}) == "game.stake_below_min"
    assert _code(m, {"stake": 10_010}) == "game.stake_above_max"
    assert _code(m, {"stake": 505}) == "game.stake_step"
    assert _code(m, {"stake": True}) == "game.invalid_stake"
    assert _code(m, {"stake": 500, "x": 1}) == INVALID_BET.code
    assert m.pay_unit({"stake": 1000}) == 100


def test_level_coins_total_and_line_bet() -> None:
    m = bet_model_from_dict(
        {
            "model": "level",
            "coins_per_level": 20,
            "levels": [1, 2, 3],
            "coin_values": [1, 5],
            "default": {"level": 1, "coin_value": 5},
        }
    )
    assert isinstance(m, LevelCoins) and (m.min_bet, m.max_bet) == (20, 300)
    bet = m.validate({"level": 3, "coin_value": 5})
    assert bet.total_stake == 300 and m.pay_unit(bet.params) == 15
    assert _code(m, {"level": 4}) == "game.invalid_level"
    assert _code(m, {"coin_value": 2}) == "game.invalid_coin"


def test_lines_coins_bounds_and_the_extra_field_a_game_checks() -> None:
    m = bet_model_from_dict(
        {
            "model": "lines",
            "max_lines": 30,
            "max_coins": 5,
            "coin_values": [1, 10],
            "min": 10,
            "default": {"lines": 15, "coins": 5, "coin_value": 10},
        }
    )
    assert isinstance(m, LinesCoins) and (m.min_bet, m.max_bet) == (10, 1500)
    assert m.validate({"lines": 30, "coins": 5, "coin_value": 10}).total_stake == 1500
    assert _code(m, {"lines": 31}) == "game.invalid_lines"
    assert _code(m, {"coins": 0}) == "game.invalid_coins"
    assert _code(m, {"lines": 1, "coins": 1, "coin_value": 1}) == "game.stake_below_min"
    assert _code(m, {"progressive": False}) == INVALID_BET.code
    assert m.validate({"progressive": False}, extra=("progressive",)).params == m.default


def test_lines_bet_per_line_and_stake_choice() -> None:
    m = bet_model_from_dict(
        {
            "model": "lines_bet_per_line",
            "lines": [1, 5],
            "bet_per_line": [10, 20],
            "min": 10,
            "max": 100,
            "default": {"lines": 5, "bet_per_line": 10},
        }
    )
    assert isinstance(m, LinesBetPerLine) and m.validate({"lines": 5, "bet_per_line": 20}).total_stake == 100
    assert (
        _code(m, {"lines": 3}) == "game.invalid_lines" and _code(m, {"bet_per_line": 30}) == "game.invalid_bet_per_line"
    )
    c = StakeChoice(
        code="toy", stakes=(100, 200, 500), enabled=(True, False, True), default_stake=100, flags=("auto_play",)
    )
    assert (c.min_bet, c.max_bet) == (100, 500) and c.default == {"stake": 100, "auto_play": False}
    assert c.validate({"stake": 500, "auto_play": True}).params == {"stake": 500, "auto_play": True}
    assert _code(c, {"stake": 200}) == "game.toy.bet_disabled"
    assert _code(c, {"stake": 300}) == "game.toy.unknown_stake"
    assert _code(c, {"auto_play": 1}) == "game.toy.invalid_flag"


def test_an_unknown_bet_model_is_a_definition_error() -> None:
    with pytest.raises(ValueError, match="unknown bet model"):
        bet_model_from_dict({"model": "per_way"})


def test_a_version_lists_as_not_built_only_what_it_does_not_build() -> None:
    crystal = {g.version: g.describe()["follows"] for g in _all_versions() if g.code == "crystal_grid"}
    assert any("bonus game" in x for x in crystal[1]["not_built"])
    assert "not_built" not in crystal[2] and any("Bonus column" in x for x in crystal[2]["features"])
    for g in _all_versions():
        follows = g.describe().get("follows") or {}
        assert not set(follows.get("not_built", ())) & set(follows.get("features", ())), g.code


def test_the_api_converts_exactly_the_money_fields_each_game_version_declares() -> None:
    # the API reads each version's own declaration (games.serializers.money_bet_fields), not a list of key names:
    # its default bet goes out with exactly the declared keys as Money objects and comes back as the engine took it
    from games.serializers import bet_from_api, bet_to_api, money_bet_fields

    for g in _all_versions():
        money = money_bet_fields(g.code, g.version)
        assert money == set(g.money_bet_fields) and money, g.code
        assert money == set(g.describe()["bet_options"]["money_fields"]), g.code
        default = g.describe()["default_bet"]
        sent = bet_to_api(default, money, formatted=False)
        assert bet_from_api(sent, money) == default, g.code
        converted = {k for k, v in sent.items() if isinstance(v, dict)}
        assert converted <= money and (converted or "bets" in sent), (g.code, sent)
