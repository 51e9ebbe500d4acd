"""Robust statistics of Ghazi et al. (2025): Assumption 3.3 for the median, and Remark 3.4's erratum.

Assumption 3.3 of [GKLM25]: (i) > B/2 points in an l_inf ball keep the statistic in it; (ii)
per-point perturbations of size Delta move it by at most Delta; (iii) affine equivariance with a
real scale of either sign and a coordinate-wise shift. Remark 3.4 claims the trimmed mean satisfies
it; (i) fails for light trimming, and (i') (the 2B/3 version the proofs use) needs k >= floor(B/3).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.errors import InvalidArgument
from dpaudit.userlevel.robust_stats import (
    CoordinateMedian,
    TrimmedMean,
    alignment_count,
    alignment_threshold,
)

STATISTICS = [CoordinateMedian(), TrimmedMean()]


@st.composite
def batches(draw, min_b=1, max_b=12, min_d=1, max_d=3):
    b = draw(st.integers(min_b, max_b))
    d = draw(st.integers(min_d, max_d))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # mixture of ties, a cluster and outliers, so that order statistics collide often
    x = np.round(rng.normal(size=(b, d)) * draw(st.sampled_from([0.1, 1.0, 100.0])), draw(st.integers(0, 3)))
    return x, rng


@pytest.mark.parametrize("stat", STATISTICS, ids=lambda s: s.name)
@settings(max_examples=80)
@given(data=batches())
def test_perturbation_moves_statistic_at_most_delta(stat, data):
    """Assumption 3.3(ii): ||rs(X + iota) - rs(X)||_inf <= max_i ||iota_i||_inf."""
    x, rng = data
    delta = float(rng.uniform(0, 2))
    iota = rng.uniform(-delta, delta, size=x.shape)
    gap = np.abs(stat(x + iota) - stat(x)).max()
    assert gap <= delta * (1 + 1e-12) + 1e-12, (gap, delta)


@pytest.mark.parametrize("stat", STATISTICS, ids=lambda s: s.name)
@settings(max_examples=80)
@given(data=batches(), a=st.floats(-5, 5, allow_nan=False).filter(lambda v: abs(v) > 1e-3))
def test_affine_equivariance_with_negative_scale_and_vector_shift(stat, data, a):
    """Assumption 3.3(iii), with a < 0 and a vector shift as Lemma 3.7 uses (a = -eta, b = x_{t-1})."""
    x, rng = data
    b = rng.normal(size=x.shape[1])
    lhs = stat(a * x + b)
    rhs = a * stat(x) + b
    assert np.allclose(lhs, rhs, rtol=1e-9, atol=1e-9 * (1 + np.abs(x).max() * abs(a) + np.abs(b).max()))


@settings(max_examples=100)
@given(data=batches(min_b=1, max_b=15, max_d=2))
def test_median_majority_break_point(data):
    """Assumption 3.3(i) for the median: more than B/2 points in B_inf(c, rho) keep the median there."""
    x, rng = data
    b = x.shape[0]
    centre = x[rng.integers(b)]
    rho = float(rng.uniform(0, 1.5))
    inside = (np.abs(x - centre) <= rho).all(axis=1)
    if 2 * inside.sum() > b:
        med = CoordinateMedian()(x)
        assert np.all(np.abs(med - centre) <= rho * (1 + 1e-12) + 1e-12)


@settings(max_examples=100)
@given(data=batches(min_b=4, max_b=15, max_d=2))
def test_default_trimmed_mean_alignment_break_point(data):
    """(i'): with k = floor(B/3) trimmed per side, >= ceil(2B/3) points in a ball keep the trimmed mean in it."""
    x, rng = data
    b, d = x.shape
    centre = rng.normal(size=d)
    rho = float(rng.uniform(0.1, 2.0))
    k = alignment_threshold(b)
    # move exactly k points into the ball and the others far outside, on random sides
    pts = centre + rng.uniform(-rho, rho, size=(b, d))
    far = rng.choice([-1.0, 1.0], size=(b - k, d)) * (rho + rng.uniform(1, 100, size=(b - k, d)))
    pts[k:] = centre + far
    rng.shuffle(pts)
    tm = TrimmedMean()(pts)
    assert TrimmedMean().satisfies_alignment_break_point(b)
    assert np.all(np.abs(tm - centre) <= rho * (1 + 1e-12)), (tm, centre, rho)


def test_remark_3_4_trimmed_mean_counterexample():
    """Remark 3.4 is false for a 10%-trimmed mean: B = 10, values {0 x 6, 100 x 4}, rho = 0, X' = 0.

    Six of ten points (more than B/2) sit in B_inf(0, 0), yet the 10%-trimmed mean is 37.5; the
    median is 0 as Assumption 3.3(i) requires.
    """
    x = np.array([0.0] * 6 + [100.0] * 4)[:, None]
    light = TrimmedMean(proportion=0.1)
    assert light.trim_count(10) == 1
    assert light(x)[0] == pytest.approx(37.5)
    assert not light.satisfies_majority_break_point(10)
    assert not light.satisfies_alignment_break_point(10)
    assert CoordinateMedian()(x)[0] == 0.0


def test_alignment_break_point_needs_floor_b_over_3():
    """With k = floor(B/3) - 1 a batch with ceil(2B/3) points at 0 has a trimmed mean outside [0, 0]."""
    for b in range(4, 31):
        k_ok = b // 3
        n_in = alignment_threshold(b)
        x = np.array([0.0] * n_in + [100.0] * (b - n_in))[:, None]
        assert TrimmedMean(trim=k_ok)(x)[0] == 0.0
        if k_ok >= 1:
            assert TrimmedMean(trim=k_ok - 1)(x)[0] > 0.0, b
            assert not TrimmedMean(trim=k_ok - 1).satisfies_alignment_break_point(b)


def test_only_the_median_has_the_printed_majority_break_point():
    """(i) with > B/2 points needs k >= floor((B-1)/2): the trimmed mean then averages the middle one or two."""
    for b in range(3, 40):
        k = (b - 1) // 2
        x = np.arange(b, dtype=float)[:, None] ** 2
        assert TrimmedMean(trim=k)(x)[0] == pytest.approx(np.median(x[:, 0]))
        assert TrimmedMean(trim=k).satisfies_majority_break_point(b)
        assert not TrimmedMean(trim=k - 1).satisfies_majority_break_point(b)


def test_statistics_are_coordinatewise_and_vectorised_over_trials(rng):
    x = rng.normal(size=(5, 7, 9, 3))
    for stat in STATISTICS:
        full = stat(x, axis=-2)
        assert full.shape == (5, 7, 3)
        for j in range(3):
            assert np.array_equal(full[..., j], stat(x[..., j : j + 1], axis=-2)[..., 0])
        assert np.allclose(full[2, 4], stat(x[2, 4], axis=0))


def _alignment_count_1d(x: np.ndarray, radius: float) -> int:
    xs = np.sort(x)
    return max(int(np.searchsorted(xs, v + 2 * radius, side="right") - i) for i, v in enumerate(xs))


@settings(max_examples=100)
@given(data=batches(min_b=1, max_b=12, max_d=1), radius=st.floats(0, 3))
def test_alignment_count_matches_sliding_window_in_1d(data, radius):
    x, _ = data
    assert alignment_count(x, radius) == _alignment_count_1d(x[:, 0], radius)


@settings(max_examples=60)
@given(data=batches(min_b=1, max_b=7, min_d=2, max_d=2), radius=st.floats(0, 2))
def test_alignment_count_in_2d_is_sandwiched(data, radius):
    """Random centres give lower bounds; each coordinate's 1-D count is an upper bound."""
    x, rng = data
    exact = int(alignment_count(x, radius))
    upper = min(_alignment_count_1d(x[:, j], radius) for j in range(2))
    centres = x[rng.integers(x.shape[0], size=400)] + rng.uniform(-radius, radius, size=(400, 2))
    lower = int(((np.abs(x[None] - centres[:, None]) <= radius).all(axis=2)).sum(axis=1).max())
    assert lower <= exact <= upper


def test_alignment_threshold_is_ceil_two_thirds():
    assert [alignment_threshold(b) for b in (1, 2, 3, 4, 5, 6, 7, 9, 10)] == [1, 2, 2, 3, 4, 4, 5, 6, 7]


def test_input_validation_messages():
    with pytest.raises(InvalidArgument, match=re.escape("`TrimmedMean`: `trim` must be an integer >= 0; got trim=-1.")):
        TrimmedMean(trim=-1)
    with pytest.raises(InvalidArgument, match=re.escape("`TrimmedMean`: `proportion` must be in [0, 0.5); got proportion=0.5.")):
        TrimmedMean(proportion=0.5)
    with pytest.raises(InvalidArgument, match=re.escape("`TrimmedMean`: `proportion` must be None when `trim` is given; got proportion=0.1.")):
        TrimmedMean(trim=1, proportion=0.1)
    with pytest.raises(InvalidArgument, match=re.escape("`TrimmedMean`: `trim` must be less than B/2 = 2 so that a value is left; got trim=2.")):
        TrimmedMean(trim=2)(np.zeros((4, 1)))
    with pytest.raises(InvalidArgument, match=re.escape("`CoordinateMedian`: `values` must be finite (it has 1 NaN or infinite entries)")):
        CoordinateMedian()(np.array([[0.0], [np.nan]]))
    with pytest.raises(InvalidArgument, match=re.escape("`CoordinateMedian`: `axis` must be a valid axis for an array of shape (3, 2); got axis=2.")):
        CoordinateMedian()(np.zeros((3, 2)), axis=2)
    with pytest.raises(InvalidArgument, match=re.escape("`alignment_count`: `radius` must be in [0, inf); got radius=-1.0.")):
        alignment_count(np.zeros((3, 2)), -1.0)
