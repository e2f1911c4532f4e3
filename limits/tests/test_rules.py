"""The pure rules (limits/rules.py) need no database; and the services never import the tasks (no cycle)."""

from __future__ import annotations

import pytest

from core.errors import DomainError
from core.money import Money
from limits import errors
from limits.kinds import KINDS, TECHNICAL
from limits.models import LimitType
from limits.rules import check_stake_grid, grid_floor, is_stricter_or_equal, validate_limit


def test_a_lower_value_is_stricter_except_for_the_pause_after_logout_where_longer_is_stricter():
    assert is_stricter_or_equal(LimitType.DAILY_STAKE, 100, 200)
    assert not is_stricter_or_equal(LimitType.DAILY_STAKE, 300, 200)
    assert is_stricter_or_equal(LimitType.PAUSE_AFTER_LOGOUT, 60, 30)
    assert not is_stricter_or_equal(LimitType.PAUSE_AFTER_LOGOUT, 10, 30)
    assert is_stricter_or_equal(LimitType.DAILY_TIME, 60, None)  # any limit is stricter than none
    assert not is_stricter_or_equal(LimitType.DAILY_TIME, None, 60)


def test_a_limit_value_is_checked_against_its_unit_and_range():
    assert validate_limit(LimitType.DAILY_LOSS, Money(5_000)) == 5_000
    assert validate_limit(LimitType.MONTHLY_LOGINS, None) is None
    with pytest.raises(DomainError) as not_money:
        validate_limit(LimitType.DAILY_TIME, Money(60))
    assert not_money.value.code == errors.INVALID_LIMIT_VALUE.code
    with pytest.raises(DomainError) as too_long:
        validate_limit(LimitType.DAILY_TIME, 24 * 60 + 1)
    assert too_long.value.details["maximum"] == 24 * 60
    with pytest.raises(DomainError) as unknown:
        validate_limit("weekly_stake", 1)
    assert unknown.value.code == errors.UNKNOWN_LIMIT.code


def test_the_stake_grid_rounds_down_to_a_step_and_caps_at_the_game_maximum():
    rules, grid = KINDS[TECHNICAL], (10, 10)  # GP §8(1): the published grid (0.10 CZK, step 0.10 CZK)
    assert grid_floor(12_345, rules, grid) == 12_340
    assert grid_floor(5, rules, grid) == 0
    assert grid_floor(12_345, rules, (20, 50)) == 12_320  # another grid: 0.20 + k x 0.50
    assert check_stake_grid(Money(1_000), Money(50_000), rules, grid) == 50_000
    with pytest.raises(DomainError) as above:
        check_stake_grid(Money(50_010), Money(50_000), rules, grid)
    assert above.value.details["max_stake_now"] == Money(50_000)
