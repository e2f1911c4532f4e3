"""Every registered game, at its representative bet: the RTP (exact parts + simulation) agrees with the declared
figure, respects the legal minimum, no simulated win exceeds the declared max win, and the declared figures obey
the game plan.

Rounds per game: ``PAR_TEST_ROUNDS_FAST`` (games with simulate_fast, default 300,000) or
``PAR_TEST_ROUNDS_GENERIC`` (games simulated through start/act, default 20,000). Seeds are fixed, so a result
never changes between runs of the same code. The simulations are marked ``slow`` (``make test-fast`` skips them;
CI runs them).
"""

from __future__ import annotations

import os
import time
from decimal import Decimal
from fractions import Fraction

import pytest

from core.rng import SeededRNG
from games.engine import list_games, par

ROUNDS_FAST = int(os.environ.get("PAR_TEST_ROUNDS_FAST", "300000"))
ROUNDS_GENERIC = int(os.environ.get("PAR_TEST_ROUNDS_GENERIC", "20000"))
SEED = 20240601
GAMES = list_games()
_SHEETS: dict[str, dict] = {}


def sheet_for(game) -> dict:
    key = f"{game.code}@{game.version}"
    if key not in _SHEETS:
        rounds = ROUNDS_FAST if par.has_fast_simulator(game) else ROUNDS_GENERIC
        _SHEETS[key] = par.par_sheet(game, rounds=rounds, seed=SEED, rng_factory=SeededRNG)
    return _SHEETS[key]


def test_the_registry_holds_european_roulette():
    assert "european_roulette" in {g.code for g in GAMES}


@pytest.fixture(params=GAMES, ids=lambda g: f"{g.code}@{g.version}")
def game(request):
    return request.param


@pytest.mark.slow
def test_the_declared_rtp_is_at_least_the_legal_minimum_and_the_estimate_is_not_below_it(game):
    assert game.declared.rtp >= Decimal("84.24")  # GP §8(4)
    sheet = sheet_for(game)
    assert sheet["rtp"]["at_least_min_rtp"], sheet["rtp"]  # exact value, or the 99 % CI upper bound


@pytest.mark.slow
def test_the_rtp_from_exact_parts_and_simulation_lies_within_the_99_percent_ci_of_the_declared_value(game):
    sheet = sheet_for(game)
    r = sheet["rtp"]
    assert r["declared_inside_ci99"], par.format_par_sheet(sheet)
    # every exactly computed part agrees with its own simulation (4 SE: several parts, fixed seed)
    for part, row in sheet["breakdown"].items():
        if row["exact"]:
            assert abs(row["exact_vs_simulated_z"]) < 4, (part, row)


@pytest.mark.slow
def test_no_simulated_win_exceeds_the_declared_max_win(game):
    sheet = sheet_for(game)
    assert 0 < sheet["max_win"]["declared"]
    assert sheet["max_win"]["reached"] <= game.declared.max_win, sheet["max_win"]


def test_the_declared_hourly_loss_is_max_bet_times_house_edge_times_1800_floored(game):
    d = game.declared
    expected = Fraction(d.max_bet) * (100 - Fraction(str(d.rtp))) / 100 * 1800
    assert d.avg_hourly_loss == int(expected)  # floor (positive)


def test_declared_stakes_respect_the_game_plan(game):
    d = game.declared
    assert 10 <= d.min_bet <= d.max_bet <= 100_000  # GP §8(1)-(2): 0.10 .. 1,000 CZK
    assert d.min_bet % 10 == 0 and d.max_bet % 10 == 0  # steps of 0.10 CZK
    assert d.unfinished_deadline_days in (90, 180)  # GP §7(8)b
    assert game.validate_bet(par.representative_bet_params(game)).total_stake <= d.max_bet


CPU_ROUNDS = 1_000_000  # a tenth of the PAR sheet's 10^7 rounds
CPU_BUDGET = 6.0  # seconds of CPU for CPU_ROUNDS: 10^7 rounds within a minute of CPU


@pytest.mark.slow
def test_the_fast_simulator_plays_ten_million_rounds_within_a_minute_of_cpu(game):
    """Measured with ``time.process_time`` (this process's CPU, which other work on a shared machine slows far less
    than the wall clock) on a tenth of the rounds: the simulators run in batches, so the time is linear in the
    rounds. Games without ``simulate_fast`` (Fruit King, Simply the Best 27: exact, or simulated through start/act
    at fewer rounds) are not measured. The figure is the least of up to three runs, the usual benchmark practice:
    on a 2-core machine at a load average of 18 (a CI run beside other jobs) the same simulator's CPU time rose
    from ~5 s to 6.15 s, as the other processes share the core's caches; a slower simulator fails all three."""
    if not par.has_fast_simulator(game):
        pytest.skip(f"{game.code}@{game.version} has no simulate_fast")
    bet = game.validate_bet(par.representative_bet_params(game))
    runs: list[float] = []
    while len(runs) < 3 and (not runs or min(runs) >= CPU_BUDGET):
        t0 = time.process_time()
        stats = game.simulate_fast(bet, CPU_ROUNDS, SEED)
        runs.append(time.process_time() - t0)
        assert stats is not None and stats["rounds"] == CPU_ROUNDS
    cpu = min(runs)
    print(f"{game.code}@{game.version}: {cpu:.2f} s CPU for {CPU_ROUNDS:,} rounds (runs: {runs})")
    assert cpu < CPU_BUDGET, f"{game.code}@{game.version}: {cpu:.2f} s CPU for {CPU_ROUNDS:,} rounds"
