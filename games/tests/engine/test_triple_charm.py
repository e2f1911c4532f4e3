"""Triple Charm (games/engine/games/triple_charm.py): wild x5 / x25, stacked wilds, HAT scatter, 1-5 lines, the exact
RTP of every window and the fast simulator."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from core.rng import SeededRNG
from games.engine import BetError, play, slots
from games.engine.games import triple_charm as tc

G = tc.TRIPLE_CHARM
BET = G.validate_bet({"lines": 5, "coins": 1, "coin_value": 10})


def window(*rows):
    return [[rows[r][j] for r in range(3)] for j in range(3)]


def test_one_wild_multiplies_a_combination_by_5_two_by_25_and_three_wilds_pay_their_own_100():
    def middle(a, b, c):
        return G.line_wins(window(["BLANK"] * 3, [a, b, c], ["BLANK"] * 3), 1)

    assert middle("SEVEN", "SEVEN", "SEVEN") == [[1, "SEVEN", 3, 40, 0]]
    assert middle("SEVEN", "WILD", "SEVEN") == [[1, "SEVEN", 3, 40 * 5, 1]]
    assert middle("WILD", "SEVEN", "WILD") == [[1, "SEVEN", 3, 40 * 25, 2]]
    assert middle("WILD", "WILD", "WILD") == [[1, "WILD", 3, 100, 0]]
    assert middle("WILD", "WILD", "HAT") == [] and middle("CHERRY", "WILD", "PLUM") == []


def test_two_hats_anywhere_pay_2_and_three_25_times_the_total_bet_beside_the_line_wins():
    st = G.start(BET, slots_replay([lambda c: c.count("HAT") == 1] * 3))
    step = st["steps"][0]
    assert step["scatter"] == {"count": 3, "win": 25 * 50}
    assert st["win"] == step["win"] == 25 * 50 + sum(w[3] for w in step["line_wins"])
    two = G.start(BET, slots_replay([lambda c: "HAT" in c, lambda c: "HAT" in c, lambda c: "HAT" not in c]))
    assert two["steps"][0]["scatter"] == {"count": 2, "win": 2 * 50}


def slots_replay(preds):
    from games.engine import ReplayRNG

    stops = [next(i for i in range(len(s)) if p(slots.column(s, i, 3))) for s, p in zip(G.strips, preds)]
    return ReplayRNG([[len(s), i] for s, i in zip(G.strips, stops)])


def test_the_wild_comes_in_stacks_of_three_on_every_reel():
    for strip in G.strips:
        i = strip.index("WILD")
        assert strip[i : i + 3] == ["WILD"] * 3 and strip.count("WILD") == 3


def test_version_1_returns_the_declared_95_42_percent_exactly_for_every_number_of_lines():
    v1 = tc.TRIPLE_CHARM_V1
    assert v1.declared.rtp == Decimal("95.42") and v1.version == 1
    for lines in range(1, 6):
        total = sum(v1.exact_rtp(v1.validate_bet({"lines": lines, "coins": 2, "coin_value": 20})).values())
        assert abs(100 * total - Fraction("95.42")) <= Fraction(5, 1000), (lines, float(100 * total))


def test_version_2_returns_the_catalogues_95_00_percent_at_one_line_and_95_42_percent_with_more_exactly():
    """The catalogue (1. 5x Magic): 95.00 % with one line, 95.42 % with all lines; the HAT's one-line pays
    (0.3 x and 20 x the total bet) make the difference, every window enumerated."""
    assert G.version == 2 and G.declared.rtp == Decimal("95.42")
    one = sum(G.exact_rtp(G.validate_bet({"lines": 1, "coins": 2, "coin_value": 20})).values())
    assert abs(100 * one - Fraction("95.00")) <= Fraction(5, 1000), float(100 * one)
    assert float(100 * one) == pytest.approx(95.0016, abs=1e-4)
    for lines in range(2, 6):
        total = sum(G.exact_rtp(G.validate_bet({"lines": lines, "coins": 2, "coin_value": 20})).values())
        assert total == sum(
            tc.TRIPLE_CHARM_V1.exact_rtp(
                tc.TRIPLE_CHARM_V1.validate_bet({"lines": lines, "coins": 2, "coin_value": 20})
            ).values()
        )
        assert abs(100 * total - Fraction("95.42")) <= Fraction(5, 1000), (lines, float(100 * total))
    assert G.describe()["rtp_by_lines"] == {"1": "95.00", "2": "95.42", "3": "95.42", "4": "95.42", "5": "95.42"}


def test_at_one_line_two_hats_pay_three_tenths_and_three_hats_20_times_the_total_bet():
    one = G.validate_bet({"lines": 1, "coins": 1, "coin_value": 10})
    st = G.start(one, slots_replay([lambda c: c.count("HAT") == 1] * 3))
    assert st["steps"][0]["scatter"] == {"count": 3, "win": 20 * 10}
    two = G.start(one, slots_replay([lambda c: "HAT" in c, lambda c: "HAT" in c, lambda c: "HAT" not in c]))
    assert two["steps"][0]["scatter"] == {"count": 2, "win": 3}  # 0.3 x 0.10 CZK = 3 haléře
    assert G.scatter_pay(2, 5, 50) == 100 and G.scatter_pay(3, 5, 50) == 1250  # with more lines: 2 x, 25 x


def test_the_fast_simulator_agrees_with_the_exact_rtp_at_one_line():
    one = G.validate_bet({"lines": 1, "coins": 1, "coin_value": 10})
    stats = G.simulate_fast(one, 2_000_000, 9)
    exact = float(sum(G.exact_rtp(one).values()))
    mean = stats["total_win"] / stats["total_stake"]
    sd = math.sqrt(stats["sum_sq"] / stats["rounds"] / one.total_stake**2 - mean**2)
    assert abs(mean - exact) < 4 * sd / math.sqrt(stats["rounds"])


def test_the_declared_max_win_is_the_largest_window_over_every_number_of_lines():
    assert G.max_window_multiplier() == G.max_win_multiplier == 1000
    assert G.declared.max_bet == 25_000 and G.declared.max_win == 1000 * 25_000  # 250 CZK max bet


def test_the_enumerated_table_agrees_with_the_round_engine():
    total, hats = G.window_table(5)
    rnd = np.random.default_rng(5)
    for _ in range(300):
        stops = [int(rnd.integers(len(s))) for s in G.strips]
        w = slots.window_at(G.strips, stops, 3)
        assert sum(x[3] for x in G.line_wins(w, 5)) == total[tuple(stops)]
        assert slots.count_symbols(w, "HAT") == hats[tuple(stops)]


def test_the_fast_simulator_agrees_with_the_exact_rtp():
    stats = G.simulate_fast(BET, 2_000_000, 7)
    exact = float(sum(G.exact_rtp(BET).values()))
    mean = stats["total_win"] / stats["total_stake"]
    sd = math.sqrt(stats["sum_sq"] / stats["rounds"] / BET.total_stake**2 - mean**2)
    assert abs(mean - exact) < 4 * sd / math.sqrt(stats["rounds"])


def test_rounds_finish_at_once_and_replay():
    rng = SeededRNG(11)
    for _ in range(50):
        rec = play(G, BET, rng)
        assert rec["state"]["status"] == "finished" and len(rec["draws"]) == 3
        assert G.replay(rec) == rec["state"]


def test_the_bet_is_coin_value_x_coins_x_lines_up_to_250_czk():
    assert G.validate_bet({"lines": 5, "coins": 5, "coin_value": 1000}).total_stake == 25_000
    for bad in ({"lines": 6}, {"coins": 6}, {"coin_value": 30}, {"lines": 1, "x": 1}):
        with pytest.raises(BetError):
            G.validate_bet(bad)
