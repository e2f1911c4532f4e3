"""Sim Fruits, the simulator's slot: its RTP is exact from the strips, its stakes are on the platform's grid, its
wins are integer haléře, and its generator is the OS CSPRNG unless a seeded one is injected."""

from __future__ import annotations

import random
import secrets
from collections import Counter
from fractions import Fraction

import pytest

from provider_simulator import slot
from provider_simulator.slot import RTP, STAKES, STRIPS, Slot, StakeError, exact_rtp, outcome


def test_the_return_to_player_is_exactly_1459_in_1536_by_enumerating_every_stop():
    assert len(STRIPS[0]) * len(STRIPS[1]) * len(STRIPS[2]) == 4608
    assert exact_rtp() == RTP == Fraction(1459, 1536)
    assert f"{float(RTP):.3%}" == "94.987%"
    assert "1459/1536 = 94.987 %" in (slot.__doc__ or "")  # the documented figure is the proven one


def test_the_enumeration_counts_each_paytable_line_as_the_symbol_counts_of_the_strips_say():
    counts = [Counter(strip) for strip in STRIPS]
    sevens = counts[0]["7"] * counts[1]["7"] * counts[2]["7"]
    single_cherry = counts[0]["CHERRY"] * (len(STRIPS[1]) - counts[1]["CHERRY"]) * len(STRIPS[2])
    hits = Counter(outcome(10, (a, b, c)).multiplier for a in range(16) for b in range(18) for c in range(16))
    assert hits[100] == sevens == 1
    assert hits[2] == single_cherry == 3 * 13 * 16


def test_a_seeded_generator_repeats_the_same_spins_and_the_default_is_the_os_csprng():
    first, again = Slot(random.Random(42)), Slot(random.Random(42))
    assert [first.spin(100) for _ in range(20)] == [again.spin(100) for _ in range(20)]
    assert isinstance(Slot().rng, secrets.SystemRandom)


@pytest.mark.parametrize("stake", [0, 5, 15, 99, 10_010, -10, 1.0, True, "10"])
def test_a_stake_off_the_platforms_grid_or_above_the_offered_maximum_is_refused(stake):
    with pytest.raises(StakeError):
        Slot(random.Random(1)).spin(stake)


def test_every_offered_stake_is_on_the_grid_and_its_top_win_fits_the_platforms_max_win_per_round():
    assert all(s >= 10 and s % 10 == 0 for s in STAKES)
    assert max(STAKES) * 100 <= 5_000_000  # GP_MAX_WIN_PER_ROUND (GP §8(3)): wins are never capped


def test_the_win_is_the_stake_times_the_middle_rows_multiplier_in_integer_halere():
    s = Slot(random.Random(3))
    for _ in range(500):
        spin = s.spin(30)
        assert spin.win == 30 * spin.multiplier and isinstance(spin.win, int)
        assert spin.line == tuple(strip[stop] for strip, stop in zip(STRIPS, spin.stops, strict=True))
        assert outcome(30, spin.stops) == spin  # a spin replays from its stops
