"""European Roulette (catalogue entry 8; entry 9 as the unregistered EUROPEAN_ROULETTE_2)."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest

from core.rng import SeededRNG
from games.engine import ActionError, BetError, ReplayMismatch, ReplayRNG, get_game, play
from games.engine.games import roulette
from games.engine.par import validate_stats

GAME = roulette.EUROPEAN_ROULETTE
GAME2 = roulette.EUROPEAN_ROULETTE_2


def spin(game, params, number):
    return game.start(game.validate_bet(params), ReplayRNG([[37, number]]))


def one(type_, amount=100, **kw):
    return {"bets": [dict(type=type_, amount=amount, **kw)]}


def position_bet(pos, amount):
    return {"bets": [dict(pos, amount=amount)]}


# --- layout --------------------------------------------------------------------------------------------------
def test_the_wheel_has_a_green_zero_and_eighteen_red_and_eighteen_black_numbers():
    assert roulette.colour(0) == "green"
    assert len(roulette.RED) == 18 and len(roulette.BLACK) == 18 and roulette.RED | roulette.BLACK == set(range(1, 37))
    assert [roulette.colour(n) for n in (1, 2, 3, 14, 36)] == ["red", "black", "red", "red", "red"]


def _cell(n):
    return (n - 1) // 3, (n - 1) % 3  # (row, column) on the table


def _geometric_sets():
    """The inside positions, derived independently from the (row, column) geometry of the table."""
    nums = range(1, 37)
    split = [
        c for c in itertools.combinations(nums, 2) if sum(abs(a - b) for a, b in zip(_cell(c[0]), _cell(c[1]))) == 1
    ]
    street = [c for c in itertools.combinations(nums, 3) if len({_cell(n)[0] for n in c}) == 1]
    corner = [
        c
        for c in itertools.combinations(nums, 4)
        if len({_cell(n)[0] for n in c}) == 2
        and len({_cell(n)[1] for n in c}) == 2
        and max(_cell(n)[0] for n in c) - min(_cell(n)[0] for n in c) == 1
        and max(_cell(n)[1] for n in c) - min(_cell(n)[1] for n in c) == 1
    ]
    line = [tuple(range(3 * r + 1, 3 * r + 7)) for r in range(11)]
    return {
        "straight": {(n,) for n in range(37)},
        "split": set(split) | {(0, 1), (0, 2), (0, 3)},
        "street": set(street) | {(0, 1, 2), (0, 2, 3)},
        "corner": set(corner) | {(0, 1, 2, 3)},
        "six_line": set(line),
    }


def test_inside_positions_are_exactly_the_adjacent_groups_of_the_table_layout():
    geo = _geometric_sets()
    for t, sets in roulette.INSIDE_SETS.items():
        assert set(sets) == geo[t], t
    assert {t: len(s) for t, s in roulette.INSIDE_SETS.items()} == {
        "straight": 37,
        "split": 60,
        "street": 14,
        "corner": 23,
        "six_line": 11,
    }
    assert len(roulette.all_positions()) == 157


@pytest.mark.parametrize(
    "type_,numbers",
    [
        ("split", [1, 5]),
        ("split", [3, 4]),
        ("split", [0, 4]),
        ("split", [1]),
        ("split", [2, 2]),
        ("street", [1, 2, 4]),
        ("street", [2, 3, 4]),
        ("street", [0, 1, 3]),
        ("corner", [3, 4, 6, 7]),
        ("corner", [1, 2, 3, 4]),
        ("corner", [0, 1, 2, 4]),
        ("six_line", [1, 2, 3, 4, 5, 7]),
        ("six_line", [2, 3, 4, 5, 6, 7]),
        ("six_line", [0, 1, 2, 3, 4, 5]),
        ("straight", [37]),
        ("straight", [-1]),
        ("straight", ["17"]),
        ("straight", [True]),
        ("straight", 17),
        ("straight", [1, 2]),
    ],
)
def test_inside_bets_naming_numbers_that_are_not_adjacent_on_the_table_are_refused(type_, numbers):
    with pytest.raises(BetError) as e:
        GAME.validate_bet(one(type_, numbers=numbers))
    assert e.value.code == "game.roulette.invalid_numbers"
    assert e.value.message_cs != e.value.message_en


def test_zero_trios_first_four_and_zero_splits_are_accepted_in_any_order():
    for type_, nums in [
        ("street", [2, 1, 0]),
        ("street", [3, 0, 2]),
        ("corner", [3, 2, 1, 0]),
        ("split", [3, 0]),
        ("corner", [21, 17, 20, 18]),
        ("line", [24, 19, 20, 21, 22, 23]),
    ]:
        bet = GAME.validate_bet(one(type_, numbers=nums))
        assert bet.params["bets"][0]["numbers"] == sorted(nums)
    assert GAME.validate_bet(one("line", numbers=list(range(19, 25)))).params["bets"][0]["type"] == "six_line"


# --- payouts and RTP -----------------------------------------------------------------------------------------
MULTIPLIERS = {
    "straight": 36,
    "split": 18,
    "street": 12,
    "corner": 9,
    "six_line": 6,
    "dozen": 3,
    "column": 3,
    "red": 2,
    "black": 2,
    "even": 2,
    "odd": 2,
    "low": 2,
    "high": 2,
}


def test_paytable_matches_the_catalogue_with_split_at_17_to_1():
    assert {t: i["multiplier"] for t, i in roulette.BET_TYPES.items()} == MULTIPLIERS
    described = {t["type"]: t["payout"] for t in GAME.describe()["bet_types"]}
    assert described["straight"] == "35:1" and described["split"] == "17:1" and described["street"] == "11:1"
    assert described["corner"] == "8:1" and described["six_line"] == "5:1" and described["dozen"] == "2:1"
    assert described["red"] == "1:1"


@pytest.mark.parametrize(
    "pos",
    roulette.all_positions(),
    ids=lambda p: f"{p['type']}-{p.get('numbers') or p.get('dozen') or p.get('column') or ''}",
)
def test_every_bet_position_returns_exactly_36_37_over_the_37_pockets(pos):
    amount = 1230
    params = position_bet(pos, amount)
    bet = GAME.validate_bet(params)
    wins = [GAME.start(bet, ReplayRNG([[37, n]]))["win"] for n in range(37)]
    covered = roulette.covered_numbers(bet.params["bets"][0])
    assert [n for n in range(37) if wins[n]] == sorted(covered)
    assert all(w == amount * MULTIPLIERS[pos["type"]] for w in wins if w)
    assert Fraction(sum(wins), 37 * amount) == Fraction(36, 37)
    assert GAME.exact_rtp(bet) == {"base": Fraction(36, 37)}


def test_every_outside_bet_loses_on_zero():
    for pos in roulette.all_positions():
        if roulette.BET_TYPES[pos["type"]]["category"] == "outside":
            assert spin(GAME, position_bet(pos, 100), 0)["win"] == 0


def test_a_mixed_bet_also_returns_36_37_exactly():
    params = {
        "bets": [
            {"type": "straight", "numbers": [0], "amount": 70},
            {"type": "red", "amount": 500},
            {"type": "corner", "numbers": [0, 1, 2, 3], "amount": 30},
            {"type": "column", "column": 3, "amount": 200},
            {"type": "dozen", "dozen": 1, "amount": 10},
        ]
    }
    bet = GAME.validate_bet(params)
    assert sum(spin(GAME, params, n)["win"] for n in range(37)) == 36 * bet.total_stake
    assert GAME.exact_rtp(bet) == {"base": Fraction(36, 37)}


def test_the_catalogue_examples_pay_125_and_500_czk_on_red_14():
    ex = {
        "bets": [
            {"type": "straight", "numbers": [0], "amount": 2500},
            {"type": "red", "amount": 2500},
            {"type": "column", "column": 2, "amount": 2500},
        ]
    }
    state = spin(GAME, ex, 14)
    assert state["win"] == 12_500
    ex2 = {"bets": [dict(b, amount=10_000) for b in ex["bets"]]}
    assert spin(GAME2, ex2, 14)["win"] == 50_000


# --- rounds --------------------------------------------------------------------------------------------------
def test_a_spin_makes_one_draw_of_37_finishes_at_once_and_records_number_colour_and_each_bets_win():
    params = {
        "bets": [
            {"type": "straight", "numbers": [17], "amount": 100},
            {"type": "red", "amount": 500},
            {"type": "black", "amount": 300},
        ]
    }
    rec = play(GAME, GAME.validate_bet(params), SeededRNG(4))
    assert len(rec["draws"]) == 1 and rec["draws"][0][0] == 37
    state = rec["state"]
    n = rec["draws"][0][1]
    assert state["status"] == "finished" and state["pending"] is None and state["jackpot_events"] == []
    step = state["steps"][0]
    assert step["number"] == n and step["colour"] == roulette.colour(n)
    assert {b["type"]: b["win"] for b in step["bets"]} == {
        "straight": 3600 if n == 17 else 0,
        "red": 1000 if n in roulette.RED else 0,
        "black": 600 if n in roulette.BLACK else 0,
    }
    assert state["win"] == sum(b["win"] for b in step["bets"]) == state["breakdown"]["base"]
    json.dumps(state)


def test_a_recorded_spin_replays_and_a_tampered_one_does_not():
    params = {"bets": [{"type": "split", "numbers": [0, 2], "amount": 1000}]}
    rec = play(GAME, GAME.validate_bet(params), SeededRNG(9))
    assert GAME.replay(rec) == rec["state"]
    bad = dict(rec, draws=[[37, (rec["draws"][0][1] + 1) % 37]])
    with pytest.raises(ReplayMismatch):
        GAME.replay(bad)


def test_a_finished_spin_accepts_no_action():
    state = spin(GAME, one("red", 100), 1)
    with pytest.raises(ActionError):
        GAME.act(state, {"type": "collect"}, SeededRNG(1))


# --- validation ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params,code",
    [
        ({"bets": [{"type": "basket", "amount": 100}]}, "game.roulette.unknown_bet_type"),
        ({"bets": [{"amount": 100}]}, "game.roulette.unknown_bet_type"),
        ({"bets": []}, "game.roulette.no_bets"),
        ({}, "game.roulette.no_bets"),
        ({"bets": [{"type": "red", "amount": 100}], "extra": 1}, "game.invalid_bet"),
        ([], "game.invalid_bet"),
        ({"bets": ["red"]}, "game.roulette.invalid_bet"),
        ({"bets": [{"type": "red", "amount": 100, "numbers": [1]}]}, "game.roulette.invalid_bet"),
        ({"bets": [{"type": "dozen", "dozen": 4, "amount": 100}]}, "game.roulette.invalid_selection"),
        ({"bets": [{"type": "column", "amount": 100}]}, "game.roulette.invalid_selection"),
        ({"bets": [{"type": "red", "amount": 1.5}]}, "game.roulette.invalid_amount"),
        ({"bets": [{"type": "red", "amount": "100"}]}, "game.roulette.invalid_amount"),
        ({"bets": [{"type": "red"}]}, "game.roulette.invalid_amount"),
        ({"bets": [{"type": "red", "amount": 0}]}, "game.roulette.bet_below_min"),
        ({"bets": [{"type": "red", "amount": -100}]}, "game.roulette.bet_below_min"),
        ({"bets": [{"type": "red", "amount": 15}]}, "game.stake_step"),
        ({"bets": [{"type": "straight", "numbers": [1], "amount": 100_010}]}, "game.roulette.bet_above_max"),
        ({"bets": [{"type": "red", "amount": 60_000}, {"type": "black", "amount": 40_010}]}, "game.stake_above_max"),
        ({"bets": [{"type": "red", "amount": 10}] * 501}, "game.roulette.too_many_bets"),
    ],
)
def test_invalid_bets_are_refused_with_a_stable_code_in_english_and_czech(params, code):
    with pytest.raises(BetError) as e:
        GAME.validate_bet(params)
    assert e.value.code == code
    assert e.value.message_en and e.value.message_cs


def test_stake_limits_are_0_10_to_1000_czk_in_0_10_steps():
    assert GAME.validate_bet(one("red", 10)).total_stake == 10
    assert (
        GAME.validate_bet(
            {"bets": [{"type": "red", "amount": 50_000}, {"type": "black", "amount": 50_000}]}
        ).total_stake
        == 100_000
    )
    for amount in (11, 19, 99_999):
        with pytest.raises(BetError) as e:
            GAME.validate_bet(one("red", amount))
        assert e.value.code == "game.stake_step"


def test_chips_on_the_same_position_are_merged_before_the_limits_apply():
    bet = GAME.validate_bet(
        {
            "bets": [
                {"type": "straight", "numbers": [17], "amount": 100},
                {"type": "red", "amount": 100},
                {"type": "straight", "numbers": [17], "amount": 200},
            ]
        }
    )
    assert bet.params["bets"] == [{"type": "straight", "numbers": [17], "amount": 300}, {"type": "red", "amount": 100}]
    with pytest.raises(BetError) as e:
        GAME2.validate_bet({"bets": [{"type": "straight", "numbers": [5], "amount": 20_000}] * 2})
    assert e.value.code == "game.roulette.bet_above_max"


def test_normalised_bets_are_canonical_and_validate_to_themselves():
    a = GAME.validate_bet(
        {"bets": [{"type": "red", "amount": 100}, {"type": "split", "numbers": [5, 2], "amount": 30}]}
    )
    b = GAME.validate_bet(
        {"bets": [{"type": "split", "numbers": [2, 5], "amount": 30}, {"type": "red", "amount": 100}]}
    )
    assert a == b
    assert GAME.validate_bet(a.params) == a


def test_european_roulette_2_applies_its_inside_and_outside_limits():
    assert GAME2.validate_bet(one("straight", 1_000, numbers=[3])).total_stake == 1_000
    cases = [
        (one("straight", 990, numbers=[3]), "game.roulette.bet_below_min"),
        (one("straight", 25_010, numbers=[3]), "game.roulette.bet_above_max"),
        (one("red", 4_990), "game.roulette.bet_below_min"),
        (one("red", 100_010), "game.roulette.bet_above_max"),
    ]
    for params, code in cases:
        with pytest.raises(BetError) as e:
            GAME2.validate_bet(params)
        assert e.value.code == code
    assert GAME2.validate_bet(one("red", 100_000)).total_stake == 100_000


# --- declared figures ----------------------------------------------------------------------------------------
def test_declared_figures_follow_the_catalogue_and_the_limits():
    d = GAME.declared
    assert str(d.rtp) == "97.29" and d.min_bet == 10 and d.max_bet == 100_000
    assert d.unfinished_deadline_days == 180
    assert d.max_win == 3_600_000  # 36 x 1,000 CZK
    assert d.avg_hourly_loss == 4_878_000  # 1,000 CZK x 2.71 % x 1,800 = 48,780 CZK
    assert GAME2.declared.max_win == 2_250_000 and GAME2.declared.unfinished_deadline_days == 90


def test_the_declared_max_win_is_reached_and_not_exceeded_by_any_bet_at_the_limits():
    top = one("straight", 100_000, numbers=[17])
    assert spin(GAME, top, 17)["win"] == GAME.declared.max_win
    # Entry 9: straight 250 + three splits of 250 around 5 = 9,000 + 13,500 CZK.
    best2 = {
        "bets": [{"type": "straight", "numbers": [5], "amount": 25_000}]
        + [{"type": "split", "numbers": s, "amount": 25_000} for s in ([4, 5], [5, 6], [2, 5])]
    }
    assert spin(GAME2, best2, 5)["win"] == GAME2.declared.max_win
    # No position pays more than 36 per unit staked, so 36 x max total bounds entry 8 for any bet.
    rng = SeededRNG(11)
    positions = roulette.all_positions()
    for _ in range(300):
        chosen = [positions[rng.randbelow(len(positions))] for _ in range(1 + rng.randbelow(8))]
        params = {"bets": [dict(p, amount=10 * (1 + rng.randbelow(1000))) for p in chosen]}
        try:
            bet = GAME.validate_bet(params)
        except BetError:
            continue
        assert max(GAME.payout_by_pocket(bet)) <= GAME.declared.max_win


def test_describe_gives_layout_bet_types_payouts_limits_and_declared_figures():
    d = GAME.describe()
    json.dumps(d)
    assert d["kind"] == "roulette" and d["layout"]["pockets"] == 37 and len(d["layout"]["rows"]) == 12
    assert {t["type"] for t in d["bet_types"]} == set(MULTIPLIERS)
    assert d["limits"]["total"] == {"min": 10, "max": 100_000} and d["limits"]["step"] == 10
    assert d["declared"]["rtp"] == "97.29" and d["declared"]["rtp_exact"] == "36/37"
    assert d["declared"]["max_win"] == 3_600_000
    assert GAME.validate_bet(d["bet_example"])


def test_the_fast_simulator_returns_canonical_statistics_close_to_36_37():
    bet = GAME.validate_bet({"bets": [{"type": "straight", "numbers": [17], "amount": 100}]})
    stats = GAME.simulate_fast(bet, 200_000, seed=3)
    validate_stats(stats, rounds=200_000, stake=100)
    assert stats == GAME.simulate_fast(bet, 200_000, seed=3)
    assert stats["max_win"] == 3_600 and stats["hit_count"] == stats["total_win"] // 3_600
    se = (36 * 36 / 37 - (36 / 37) ** 2) ** 0.5 / 200_000**0.5
    assert abs(stats["rtp"] - 36 / 37) < 3.3 * se


@pytest.mark.parametrize("bad_type", [["red"], {"a": 1}, 5, None])
def test_a_bet_type_that_is_not_a_string_is_an_unknown_bet_type_not_a_crash(bad_type):
    from games.engine import BetError

    with pytest.raises(BetError) as exc:
        get_game("european_roulette").validate_bet({"bets": [{"type": bad_type, "amount": 100}]})
    assert exc.value.code == "game.roulette.unknown_bet_type"
