"""Estimators against published values and closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from unostats import stats


# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I (Wilson).
@pytest.mark.parametrize("k, n, lo, hi", [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
    (29, 29, 0.8830, 1.0),
])
def test_wilson_known_values(k, n, lo, hi):
    e = stats.wilson_interval(k, n)
    assert (e.lo, e.hi) == pytest.approx((lo, hi), abs=5e-5)
    assert e.value == k / n and e.n == n and e.method == "Wilson"
    assert e.lo <= e.value <= e.hi


def test_wilson_edges_and_vector_form():
    assert math.isnan(stats.wilson_interval(0, 0).value)
    lo, hi = stats.wilson_bounds([0, 5, 10], [10, 10, 10])
    assert lo[0] == 0.0 and hi[2] == 1.0
    assert (lo[1], hi[1]) == pytest.approx((stats.wilson_interval(5, 10).lo,
                                            stats.wilson_interval(5, 10).hi))


def test_estimate_format():
    e = stats.wilson_interval(272_000, 1_000_000)
    assert str(e) == "0.27200 [0.27113, 0.27287], n=1,000,000, Wilson"
    assert e.format(3) == "0.272 [0.271, 0.273], n=1,000,000, Wilson"


# Newcombe (1998), "Interval estimation for the difference between independent proportions",
# method 10 (hybrid score).
@pytest.mark.parametrize("k1, n1, k2, n2, lo, hi", [
    (56, 70, 48, 80, 0.0524, 0.3339),
    (9, 10, 3, 10, 0.1705, 0.8090),
    (5, 56, 0, 29, -0.0381, 0.1926),
    (0, 10, 0, 20, -0.1611, 0.2775),
    (10, 10, 0, 20, 0.6791, 1.0),
])
def test_difference_of_proportions_known_values(k1, n1, k2, n2, lo, hi):
    e = stats.difference_of_proportions(k1, n1, k2, n2)
    assert e.value == pytest.approx(k1 / n1 - k2 / n2)
    assert (e.lo, e.hi) == pytest.approx((lo, hi), abs=5e-5)
    assert e.n == n1 + n2 and e.method == "Newcombe hybrid score"


def test_difference_of_proportions_p_value():
    # Pooled z-test by hand: p = 104/150, se = sqrt(p(1-p)(1/70 + 1/80)) = 0.07547,
    # z = 0.2 / se = 2.650, two-sided p = 0.00805.
    assert stats.difference_of_proportions(56, 70, 48, 80).p_value == pytest.approx(0.00805,
                                                                                   abs=1e-5)
    assert stats.difference_of_proportions(5, 10, 5, 10).p_value == 1.0


def test_mean_se_and_from_sums_agree():
    x = np.array([3.0, 7, 7, 19, 24, 1])
    e = stats.mean_se(x)
    assert e.value == pytest.approx(x.mean())
    assert e.se == pytest.approx(x.std(ddof=1) / math.sqrt(x.size))
    assert (e.lo, e.hi) == pytest.approx((x.mean() - 1.96 * e.se, x.mean() + 1.96 * e.se))
    s = stats.mean_se_from_sums(x.size, x.sum(), (x * x).sum())
    assert (s.value, s.se, s.n) == pytest.approx((e.value, e.se, e.n))
    assert stats.mean_se([]).n == 0 and math.isnan(stats.mean_se([5.0]).se)


def test_difference_of_means():
    e = stats.difference_of_means(10.0, 0.3, 9.0, 0.4, n1=100, n2=200)
    assert e.value == 1.0 and e.se == pytest.approx(0.5) and e.n == 300
    assert (e.lo, e.hi) == pytest.approx((1 - 1.96 * 0.5, 1 + 1.96 * 0.5))
    assert e.p_value == pytest.approx(0.0455, abs=1e-4)  # z = 2
    assert stats.difference_of_means(1, 0.1, 1, 0.1).p_value == 1.0


# Critical values of the chi-square distribution (any statistics table) and closed forms.
@pytest.mark.parametrize("x, df, p", [
    (3.841458820694124, 1, 0.05),
    (6.634896601021214, 1, 0.01),
    (5.991464547107979, 2, 0.05),
    (11.070497693516351, 5, 0.05),
    (23.209251158954356, 10, 0.01),
    (124.34211340400407, 100, 0.05),
    (0.5, 3, 0.9188914116546758),
])
def test_chi2_sf_known_values(x, df, p):
    assert stats.chi2_sf(x, df) == pytest.approx(p, rel=1e-9)


@pytest.mark.parametrize("x", [0.01, 0.7, 3.0, 12.0, 60.0])
def test_chi2_sf_closed_forms(x):
    assert stats.chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-12)
    assert stats.chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)
    # df = 4: Q = exp(-x/2) (1 + x/2)
    assert stats.chi2_sf(x, 4) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-12)
    assert stats.chi2_sf(0, 3) == 1.0


def test_chi_square_uniform():
    t = stats.chi_square_uniform([10, 20, 30])
    assert t.statistic == pytest.approx(10.0) and t.df == 2 and t.n == 60
    assert t.p_value == pytest.approx(math.exp(-5))  # df = 2: exp(-x/2)
    assert stats.chi_square_uniform([25, 25, 25, 25]).p_value == 1.0
    assert math.isnan(stats.chi_square_uniform([0, 0]).p_value)
