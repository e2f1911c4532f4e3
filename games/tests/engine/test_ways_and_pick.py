"""The ways and pick feature modules (games/engine/ways.py, pick.py): 243 and uneven-height ways (3-4-5-4-3 = 720),
both ways, a wild counting twice, the exact expectation against a full enumeration, and pick boards whose result
does not depend on the choice."""

from __future__ import annotations

import itertools
from fractions import Fraction

from core.rng import SeededRNG
from games.engine import ReplayRNG, pick, slots, ways

EV = ways.WaysEvaluator({"A": {3: 2, 4: 5, 5: 10}, "B": {3: 1, 4: 2, 5: 4}}, {"W": 1, "D": 2})


def test_a_full_screen_of_one_symbol_pays_every_way_243_on_3x5_and_720_on_3_4_5_4_3():
    assert EV.evaluate([["A"] * 3] * 5) == [["A", 5, 243, 10 * 243, "ltr"]]
    uneven = [["A"] * h for h in (3, 4, 5, 4, 3)]
    assert EV.evaluate(uneven) == [["A", 5, 720, 10 * 720, "ltr"]]


def test_ways_stop_at_the_first_reel_without_the_symbol_and_a_double_wild_counts_twice():
    w = [["A", "B", "B"], ["W", "A", "C"], ["D", "C", "C"], ["C", "C", "C"], ["A", "A", "A"]]
    assert EV.evaluate(w) == [["A", 3, 1 * 2 * 2, 2 * 4, "ltr"], ["B", 3, 2 * 1 * 2, 1 * 4, "ltr"]]


def test_both_ways_reads_from_the_right_too_and_a_full_line_pays_once():
    w = [["C"], ["C"], ["A"], ["A"], ["A"]]
    assert EV.evaluate(w) == [] and EV.evaluate(w, both_ways=True) == [["A", 3, 1, 2, "rtl"]]
    assert EV.evaluate([["A"]] * 5, both_ways=True) == [["A", 5, 1, 10, "ltr"]]


def test_the_exact_expectation_equals_the_enumeration_of_every_window_with_uneven_heights_both_ways():
    strips = [
        ["A", "B", "C", "A"],
        ["W", "A", "B", "C", "C"],
        ["A", "D", "B"],
        ["B", "A", "C", "W"],
        ["A", "C", "B", "B"],
    ]
    heights = [1, 2, 3, 2, 1]
    for both in (False, True):
        total, n = 0, 0
        for stops in itertools.product(*[range(len(s)) for s in strips]):
            window = [slots.column(strips[j], stops[j], heights[j]) for j in range(5)]
            total += sum(x[3] for x in EV.evaluate(window, both_ways=both))
            n += 1
        assert ways.expected_pay(EV, strips, heights, both_ways=both) == Fraction(total, n)


def test_a_pick_board_reveals_the_same_items_in_the_same_order_whatever_is_picked():
    items = ["S", "S", 1, 2, 3, 5, 10]
    draws = []
    rec_rng = SeededRNG(4)
    for n in range(7, 1, -1):
        draws.append([n, rec_rng.randbelow(n)])
    order = pick.draw_reveal_order(ReplayRNG(draws), items)
    assert sorted(map(str, order)) == sorted(map(str, items))
    assert pick.draw_reveal_order(ReplayRNG(draws), items) == order  # the draws fix the order
    b1, b2 = pick.board(order, [0], 7), pick.board(order, [6], 7)
    assert b1[0] == b2[6] == order[0]  # the picked option shows the first item either way
    assert [x for i, x in enumerate(b1) if i] == [x for i, x in enumerate(b2) if i != 6] == order[1:]
