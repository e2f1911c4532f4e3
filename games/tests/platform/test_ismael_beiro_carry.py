"""Ismael Beiro version 2 through the HTTP API: the machine's counters and bonuses carried from one round of a
player to the next (games.carry), what a refund and a void restore, play money apart from real money, a new
version paying out the carried money, the sixth upper bet, and what carrying costs in SQL statements (nothing
for the other games)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.audit import Actor
from core.rng import SeededRNG, use_rng
from core.sql import readable
from games.carry import CARRIED_ACCOUNT, carried_state
from games.engine import registry
from games.engine.games.ismael_beiro import DEFINITION_V2, IsmaelBeiro
from games.models import PlayerGameState, Round
from games.serializers import bet_to_api, money_bet_fields
from games.services import games_sync, round_refund, round_void_settled, rounds_expire_due
from games.tests.platform.test_ismael_beiro_e2e import (
    CODE,
    carried,
    chooser,
    engine_round,
    find_seed,
    game,
    kinds,
    play_api,
    recall_and_verify,
)
from games.tests.platform.testgames import FixedRNG
from tests.kit.clients import client_for
from tests.kit.games import approve_current_games
from tests.kit.platform import (
    balance,
    funded_player,
    ismael_beiro_version_2,  # noqa: F401  (a fixture of these tests)
    key,
    play_money,
    start,
)
from wallet.ledger import operator_account
from wallet.models import Entry

# version 2 (the player's holds, nudges and upper bet); version 3: test_ismael_beiro_v3_api.py
pytestmark = pytest.mark.usefixtures("ismael_beiro_version_2")


STAFF = Actor.system("tests")


def state_row(player: Any, play_money: bool = False) -> PlayerGameState:
    row = carried_state(player=player, game_code=CODE, play_money=play_money)
    assert row is not None
    return row


def carried_balance() -> int:
    """What the ledger holds for the players' carried states (the ``games_carried`` account)."""
    acc = operator_account(CARRIED_ACCOUNT)
    return sum(Entry.objects.filter(account=acc).values_list("amount", flat=True))


def leaves_counters(s: dict) -> bool:
    out = s.get("carry_out") or {}
    return bool(out.get("vertical_lines") or any(out.get("cumulative", [])))


def test_the_counters_one_round_leaves_are_where_the_next_round_starts_and_both_rounds_replay(clock):
    player = funded_player(1_000_000)
    c = client_for(player)
    make = chooser()
    bet = {"stake": 100}
    first_seed = find_seed(bet, make, lambda s: leaves_counters(s) and "hold" in kinds(s))
    first = recall_and_verify(c, play_api(c, first_seed, bet, make, resume_at="hold"))
    assert first.state["carry_in"] == game().fresh_carry()  # a new player's machine is empty
    row = state_row(player)
    assert row.state == first.state["carry_out"] and row.round_id == first.pk and row.game_version == 2
    clock.shift(3)
    # the second round starts from the first one's counters, and they change what it plays (8 lines at once)
    second_seed = find_seed(bet, make, lambda s: "change_game" in kinds(s), carry=row.state)
    second = recall_and_verify(c, play_api(c, second_seed, bet, make))
    assert second.state["carry_in"] == first.state["carry_out"]
    assert second.state == engine_round(second_seed, bet, make, first.state["carry_out"])
    assert second.state != engine_round(second_seed, bet, make) or not leaves_counters(first.state)
    assert carried(player) == second.state["carry_out"]
    assert balance(player) == 1_000_000 - 200 + first.win + second.win
    call_command("ledger_check")


def test_a_refunded_round_leaves_the_state_it_started_from_and_a_void_restores_it(clock):
    player = funded_player(1_000_000)
    c = client_for(player)
    make = chooser()
    bet = {"stake": 100}
    seed = find_seed(bet, make, leaves_counters)
    first = recall_and_verify(c, play_api(c, seed, bet, make))
    s1 = carried(player)
    clock.shift(3)
    # a round waiting for the player is refunded: it never wrote the state
    waiting = find_seed(bet, make, lambda s: "hold" in kinds(s), carry=s1)
    with use_rng(SeededRNG(waiting)):
        body = start(c, game=CODE, bet=bet).json()
    assert body["status"] == "in_progress" and body["state"]["carry_in"] == s1
    round_refund(round_id=body["id"], reason="stuck", actor=STAFF)
    assert carried(player) == s1 and state_row(player).round_id == first.pk
    clock.shift(3)
    # a settled round declared void (GP §3(6)) gives the state back as it found it
    seed3 = find_seed(bet, make, lambda s: s["carry_out"] != s1, carry=s1)
    third = recall_and_verify(c, play_api(c, seed3, bet, make))
    assert third.state["carry_in"] == s1 and carried(player) == third.state["carry_out"] != s1
    round_void_settled(round_id=third.pk, reason="placed by proxy", actor=STAFF)
    assert carried(player) == s1
    row = state_row(player)
    assert row.round_id is None and row.carried_value == game().carry_value(s1)
    clock.shift(3)
    fourth = recall_and_verify(c, play_api(c, seed3, bet, make))
    assert fourth.state["carry_in"] == s1 and fourth.state == third.state  # the same machine, the same round
    call_command("ledger_check")


