"""RNG quality: chi-square, runs and serial tests on core.rng.SystemRNG and SeededRNG (99 % level), the
distribution functions they rest on, and proof that the tests reject bad generators."""

from __future__ import annotations

import io
import math
import struct

import pytest

from core.rng import SeededRNG, SystemRNG
from games.engine import rngtest

# --- the chi-square distribution without scipy ---------------------------------------------------------------
# Critical values from the standard chi-square table (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.4).
TABLE = [
    (0.95, 1, 3.841),
    (0.99, 1, 6.635),
    (0.95, 2, 5.991),
    (0.99, 2, 9.210),
    (0.95, 5, 11.070),
    (0.99, 5, 15.086),
    (0.95, 10, 18.307),
    (0.99, 10, 23.209),
    (0.999, 10, 29.588),
    (0.95, 20, 31.410),
    (0.99, 20, 37.566),
    (0.95, 30, 43.773),
    (0.99, 30, 50.892),
    (0.95, 36, 50.998),
    (0.99, 36, 58.619),
    (0.95, 100, 124.342),
    (0.99, 100, 135.807),
    (0.01, 10, 2.558),
    (0.05, 36, 23.269),
]


@pytest.mark.parametrize("p,df,x", TABLE)
def test_chi_square_quantiles_match_the_printed_table(p, df, x):
    assert rngtest.chi2_ppf(p, df) == pytest.approx(x, abs=6e-4)
    assert rngtest.chi2_sf(x, df) == pytest.approx(1 - p, abs=2e-5)


def test_wilson_hilferty_is_close_to_the_exact_quantile_for_moderate_df():
    for df in (10, 36, 100, 255, 1368):
        for p in (0.95, 0.99):
            assert rngtest.chi2_ppf_wilson_hilferty(p, df) == pytest.approx(rngtest.chi2_ppf(p, df), rel=2e-3)


def test_incomplete_gamma_edge_cases_and_closed_forms():
    assert rngtest.chi2_sf(0, 5) == 1.0 and rngtest.chi2_cdf(0, 5) == 0.0
    for x in (0.1, 1.0, 2.5, 10.0, 40.0):
        assert rngtest.chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-10)  # df 2 is exponential
        assert rngtest.chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9)
    assert rngtest.chi2_sf(1e4, 10) == 0.0
    assert rngtest.normal_ppf(0.975) == pytest.approx(1.959964, abs=1e-6)


# --- multiple testing: Holm's step-down over the battery -----------------------------------------------------
def test_holm_rejects_in_order_while_each_p_value_is_below_alpha_over_the_tests_left():
    rs = [
        {"name": n, "p_value": p, "alpha": 0.01, "passed": p >= 0.01}
        for n, p in (("a", 0.004), ("b", 0.001), ("c", 0.5), ("d", 0.02))
    ]
    out = rngtest.holm(rs, 0.01)
    # sorted: b 0.001 <= 0.01/4 rejected; a 0.004 > 0.01/3 stops the rejections (c, d pass though d < 0.05)
    assert [r["passed"] for r in out] == [True, False, True, True]
    assert out[1]["holm_threshold"] == 0.0025 and out[0]["holm_threshold"] == pytest.approx(0.01 / 3)
    assert all(r["family_size"] == 4 for r in out)


def test_a_single_test_at_0_007_no_longer_fails_the_battery_but_a_gross_defect_still_does():
    """M-12: one p-value of 0.0073 among eleven (what a sound generator shows in about 10 % of runs at 1 % each)
    passes Holm's correction at the family-wise 1 %; a p-value of 1e-6 does not."""

    def family(p: float) -> list[dict]:
        return [{"name": str(i), "p_value": p if i == 0 else 0.5, "alpha": 0.01} for i in range(11)]

    assert all(r["passed"] for r in rngtest.holm(family(0.0073)))
    assert not rngtest.holm(family(1e-6))[0]["passed"]


def test_the_battery_reports_holms_decision_over_all_its_tests():
    results = rngtest.run_battery(SeededRNG(7), n=20_000, ks=(2, 37), serial_k=16)
    assert {r["family_size"] for r in results} == {len(results)} and min(r["holm_threshold"] for r in results) == (
        pytest.approx(0.01 / len(results))
    )
    assert "Holm's step-down" in rngtest.format_battery(results)


