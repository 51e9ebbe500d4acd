"""Clopper-Pearson limits and the count-based bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpaudit.auditor.stats import (
    clopper_pearson_interval,
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound_from_counts,
    gdp_mu_lower_bound_from_counts,
)

FAILURE_PROB = 1e-6
SEED = 31337


@given(st.integers(1, 10**7), st.data(), st.sampled_from([0.001, 0.025, 0.05, 0.2]))
def test_limits_match_the_beta_quantiles(n, data, alpha):
    k = data.draw(st.integers(0, n))
    lo = clopper_pearson_lower(k, n, alpha)
    hi = clopper_pearson_upper(k, n, alpha)
    ref_lo = 0.0 if k == 0 else stats.beta.ppf(alpha, k, n - k + 1)
    ref_hi = 1.0 if k == n else stats.beta.ppf(1 - alpha, k + 1, n - k)
    # equal up to the deliberate outward nudge of 1e-12 (relative)
    assert lo <= ref_lo and lo == pytest.approx(ref_lo, rel=1e-9, abs=1e-300)
    assert hi >= ref_hi and hi == pytest.approx(ref_hi, rel=1e-9)


def test_one_sided_coverage_is_counted_not_assumed():
    """Simulate binomial draws: the lower (upper) limit exceeds (falls below) p at most alpha of the time."""
    rng = np.random.default_rng(SEED)
    reps, alpha = 4000, 0.05
    for p, n in [(0.3, 50), (0.01, 1000), (1e-4, 10**5)]:
        k = rng.binomial(n, p, size=reps)
        misses_lo = int(np.count_nonzero(clopper_pearson_lower(k, n, alpha) > p))
        misses_hi = int(np.count_nonzero(clopper_pearson_upper(k, n, alpha) < p))
        limit = stats.binom.ppf(1 - FAILURE_PROB, reps, alpha)
        assert misses_lo <= limit and misses_hi <= limit, (p, n, misses_lo, misses_hi, limit, SEED)


def test_interval_and_edge_cases():
    lo, hi = clopper_pearson_interval(0, 10, 0.05)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 10), rel=1e-9)
    assert clopper_pearson_upper(10, 10, 0.05) == 1.0
    np.testing.assert_allclose(clopper_pearson_lower(np.array([0, 5]), 10, 0.05), [0.0, stats.beta.ppf(0.05, 5, 6)], rtol=1e-9)


def test_epsilon_bound_from_counts():
    # a deterministic distinguisher on 10^6 trials: bounded by the sample size
    assert epsilon_lower_bound_from_counts(10**6, 0, 10**6, 0.0, 0.05) == pytest.approx(math.log(10**6 / 3.689), abs=0.01)
    # identical counts: nothing learned
    assert epsilon_lower_bound_from_counts(500, 500, 1000, 0.0, 0.05) == 0.0
    # delta swallows the numerator
    assert epsilon_lower_bound_from_counts(5, 0, 1000, 0.05, 0.05) == 0.0


def test_gdp_mu_bound_is_zero_on_equal_counts_and_grows_with_separation():
    assert gdp_mu_lower_bound_from_counts(500, 500, 1000, 0.05) == 0.0
    sep = [gdp_mu_lower_bound_from_counts(k, 1000 - k, 1000, 0.05) for k in (600, 700, 900)]
    assert sep == sorted(sep) and sep[0] > 0