def test_play_money_keeps_its_own_machine_apart_from_real_money(clock):
    player = funded_player(100_000)
    c = client_for(player)
    make = chooser()
    bet = {"stake": 100}
    seed = find_seed(bet, make, leaves_counters)
    real = recall_and_verify(c, play_api(c, seed, bet, make))
    clock.shift(3)
    with use_rng(SeededRNG(seed)):
        body = play_money(c, game=CODE, bet={"stake": 100, "auto_play": True}).json()
    assert body["status"] == "finished" and body["state"]["carry_in"] == game().fresh_carry()
    assert carried(player) == real.state["carry_out"]  # the real-money machine did not move
    fun = state_row(player, play_money=True)
    assert fun.state == body["state"]["carry_out"] and fun.carried_value == 0
    assert PlayerGameState.objects.filter(player=player).count() == 2


@pytest.fixture
def switched_off_cheapest_bet():
    """Test versions 3 and 4 of the game with the 1 CZK bet switched off (the operator's switch): a prize turned
    into bonuses can leave fewer bonuses than the cheapest upper game, and they are carried, as money."""
    made = []

    def register(version: int) -> IsmaelBeiro:
        d = copy.deepcopy(DEFINITION_V2)
        d["version"] = version
        d["bets"][0]["enabled"] = False
        g = registry.register(IsmaelBeiro(d))
        made.append(version)
        games_sync()
        approve_current_games()
        return g

    yield register
    versions = registry._GAMES[CODE]
    for v in made:
        versions.pop(v, None)


def test_carried_bonuses_are_money_in_the_ledger_and_a_new_version_pays_them_out(clock, switched_off_cheapest_bet):
    g3 = switched_off_cheapest_bet(3)
    player = funded_player(1_000_000)
    c = client_for(player)
    bet = {"stake": 500}
    make = chooser(risks=1)

    def carries_bonuses(s: dict) -> bool:
        return s["carry_out"]["bonuses"] > 0

    seed = next(s for s in range(60_000) if carries_bonuses(_engine(g3, s, bet, make)))
    first = recall_and_verify(c, play_api(c, seed, bet, make))
    left = first.state["carry_out"]["bonuses"]
    assert 0 < left < 5 and first.game_version == 3  # fewer than one 5 CZK upper game
    row = state_row(player)
    assert row.carried_value == left * 400 and carried_balance() == left * 400  # in the ledger, not only the JSON
    before = balance(player)
    call_command("ledger_check")
    clock.shift(3)
    g4 = switched_off_cheapest_bet(4)  # a new version: the old machine ends and its money is paid out
    loss = next(s for s in range(5_000) if _engine(g4, s, {"stake": 500, "auto_play": True}, make)["win"] == 0)
    with use_rng(SeededRNG(loss)):
        body = start(c, game=CODE, bet={"stake": 500, "auto_play": True}).json()
    assert body["status"] == "finished" and body["win"]["amount"] == 0
    assert body["state"]["carry_in"] == g4.fresh_carry()
    assert balance(player) == before - 500 + left * 400  # the carried bonuses' worth, paid to the balance
    row.refresh_from_db()
    assert row.game_version == 4 and row.state == body["state"]["carry_out"] and carried_balance() == 0
    assert c.get(f"/api/v1/games/rounds/{body['id']}/verify").json()["outcome"] == "match"
    call_command("ledger_check")


def _engine(g: IsmaelBeiro, seed: int, bet: dict, make: Any) -> dict:
    st = g.start_carried(g.validate_bet(bet), SeededRNG(seed), None)
    choose = make()
    while st["status"] == "awaiting_action":
        st = g.act(st, choose(st["pending"]), SeededRNG(seed + 1))
    return st