# --- the platform generators pass ----------------------------------------------------------------------------
def _battery_passes(make_rng, retries: int) -> list[dict]:
    """Run the battery; a test that fails at 1 % is re-run once on fresh draws (a sound generator then fails
    one test with probability 1e-4, a broken one keeps failing)."""
    results = rngtest.run_battery(make_rng(0), n=100_000)
    for i, r in enumerate(results):
        attempt = 0
        while not r["passed"] and attempt < retries:
            attempt += 1
            again = rngtest.run_battery(make_rng(attempt), n=100_000)
            r = results[i] = again[i]
    return results


def test_the_system_rng_passes_chi_square_runs_serial_and_monobit_tests_at_the_99_percent_level():
    results = _battery_passes(lambda _attempt: SystemRNG(), retries=1)
    failed = [r for r in results if not r["passed"]]
    assert not failed, rngtest.format_battery(results)
    names = {r["name"] for r in results}
    assert "chi-square randbelow(37)" in names and "runs (median)" in names and "serial pairs k=37" in names


def test_the_seeded_rng_passes_the_same_battery():
    results = rngtest.run_battery(SeededRNG(20240601), n=100_000)
    assert all(r["passed"] for r in results), rngtest.format_battery(results)


# --- the tests can fail --------------------------------------------------------------------------------------
class ModuloBiasedRNG:
    """The classic mistake: one random byte reduced modulo n (values below 256 % n come up more often)."""

    def __init__(self, seed):
        self.src = SeededRNG(seed)

    def randbelow(self, n):
        return self.src.randbelow(256) % n


class StickyRNG:
    """Uniform marginals but correlated: repeats its previous output a quarter of the time."""

    def __init__(self, seed):
        self.src, self.last = SeededRNG(seed), {}

    def randbelow(self, n):
        if n in self.last and self.src.randbelow(4) == 0:
            return self.last[n]
        self.last[n] = self.src.randbelow(n)
        return self.last[n]


def test_chi_square_rejects_a_modulo_biased_generator():
    r = rngtest.chi_square_uniform(ModuloBiasedRNG(1), 37, 100_000)
    assert not r["passed"] and r["p_value"] < 1e-12
    assert r["statistic"] > r["critical_value"]
    # ...while the unbiased generator over the same byte source passes (power is about the bias).
    assert rngtest.chi_square_uniform(SeededRNG(1), 37, 100_000)["passed"]


def test_runs_and_serial_tests_reject_a_correlated_generator_with_uniform_marginals():
    rng = StickyRNG(2)
    assert rngtest.chi_square_uniform(rng, 37, 100_000)["passed"]  # marginals look fine...
    words = [rng.randbelow(2**32) for _ in range(50_000)]
    assert not rngtest.runs_test_median(words)["passed"]  # ...but the sequence is not independent
    # (runs up/down collapses repeated values by construction, so it cannot see this defect)
    assert not rngtest.serial_pairs([rng.randbelow(16) for _ in range(50_000)], 16)["passed"]


def test_runs_tests_reject_alternating_and_trending_sequences():
    assert not rngtest.runs_test_median([0, 10] * 5_000)["passed"]  # too many runs
    assert not rngtest.runs_test_median([0] * 5_000 + [10] * 5_000)["passed"]  # too few runs
    assert not rngtest.runs_up_down(list(range(10_000)))["passed"]
    assert not rngtest.monobit([0xFFFF0000 | i for i in range(10_000)])["passed"]


# --- raw dumps for external batteries ------------------------------------------------------------------------
def test_dump_words_writes_little_endian_32_bit_words_and_cuts_the_last_one():
    buf = io.BytesIO()
    assert rngtest.dump_words(SeededRNG(5), 10, buf) == 10
    ref = SeededRNG(5)
    expect = struct.pack("<3I", *[ref.randbelow(2**32) for _ in range(3)])[:10]
    assert buf.getvalue() == expect
    big = io.BytesIO()
    rngtest.dump_words(SystemRNG(), 300_000, big, chunk_words=1000)
    data = big.getvalue()
    assert len(data) == 300_000
    words = struct.unpack("<75000I", data)
    assert rngtest.monobit(words)["p_value"] > 1e-6
