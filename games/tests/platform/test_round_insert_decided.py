"""A round settled at its start writes itself, its audit event and the limits' counters of its bet in ONE statement
(games/sql.py ROUND_INSERT_DECIDED, limits/sql.py DECIDED_NOW_CTES). The counters are still checked: a statement
that did not write two totals and one settled bet fails the round, and nothing of it stays (the stake, the round,
the counters)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from core.rng import use_rng
from games.models import Round
from games.services import path
from games.tests.platform.test_round_cost import (  # noqa: F401 - the jackpot snapshot fixture
    LOSS,
    ROULETTE_RED,
    WIN,
    _jackpot_snapshot,
    _limited_player,
    _round,
)
from limits.models import PeriodTotal, SettledBet
from limits.services import BetCounters
from tests.kit.clients import client_for
from tests.kit.games import api_bet
from tests.kit.platform import balance, key

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("outcome", ["loss", "win"])
def test_the_settled_round_and_its_counters_are_one_statement(clock, outcome):
    player = _limited_player()
    c = client_for(player)
    rng = LOSS if outcome == "loss" else WIN
    _round(c, clock, "european_roulette", ROULETTE_RED, rng)  # the day's first round creates its counter rows
    body, sql = _round(c, clock, "european_roulette", ROULETTE_RED, rng)
    writing = [q for q in sql if "INSERT INTO limits_settledbet" in q or "INSERT INTO games_round" in q]
    assert len(writing) == 1, "\n".join(sql)
    assert "INSERT INTO limits_periodtotal" in writing[0] and "UPDATE limits_playerkindstate" in writing[0]
    bet = SettledBet.objects.get(player=player, round_ref__endswith=f"{body['id']}:bet")
    assert (bet.stake, bet.win) == (100, body["win"]["amount"])
    day = PeriodTotal.objects.get(player=player, kind="technical", period=PeriodTotal.Period.DAY)
    assert (day.bets_placed, day.bets_decided, day.stakes_decided) == (2, 2, 200)


def test_counters_not_written_fail_the_round_and_nothing_of_it_stays(clock, monkeypatch, caplog):
    player = _limited_player()
    c = client_for(player)
    _round(c, clock, "european_roulette", ROULETTE_RED, LOSS)
    before = (balance(player), Round.objects.filter(player=player).count(), SettledBet.objects.count())
    real = path.stake_decided_now

    def missing_state_row(**kwargs: Any) -> BetCounters | None:
        decided = real(**kwargs)
        assert decided is not None  # the one-statement path, not the general one
        decided.params["state"] = -1  # no such state row: the statement writes the totals but not the state
        return decided

    monkeypatch.setattr(path, "stake_decided_now", missing_state_row)
    clock.shift(3)
    with use_rng(LOSS), caplog.at_level(logging.ERROR, logger="platform.errors"):
        r = c.post(
            "/api/v1/games/rounds",
            {"game": "european_roulette", "bet": api_bet(ROULETTE_RED)},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        )
    assert r.status_code == 500, r.content  # an internal failure (alarmed), not a refusal
    assert "limits counters for games:round:" in caplog.text and "not written: (None, None, None)" in caplog.text
    assert (balance(player), Round.objects.filter(player=player).count(), SettledBet.objects.count()) == before


def test_a_round_that_waits_for_the_player_writes_its_open_bet_with_its_insert(clock):
    from games.tests.platform.test_action_cost import FREE_SPINS_SEED, _kobushi_round
    from limits.models import OpenBet

    _, body, start = _kobushi_round(clock, FREE_SPINS_SEED)
    assert body["status"] == "in_progress"
    writing = [q for q in start if "INSERT INTO limits_openbet" in q or "INSERT INTO games_round" in q]
    assert len(writing) == 1, "\n".join(start)
    assert "INSERT INTO limits_periodtotal" in writing[0] and "UPDATE limits_playerkindstate" in writing[0]
    bet = OpenBet.objects.get(round_ref__endswith=f"{body['id']}:bet")
    assert bet.stake == Round.objects.get(pk=body["id"]).stake
