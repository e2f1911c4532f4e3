"""GP §8(2)-(3): a game whose max win would exceed the platform's max win per round is offered with a lower
max bet, so that no win is ever capped and its declared RTP holds at every stake offered (GP §8(4))."""

from __future__ import annotations

import pytest

from games.engine import get_game
from games.services import games_sync, offered_figures
from limits.errors import STAKE_ABOVE_MAXIMUM
from tests.kit.clients import client_for
from tests.kit.platform import balance, funded_player, rounds_count, start


def test_kobushi_and_fruit_king_are_offered_up_to_the_stake_whose_max_win_fits_the_50000_czk_cap():
    for code in ("kobushi", "fruit_king"):
        f = offered_figures(get_game(code).declared)
        assert f["max_bet_lowered_for_max_win"] is True
        assert f["max_bet"] == 1_000 and f["max_win"] == 5_000_000  # 10 CZK x 5,000 = 50,000 CZK


def test_games_whose_max_win_fits_the_cap_keep_their_declared_max_bet():
    for code in ("european_roulette", "simply_the_best_27"):
        d = get_game(code).declared
        f = offered_figures(d)
        assert (f["max_bet"], f["max_win"], f["max_bet_lowered_for_max_win"]) == (d.max_bet, d.max_win, False)
        assert f["avg_hourly_loss"] == d.avg_hourly_loss


def test_a_higher_platform_cap_opens_higher_stakes(settings):
    settings.GP = {**settings.GP, "MAX_WIN_PER_ROUND": 50_000_000}  # 500,000 CZK (casino-type licence)
    f = offered_figures(get_game("kobushi").declared)
    assert f["max_bet"] == 10_000 and f["max_win"] == 50_000_000


def test_the_offered_average_hourly_loss_uses_the_offered_max_bet():
    f = offered_figures(get_game("kobushi").declared)
    # 10 CZK x (1 - 0.9689) x 1,800 rounds = 559.80 CZK
    assert f["avg_hourly_loss"] == 55_980


@pytest.mark.django_db
def test_the_catalogue_shows_the_offered_max_bet_and_max_win(clock):
    games_sync()
    c = client_for(funded_player(0))
    body = c.get("/api/v1/games/catalogue/kobushi").json()["game"]
    assert body["declared"]["max_bet"]["amount"] == 1_000 and body["declared"]["max_win"]["amount"] == 5_000_000
    assert body["description"]["platform_limits"]["engine_max_bet"] == 75_000


@pytest.mark.django_db
def test_a_kobushi_stake_above_the_offered_max_bet_is_refused_and_changes_nothing(clock):
    player = funded_player(100_000)
    c = client_for(player)
    r = start(c, game="kobushi", bet={"lines": 30, "coins": 5, "coin_value": 10})  # 15 CZK > 10 CZK
    assert r.status_code == 422, r.json()
    err = r.json()["error"]
    assert err["code"] == STAKE_ABOVE_MAXIMUM.code and err["details"]["game_maximum"]["amount"] == 1_000
    assert balance(player) == 100_000 and rounds_count(player) == 0
    clock.shift(3)
    ok = start(c, game="kobushi", bet={"lines": 20, "coins": 5, "coin_value": 10})  # exactly 10 CZK
    assert ok.status_code == 201, ok.json()
