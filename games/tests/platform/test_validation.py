"""The input validators shared by services and selectors (games/validation.py), and the seam they keep: reads never
import writes (no database needed)."""

from __future__ import annotations

import pytest

from core.errors import DomainError
from games import errors
from games.validation import check_idempotency_key, check_request_json, valid_game_code, valid_round_id


def test_a_game_code_is_lower_case_letters_digits_and_underscores_up_to_60_characters():
    assert valid_game_code("kobushi") and valid_game_code("simply_the_best_27") and valid_game_code("a" * 60)
    for bad in ("", "a" * 61, "Kobushi", "ko-bushi", "ko bushi", "kobushi\x00", None, 7, ["kobushi"]):
        assert not valid_game_code(bad), bad


def test_a_round_id_outside_the_database_range_or_not_a_number_is_simply_not_found():
    assert valid_round_id(5) == 5 and valid_round_id("12") == 12 and valid_round_id(2**63 - 1) == 2**63 - 1
    for bad in (0, -1, 2**63, "abc", None, [1], "1.5"):
        with pytest.raises(DomainError) as e:
            valid_round_id(bad)
        assert e.value.code == errors.ROUND_NOT_FOUND.code


def test_an_idempotency_key_is_1_to_128_printable_characters():
    check_idempotency_key("k" * 128)
    for bad in ("", "k" * 129, "line\nbreak", None, 5):
        with pytest.raises(DomainError) as e:
            check_idempotency_key(bad)
        assert e.value.code == errors.IDEMPOTENCY_KEY_INVALID.code


def test_a_request_value_must_be_plain_json_without_nul_characters():
    check_request_json({"lines": 30, "coins": [1, 2], "name": "ok"}, errors.INVALID_BET)
    for bad in ({"x": float("nan")}, {"x": object()}, {"x": "a\x00b"}):
        with pytest.raises(DomainError) as e:
            check_request_json(bad, errors.INVALID_ACTION)
        assert e.value.code == errors.INVALID_ACTION.code