def test_the_sixth_upper_bet_is_played_from_the_top_bet_with_100_bonuses_within_the_round_cap(clock):
    player = funded_player(1_000_000)
    c = client_for(player)
    make = chooser(doubles=0)
    bet = {"stake": 5000}
    refused = start(c, game=CODE, bet={"stake": 10_000})  # an upper bet only: the lower game refuses it
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "game.ismael_beiro.unknown_stake"
    seed = find_seed(
        bet,
        make,
        lambda s: any(x.get("game") == "upper" and x.get("level") == 5 for x in s["steps"] if x["type"] == "spin"),
    )
    rnd = recall_and_verify(c, play_api(c, seed, bet, make))
    sixth = [x for x in rnd.state["steps"] if x["type"] == "spin" and x.get("level") == 5]
    assert sixth and all(x["stake"] == 10_000 and x["bonus_price"] == 100 for x in sixth)
    assert rnd.win <= 1000 * 5000  # the round's maximum prize, the platform's per-round cap


@pytest.mark.django_db(transaction=True)
def test_carrying_costs_ismael_beiro_two_statements_and_the_other_games_none(clock, settings):
    """A settled round of a game without carry-over reads and writes no carried state (its count is what
    test_round_cost pins); an Ismael Beiro round that settles at once pays one read and one upsert."""
    from accounts import terms
    from jackpots.levels import snapshot_clear

    settings.JACKPOTS_CONFIG_TTL_SECONDS = 3600
    settings.ACCOUNTS_TERMS_SNAPSHOT_SECONDS = 3600
    snapshot_clear()
    terms.snapshot_clear()
    player = funded_player(1_000_000)
    c = client_for(player)
    auto = {"stake": 100, "auto_play": True}
    g = game()
    losses = [
        s
        for s in range(400)
        if g.start(g.validate_bet(auto), SeededRNG(s))["win"] == 0
        and g.start(g.validate_bet(auto), SeededRNG(s))["carry_out"]["bonuses"] == 0
    ][:3]
    roulette = {"bets": [{"type": "red", "amount": 100}]}

    def counted(game_code: str, bet: dict, rng: Any) -> list[str]:
        clock.shift(3)
        with use_rng(rng), CaptureQueriesContext(connection) as ctx:
            r = c.post(
                "/api/v1/games/rounds",
                {"game": game_code, "bet": bet_to_api(bet, money_bet_fields(game_code))},
                format="json",
                HTTP_IDEMPOTENCY_KEY=key(),
            )
        assert r.status_code == 201 and r.json()["status"] == "finished" and r.json()["win"]["amount"] == 0, r.content
        return [readable(q["sql"]) for q in ctx.captured_queries]

    counted("european_roulette", roulette, FixedRNG(0))  # the day's first round creates its counter rows
    counted(CODE, auto, SeededRNG(losses[0]))  # the player's first Ismael Beiro round creates the state row
    other = counted("european_roulette", roulette, FixedRNG(0))  # pocket 0: red loses
    assert not [q for q in other if "games_playergamestate" in q]
    ib = counted(CODE, auto, SeededRNG(losses[1]))
    state_sql = [q for q in ib if "games_playergamestate" in q]
    assert len(state_sql) == 2 and state_sql[0].lstrip().startswith("SELECT") and "ON CONFLICT" in state_sql[1]
    assert len(ib) == len(other) + 2, "\n".join(ib)  # both lost: the same path but the carried state
    assert Round.objects.filter(player=player, game_code=CODE).count() == 2


def test_a_round_left_open_on_carried_state_is_finished_at_its_deadline_and_the_state_is_not_rewound(clock):
    """Game-integrity review M-4: a round that started from the carried state and was left waiting (here at a hold)
    is not voided at its deadline with that state given back (a free option on outcomes the player has seen): it is
    finished by its automatic choices, settled, and the state it leaves is what the next round starts from."""
    player = funded_player(1_000_000)
    c = client_for(player)
    make = chooser()
    bet = {"stake": 100}
    first = recall_and_verify(c, play_api(c, find_seed(bet, make, leaves_counters), bet, make))
    s1 = carried(player)
    assert leaves_counters(first.state) and state_row(player).round_id == first.pk
    clock.shift(3)
    waiting = find_seed(bet, make, lambda s: "hold" in kinds(s), carry=s1)
    with use_rng(SeededRNG(waiting)):
        body = start(c, game=CODE, bet=bet).json()
    assert body["status"] == "in_progress" and body["state"]["carry_in"] == s1
    rnd = Round.objects.get(pk=body["id"])
    clock.move_to(rnd.deadline)
    rounds_expire_due()
    rnd.refresh_from_db()
    assert rnd.status == "finished" and rnd.void_reason == "" and rnd.state["carry_in"] == s1
    row = state_row(player)
    assert row.round_id == rnd.pk and row.state == rnd.state["carry_out"]  # written by this round, not restored
    assert balance(player) == 1_000_000 - 200 + first.win + rnd.win
    v = c.get(f"/api/v1/games/rounds/{rnd.pk}/verify").json()
    assert v["outcome"] == "match", v
    call_command("ledger_check")
