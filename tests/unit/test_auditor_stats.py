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


# ---------------------------------------------------------------------------------------------
# Pinned against an independent computation: binomial tails as mpmath's regularised incomplete
# beta function (P[Bin(n, p) >= k] = I_p(k, n - k + 1)), solved by bisection.
# These catch a Clopper-Pearson limit at alpha instead of alpha / 2, a bound that forgets to
# subtract delta, and a Bonferroni correction that forgets the number of events evaluated.


def _mp_binomial_tail(k: int, n: int, p):
    """P[Binomial(n, p) >= k] = I_p(k, n - k + 1)."""
    import mpmath

    return mpmath.betainc(k, n - k + 1, 0, p, regularized=True)


def _mp_solve(f, lo=0.0, hi=1.0, steps=64):
    import mpmath

    lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
    for _ in range(steps):  # f increasing in p: bisection to 2^-64
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def _mp_cp_lower(k: int, n: int, a: float):
    """The p with P[Bin(n, p) >= k] = a [CP34]."""
    return 0.0 if k == 0 else _mp_solve(lambda p: _mp_binomial_tail(k, n, p) - a)


def _mp_cp_upper(k: int, n: int, a: float):
    """The p with P[Bin(n, p) <= k] = a [CP34]."""
    return 1.0 if k == n else _mp_solve(lambda p: a - (1 - _mp_binomial_tail(k + 1, n, p)))


def _mp_bound(k_num: int, k_den: int, n: int, delta: float, alpha: float) -> float:
    import mpmath

    lo, hi = _mp_cp_lower(k_num, n, alpha / 2), _mp_cp_upper(k_den, n, alpha / 2)
    return max(0.0, float(mpmath.log(lo - delta) - mpmath.log(hi))) if lo > delta else 0.0


@pytest.mark.parametrize(("k_num", "k_den", "n", "delta", "alpha"), [(600, 400, 1000, 0.0, 0.05), (600, 400, 1000, 0.05, 0.05), (90, 3, 400, 0.01, 0.01)])
def test_bound_matches_an_independent_computation(k_num, k_den, n, delta, alpha):
    expected = _mp_bound(k_num, k_den, n, delta, alpha)
    got = epsilon_lower_bound_from_counts(k_num, k_den, n, delta, alpha)
    assert got == pytest.approx(expected, rel=1e-8), (k_num, k_den, n, delta, alpha, got, expected)


def test_audit_evidence_matches_an_independent_computation_with_several_candidates():
    """Three events evaluated: each at alpha / 3, split alpha / 6 per limit."""
    import dpaudit
    from dpaudit.mechanisms import LaplaceMechanism

    res = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=2_000, seed=SEED, candidates=3)
    assert res.candidates_evaluated == 3
    ev = res.evidence
    a = 0.05 / 3 / 2
    assert ev.p_numerator_interval[0] == pytest.approx(float(_mp_cp_lower(ev.count_numerator, ev.n, a)), rel=1e-8)
    assert ev.p_denominator_interval[1] == pytest.approx(float(_mp_cp_upper(ev.count_denominator, ev.n, a)), rel=1e-8)
    assert res.epsilon_lower_bound == pytest.approx(_mp_bound(ev.count_numerator, ev.count_denominator, ev.n, 0.0, 0.05 / 3), rel=1e-8)


def test_two_sided_interval_matches_an_independent_computation():
    lo, hi = clopper_pearson_interval(5, 40, 0.05)
    assert lo == pytest.approx(float(_mp_cp_lower(5, 40, 0.025)), rel=1e-8)
    assert hi == pytest.approx(float(_mp_cp_upper(5, 40, 0.025)), rel=1e-8)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((5, 1, 0, 0.0, 0.05), "`epsilon_lower_bound_from_counts`: `n` must be an integer >= 1; got n=0."),
        ((5, 1, 4, 0.0, 0.05), "`epsilon_lower_bound_from_counts`: `k_num` must be an integer in [0, 4]; got k_num=5."),
        ((1, 5, 4, 0.0, 0.05), "`epsilon_lower_bound_from_counts`: `k_den` must be an integer in [0, 4]; got k_den=5."),
    ],
)
def test_bound_refuses_impossible_counts(args, message):
    import re

    from dpaudit import InvalidArgument

    with pytest.raises(InvalidArgument, match=re.escape(message)):
        epsilon_lower_bound_from_counts(*args)


@pytest.mark.parametrize(("k_num", "k_den", "n"), [(700, 300, 1000), (90, 3, 400), (1000, 0, 1000)])
def test_gdp_mu_bound_matches_an_independent_computation(k_num, k_den, n):
    """mu >= Phi^-1(1 - FPR_hi) - Phi^-1(FNR_hi) [DRS19, Eq. (6)], limits at alpha / 2 from mpmath."""
    fpr_hi = float(_mp_cp_upper(k_den, n, 0.025))
    fnr_hi = 1 - float(_mp_cp_lower(k_num, n, 0.025))
    expected = max(0.0, float(stats.norm.isf(fpr_hi) - stats.norm.ppf(fnr_hi))) if fnr_hi < 1 and fpr_hi < 1 else 0.0
    assert gdp_mu_lower_bound_from_counts(k_num, k_den, n, 0.05) == pytest.approx(expected, rel=1e-7, abs=1e-12)
