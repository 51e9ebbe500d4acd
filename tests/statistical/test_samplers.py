"""Every primitive sampler against its exact law.

Each test draws ``N`` samples with a fixed seed and runs a KS test (continuous laws) or a chi-square
test (discrete laws, bins with expected count < 5 merged). The declared failure probability of
each test is ``FAILURE_PROB``: a correct sampler fails it with probability ``FAILURE_PROB``, and the
test asserts ``p-value > FAILURE_PROB``. On failure the message prints N, the statistic, the
p-value and the seed.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, special, stats

from dpaudit.mechanisms import (
    AboveThreshold,
    DiscreteLaplaceMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    ReportNoisyMax,
    SparseVector,
    TruncatedDiscreteLaplaceMechanism,
)
from dpaudit.mechanisms.sparse_vector import BOTTOM, NOT_REACHED, TOP

FAILURE_PROB = 1e-6
N = 100_000
SEED = 20261122


def _ks(sample, cdf, label):
    stat, p = stats.kstest(sample, cdf)
    assert p > FAILURE_PROB, f"{label}: KS D={stat:.5f}, p={p:.3g} <= {FAILURE_PROB} (N={len(sample)}, seed={SEED})"


def _chisquare(observed_values, support, pmf, label):
    """Chi-square goodness of fit; bins with expected count below 5 are merged into their neighbour."""
    counts = np.array([np.count_nonzero(observed_values == v) for v in support], dtype=float)
    outside = len(observed_values) - counts.sum()
    assert outside == 0, f"{label}: {outside} samples fall outside the support"
    expected = np.asarray(pmf, dtype=float) * len(observed_values)
    obs_bins, exp_bins, acc_o, acc_e = [], [], 0.0, 0.0
    for o, e in zip(counts, expected, strict=True):
        acc_o, acc_e = acc_o + o, acc_e + e
        if acc_e >= 5:
            obs_bins.append(acc_o)
            exp_bins.append(acc_e)
            acc_o = acc_e = 0.0
    obs_bins[-1] += acc_o
    exp_bins[-1] += acc_e
    exp_arr = np.array(exp_bins) * (sum(obs_bins) / sum(exp_bins))
    stat, p = stats.chisquare(obs_bins, exp_arr)
    assert p > FAILURE_PROB, (
        f"{label}: chi2={stat:.2f} on {len(obs_bins) - 1} df, p={p:.3g} <= {FAILURE_PROB} (N={len(observed_values)}, seed={SEED})"
    )


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 5.0])
def test_laplace(epsilon):
    mech = LaplaceMechanism(epsilon, sensitivity=2.0)
    x = mech.sample(3.0, N, rng=np.random.default_rng(SEED))
    _ks(x, stats.laplace(loc=3.0, scale=2.0 / epsilon).cdf, f"Laplace eps={epsilon}")


def test_laplace_vector_coordinates_are_independent_laplace():
    x = LaplaceMechanism(1.0).sample(np.array([0.0, 10.0]), N, rng=np.random.default_rng(SEED))
    _ks(x[:, 1], stats.laplace(loc=10.0, scale=1.0).cdf, "Laplace coordinate 1")
    # independence: the sign of one coordinate does not predict the other (2x2 table)
    table = np.histogram2d(x[:, 0] > 0, x[:, 1] > 10, bins=2)[0]
    assert stats.chi2_contingency(table).pvalue > FAILURE_PROB


@pytest.mark.parametrize("calibration", ["analytic", "classical"])
def test_gaussian(calibration):
    mech = GaussianMechanism(0.5, 1e-5, calibration=calibration)
    x = mech.sample(-1.0, N, rng=np.random.default_rng(SEED))
    _ks(x, stats.norm(loc=-1.0, scale=mech.sigma).cdf, f"Gaussian {calibration}")


@pytest.mark.parametrize(("epsilon", "sensitivity"), [(0.5, 1), (1.0, 1), (2.0, 3)])
def test_discrete_laplace(epsilon, sensitivity):
    x = DiscreteLaplaceMechanism(epsilon, sensitivity).sample(4, N, rng=np.random.default_rng(SEED)) - 4
    t = epsilon / sensitivity
    support = np.arange(-200, 201)
    pmf = np.tanh(t / 2) * np.exp(-t * np.abs(support))  # (1 - e^-t)/(1 + e^-t) e^{-t|k|}
    _chisquare(x, support, pmf / pmf.sum(), f"discrete Laplace eps={epsilon}")


@pytest.mark.parametrize(("epsilon", "delta"), [(1.0, 1e-3), (0.5, 1e-2)])
def test_truncated_discrete_laplace_matches_definition_3_4(epsilon, delta):
    """pmf ∝ exp(-eps |x - kappa|) on {0..2 kappa} [GKKMMZ23, Def 3.4], normaliser from the note's closed form."""
    mech = TruncatedDiscreteLaplaceMechanism(epsilon, delta)
    kappa = 1 + int(np.ceil(np.log(1 / delta) / epsilon))
    assert mech.kappa == kappa
    r = mech.sample(0, N, rng=np.random.default_rng(SEED)) + kappa
    z = (1 + np.exp(-epsilon) - 2 * np.exp(-epsilon * (kappa + 1))) / (1 - np.exp(-epsilon))
    support = np.arange(2 * kappa + 1)
    _chisquare(r, support, np.exp(-epsilon * np.abs(support - kappa)) / z, "TDLap")


