"""Shared slot machinery (games/engine/slots.py): line evaluation, wilds, exact expectations, draws, gamble."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from core.rng import SeededRNG
from games.engine import ActionError, BetError, ReplayRNG, slots
from games.errors import INVALID_BET

PAY = {
    "W": {3: 100, 4: 500, 5: 1000},
    "A": {3: 5, 4: 25, 5: 100},
    "B": {2: 2, 3: 10, 4: 40, 5: 200},
    "X": {3: 20, 4: 40, 5: 120},
}
EV = slots.LineEvaluator(PAY, {"W": {"SC"}})
EV_X = slots.LineEvaluator(PAY, {"W": {"SC"}, "X": {"W", "SC"}})  # X is an extra wild that may not replace W


def test_a_line_pays_its_highest_combination_read_from_the_left():
    assert EV.evaluate(("A", "A", "A", "B", "B")) == ("A", 3, 5)
    assert EV.evaluate(("B", "B", "A", "A", "A")) == ("B", 2, 2)  # only from reel 1
    assert EV.evaluate(("A", "A", "B", "A", "A")) is None
    assert EV.evaluate(("W", "W", "W", "A", "B")) == ("W", 3, 100)  # wild 3 (100) beats 4 A (25)
    assert EV.evaluate(("W", "A", "A", "A", "A")) == ("A", 5, 100)


def test_a_wild_substitutes_every_symbol_except_its_exclusions():
    assert EV.evaluate(("W", "B", "W", "B", "X")) == ("B", 4, 40)
    assert EV.evaluate(("SC", "W", "W", "W", "W")) is None  # a scatter is never substituted
    assert EV.evaluate(("W", "W", "SC", "A", "A")) is None  # W W pays nothing, the scatter breaks the line
    assert not EV.matches("W", "SC") and EV.matches("W", "A")


def test_a_line_made_only_of_substitutes_never_pays_as_a_symbol_that_is_not_on_it():
    # X substitutes A and B too, but "X X X" is three X (20), not three of the best symbol
    assert EV_X.evaluate(("X", "X", "X", "SC", "A")) == ("X", 3, 20)
    assert EV_X.evaluate(("X", "X", "X", "A", "B")) == ("A", 4, 25)


def test_an_extra_wild_that_may_not_replace_the_wild_breaks_a_run_of_wilds():
    assert EV_X.evaluate(("W", "W", "X", "X", "A")) == ("A", 5, 100)
    assert EV_X.evaluate(("W", "W", "W", "X", "SC")) == ("W", 3, 100)  # X does not continue the W run (X 4 = 40)
    assert EV_X.evaluate(("W", "W", "W", "X", "B")) == ("B", 5, 200)
    assert EV_X.evaluate(("X", "W", "X", "X", "B")) == ("B", 5, 200)


def test_both_ways_lines_also_pay_from_the_right_and_a_full_line_once():
    window = [["B"], ["B"], ["A"], ["A"], ["A"]]
    assert slots.line_wins(window, [[0] * 5], EV, both_ways=True) == [[1, "B", 2, 2, "ltr"], [1, "A", 3, 5, "rtl"]]
    assert slots.line_wins(window, [[0] * 5], EV) == [[1, "B", 2, 2, "ltr"]]
    full = [["A"]] * 5
    assert slots.line_wins(full, [[0] * 5], EV, both_ways=True) == [[1, "A", 5, 100, "ltr"]]
    assert slots.line_wins(full, [[0] * 5], EV) == [[1, "A", 5, 100, "ltr"]]


def test_only_the_active_lines_are_paid():
    window = [["A", "B"], ["A", "B"], ["A", "B"], ["C", "C"], ["C", "C"]]
    lines = [[0] * 5, [1] * 5]
    assert [w[0] for w in slots.line_wins(window, lines, EV)] == [1, 2]
    assert [w[0] for w in slots.line_wins(window, lines, EV, active=1)] == [1]


def test_the_numpy_lookup_table_equals_the_scalar_evaluator_on_every_sequence():
    alphabet = ["W", "A", "B", "X", "SC"]
    for ev in (EV, EV_X):
        lut = slots.build_line_lut_np(ev, alphabet, 5)
        assert (lut == slots.build_line_lut(ev, alphabet, 5)).all()
        for idx in itertools.product(range(5), repeat=5):
            w = ev.evaluate(tuple(alphabet[i] for i in idx))
            assert lut[idx] == (w[2] if w else 0)


def _brute_force_line(ev, strips):
    total = 0
    for combo in itertools.product(*strips):
        w = ev.evaluate(combo)
        total += w[2] if w else 0
    n = 1
    for s in strips:
        n *= len(s)
    return Fraction(total, n)


def test_the_exact_line_expectation_equals_brute_force_enumeration():
    rnd = random.Random(3)
    for _ in range(5):
        strips = [[rnd.choice(["W", "A", "B", "X", "SC"]) for _ in range(rnd.randint(3, 7))] for _ in range(5)]
        for ev in (EV, EV_X):
            dists = [slots.symbol_counts(s) for s in strips]
            assert slots.expected_line_multiplier(ev, dists) == _brute_force_line(ev, strips)
            import numpy as np

            alphabet = ["W", "A", "B", "X", "SC"]
            lut = slots.build_line_lut_np(ev, alphabet, 5)
            vecs = [np.array([d.get(a, 0) for a in alphabet]) for d in dists]
            den = 1
            for s in strips:
                den *= len(s)
            assert Fraction(slots.lut_expectation(lut, vecs), den) == _brute_force_line(ev, strips)


def test_scatter_count_probabilities_equal_enumeration_of_every_stop_combination():
    strips = [["SC", "A", "B", "A"], ["A", "SC", "A", "B", "B"], ["B", "A", "SC"]]
    got = slots.count_probabilities(strips, 3, "SC")
    counts: dict[int, int] = {}
    for stops in itertools.product(*(range(len(s)) for s in strips)):
        k = slots.count_symbols(slots.window_at(strips, stops, 3), "SC")
        counts[k] = counts.get(k, 0) + 1
    assert got == {k: Fraction(v, 4 * 5 * 3) for k, v in sorted(counts.items())}
    assert sum(got.values()) == 1


def test_windows_read_each_reel_from_its_stop_downwards_around_the_strip():
    assert slots.window_at([["A", "B", "C"], ["D", "E"]], [2, 1], 3) == [["C", "A", "B"], ["E", "D", "E"]]


def test_split_prize_gives_positive_parts_that_add_up_and_every_composition_occurs():
    seen = set()
    rng = SeededRNG(1)
    for _ in range(2000):
        parts = slots.split_prize(rng, 6, 3)
        assert len(parts) == 3 and sum(parts) == 6 and min(parts) >= 1
        seen.add(tuple(parts))
    assert len(seen) == 10  # C(5, 2) compositions of 6 into 3 positive parts
    assert slots.split_prize(rng, 2, 2) == [1, 1]
    with pytest.raises(ValueError):
        slots.split_prize(rng, 2, 3)


def test_weighted_and_range_draws_use_one_randbelow_each():
    table = [["a", 1], ["b", 3], ["c", 6]]
    assert [slots.draw_weighted(ReplayRNG([[10, v]]), table) for v in (0, 1, 3, 4, 9)] == ["a", "b", "b", "c", "c"]
    assert slots.draw_range(ReplayRNG([[16, 0]]), 5, 20) == 5 and slots.draw_range(ReplayRNG([[16, 15]]), 5, 20) == 20
    assert slots.weighted_mean([[2, 1], [4, 1]]) == 3


def test_the_gamble_outcome_is_drawn_first_and_the_guess_only_changes_the_card_shown():
    for draws in ([[2, 1], [2, 0]], [[2, 1], [2, 1]], [[2, 0], [2, 0]], [[2, 0], [2, 1]]):
        red = slots.gamble_draw(ReplayRNG(draws), "red")
        black = slots.gamble_draw(ReplayRNG(draws), "black")
        assert red["won"] == black["won"] == (draws[0][1] == 1)
        assert red["colour"] == ("red" if red["won"] else "black")
        assert black["colour"] == ("black" if black["won"] else "red")
        assert red["suit"] in slots.SUITS[red["colour"]]
    with pytest.raises(ActionError):
        slots.gamble_draw(ReplayRNG([[2, 1]]), "green")


def test_gamble_options_stop_at_the_gamble_count_and_at_the_max_win():
    both = [{"type": "gamble", "colour": "red"}, {"type": "gamble", "colour": "black"}, {"type": "collect"}]
    assert slots.gamble_options(100, 0, 5, 10_000) == both
    assert slots.gamble_options(100, 5, 5, 10_000) == [{"type": "collect"}]
    assert slots.gamble_options(5_001, 0, 5, 10_000) == [{"type": "collect"}]
    assert slots.gamble_options(5_000, 0, 5, 10_000) == both


def test_stake_checks_refuse_below_min_above_max_and_off_step_stakes_with_stable_codes():
    slots.check_stake(10, min_bet=10, max_bet=100_000)
    for total, code in ((5, "game.stake_below_min"), (100_010, "game.stake_above_max"), (15, "game.stake_step")):
        with pytest.raises(BetError) as e:
            slots.check_stake(total, min_bet=10, max_bet=100_000)
        assert e.value.code == code and e.value.message_cs and e.value.message_en != e.value.message_cs
    with pytest.raises(BetError) as e:
        slots.check_keys({"lines": 1, "x": 2}, ("lines",))
    assert e.value.code == INVALID_BET.code and e.value.details["fields"] == ["x"]


def test_criss_cross_lines_are_every_row_choice_once_with_the_given_lines_first():
    lines = slots.criss_cross_lines(3, 3, first=[[1, 1, 1], [0, 0, 0]])
    assert len(lines) == 27 and len({tuple(x) for x in lines}) == 27
    assert lines[:2] == [[1, 1, 1], [0, 0, 0]] and lines[2] == [0, 0, 1]
