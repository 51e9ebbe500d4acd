"""PrivateRange (Levy et al. 2021, App. D.1, reconstructed): privacy, exact sampling, width and utility.

Lemmas L4 (exponential-mechanism privacy, exact) and L5 (utility, safe vs paper mode) of the
``docs/papers/levy2021.md``, and the sampler's law against the exact probability vector.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpaudit.errors import InvalidArgument
from dpaudit.userlevel.levy2021.private_range import PrivateRange

FAILURE_PROB = 1e-6
SEED = 4


def _neighbour(values: np.ndarray, rng: np.random.Generator, low: float, high: float) -> np.ndarray:
    out = values.copy()
    out[rng.integers(values.size)] = rng.uniform(low, high)
    return out


@given(st.integers(0, 2**32 - 1), st.sampled_from(["safe", "paper"]), st.floats(0.05, 3.0))
def test_exponential_mechanism_is_eps_dp_exactly(seed, mode, eps):
    """L4: max_k |log P(k) - log P'(k)| <= eps_r on replace-one neighbours (exact, no sampling)."""
    rng = np.random.default_rng(seed)
    pr = PrivateRange(eps, tau=rng.uniform(0.05, 1.0), bound=rng.uniform(1.0, 5.0), mode=mode)
    x = rng.normal(0.0, rng.uniform(0.05, 3.0), size=int(rng.integers(1, 60)))
    y = _neighbour(x, rng, -2 * pr.bound, 2 * pr.bound)
    loss = np.max(np.abs(pr.log_probabilities(x) - pr.log_probabilities(y)))
    assert loss <= eps * (1 + 1e-9)


def test_exponential_mechanism_does_not_overflow_at_large_n_eps():
    """L4 with n = 10^6 users at eps = 1: exp(eps n / 2) would overflow; the log-space law does not."""
    pr = PrivateRange(1.0, tau=0.5, bound=2.0)
    x = np.full(10**6, 0.25)
    y = x.copy()
    y[0] = -1.9
    lx, ly = pr.log_probabilities(x), pr.log_probabilities(y)
    assert np.all(np.isfinite(lx)) and np.all(np.isfinite(ly))
    assert np.max(np.abs(lx - ly)) <= 1.0 + 1e-9
    bins = pr.select_bins(x[None, :], rng=np.random.default_rng(0), rows=50)
    assert np.all(bins == pr.bin_index(0.25))


@pytest.mark.parametrize("shared", [True, False])
def test_sampler_follows_the_exact_law(shared):
    """The Gumbel-max sampler (with the grouped empty bins) matches ``probabilities`` (chi-square)."""
    rng = np.random.default_rng(SEED)
    pr = PrivateRange(0.8, tau=0.25, bound=2.0)  # K = 8 bins
    x = np.array([0.1, 0.12, 0.3, -1.7, 1.99, 0.6])
    p = pr.probabilities(x)
    n = 200_000
    if shared:
        bins = pr.select_bins(x[None, :], rng=rng, rows=n)
    else:
        bins = pr.select_bins(np.tile(x, (n, 1)), rng=rng)
    counts = np.bincount(bins, minlength=pr.n_bins)
    res = stats.chisquare(counts, n * p)
    assert res.pvalue > FAILURE_PROB, f"n={n}, counts={counts.tolist()}, expected={np.round(n * p, 1).tolist()}, " \
                                      f"p-value={res.pvalue:.3g}, seed={SEED}"


def test_empty_bin_choice_is_uniform_over_the_empty_bins():
    rng = np.random.default_rng(SEED + 1)
    pr = PrivateRange(1e-6, tau=0.5, bound=5.0)  # eps ~ 0: every bin equally likely, K = 10
    x = np.array([[-4.9, -4.8, 0.1, 4.9]])  # bins 0, 0, 5, 9
    n = 100_000
    counts = np.bincount(pr.select_bins(x, rng=rng, rows=n), minlength=10)
    res = stats.chisquare(counts)
    assert res.pvalue > FAILURE_PROB, f"n={n}, counts={counts.tolist()}, p-value={res.pvalue:.3g}, seed={SEED + 1}"


def test_widths_of_the_two_modes():
    assert PrivateRange(1.0, 0.5, 4.0, mode="paper").width == 2.0  # 4 tau
    assert PrivateRange(1.0, 0.5, 4.0, mode="safe").width == 3.0  # 6 tau
    out = PrivateRange(1.0, 0.5, 4.0).sample(np.zeros((10, 2)), 100, rng=np.random.default_rng(0))
    np.testing.assert_allclose(out[:, 1] - out[:, 0], 3.0)
    assert PrivateRange(1.0, 0.3, 1.0).n_bins == 4  # ceil(1/0.3)


