"""Statistical quality tests for the platform RNG (and the distribution functions they need).

No scipy: the chi-square distribution is computed from the regularised incomplete gamma function (series and
Lentz continued fraction, as in Numerical Recipes §6.2), accurate to ~1e-12; its quantiles by bisection on the
CDF (Wilson-Hilferty gives the approximation, :func:`chi2_ppf_wilson_hilferty`, too).

Tests (each returns a :func:`result` dict with ``statistic``, ``p_value`` and ``passed`` at ``alpha``):

* :func:`chi_square_uniform` - goodness of fit of ``randbelow(k)`` to the uniform distribution (df = k - 1).
* :func:`runs_test_median` - Wald-Wolfowitz runs above/below the median (normal approximation).
* :func:`runs_up_down` - runs up and down (mean (2n-1)/3, variance (16n-29)/90; normal approximation).
* :func:`serial_pairs` - chi-square of non-overlapping pairs (x_2i, x_2i+1) on a k x k grid (df = k^2 - 1).
* :func:`monobit` - frequency of 1 bits in 32-bit words.

:func:`run_battery` runs them all and controls for multiple testing (Holm's step-down method, :func:`holm`): the
battery's ``alpha`` is the family-wise error rate, so a sound generator fails the battery (any test) in at most 1 % of
runs, not in about 10 % as eleven tests each at 1 % would; :func:`dump_words` writes raw 32-bit little-endian words for
external
batteries (``dieharder -g 201 -f FILE``, NIST STS). These in-process tests find gross defects (bias from modulo
scaling, stuck or correlated output); they do not replace the external batteries.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

from .base import RNG, JsonDict

ALPHA = 0.01  # tests assert at the 99 % level


# --- distributions ---------------------------------------------------------------------------------------
def _gamma_series(a: float, x: float) -> float:
    """Regularised lower incomplete gamma P(a, x) by its series (x < a + 1)."""
    term = total = 1.0 / a
    ap = a
    for _ in range(10_000):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * 1e-16:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_cf(a: float, x: float) -> float:
    """Regularised upper incomplete gamma Q(a, x) by the continued fraction (x >= a + 1), modified Lentz."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def gammainc_lower(a: float, x: float) -> float:
    """Regularised lower incomplete gamma P(a, x)."""
    if x <= 0:
        return 0.0
    return _gamma_series(a, x) if x < a + 1 else 1.0 - _gamma_cf(a, x)


def gammainc_upper(a: float, x: float) -> float:
    """Regularised upper incomplete gamma Q(a, x) = 1 - P(a, x)."""
    if x <= 0:
        return 1.0
    return 1.0 - _gamma_series(a, x) if x < a + 1 else _gamma_cf(a, x)


def chi2_cdf(x: float, df: float) -> float:
    return gammainc_lower(df / 2.0, x / 2.0)


def chi2_sf(x: float, df: float) -> float:
    """P(X >= x) for X ~ chi-square(df): the p-value of a goodness-of-fit statistic."""
    return gammainc_upper(df / 2.0, x / 2.0)


def normal_sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def normal_ppf(p: float) -> float:
    """Inverse standard normal CDF (bisection on erfc; ~1e-13)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1.0 - normal_sf(mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def chi2_ppf_wilson_hilferty(p: float, df: float) -> float:
    """Wilson-Hilferty approximation of the chi-square quantile (good to ~0.1 % for df >= 3)."""
    z = normal_ppf(p)
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + z * math.sqrt(h)) ** 3


def chi2_ppf(p: float, df: float) -> float:
    """Chi-square quantile: the x with chi2_cdf(x, df) = p (bisection; the critical value at level p)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    lo, hi = 0.0, max(1.0, chi2_ppf_wilson_hilferty(p, df))
    while chi2_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if chi2_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2


# --- tests -----------------------------------------------------------------------------------------------
def result(name: str, statistic: float, p_value: float, alpha: float = ALPHA, **extra: Any) -> JsonDict:
    return {
        "name": name,
        "statistic": statistic,
        "p_value": p_value,
        "alpha": alpha,
        "passed": p_value >= alpha,
        **extra,
    }


def chi_square_counts(counts: Sequence[int], alpha: float = ALPHA, name: str = "chi-square") -> JsonDict:
    """Goodness of fit of observed counts to equal expected counts."""
    n, k = sum(counts), len(counts)
    expected = n / k
    stat = sum((c - expected) ** 2 for c in counts) / expected
    df = k - 1
    return result(name, stat, chi2_sf(stat, df), alpha, df=df, samples=n, critical_value=chi2_ppf(1 - alpha, df))


def chi_square_uniform(rng: RNG, k: int, n: int, alpha: float = ALPHA) -> JsonDict:
    """Draw ``n`` values of ``rng.randbelow(k)`` and test them for uniformity."""
    if n < 5 * k:
        raise ValueError("need at least 5 expected samples per cell")
    counts = [0] * k
    draw = rng.randbelow
    for _ in range(n):
        counts[draw(k)] += 1
    return chi_square_counts(counts, alpha, name=f"chi-square randbelow({k})")


def runs_test_median(values: Sequence[float], alpha: float = ALPHA) -> JsonDict:
    """Wald-Wolfowitz runs test on above/below the median (values equal to the median are dropped)."""
    s = sorted(values)
    m = len(s)
    median = s[m // 2] if m % 2 else (s[m // 2 - 1] + s[m // 2]) / 2
    signs = [v > median for v in values if v != median]
    n1 = sum(signs)
    n2 = len(signs) - n1
    if n1 == 0 or n2 == 0:
        return result("runs (median)", math.inf, 0.0, alpha, runs=1)
    runs = 1 + sum(1 for a, b in zip(signs, signs[1:]) if a != b)
    n = n1 + n2
    mu = 2.0 * n1 * n2 / n + 1.0
    var = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n) / (n * n * (n - 1.0))
    z = (runs - mu) / math.sqrt(var)
    return result("runs (median)", z, 2 * normal_sf(abs(z)), alpha, runs=runs, expected=mu)


