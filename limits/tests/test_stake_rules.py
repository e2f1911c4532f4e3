"""GP §8(1)-(3): stake per round between 0.10 and 1,000 CZK in steps of 0.10, the game's own max bet, the win
cap; every refusal is recorded for staff and changes nothing."""

from __future__ import annotations

import pytest

from core.money import Money
from limits import errors
from limits.models import MinuteBucket, OpenBet, PeriodTotal
from limits.services import max_win_per_round
from tests.kit.limits import caller_lock, refusal_log_db, refusal_rows, stake
from tests.kit.money import czk, prague
from tests.kit.refusals import refusal_of

T = prague(2025, 5, 5, 12)


def nothing_counted(player):
    return (
        not PeriodTotal.objects.filter(player=player).exists()
        and not OpenBet.objects.filter(player=player).exists()
        and not MinuteBucket.objects.filter(player=player).exists()
    )


@pytest.mark.parametrize("amount", ["0.10", "0.20", "12.30", "999.90", "1000"])
def test_stakes_on_the_grid_from_ten_haler_to_a_thousand_crowns_are_allowed(player, amount):
    allowed = stake(player, amount, T)
    assert allowed.stake == czk(amount)
    assert OpenBet.objects.get(player=player).stake == czk(amount).amount


def test_a_stake_below_ten_haler_is_refused_naming_the_minimum(player):
    err = refusal_of(stake, player, "0.09", T)
    assert err.code == errors.STAKE_BELOW_MINIMUM.code
    assert err.details["minimum"] == Money(10)
    assert nothing_counted(player)


def test_a_stake_off_the_ten_haler_steps_is_refused_with_the_nearest_lower_stake(player):
    err = refusal_of(stake, player, "1.15", T)
    assert err.code == errors.STAKE_NOT_IN_STEPS.code
    assert err.details["nearest_lower"] == czk("1.10")
    assert err.details["step"] == czk("0.10")
    assert nothing_counted(player)


def test_1000_czk_is_allowed_and_1000_10_czk_is_refused(player, other_player):
    assert stake(player, "1000.00", T).stake == czk(1000)
    err = refusal_of(stake, other_player, "1000.10", T)
    assert err.code == errors.STAKE_ABOVE_MAXIMUM.code
    assert err.details["maximum"] == czk(1000)
    assert err.details["max_stake_now"] == czk(1000)
    assert nothing_counted(other_player)


def test_the_games_own_max_bet_lowers_the_cap(player):
    assert stake(player, "200", T, game_max="200").stake == czk(200)
    from limits.services import stake_settled

    with caller_lock(player):
        stake_settled(player=player, kind="technical", stake=czk(200), win=czk(0), started_at=T, settled_at=T)
    err = refusal_of(stake, player, "200.10", T, game_max="200")
    assert err.code == errors.STAKE_ABOVE_MAXIMUM.code
    assert err.details["game_maximum"] == czk(200)
    assert err.details["plan_maximum"] == czk(1000)


def test_a_game_max_bet_above_the_plan_does_not_lift_the_plan_cap(player):
    err = refusal_of(stake, player, "1500", T, game_max="5000")
    assert err.code == errors.STAKE_ABOVE_MAXIMUM.code
    assert err.details["maximum"] == czk(1000)


@refusal_log_db
def test_every_refusal_is_recorded_with_code_details_and_time_and_survives_the_callers_rollback(player):
    refusal_of(stake, player, "1000.10", T)  # the caller's transaction rolled back with the error
    row = refusal_rows().get(player_id=player.pk)
    assert row.code == errors.STAKE_ABOVE_MAXIMUM.code
    assert row.stake == czk("1000.10").amount
    assert row.kind == "technical" and row.game_code == "test_slot"
    assert row.refused_at == T
    assert row.details["maximum"]["amount"] == 100_000


def test_a_refusal_whose_log_line_cannot_be_written_is_still_raised(player, caplog):
    # this test does not allow the refusal_log alias: writing the row fails, the refusal stands
    err = refusal_of(stake, player, "1000.10", T)
    assert err.code == errors.STAKE_ABOVE_MAXIMUM.code
    assert "could not record stake refusal limits.stake_above_maximum" in caplog.text
    assert nothing_counted(player)


@refusal_log_db
def test_a_refusal_by_account_state_comes_from_accounts_and_is_recorded(db):
    from tests.kit.accounts import make_player

    suspended = make_player(status="suspended")
    err = refusal_of(stake, suspended, "1", T)
    assert err.code.startswith("accounts.")
    assert refusal_rows().filter(player_id=suspended.pk, code=err.code).exists()
    assert nothing_counted(suspended)


def test_an_unknown_kind_of_gambling_is_refused(player):
    err = refusal_of(stake, player, "1", T, kind="lottery")
    assert err.code == errors.UNKNOWN_KIND.code


def test_the_max_win_per_round_is_the_game_plans_and_follows_the_setting(settings):
    """GP §8(3): what games caps a round's win with (``games.services`` credits at most this, ``win_capped`` records
    the cut: games/tests/platform/test_rounds_api.py)."""
    assert max_win_per_round() == czk("50000")
    settings.GP = {**settings.GP, "MAX_WIN_PER_ROUND": 100_000}
    assert max_win_per_round() == czk("1000")
