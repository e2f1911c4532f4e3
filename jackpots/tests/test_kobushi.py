"""Kobushi's progressives (seed 000 §9) through the round API, as two new players at maximum bet would meet them.

Tests inject the platform RNG (core.rng.use_rng) with seeds found by playing the pure engine, so that a round
reaches the pick bonus closed by a jackpot symbol; nothing in production can."""

from __future__ import annotations

from django.core.management import call_command

from core.rng import SeededRNG, use_rng
from games.models import Round
from games.tests.platform.test_slots_e2e import finish_round
from jackpots.models import MICRO, Award, Jackpot
from jackpots.services import jackpots_fold_all
from jackpots.tests.helpers import books
from tests.kit.clients import client_for
from tests.kit.platform import balance, funded_player, start

SUSHI_SEED, KOBUSHI_SEED = 1414, 66736  # a pick bonus closed by the Sushi / Kobushi jackpot symbol
LOSING_SEED = 0


def _bet(coin_value: int, lines: int = 30, coins: int = 5) -> dict:
    return {"lines": lines, "coins": coins, "coin_value": coin_value}


def _pool(level: str) -> Jackpot:
    return Jackpot.objects.get(code=f"kobushi-{level}")


def _play(c, clock, seed, bet):
    clock.shift(3)
    with use_rng(SeededRNG(seed)):
        r = start(c, game="kobushi", bet=bet)
        assert r.status_code == 201, r.json()
        body = r.json()
        if body["status"] == "in_progress":
            body = finish_round(c, body["id"])
    return body


def _books_hold(level):
    jackpots_fold_all()
    b = books(f"kobushi-{level}")
    assert b["ledger"] == b["ledger_expected"] and b["value_micro"] == b["growth_micro"]
    assert b["log_folded_micro"] == b["contributed_micro"]


def test_the_pools_start_at_their_seeds_kept_at_the_largest_coin():
    """Seed 000 §9 table: Sushi 5,000 and Kobushi 25,000 coin values; the pool is kept at the largest coin (5 CZK)."""
    assert _pool("sushi").amount_micro == 5_000 * 500 * MICRO and _pool("sushi").status == "running"
    assert _pool("kobushi").amount_micro == 25_000 * 500 * MICRO


def test_two_players_at_max_bet_one_hits_the_sushi_jackpot_in_the_pick_bonus_and_is_credited(clock):
    a, b = funded_player(1_000_000), funded_player(1_000_000)
    ca, cb = client_for(a), client_for(b)
    for _ in range(3):  # player A: three ordinary spins at max bet, 0.25 % of 7.50 CZK to each pool
        _play(ca, clock, LOSING_SEED, _bet(5))
    jackpots_fold_all()
    before = _pool("sushi").amount_micro
    assert before == 2_500_000 * MICRO + 3 * 1_875_000  # the seed + 0.25 % of three 7.50 CZK stakes
    body = _play(cb, clock, SUSHI_SEED, _bet(5))
    rnd = Round.objects.get(pk=body["id"])
    [award] = Award.objects.filter(round_id=rnd.pk)
    # the pool (kept at the 5 CZK coin, B's own stake share included) x 0.05 CZK / 5 CZK
    assert award.jackpot.code == "kobushi-sushi" and award.coin_value == 5 and award.event_key.startswith("event:")
    assert award.amount == (before + 750 * 2_500) * 5 // (500 * MICRO) == 25_000
    assert award.status == "paid" and award.paid == award.amount and rnd.jackpot_win == award.amount
    assert rnd.win == rnd.win_engine + award.amount and body["jackpot_win"]["amount"] == award.amount
    assert balance(b) == 1_000_000 - 750 + rnd.win
    assert [e["type"] for e in rnd.jackpot_events] == ["kobushi_progressive", "jackpot_award"]
    # the rest of the pool stays for the next winner; the house tops up the seed at the winner's coin (5,000 x 5)
    after = _pool("sushi")
    assert after.amount_micro == before + 750 * 2_500 - award.amount * MICRO + 25_000 * MICRO
    assert after.generation == 1
    assert not Award.objects.filter(player_id=a.pk).exists()
    _books_hold("sushi")
    call_command("ledger_check")
    call_command("jackpot_check")


def test_two_winners_between_refreshes_the_second_gets_the_seed_and_what_came_in_since(clock, settings):
    """Seed 000 §9: the first winner gets the full amount, the next the seed plus the bets' share since."""
    settings.GP = {**settings.GP, "MAX_WIN_PER_ROUND": 400_000_000}  # room for a 5 CZK coin (750 CZK stake)
    a, b = funded_player(20_000_000), funded_player(20_000_000)
    ca, cb = client_for(a), client_for(b)
    full = _pool("sushi").amount_micro + 75_000 * 2_500  # A's own stake share is in before A's win
    body_a = _play(ca, clock, SUSHI_SEED, _bet(500))
    award_a = Award.objects.get(round_id=body_a["id"])
    assert award_a.amount == full // MICRO == 2_500_187  # seed 25,000 CZK + 0.25 % of 750 CZK (187.5 haléře)
    body_b = _play(cb, clock, SUSHI_SEED, _bet(500))
    award_b = Award.objects.get(round_id=body_b["id"])
    # the reset pool: the seed (5,000 x 5 CZK) + the half haléř left + B's stake share placed after A's win
    assert award_b.amount == (2_500_000 * MICRO + full % MICRO + 75_000 * 2_500) // MICRO == 2_500_188
    assert (award_a.generation, award_b.generation) == (0, 1)
    _books_hold("sushi")
    call_command("ledger_check")
    call_command("jackpot_check")


def test_below_max_coins_or_lines_a_bet_contributes_but_cannot_win(clock):
    """Seed 000 §9: won only at the maximum coins and lines; every bet contributes."""
    player = funded_player(1_000_000)
    c = client_for(player)
    before = _pool("kobushi").amount_micro
    body = _play(c, clock, SUSHI_SEED, _bet(5, lines=28))
    jackpots_fold_all()
    assert _pool("kobushi").amount_micro == before + 5 * 5 * 28 * 2_500
    assert not any(e["type"] == "kobushi_progressive" for e in body["jackpot_events"])
    assert not Award.objects.exists()


def test_the_kobushi_jackpot_and_the_round_are_recalled_with_the_award(clock):
    player = funded_player(1_000_000)
    c = client_for(player)
    body = _play(c, clock, KOBUSHI_SEED, _bet(5))
    [award] = Award.objects.filter(round_id=body["id"])
    assert award.jackpot.code == "kobushi-kobushi" and award.amount == _pool_value_at_win(award) * 5 // 500
    recall = c.get(f"/api/v1/games/rounds/{body['id']}").json()
    events = [e for e in recall["jackpot_events"] if e["type"] == "jackpot_award"]
    assert events == [
        {
            "type": "jackpot_award",
            "jackpot": "kobushi-kobushi",
            "level": "kobushi",
            "award_id": award.pk,
            "amount": award.amount,
            "event": award.event_key,
            "paid": award.amount,
            "returned_to_pool": 0,
        }
    ]
    assert c.get(f"/api/v1/games/rounds/{body['id']}/verify").json()["outcome"] == "match"
    _books_hold("kobushi")


def _pool_value_at_win(award: Award) -> int:
    return award.pool_value