@pytest.mark.parametrize("k", [2, 5])
def test_randomized_response(k):
    x = RandomizedResponse(1.0, k).sample(np.array([1]), N, rng=np.random.default_rng(SEED))[:, 0]
    p = np.e / (np.e + k - 1)
    pmf = np.full(k, (1 - p) / (k - 1))
    pmf[1] = p
    _chisquare(x, np.arange(k), pmf, f"randomized response k={k}")


def test_exponential_mechanism():
    u = np.array([0.0, 1.0, 3.0, -2.0])
    x = ExponentialMechanism(1.0, sensitivity=2.0).sample(u, N, rng=np.random.default_rng(SEED))
    _chisquare(x, np.arange(4), special.softmax(1.0 * u / 4.0), "exponential mechanism")


def _argmax_law(q, pdf, cdf, lo, hi):
    """P[argmax_i (q_i + Z_i) = i] by numerical integration, for i.i.d. noise Z."""
    out = []
    for i in range(len(q)):
        def integrand(x, i=i):
            others = np.prod([cdf(x - q[j]) for j in range(len(q)) if j != i])
            return pdf(x - q[i]) * others
        out.append(integrate.quad(integrand, lo, hi, limit=200, epsabs=1e-12)[0])
    return np.array(out)


@pytest.mark.parametrize("noise", ["laplace", "gumbel", "exponential"])
def test_report_noisy_max(noise):
    q = np.array([0.0, 1.0, 0.5])
    mech = ReportNoisyMax(1.0, noise=noise)
    x = mech.sample(q, N, rng=np.random.default_rng(SEED))
    b = mech.scale
    if noise == "gumbel":
        pmf = special.softmax(q / b)  # Gumbel-max trick == exponential mechanism
    else:
        dist = stats.laplace(scale=b) if noise == "laplace" else stats.expon(scale=b)
        pmf = _argmax_law(q, dist.pdf, dist.cdf, -60 * b, 60 * b)
    _chisquare(x, np.arange(3), pmf / pmf.sum(), f"report noisy max ({noise})")


def _first_halt_law(q, threshold, b_threshold, b_query, halting_above):
    """P[the first halting answer is at query i] (i = len(q) means none), integrating over the threshold noise."""
    lap_t, lap_q = stats.laplace(scale=b_threshold), stats.laplace(scale=b_query)

    def halt_prob(r, qi):
        # above: q + nu >= T + r ; below (mirrored): q + nu < T - r
        return lap_q.sf(threshold + r - qi) if halting_above else lap_q.cdf(threshold - r - qi)

    law = []
    for i in range(len(q) + 1):
        def integrand(r, i=i):
            p = np.prod([1 - halt_prob(r, q[j]) for j in range(i)])
            return lap_t.pdf(r) * p * (halt_prob(r, q[i]) if i < len(q) else 1.0)
        law.append(integrate.quad(integrand, -80 * b_threshold, 80 * b_threshold, points=[0.0], limit=400)[0])
    return np.array(law)


def _first_halt_index(codes, halting_code):
    halted = codes == halting_code
    return np.where(halted.any(axis=1), halted.argmax(axis=1), codes.shape[1])


@pytest.mark.parametrize("variant", ["lowy2024", "ghazi2025"])
def test_above_threshold(variant):
    q = np.array([-1.0, 0.5, 2.0])
    mech = AboveThreshold(1.0, 1.0, variant=variant)
    codes = mech.sample(q, N, rng=np.random.default_rng(SEED))
    halting_code = TOP if variant == "lowy2024" else BOTTOM
    idx = _first_halt_index(codes, halting_code)
    # after the halt every answer is NOT_REACHED; before it, the other code
    cols = np.arange(len(q))[None, :]
    assert np.all(codes[cols > idx[:, None]] == NOT_REACHED)
    assert np.all(codes[cols < idx[:, None]] == (BOTTOM if variant == "lowy2024" else TOP))
    law = _first_halt_law(q, 1.0, mech.threshold_scale, mech.query_scale, variant == "lowy2024")
    _chisquare(idx, np.arange(len(q) + 1), law / law.sum(), f"AboveThreshold {variant}")


def test_sparse_vector_cutoff_one_is_above_threshold_with_lyu_scales():
    q = np.array([0.0, 1.0, -1.0, 2.0])
    mech = SparseVector(2.0, 0.5, cutoff=1)
    codes = mech.sample(q, N, rng=np.random.default_rng(SEED))
    assert mech.threshold_scale == pytest.approx(1.0) and mech.query_scale == pytest.approx(2.0)
    law = _first_halt_law(q, 0.5, mech.threshold_scale, mech.query_scale, True)
    _chisquare(_first_halt_index(codes, TOP), np.arange(len(q) + 1), law / law.sum(), "sparse vector c=1")


def test_sparse_vector_stops_after_cutoff():
    codes = SparseVector(1.0, -100.0, cutoff=2).sample(np.zeros(5), 1000, rng=np.random.default_rng(SEED))
    np.testing.assert_array_equal(codes, np.tile([TOP, TOP, NOT_REACHED, NOT_REACHED, NOT_REACHED], (1000, 1)))
