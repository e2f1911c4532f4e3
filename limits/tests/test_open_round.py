"""GP §7(6): from placing a bet until it is settled no other stake; the marker is set by stake_placed and cleared
by stake_settled (or stake_voided when the stake is returned)."""

from __future__ import annotations

from datetime import timedelta

from core.money import Money
from limits import errors
from limits.models import OpenBet, PeriodTotal, SettledBet
from limits.services import stake_voided
from tests.kit.limits import caller_lock, settle, stake
from tests.kit.money import czk, prague
from tests.kit.refusals import refusal_of

T = prague(2025, 5, 5, 12)


def test_a_second_stake_is_refused_while_the_first_round_is_open(player):
    stake(player, "5", T)
    err = refusal_of(stake, player, "1", T + timedelta(seconds=5))
    assert err.code == errors.ROUND_IN_PROGRESS.code
    assert err.details["stake"] == czk(5)
    assert err.details["placed_at"] == T
    day = PeriodTotal.objects.get(player=player, period="day")
    assert (day.stakes_placed, day.bets_placed) == (500, 1)  # the refused stake counted nothing


def test_settling_the_round_clears_the_marker_and_the_next_stake_is_allowed(player):
    stake(player, "5", T)
    settle(player, "5", "2", T, T + timedelta(seconds=3))
    assert not OpenBet.objects.filter(player=player).exists()
    assert stake(player, "1", T + timedelta(seconds=4)).stake == czk(1)


def test_another_players_open_round_does_not_block(player, other_player):
    stake(player, "5", T)
    assert stake(other_player, "5", T).stake == czk(5)


def test_a_voided_round_clears_the_marker_and_takes_its_stake_out_of_the_counters(player):
    stake(player, "5", T)
    with caller_lock(player):
        bet = stake_voided(player=player, kind="technical", at=T + timedelta(days=90))
    assert bet is not None and bet.voided and bet.stake == 500
    assert not OpenBet.objects.filter(player=player).exists()
    day = PeriodTotal.objects.get(player=player, period="day")
    assert (day.stakes_placed, day.bets_placed, day.stakes_decided) == (0, 0, 0)
    with caller_lock(player):
        assert stake_voided(player=player, kind="technical", at=T + timedelta(days=90)) is None  # idempotent


def test_settlement_with_a_round_reference_is_idempotent(player):
    stake(player, "5", T)
    first = settle(player, "5", "8", T, T + timedelta(seconds=2), round_ref="r-1")
    again = settle(player, "5", "8", T, T + timedelta(seconds=2), round_ref="r-1")
    assert first.pk == again.pk
    assert SettledBet.objects.filter(player=player).count() == 1
    day = PeriodTotal.objects.get(player=player, period="day")
    assert (day.stakes_decided, day.wins_decided, day.bets_decided) == (500, 800, 1)


def test_a_settlement_without_a_stake_check_counts_the_stake_as_placed_at_its_start(player):
    settle(player, "7", "0", T, T + timedelta(seconds=2))
    day = PeriodTotal.objects.get(player=player, period="day")
    assert (day.stakes_placed, day.bets_placed, day.stakes_decided, day.bets_decided) == (700, 1, 700, 1)
    assert SettledBet.objects.get(player=player).placed_at == T


def test_a_settled_stake_different_from_the_checked_one_corrects_the_placement_counter(player):
    stake(player, "5", T)
    settle(player, "4", "0", T, T + timedelta(seconds=2))
    day = PeriodTotal.objects.get(player=player, period="day")
    assert (day.stakes_placed, day.bets_placed, day.stakes_decided) == (400, 1, 400)


def test_the_allowed_answer_tells_the_game_the_play_left_and_the_largest_stake(player):
    allowed = stake(player, "5", T)
    assert allowed.play_seconds_left == 120 * 60
    assert allowed.max_stake_now == Money(100_000)
