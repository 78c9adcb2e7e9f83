"""Small, pure estimators with 95% intervals: proportions, means, differences, a uniformity test.

Every function returns an ``Estimate`` (value, interval, n, method) or a ``TestResult``, so a report
can print "0.27200 [0.27113, 0.27287], n=1,000,000, Wilson" without knowing how it was computed.
No scipy: the chi-square tail comes from the regularized incomplete gamma function below.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.96  # two-sided 95% normal quantile, as used by the store's SQL wilson_lo/wilson_hi


@dataclass(frozen=True)
class Estimate:
    value: float
    lo: float
    hi: float
    n: int | None
    method: str
    se: float | None = None
    p_value: float | None = None  # for differences: two-sided test of "no difference"

    def format(self, digits: int | None = None) -> str:
        """'value [lo, hi], n=..., method'; digits default to two significant digits of the
        interval's half-width, the precision the sample supports."""
        if digits is None:
            digits = _digits_for(self.hi - self.lo)
        text = f"{self.value:.{digits}f} [{self.lo:.{digits}f}, {self.hi:.{digits}f}]"
        if self.n is not None:
            text += f", n={self.n:,}"
        return f"{text}, {self.method}"

    def __str__(self) -> str:
        return self.format()


@dataclass(frozen=True)
class TestResult:
    statistic: float
    df: int
    p_value: float
    n: int
    method: str

    def __str__(self) -> str:
        return f"{self.method}: statistic {self.statistic:.3f}, df={self.df}, " \
               f"p={self.p_value:.3g}, n={self.n:,}"


def _digits_for(width: float) -> int:
    half = width / 2
    if not math.isfinite(half) or half <= 0:
        return 3
    return max(0, min(10, 1 - math.floor(math.log10(half))))


# --- Proportions -------------------------------------------------------------------------------

def wilson_bounds(successes, n, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised Wilson score bounds (nan where n == 0)."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # Clip rounding noise so 0/n gives exactly 0 and n/n exactly 1.
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def wilson_interval(successes: int, n: int, z: float = Z95) -> Estimate:
    """Proportion with the Wilson score interval (good coverage even near 0 or 1)."""
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, int(n), "Wilson")
    lo, hi = wilson_bounds(successes, n, z)
    p = successes / n
    return Estimate(p, float(lo), float(hi), int(n), "Wilson", se=math.sqrt(p * (1 - p) / n))


def difference_of_proportions(k1: int, n1: int, k2: int, n2: int,
                              z: float = Z95) -> Estimate:
    """p1 - p2 with Newcombe's hybrid score interval (method 10) and a pooled z-test p-value;
    no value (nan) where either has no trials (e.g. no round with a winner)."""
    if n1 <= 0 or n2 <= 0:
        return Estimate(math.nan, math.nan, math.nan, int(max(n1, 0) + max(n2, 0)),
                        "Newcombe hybrid score")
    a, b = wilson_interval(k1, n1, z), wilson_interval(k2, n2, z)
    d = a.value - b.value
    lo = d - math.sqrt((a.value - a.lo) ** 2 + (b.hi - b.value) ** 2)
    hi = d + math.sqrt((a.hi - a.value) ** 2 + (b.value - b.lo) ** 2)
    pooled = (k1 + k2) / (n1 + n2)
    se0 = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    p_value = two_sided_p(d / se0) if se0 > 0 else (1.0 if d == 0 else 0.0)
    se = math.sqrt(a.se ** 2 + b.se ** 2)
    return Estimate(d, lo, hi, int(n1 + n2), "Newcombe hybrid score", se=se, p_value=p_value)


# --- Means -------------------------------------------------------------------------------------

def mean_interval(mean: float, se: float, n: int | None, z: float = Z95) -> Estimate:
    """Normal interval mean +- z*se (fine for the large n of simulations)."""
    return Estimate(mean, mean - z * se, mean + z * se, n, "mean ± 1.96 SE", se=se)


def mean_se(values: Sequence[float] | np.ndarray, z: float = Z95) -> Estimate:
    """Mean of a sample with its standard error (sample sd / sqrt(n))."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, "mean ± 1.96 SE")
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return mean_interval(float(x.mean()), se, n, z)


def mean_se_from_sums(n: int, total: float, total_sq: float, z: float = Z95) -> Estimate:
    """Mean and standard error from n, sum(x) and sum(x**2) (e.g. sums kept by SQL)."""
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, int(n), "mean ± 1.96 SE")
    mean = total / n
    if n == 1:
        return mean_interval(mean, math.nan, 1, z)
    var = max(0.0, (total_sq - n * mean * mean) / (n - 1))  # clamp rounding below zero
    return mean_interval(mean, math.sqrt(var / n), int(n), z)


def difference_of_means(m1: float, se1: float, m2: float, se2: float, *,
                        n1: int | None = None, n2: int | None = None,
                        z: float = Z95) -> Estimate:
    """m1 - m2 for independent samples: se = sqrt(se1² + se2²), normal interval and p-value."""
    d = m1 - m2
    se = math.sqrt(se1 * se1 + se2 * se2)
    p_value = two_sided_p(d / se) if se > 0 else (1.0 if d == 0 else 0.0)
    n = n1 + n2 if n1 is not None and n2 is not None else None
    return Estimate(d, d - z * se, d + z * se, n, "difference of means ± 1.96 SE",
                    se=se, p_value=p_value)


def two_sided_p(zscore: float) -> float:
    """The two-sided normal p-value of ``zscore``."""
    return math.erfc(abs(zscore) / math.sqrt(2))


# --- Uniformity --------------------------------------------------------------------------------

def chi_square_uniform(counts: Sequence[int] | np.ndarray) -> TestResult:
    """Pearson chi-square test that every category (e.g. position) is equally likely."""
    c = np.asarray(counts, dtype=float)
    k, n = c.size, float(c.sum())
    if k < 2 or n <= 0:
        return TestResult(math.nan, max(k - 1, 0), math.nan, int(n), "chi-square vs uniform")
    expected = n / k
    stat = float(((c - expected) ** 2).sum() / expected)
    return TestResult(stat, k - 1, chi2_sf(stat, k - 1), int(n), "chi-square vs uniform")


def chi2_sf(x: float, df: float) -> float:
    """P(X >= x) for X ~ chi-square(df) = Q(df/2, x/2), the regularized upper gamma function."""
    if x <= 0:
        return 1.0
    return gamma_q(df / 2.0, x / 2.0)


def gamma_q(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x): series below a+1, continued fraction above
    (Numerical Recipes' gammq), each accurate to ~1e-15 relative."""
    if a <= 0 or x < 0:
        raise ValueError("gamma_q needs a > 0 and x >= 0")
    if x == 0:
        return 1.0
    if x < a + 1:
        return max(0.0, 1.0 - _gamma_p_series(a, x))
    return _gamma_q_continued_fraction(a, x)


def _gamma_p_series(a: float, x: float) -> float:
    term = total = 1.0 / a
    ap = a
    for _ in range(10_000):
        ap += 1
        term *= x / ap
        total += term
        if abs(term) < abs(total) * 1e-16:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_q_continued_fraction(a: float, x: float) -> float:
    tiny = 1e-300  # modified Lentz's method
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h