def runs_up_down(values: Sequence[float], alpha: float = ALPHA) -> JsonDict:
    """Runs up and down (monotone runs); repeated consecutive values are collapsed first."""
    seq = [values[0]] + [b for a, b in zip(values, values[1:]) if b != a] if values else []
    n = len(seq)
    if n < 3:
        raise ValueError("need at least 3 distinct consecutive values")
    ups = [b > a for a, b in zip(seq, seq[1:])]
    runs = 1 + sum(1 for a, b in zip(ups, ups[1:]) if a != b)
    mu = (2.0 * n - 1.0) / 3.0
    var = (16.0 * n - 29.0) / 90.0
    z = (runs - mu) / math.sqrt(var)
    return result("runs up/down", z, 2 * normal_sf(abs(z)), alpha, runs=runs, expected=mu)


def serial_pairs(values: Sequence[int], k: int, alpha: float = ALPHA) -> JsonDict:
    """Chi-square of non-overlapping pairs of values in [0, k) over the k x k cells."""
    counts = [0] * (k * k)
    for i in range(0, len(values) - 1, 2):
        counts[values[i] * k + values[i + 1]] += 1
    if sum(counts) < 5 * k * k:
        raise ValueError("need at least 5 expected pairs per cell")
    return chi_square_counts(counts, alpha, name=f"serial pairs k={k}")


def monobit(words: Sequence[int], bits: int = 32, alpha: float = ALPHA) -> JsonDict:
    """Frequency (monobit) test: the share of 1 bits in ``bits``-bit words is 1/2."""
    ones = sum(bin(w).count("1") for w in words)
    n = len(words) * bits
    z = (2 * ones - n) / math.sqrt(n)
    return result("monobit", z, 2 * normal_sf(abs(z)), alpha, ones=ones, bits=n)


def holm(results: list[JsonDict], alpha: float = ALPHA) -> list[JsonDict]:
    """Holm's step-down correction over a family of tests (family-wise error rate ``alpha``): the p-values sorted
    ascending, the i-th (0-based) of m is rejected while p <= alpha / (m - i); the first not rejected and every
    later one pass. Sets each result's ``passed``, its ``holm_threshold`` and the family ``alpha``; returns them."""
    m = len(results)
    order = sorted(range(m), key=lambda i: results[i]["p_value"])
    rejecting = True
    for rank, i in enumerate(order):
        threshold = alpha / (m - rank)
        rejecting = rejecting and results[i]["p_value"] <= threshold
        results[i].update(passed=not rejecting, holm_threshold=threshold, alpha=alpha, family_size=m)
    return results


def run_battery(
    rng: RNG, n: int = 100_000, ks: Sequence[int] = (2, 6, 10, 37, 100, 1000), alpha: float = ALPHA, serial_k: int = 16
) -> list[JsonDict]:
    """All tests on fresh draws from ``rng``: uniformity of randbelow(k) for each k, then runs, serial pairs
    and monobit on ``n`` 32-bit words (``randbelow(2**32)``). ``passed`` is Holm's decision over the whole
    battery at the family-wise level ``alpha`` (:func:`holm`)."""
    out = [chi_square_uniform(rng, k, n, alpha) for k in ks]
    words = [rng.randbelow(2**32) for _ in range(n)]
    out.append(runs_test_median(words, alpha))
    out.append(runs_up_down(words, alpha))
    out.append(serial_pairs([w % serial_k for w in words], serial_k, alpha))  # serial_k divides 2**32: no bias
    out.append(serial_pairs([rng.randbelow(37) for _ in range(2 * 37 * 37 * 20)], 37, alpha))
    out.append(monobit(words, 32, alpha))
    return holm(out, alpha)


def format_battery(results: Sequence[JsonDict]) -> str:
    lines = [f"{'test':<28} {'statistic':>12} {'p-value':>10} {'threshold':>10}  result"]
    for r in results:
        thr = r.get("holm_threshold", r["alpha"])
        lines.append(
            f"{r['name']:<28} {r['statistic']:12.4f} {r['p_value']:10.4f} {thr:10.6f}  "
            f"{'pass' if r['passed'] else 'FAIL'}"
        )
    if results and "holm_threshold" in results[0]:
        lines.append(f"Holm's step-down over {len(results)} tests, family-wise level {results[0]['alpha']}")
    return "\n".join(lines)


# --- raw output for external batteries ------------------------------------------------------------------
def dump_words(
    rng: RNG, nbytes: int, out: BinaryIO, progress: Callable[[int, int], None] | None = None, chunk_words: int = 65_536
) -> int:
    """Write ``nbytes`` bytes of 32-bit little-endian words ``rng.randbelow(2**32)`` (the last word cut short
    when ``nbytes`` is not a multiple of 4). Returns the number of bytes written."""
    if nbytes < 0:
        raise ValueError("nbytes must be >= 0")
    written = 0
    draw = rng.randbelow
    while written < nbytes:
        words = min(chunk_words, (nbytes - written + 3) // 4)
        data = struct.pack(f"<{words}I", *[draw(2**32) for _ in range(words)])
        data = data[: nbytes - written]
        out.write(data)
        written += len(data)
        if progress:
            progress(written, nbytes)
    return written