@given(st.integers(0, 2**32 - 1))
def test_safe_mode_contains_concentrated_data_whenever_the_bin_is_non_empty(seed):
    """L5: data in a tau-ball around x0 (points at the ball's edge and near bin edges) lie in the
    safe interval of every non-empty bin."""
    rng = np.random.default_rng(seed)
    tau = rng.uniform(0.1, 1.0)
    pr = PrivateRange(1.0, tau, bound=5.0, mode="safe")
    x0 = rng.uniform(-5 + tau, 5 - tau)
    pts = np.concatenate([[x0 - tau, x0 + tau], x0 + rng.uniform(-tau, tau, size=20)])
    for k in np.unique(pr.bin_index(pts)).astype(int):
        c = pr.bin_centers(k)
        assert np.all(pts >= c - pr.half_width - 1e-12) and np.all(pts <= c + pr.half_width + 1e-12)


def test_paper_mode_can_clip_concentrated_data():
    """B20: the note's counterexample (tau = 1, 60 points at 1.991, 40 at 3.99, x0 = 2.99)."""
    pr = PrivateRange(1.0, tau=1.0, bound=10.0, mode="paper")
    pts = np.array([1.991] * 60 + [3.99] * 40)
    assert np.max(np.abs(pts - 2.99)) <= 1.0  # (tau, 0)-concentrated
    k = int(np.argmax(pr.probabilities(pts)))  # the majority bin [0, 2) with centre 1
    assert math.isclose(float(pr.bin_centers(k)), 1.0)
    a, b = float(pr.bin_centers(k)) - pr.half_width, float(pr.bin_centers(k)) + pr.half_width
    assert (a, b) == (-1.0, 3.0) and np.mean(pts > b) == 0.4  # 40% clipped
    safe = PrivateRange(1.0, tau=1.0, bound=10.0, mode="safe")
    assert np.all(pts <= float(safe.bin_centers(k)) + safe.half_width)


def test_failure_probability_is_at_most_the_theorem_1_term():
    """L5: P(chosen bin empty) <= (K - 1) exp(-eps_r n / 4), exactly from the probability vector."""
    rng = np.random.default_rng(SEED)
    for n in (5, 20, 80):
        pr = PrivateRange(0.5, tau=0.2, bound=3.0)
        x = 1.0 + rng.uniform(-0.2, 0.2, size=n)
        p = pr.probabilities(x)
        occupied = np.unique(pr.bin_index(x)).astype(int)
        p_empty = 1.0 - p[occupied].sum()
        assert p_empty <= (pr.n_bins - 1) * math.exp(-0.5 * n / 4) + 1e-15


def test_any_finite_input_is_accepted_without_branching():
    """No data-dependent exception (B4, B12): far out-of-range values are clamped, not rejected."""
    pr = PrivateRange(1.0, tau=0.5, bound=1.0)
    x = np.array([[1e300], [-1e300], [0.0], [7.0]])
    out = pr.sample(x, 1000, rng=np.random.default_rng(0))
    assert np.all(np.isfinite(out)) and np.all(out[:, 0] >= -1.0 - pr.half_width)


def test_same_generator_state_gives_the_same_intervals():
    x = np.random.default_rng(0).normal(size=(30, 3))
    pr = PrivateRange(0.5, 0.3, 3.0)
    a = pr.sample(x, 5000, rng=np.random.default_rng(11))
    b = pr.sample(x, 5000, rng=np.random.default_rng(11))
    assert np.array_equal(a, b)


def test_bad_arguments():
    with pytest.raises(InvalidArgument, match=re.escape("`PrivateRange`: `epsilon` must be in (0, inf); got epsilon=-1.")):
        PrivateRange(-1, 0.5, 1.0)
    with pytest.raises(InvalidArgument, match=re.escape("`PrivateRange`: `mode` must be one of 'safe', 'paper'; got mode='wide'.")):
        PrivateRange(1.0, 0.5, 1.0, mode="wide")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match=re.escape(
            "`PrivateRange.sample`: `data` must be finite (it has 1 NaN or infinite entries)")):
        PrivateRange(1.0, 0.5, 1.0).sample(np.array([[0.0], [np.nan]]), 3, rng=np.random.default_rng(0))
    with pytest.raises(InvalidArgument, match=re.escape(
            "`PrivateRange.sample`: `data` must be shaped (n_users, m_items) (got shape (4, 2, 2))")):
        PrivateRange(1.0, 0.5, 1.0).sample(np.zeros((4, 2, 2)), 3, rng=np.random.default_rng(0))
    with pytest.raises(InvalidArgument, match=re.escape("`PrivateRange.sample`: `size` must be an integer >= 1; got size=0.")):
        PrivateRange(1.0, 0.5, 1.0).sample(np.zeros((4, 2)), 0, rng=np.random.default_rng(0))
