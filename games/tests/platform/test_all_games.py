"""Every game the engine registry ships plays end to end through the API, settles exactly and replays."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from core.rng import SeededRNG, use_rng
from games.engine import list_games, par, registry
from games.models import Game, Round
from tests.kit.clients import client_for
from tests.kit.platform import act, balance, funded_player, start

SHIPPED = [g.code for g in list_games()]


@pytest.mark.parametrize("code", SHIPPED)
def test_every_shipped_game_is_in_the_catalogue_with_its_declared_figures(code):
    from games.services import offered_figures

    g = registry.get_game(code)
    row = Game.objects.get(code=code, current=True)
    offered = offered_figures(g.declared)  # GP §8(2): max bet lowered where the max win would pass the cap
    assert (row.version, row.rtp, row.max_bet, row.max_win) == (
        g.version,
        g.declared.rtp,
        offered["max_bet"],
        offered["max_win"],
    )
    assert row.max_bet <= g.declared.max_bet and row.max_win <= 5_000_000
    assert row.unfinished_deadline_days in (90, 180)  # GP §7(8)b


@pytest.mark.parametrize("code", SHIPPED)
def test_every_shipped_game_plays_settles_and_replays_through_the_api(code, clock):
    """20 rounds at the game's representative bet; interactive rounds are completed with the game's default
    action (as a player clicking the offered default would); money moves exactly by stakes and wins."""
    from games.services import offered_figures

    g = registry.get_game(code)
    bet = par.representative_bet_params(g)
    if g.validate_bet(bet).total_stake > offered_figures(g.declared)["max_bet"]:
        bet = g.describe()["default_bet"]  # the representative (max) bet is above what the platform offers
    player = funded_player(10_000_000)
    c = client_for(player)
    ids = []
    with use_rng(SeededRNG(20260302)):
        for _ in range(20):
            r = start(c, game=code, bet=bet)
            assert r.status_code == 201, r.json()
            rid = r.json()["id"]
            for _step in range(500):
                rnd = Round.objects.get(pk=rid)
                if rnd.status != "in_progress":
                    break
                assert r.json()["pending"] is not None
                r = act(c, rid, g.default_action(rnd.state))
                assert r.status_code == 200, r.json()
            ids.append(rid)
            clock.shift(2)
    rounds = list(Round.objects.filter(pk__in=ids))
    assert {r.status for r in rounds} == {"finished"}
    assert balance(player) == 10_000_000 - sum(r.stake for r in rounds) + sum(r.win for r in rounds)
    for rid in ids:
        v = c.get(f"/api/v1/games/rounds/{rid}/verify").json()
        assert v["verified"] is True and v["outcome"] == "match", v
    call_command("ledger_check")
