"""Algorithms 1-5 of Ghazi, Kumar, Liu and Manurangsi (2025): behaviour, parameters, counts, errata.

Statistical tests declare FAILURE_PROB and compute their acceptance regions from it.
"""

from __future__ import annotations

import math
import re
import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from dpaudit.accounting.calibrate import gaussian_sigma_classical
from dpaudit.errors import InvalidArgument, UnsoundMechanismWarning
from dpaudit.guarantees import ApproxDP, PureDP
from dpaudit.mechanisms.sparse_vector import BOTTOM, NOT_REACHED, TOP, AboveThreshold
from dpaudit.neighbors import UserReplace
from dpaudit.userlevel.ghazi2025 import base as g25_base
from dpaudit.userlevel.ghazi2025 import concentration as g25_concentration
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization, RobustStatsSGD
from dpaudit.userlevel.ghazi2025.concentration import (
    ConcentrationTest,
    StreamingAboveThreshold,
    concentration_score,
)
from dpaudit.userlevel.ghazi2025.gradient_estimation import (
    RobustGradientEstimator,
    robust_gradient_estimate,
)
from dpaudit.userlevel.ghazi2025.losses import LinearLoss, SeparableHuberLoss
from dpaudit.userlevel.ghazi2025.parameters import LEMMA_3_8_SCORE_CEILING
from dpaudit.userlevel.ghazi2025.sgd import robust_sgd_path
from dpaudit.userlevel.robust_stats import TrimmedMean, alignment_count, alignment_threshold

FAILURE_PROB = 1e-6
SEED = 20250213


def paper(cls, *args, **kw):
    """Construct a preset='paper' mechanism, checking that it warns as an unsound mechanism."""
    with pytest.warns(UnsoundMechanismWarning, match="preset='paper' follows"):
        return cls(*args, preset="paper", **kw)


def linear_data(n: int, m: int, d: int, rng: np.random.Generator, mean: float = 0.3, spread: float = 0.5) -> np.ndarray:
    z = np.zeros((n, m, d + 1))
    z[..., :d] = np.clip(mean + spread * rng.uniform(-1, 1, size=(n, m, d)), -1, 1)
    return z


class _NoNoise:
    """A generator whose Laplace and Gaussian draws are all zero: exposes the deterministic part."""

    def laplace(self, loc, scale, size=None):
        return np.zeros(size)

    def normal(self, loc, scale, size=None):
        return np.zeros(size)


# ---------------------------------------------------------------------------------------------
# Algorithm 2
# ---------------------------------------------------------------------------------------------


@settings(max_examples=80)
@given(seed=st.integers(0, 2**32 - 1), b=st.integers(1, 9), d=st.integers(1, 3), vs=st.floats(0.01, 3))
def test_algorithm_2_closed_form_and_invariants(seed, b, d, vs):
    """Lines 3-9 (branch on |rs - mean| >= vs) equal the clip; the output lies in B_inf(rs, vs) (Alg 2)."""
    rng = np.random.default_rng(seed)
    q = rng.standard_cauchy(size=(b, d))
    g = robust_gradient_estimate(q, vs)
    rs, mean = np.median(q, axis=0), q.mean(axis=0)
    branch = np.where(np.abs(rs - mean) >= vs, np.clip(mean, rs - vs, rs + vs), mean)
    assert np.array_equal(g, branch)
    assert np.all(np.abs(g - rs) <= vs * (1 + 1e-12))
    if np.all(np.abs(mean - rs) <= vs):
        assert np.array_equal(g, mean)
    # 1-Lipschitz under per-point perturbations, and affine equivariance with |a| vs
    delta = float(rng.uniform(0, 1))
    g2 = robust_gradient_estimate(q + rng.uniform(-delta, delta, size=q.shape), vs)
    assert np.abs(g2 - g).max() <= delta * (1 + 1e-9) + 1e-12
    a, shift = float(rng.choice([-2.5, -0.5, 0.7, 3.0])), rng.normal(size=d)
    assert np.allclose(robust_gradient_estimate(a * q + shift, abs(a) * vs), a * g + shift, atol=1e-9 * (1 + np.abs(q).max()))


def test_robust_gradient_estimator_operator(rng):
    q = rng.normal(size=(4, 7, 3))
    est = RobustGradientEstimator(0.2, TrimmedMean())
    assert np.array_equal(est(q), robust_gradient_estimate(q, 0.2, TrimmedMean()))
    with pytest.raises(InvalidArgument, match=re.escape("`RobustGradientEstimator`: `varsigma` must be in (0, inf); got varsigma=0.")):
        RobustGradientEstimator(0)


# ---------------------------------------------------------------------------------------------
# Eq. (3): the concentration score
# ---------------------------------------------------------------------------------------------


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), b=st.integers(1, 40), tau=st.floats(0.01, 300))
def test_sorted_score_equals_pairwise_in_1d(seed, b, tau):
    rng = np.random.default_rng(seed)
    q = np.round(rng.normal(size=(3, b, 1)) * rng.choice([0.01, 1, 50]), 2)  # ties included
    assert np.allclose(concentration_score(q, tau, method="sorted"), concentration_score(q, tau, method="pairwise"), rtol=1e-9)


def test_pairwise_score_matches_definition_and_range(rng):
    q = rng.normal(size=(5, 9, 3))
    tau = 0.7
    s = concentration_score(q, tau)
    dist = np.abs(q[:, :, None, :] - q[:, None, :, :]).max(axis=-1)
    assert np.allclose(s, np.exp(-tau * dist).sum(axis=(1, 2)) / 9)
    assert np.all((s >= 1) & (s <= 9))
    assert np.allclose(concentration_score(q[:, rng.permutation(9)], tau), s)


def test_pairwise_score_memory_blocks_give_the_same_value(rng, monkeypatch):
    q = rng.normal(size=(6, 50, 2))
    full = concentration_score(q, 2.0)
    monkeypatch.setattr(g25_concentration, "_SCORE_BLOCK_BYTES", 8 * 50 * 3)  # forces row blocks of one trial and a few rows
    assert np.allclose(concentration_score(q, 2.0), full, rtol=1e-12)


def test_eq_4_replacing_one_user_moves_the_score_by_less_than_two():
    """Eq. (4): |s(D) - s(D')| <= 2 - 2/B for batches differing in one point; tight."""
    for b in (2, 5, 50):
        same = np.zeros((b, 1))
        far = same.copy()
        far[0] = 1e6
        diff = concentration_score(same, 1.0) - concentration_score(far, 1.0)
        assert diff == pytest.approx(2 - 2 / b, rel=1e-12)


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), b=st.integers(2, 30), d=st.integers(1, 3))
def test_eq_4_on_random_batches(seed, b, d):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(b, d)) * rng.choice([0.1, 1, 10])
    q2 = q.copy()
    q2[rng.integers(b)] = rng.normal(size=d) * 100
    tau = float(rng.uniform(0.1, 10))
    assert abs(concentration_score(q, tau) - concentration_score(q2, tau)) <= 2 - 2 / b + 1e-12


@settings(max_examples=80)
@given(seed=st.integers(0, 2**32 - 1), b=st.integers(4, 14), d=st.integers(1, 2))
def test_lemma_3_8_with_two_thirds(seed, b, d):
    """Lemma 3.8 read with 2B/3 (erratum A6): no (1/tau)-ball holding 2B/3 points => s < c0 B.

    Also the finer bound of the proof, s <= (1/B) sum_i [k_i + (B - k_i)/e] with k_i the points
    within 1/tau of point i. The printed hypothesis "< B/3" leaves batches with between B/3 and
    2B/3 points in the best ball uncovered; the 2B/3 version covers them.
    """
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(b, d)) * rng.choice([0.3, 1, 3])
    tau = 1.0
    s = float(concentration_score(q, tau))
    dist = np.abs(q[:, None, :] - q[None, :, :]).max(axis=-1)
    k = (dist <= 1 / tau).sum(axis=1)
    assert s <= (k + (b - k) * math.exp(-1)).sum() / b + 1e-12
    best = int(alignment_count(q, 1 / tau))
    if best < alignment_threshold(b):
        assert s < LEMMA_3_8_SCORE_CEILING * b


def _score_by_double_loop(q: np.ndarray, tau: float) -> float:
    """Eq. (3) by its definition, one pair at a time (independent of the vectorised code)."""
    b = len(q)
    total = 0.0
    for i in range(b):
        for j in range(b):
            total += math.exp(-tau * max(abs(float(u) - float(v)) for u, v in zip(q[i], q[j], strict=True)))
    return total / b


def test_alignment_threshold_is_two_thirds_by_enumeration():
    """ceil(2B/3): the smallest count k with 3k >= 2B, found by enumeration for every B up to 300."""
    for b in range(1, 301):
        assert alignment_threshold(b) == min(k for k in range(b + 1) if 3 * k >= 2 * b), b


@pytest.mark.parametrize("b", [6, 9, 10, 14, 15])
def test_lemma_3_8_covers_the_gap_the_printed_hypothesis_leaves(b):
    """Batches whose best (1/tau)-ball holds k points, B/3 <= k < 2B/3 (erratum A6).

    The printed hypothesis of Lemma 3.8 ("< B/3") does not cover them, yet they are not aligned, so the
    proof of Lemma 3.10 needs them: read with 2B/3 they are covered, and their score is below c0 B.
    k points sit at 0 and the others 2.5/tau apart on a line (one per ball), so the best ball holds k.
    """
    tau = 1.0
    ks = range(-(-b // 3), alignment_threshold(b))  # ceil(B/3) .. ceil(2B/3) - 1
    assert len(ks) >= 1
    for k in ks:
        q = np.zeros((b, 1))
        q[k:, 0] = 2.5 / tau * np.arange(1, b - k + 1)
        best = int(alignment_count(q, 1 / tau))
        assert best == k and 3 * best >= b  # outside the printed hypothesis
        assert best < alignment_threshold(b)  # not aligned
        s = float(concentration_score(q, tau))
        assert s == pytest.approx(_score_by_double_loop(q, tau), rel=1e-12)
        assert s < LEMMA_3_8_SCORE_CEILING * b, (b, k, s)


def test_lemma_3_8_ceiling_constant():
    assert LEMMA_3_8_SCORE_CEILING == pytest.approx(2 / 3 + 1 / (3 * math.e))
    assert LEMMA_3_8_SCORE_CEILING < 0.8  # the proof's "< 0.8B"


# ---------------------------------------------------------------------------------------------
# Algorithm 4, streaming; erratum A3 by exact quadrature
# ---------------------------------------------------------------------------------------------


def test_streaming_above_threshold_uses_algorithm_4_scales():
    for s in (1.0, 2.0):
        at = StreamingAboveThreshold(0.5, 3.0, s)
        ref = AboveThreshold(0.5, 3.0, s, variant="ghazi2025")
        assert (at.threshold_scale, at.query_scale) == (ref.threshold_scale, ref.query_scale)
        assert at.threshold_scale == pytest.approx(2 * s / 0.5) and at.query_scale == pytest.approx(4 * s / 0.5)


def test_streaming_above_threshold_matches_the_standalone_mechanism():
    """Halting-step distribution of the streaming version equals AboveThreshold(variant='ghazi2025')'s.

    Two-sample chi-square test of homogeneity at FAILURE_PROB over the outcomes 'halt at t' / 'never'.
    """
    rng = np.random.default_rng(SEED)
    q = np.array([3.0, 1.0, 2.5, 0.0, 4.0])
    eps, thr, n = 1.0, 2.0, 40_000
    ref_codes = AboveThreshold(eps, thr, 1.0, variant="ghazi2025").sample(q, n, rng=rng)
    at = StreamingAboveThreshold(eps, thr, 1.0)
    noisy = at.start(n, rng=rng)
    halted = np.zeros(n, dtype=bool)
    codes = np.empty((n, q.size), dtype=np.int8)
    for t in range(q.size):
        codes[:, t], halted = at.step(np.full(n, q[t]), noisy, halted, rng=rng)

    def outcome(c):
        bottom = c == BOTTOM
        return np.where(bottom.any(axis=1), bottom.argmax(axis=1), q.size)

    assert set(np.unique(codes)) <= {TOP, BOTTOM, NOT_REACHED}
    table = np.stack([np.bincount(outcome(ref_codes), minlength=q.size + 1), np.bincount(outcome(codes), minlength=q.size + 1)])
    pval = stats.chi2_contingency(table)[1]
    assert pval > FAILURE_PROB, f"n={n}, table={table.tolist()}, p={pval:.3g}, alpha={FAILURE_PROB}, seed={SEED}"


def _lap_cdf(x, b):
    return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0) / b), 1 - 0.5 * np.exp(-np.maximum(x, 0) / b))


def _p_halt_at(scores, nu, bt, bq):
    """Exact P(⊤^{k-1} ⊥) of Algorithm 4 (mirrored) on the stream ``scores`` of length k, by quadrature."""

    def f(u):
        c = nu - u  # noisy threshold nu - Lap(bt): ⊥ iff s + Lap(bq) < c
        passes = np.prod(1 - _lap_cdf(c - scores[:-1], bq))
        return math.exp(-abs(u) / bt) / (2 * bt) * passes * _lap_cdf(c - scores[-1], bq)

    pts = sorted({nu - s for s in scores} | {0.0})
    return integrate.quad(f, -60 * bt, 60 * bt, points=pts, limit=500, epsabs=0, epsrel=1e-11)[0]


def test_erratum_a3_above_threshold_loses_twice_its_budget_on_sensitivity_2_scores():
    """Erratum A3: the scores have sensitivity 2 (Eq. (4), Lemma 3.9) but Alg. 4 is calibrated for 1.

    Exact privacy loss of the halting transcript for streams with |s_t - s'_t| <= 2 (all earlier
    scores up by 2, the halting one down by 2), over a grid of streams: with the paper's scales
    (Lap(2/e), Lap(4/e)) it reaches 2 e_AT; with the doubled (safe) scales it stays at e_AT.
    """
    eps_at = 0.5
    worst = {}
    for sens in (1.0, 2.0):
        at = StreamingAboveThreshold(eps_at, 0.0, sens)
        best = 0.0
        for k in (1, 10, 40):
            for a in (-5.0, 5.0):
                for c in (-5.0, 5.0, 20.0):
                    s = np.array([a] * (k - 1) + [c], dtype=float)
                    s2 = s + 2.0
                    s2[-1] = s[-1] - 2.0
                    p, p2 = _p_halt_at(s, 0.0, at.threshold_scale, at.query_scale), _p_halt_at(s2, 0.0, at.threshold_scale, at.query_scale)
                    best = max(best, abs(math.log(p2 / p)))
        worst[sens] = best
    assert worst[1.0] > 1.9 * eps_at, worst  # paper: ~ 2 e_AT = 1.0, i.e. the claim e_AT is exceeded
    assert worst[2.0] <= eps_at * (1 + 1e-7), worst  # safe: within e_AT (quadrature accuracy 1e-11)


# ---------------------------------------------------------------------------------------------
# Algorithm 1 / Algorithm 5: the run, its counts and determinism
# ---------------------------------------------------------------------------------------------


def test_mechanism_output_is_the_sgd_average_when_every_test_passes():
    """With zero noise, a passing run releases exactly robust_sgd_path's average iterate (Alg. 1, line 11)."""
    rng = np.random.default_rng(SEED)
    data = linear_data(40, 3, 2, rng)
    loss = SeparableHuberLoss(beta=1.0, gradient_cap=1.0)
    data[..., 2] = 1.0
    mech = paper(RobustStatsSGD, loss, 1.0, 1e-3, batch_size=8, step_size=0.3, tau=0.5, threshold=1.0)
    run = mech.sample_with_info(data, 3, rng=_NoNoise())
    path = robust_sgd_path(loss, data, np.zeros(2), step_size=0.3, tau=0.5, batch_size=8, radius=1.0)
    assert run.passed.all()
    assert np.allclose(run.outputs, path.average[None, :], rtol=0, atol=1e-15)
    # a failing run releases exactly x_0 (Alg. 1, line 14): threshold above every score
    mech_fail = paper(RobustStatsSGD, loss, 1.0, 1e-3, batch_size=8, step_size=0.3, tau=0.5, threshold=9.0,
                      initial_point=(0.25, -0.5))
    out = mech_fail.sample_with_info(data, 2, rng=_NoNoise())
    assert not out.passed.any() and np.array_equal(out.outputs, np.tile([0.25, -0.5], (2, 1)))
    assert out.halt_step.tolist() == [[0], [0]]


def test_gradient_count_is_exactly_n_times_m():
    """Linear time: every user's m items are differentiated exactly once (Thm 3.1: "mn gradient computations")."""
    rng = np.random.default_rng(SEED)
    n, m, b = 8 * 12, 5, 12
    data = linear_data(n, m, 2, rng)
    counted = []

    class CountingLoss(LinearLoss):
        def mean_gradient(self, theta, items):
            counted.append(np.broadcast_shapes(np.shape(theta)[:-1], np.shape(items)[:-2]) + np.shape(items)[-2:-1])
            return super().mean_gradient(theta, items)

    mech = RobustStatsLocalization(CountingLoss(1.0), 1.0, 1e-3, batch_size=b)
    size = 7
    run = mech.sample_with_info(data, size, rng=rng)
    p = run.parameters
    assert p.phase_users == (48, 24, 24) and p.phases == 3
    assert run.gradient_evaluations == n * m == p.gradient_evaluations
    assert np.array_equal(run.user_gradient_evaluations, np.full(n, m))
    per_trial_calls = sum(math.prod(s) for s in counted) / size  # (trials, B users, m items) per call
    assert per_trial_calls == n * m
    # the score's work is counted separately: B^2 terms per step
    assert run.score_pair_terms == sum(p.phase_steps) * b * b == p.score_pair_terms


def test_gradient_count_with_leftover_users_and_algorithm_1():
    """Users that do not fill a batch are never used (never reused elsewhere): m per used user."""
    rng = np.random.default_rng(SEED)
    n, m, b = 4 * 10 + 7, 2, 10
    data = linear_data(n, m, 1, rng)
    run = RobustStatsSGD(LinearLoss(1.0), 1.0, 1e-3, batch_size=b).sample_with_info(data, 4, rng=rng)
    assert run.gradient_evaluations == 40 * m
    assert run.user_gradient_evaluations.tolist() == [m] * 40 + [0] * 7
    run5 = RobustStatsLocalization(LinearLoss(1.0), 1.0, 1e-3, batch_size=b).sample_with_info(data, 4, rng=rng)
    assert run5.parameters.phase_users == (20, 20)  # S = floor(log2(4.7)) = 2; n_1 = 10 floor(47/20); last: the rest
    assert run5.gradient_evaluations == 40 * m and run5.user_gradient_evaluations[40:].sum() == 0


def test_shuffled_assignment_uses_each_user_at_most_once_per_trial():
    rng = np.random.default_rng(SEED)
    data = linear_data(50, 2, 1, rng)
    data[:, :, 0] = np.arange(50)[:, None] / 100.0  # users identifiable by their gradient
    seen = []

    class Spy(LinearLoss):
        def mean_gradient(self, theta, items):
            seen.append(np.asarray(items)[..., 0, 0].copy())
            return super().mean_gradient(theta, items)

    run = RobustStatsSGD(Spy(1.0), 1.0, 1e-3, batch_size=10, shuffle=True).sample_with_info(data, 6, rng=rng)
    users = np.concatenate(seen, axis=1)  # (trials, 50): the users of the 5 steps
    assert users.shape == (6, 50) and run.user_gradient_evaluations is None
    assert all(np.unique(row).size == 50 for row in users)
    assert len({tuple(row) for row in users}) > 1  # the assignment differs between trials


def test_same_rng_same_outputs_and_trial_blocks(monkeypatch):
    data = linear_data(40, 2, 2, np.random.default_rng(1))
    mech = RobustStatsLocalization(SeparableHuberLoss(1.0, 1.0), 1.0, 1e-3, batch_size=10)
    data[..., 2] = 1.0
    a = mech.sample(data, 50, rng=np.random.default_rng(SEED))
    b = mech.sample(data, 50, rng=np.random.default_rng(SEED))
    assert np.array_equal(a, b) and a.shape == (50, 2)
    calls = []
    original = g25_base._Ghazi2025Base._run_chunk

    def spy(self, *args):
        calls.append(args[3])
        return original(self, *args)

    monkeypatch.setattr(g25_base._Ghazi2025Base, "_run_chunk", spy)
    monkeypatch.setattr(g25_base, "_TRIAL_BLOCK_BYTES", 8 * 10 * 2 * 3 * 2 * 7)  # 7 trials per block
    c1 = mech.sample(data, 50, rng=np.random.default_rng(SEED))
    c2 = mech.sample(data, 50, rng=np.random.default_rng(SEED))
    assert calls[:8] == [7] * 7 + [1]
    assert np.array_equal(c1, c2)
    one = mech(data, np.random.default_rng(SEED))
    assert one.shape == (2,)


def test_large_trial_batches_stay_within_memory():
    """size = 65,536 trials in bounded memory (peak traced allocation far below 1 GB)."""
    rng = np.random.default_rng(SEED)
    data = linear_data(40, 2, 2, rng)
    mech = RobustStatsSGD(LinearLoss(1.0), 1.0, 1e-3, batch_size=20)
    tracemalloc.start()
    try:
        out = mech.sample(data, 65_536, rng=rng)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.shape == (65_536, 2) and np.isfinite(out).all()
    assert peak < 2**30, peak


def test_claimed_guarantees():
    loss = LinearLoss(1.0)
    assert RobustStatsLocalization(loss, 0.5, 1e-6).claimed_guarantee() == ApproxDP(0.5, 1e-6, UserReplace())
    assert RobustStatsSGD(loss, 0.5, 1e-6).claimed_guarantee() == ApproxDP(0.5, 1e-6, UserReplace())
    ct = ConcentrationTest(loss, 0.5, threshold=3.0, tau=1.0, batch_size=4)
    assert ct.claimed_guarantee() == PureDP(0.25, UserReplace())


def test_concentration_test_mechanism():
    rng = np.random.default_rng(SEED)
    data = np.zeros((12, 1, 2))
    data[4:8, 0, 0] = [-1, 1, -1, 1]  # batch 2 is spread out: score (2*4 + 8 e^-2)/4 ... well below 4
    ct = ConcentrationTest(LinearLoss(1.0), 1.0, threshold=3.0, tau=1.0, batch_size=4)
    assert np.allclose(ct.scores(data), [4.0, (8 + 8 * math.exp(-2)) / 4, 4.0])
    n = 20_000
    codes = ct.sample(data, n, rng=rng)
    assert codes.shape == (n, 3)
    assert np.all(codes[codes[:, 0] == BOTTOM, 1:] == NOT_REACHED)
    # outcome frequencies against the exact probabilities (quadrature), Clopper-Pearson at FAILURE_PROB / 4
    at, sc = ct.above_threshold, ct.scores(data)
    exact = [_p_halt_at(np.asarray(sc[: k + 1]), 3.0, at.threshold_scale, at.query_scale) for k in range(3)]
    exact.append(1 - sum(exact))
    bottom = codes == BOTTOM
    outcome = np.where(bottom.any(axis=1), bottom.argmax(axis=1), 3)
    for k, p in enumerate(exact):
        c = int((outcome == k).sum())
        lo, hi = stats.beta.ppf(FAILURE_PROB / 8, c, n - c + 1), stats.beta.isf(FAILURE_PROB / 8, c + 1, n - c)
        assert lo <= p <= hi, f"outcome {k}: n={n}, k={c}, interval=({lo:.4f}, {hi:.4f}), p={p:.4f}, seed={SEED}"
    assert ct.above_threshold.query_scale == pytest.approx(4 * 2 / 0.5)
    assert ConcentrationTest(LinearLoss(1.0), 1.0, 3.0, 1.0, 4, preset="paper").above_threshold.query_scale == pytest.approx(8.0)


# ---------------------------------------------------------------------------------------------
# Parameters: the presets
# ---------------------------------------------------------------------------------------------


def test_paper_preset_uses_the_printed_parameters():
    n, m, d, eps, delta, big_g, big_d = 10_000, 9, 2, 0.8, 1e-5, 2.0, 1.5
    loss = SeparableHuberLoss(beta=0.01, gradient_cap=big_g)
    p = paper(RobustStatsLocalization, loss, eps, delta, radius=big_d).parameters(n, m, d)
    nmd = n * m * d
    b = math.ceil(100 * math.log(nmd / delta) / eps)
    assert p.batch_size == b  # Thm 3.1
    assert p.phases == math.floor(math.log2(n / b))
    assert p.tau == pytest.approx(big_g * math.log(nmd / nmd**-3) / math.sqrt(m))  # Lemma 3.11, omega = (nmd)^-3
    assert p.varsigma == pytest.approx(1 / p.tau)
    eta = (big_d / big_g) * min(b * math.sqrt(m / n), math.sqrt(m) * eps / math.sqrt(d * math.log(1 / delta) * math.log(nmd)))
    assert p.step_size == pytest.approx(eta)
    assert p.phase_step_sizes == pytest.approx(tuple(eta * math.log(m) ** -s for s in range(1, p.phases + 1)))  # Alg 5, line 4
    assert p.phase_thresholds == pytest.approx(tuple(0.9 * b + 2 * math.log(t / delta) / eps for t in p.phase_steps))
    assert (p.threshold_scale, p.query_scale) == pytest.approx((4 / eps, 8 / eps))  # Alg 4 with eps/2, sensitivity 1
    assert not p.project_between_phases and not p.project_output
    for e_s, s_inf, sig in zip(p.phase_step_sizes, p.phase_linf_sensitivities, p.phase_sigmas, strict=True):
        assert s_inf == pytest.approx(6 * e_s / p.tau)
        assert sig == gaussian_sigma_classical(math.sqrt(d) * s_inf, eps / 2, delta / (2 * math.exp(eps)))


def test_safe_preset_parameters_and_its_changes():
    n, m, d, eps, delta = 10_000, 9, 2, 0.8, 1e-5
    beta = 0.05
    loss = SeparableHuberLoss(beta=beta, gradient_cap=2.0)
    p = RobustStatsLocalization(loss, eps, delta, radius=1.5).parameters(n, m, d)
    pp = paper(RobustStatsLocalization, loss, eps, delta, radius=1.5).parameters(n, m, d)
    b = p.batch_size
    assert b == pp.batch_size
    assert p.step_size == pytest.approx(min(pp.step_size, 1 / (6 * beta * b)))
    kappa = max(math.log(m), 4.0)
    assert p.phase_step_sizes == pytest.approx(tuple(p.step_size * kappa**-s for s in range(1, p.phases + 1)))
    assert all(6 * beta * e * b <= 1 for e in p.phase_step_sizes)
    assert (p.threshold_scale, p.query_scale) == pytest.approx((8 / eps, 16 / eps))
    nu_min = LEMMA_3_8_SCORE_CEILING * b + (24 / eps) * math.log(2 * math.exp(eps) / delta)
    assert p.phase_thresholds == pytest.approx(tuple(max(0.9 * b + 2 * math.log(t / delta) / eps, nu_min) for t in p.phase_steps))
    nd, nmd = n * d, n * m * d
    assert 1 / p.tau == pytest.approx(40 * 2.0 * math.sqrt(2 * math.log(2 * nd / nmd**-3) / m))
    assert p.project_between_phases and p.project_output
    assert all(c.holds for c in p.conditions if c.enforced)


def test_erratum_a2_theorem_3_1_implies_neither_lemma_3_2_nor_lemma_3_9():
    """At Theorem 3.1's largest beta and eta: 6 beta eta B >> 1 always, and even beta eta > 2 for huge n.

    (docs/papers/ghazi2025.md, reading A2: n = 1e6, m = 100, d = 10, eps = 1, delta = 1e-6: beta eta = 1.54 and 6 beta eta B ~ 3.2e4;
    n = 1e12, m = 10, d = 1: beta eta ~ 100.)
    """
    def extremes(n, m, d, eps=1.0, delta=1e-6):
        nmd = n * m * d
        beta_max = math.sqrt(n) * eps / (math.sqrt(m) * math.log(nmd / delta)) + math.sqrt(d * math.log(1 / delta) * math.log(nmd)) / (math.sqrt(m) * eps)
        loss = SeparableHuberLoss(beta=beta_max, gradient_cap=1.0)  # G = D = 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsoundMechanismWarning)
            mech = RobustStatsLocalization(loss, eps, delta, preset="paper", phases=1)
        p = mech.parameters(n, m, d)
        named = {c.name: c for c in p.conditions}
        assert named["beta <= (G/D)(sqrt(n) eps/(sqrt(m) ln(nmd/delta)) + sqrt(d ln(1/delta) ln(nmd))/(sqrt(m) eps))"].holds
        assert named["eta <= (D/G) min{B sqrt(m)/sqrt(n), sqrt(m) eps/sqrt(d ln(1/delta) ln(nmd))}"].holds
        return beta_max * p.step_size, 6 * beta_max * p.step_size * p.batch_size, named

    be, six, named = extremes(10**6, 100, 10)
    assert be == pytest.approx(1.54, abs=0.01) and six == pytest.approx(3.2e4, rel=0.05)
    assert not named["phase 1: 6 beta eta_s B <= 1"].holds
    be, _, _ = extremes(10**12, 10, 1)
    assert be > 90  # eta <= 2/beta (Lemma 3.2) fails too


def test_erratum_a1_paper_tau_is_a_radius_and_kills_the_test(rng):
    """Erratum A1: tau = G log(nmd/omega)/sqrt(m) is a radius. Used as the score's inverse radius it makes
    every i.i.d. batch look spread out (s ~ 1), so the test fails and the algorithm returns x_0; the
    safe reading 1/tau = C_tau * (Hoeffding radius) passes the same batches.
    """
    n, m, d = 3000, 16, 1
    data = linear_data(n, m, d, rng, mean=0.2, spread=0.8)
    loss = LinearLoss(1.0)
    safe = RobustStatsSGD(loss, 1.0, 0.05, batch_size=1500)
    lit = paper(RobustStatsSGD, loss, 1.0, 0.05, batch_size=1500)
    ps, pl = safe.parameters(n, m, d), lit.parameters(n, m, d)
    q = loss.mean_gradient(np.zeros((1, 1)), data[:1500])
    s_lit, s_safe = float(concentration_score(q, pl.tau)), float(concentration_score(q, ps.tau))
    assert s_lit < LEMMA_3_8_SCORE_CEILING * pl.batch_size < pl.phase_thresholds[0]  # looks non-aligned
    assert s_safe > ps.phase_thresholds[0]
    size = 400
    r_lit = lit.sample_with_info(data, size, rng=rng)
    r_safe = safe.sample_with_info(data, size, rng=rng)
    k = int(r_safe.passed.sum())
    lo = stats.beta.ppf(FAILURE_PROB, k, size - k + 1) if k else 0.0
    assert not r_lit.passed.any()
    assert lo > 0.5, f"n={size}, k={k}, CP lower={lo:.3f}, alpha={FAILURE_PROB}"


def test_paper_preconditions_are_reported_not_enforced():
    loss = SeparableHuberLoss(beta=5.0, gradient_cap=1.0)
    mech = paper(RobustStatsLocalization, loss, 1.0, 1e-3, batch_size=10, step_size=0.3)
    p = mech.parameters(80, 3, 1)
    failed = {c.name for c in p.failed_conditions()}
    assert "phase 1: 6 beta eta_s B <= 1" in failed and "phase 1: B >= 100 ln(T_s/delta)/eps" in failed
    assert "AboveThreshold calibrated for score sensitivity (s = 1)" in failed
    assert "[VIOLATED] phase 1: 6 beta eta_s B <= 1" in p.report()


# ---------------------------------------------------------------------------------------------
# Bad input: every message pinned
# ---------------------------------------------------------------------------------------------


def test_construction_errors():
    loss = LinearLoss(1.0)
    cases = [
        (dict(epsilon=1.5), "`RobustStatsLocalization`: `epsilon` must be in (0, 1]; got epsilon=1.5."),
        (dict(delta=0.0), "`RobustStatsLocalization`: `delta` must be in (0, 1); got delta=0.0."),
        (dict(radius=-1.0), "`RobustStatsLocalization`: `radius` must be in (0, inf); got radius=-1.0."),
        (dict(preset="fast"), "`RobustStatsLocalization`: `preset` must be one of 'safe', 'paper'; got preset='fast'."),
        (dict(batch_size=3), "`RobustStatsLocalization`: `batch_size` must be an integer >= 4; got batch_size=3."),
        (dict(step_size=0.0), "`RobustStatsLocalization`: `step_size` must be in (0, inf); got step_size=0.0."),
        (dict(tau=-2.0), "`RobustStatsLocalization`: `tau` must be in (0, inf); got tau=-2.0."),
        (dict(threshold=float("nan")), "`RobustStatsLocalization`: `threshold` must be a real number, not NaN; got threshold=nan."),
        (dict(statistic="median"), "`RobustStatsLocalization`: `statistic` must be a RobustStatistic; got statistic='median'."),
        (dict(initial_point=(2.0,)),
         "`RobustStatsLocalization`: `initial_point` must be a point of [-radius, radius]^d with radius=1; got initial_point=(2.0,)."),
        (dict(shuffle=1), "`RobustStatsLocalization`: `shuffle` must be a bool; got shuffle=1."),
        (dict(phases=0), "`RobustStatsLocalization`: `phases` must be an integer >= 1; got phases=0."),
    ]
    for kw, msg in cases:
        args = dict(loss=loss, epsilon=1.0, delta=1e-3) | kw
        with pytest.raises(InvalidArgument, match=re.escape(msg)):
            RobustStatsLocalization(**args)
    with pytest.raises(InvalidArgument, match=re.escape("`RobustStatsSGD`: `loss` must be a Ghazi2025Loss (Assumptions 2.4-2.5 "
                                                        "of [GKLM25] declared); got loss=")):
        from dpaudit.userlevel.losses import LogisticLoss

        RobustStatsSGD(LogisticLoss(), 1.0, 1e-3)


def test_configuration_errors_at_sampling_time(rng):
    loss = SeparableHuberLoss(beta=1.0, gradient_cap=1.0)
    data = np.zeros((40, 2, 2))
    with pytest.raises(InvalidArgument, match=re.escape(
            "`RobustStatsLocalization`: `step_size` must be at most 0.0666667 so that 6*beta*eta_s*B <= 1 in every phase "
            "(beta=1, B=10) under preset='safe' [GKLM25, Lemma 3.9]; got step_size=0.5.")):
        RobustStatsLocalization(loss, 1.0, 1e-3, batch_size=10, step_size=0.5).sample(data, 2, rng=rng)
    with pytest.raises(InvalidArgument, match=re.escape(
            "`RobustStatsSGD`: `threshold` must be at least c0*B + (b_q + b_th)*ln(2e^eps/delta) = 214.315 under "
            "preset='safe' [GKLM25, Lemma 3.8; the safe preset of docs/papers/ghazi2025.md]; got threshold=20.0.")):
        RobustStatsSGD(loss, 1.0, 1e-3, batch_size=10, threshold=20.0).sample(data, 2, rng=rng)
    with pytest.raises(InvalidArgument, match=re.escape(
            "`RobustStatsSGD`: `statistic` must be a robust statistic with the 2B/3 break point at B=10 [GKLM25, "
            "Assumption 3.3(i); Remark 3.4 is false for light trimming]; got statistic=TrimmedMean(trim=None, proportion=0.1).")):
        RobustStatsSGD(loss, 1.0, 1e-3, batch_size=10, statistic=TrimmedMean(proportion=0.1)).sample(data, 2, rng=rng)
    with pytest.raises(InvalidArgument, match=re.escape(
            "`RobustStatsLocalization`: `data` must be at least 2B = 60 users (phase 1 uses n/2) [GKLM25, Alg. 5]; got data=40.")):
        RobustStatsLocalization(loss, 1.0, 1e-3, batch_size=30).sample(data, 2, rng=rng)
    with pytest.raises(InvalidArgument, match=re.escape(
            "`RobustStatsSGD`: `data` must be at least B = 50 users (one batch) [GKLM25, Alg. 1]; got data=40.")):
        RobustStatsSGD(loss, 1.0, 1e-3, batch_size=50).sample(data, 2, rng=rng)
    with pytest.raises(InvalidArgument, match=re.escape(
            "`RobustStatsLocalization`: `phases` must be at most floor(log2(n/B)) = 2 for n=40, B=10; got phases=3.")):
        RobustStatsLocalization(loss, 1.0, 1e-3, batch_size=10, phases=3).sample(data, 2, rng=rng)
    with pytest.raises(InvalidArgument, match=re.escape(
            "`RobustStatsLocalization`: `data` must be users with m_items >= 2 under preset='paper' (eta_s = eta (ln m)^-s "
            "[GKLM25, Alg. 5, line 4] is undefined for m = 1); got data=1.")):
        paper(RobustStatsLocalization, loss, 1.0, 1e-3, batch_size=10).sample(data[:, :1], 2, rng=rng)
    with pytest.raises(InvalidArgument, match=re.escape(
            "`RobustStatsSGD.sample`: `data` must be shaped (n_users, m_items, d) (got shape (40, 2))")):
        RobustStatsSGD(loss, 1.0, 1e-3, batch_size=10).sample(data[..., 0], 2, rng=rng)
    with pytest.raises(InvalidArgument, match=re.escape(
            "`RobustStatsSGD.sample`: `initial_point` must be of length d = 1 (the data's dimension); got initial_point=(0.0, 0.0).")):
        RobustStatsSGD(loss, 1.0, 1e-3, batch_size=10, initial_point=(0.0, 0.0)).sample(data, 2, rng=rng)
    with pytest.raises(InvalidArgument, match=re.escape("`RobustStatsSGD.sample`: `size` must be an integer >= 1; got size=0.")):
        RobustStatsSGD(loss, 1.0, 1e-3, batch_size=10).sample(data, 0, rng=rng)


def test_helper_errors():
    loss = LinearLoss(1.0)
    with pytest.raises(InvalidArgument, match=re.escape("`concentration_score`: `method` must be 'pairwise' or 'auto' for d = 2 > 1 "
                                                        "('sorted' needs d = 1); got method='sorted'.")):
        concentration_score(np.zeros((3, 2)), 1.0, method="sorted")
    with pytest.raises(InvalidArgument, match=re.escape("`concentration_score`: `tau` must be in (0, inf); got tau=0.")):
        concentration_score(np.zeros((3, 2)), 0)
    with pytest.raises(InvalidArgument, match=re.escape("`robust_sgd_path`: `batch_size` must be at most n_users = 4; got batch_size=5.")):
        robust_sgd_path(loss, np.zeros((4, 1, 2)), np.zeros(1), step_size=0.1, tau=1.0, batch_size=5, radius=1.0)
    with pytest.raises(InvalidArgument, match=re.escape("`robust_sgd_path`: `data` must be items of length d + 1 = 3")):
        robust_sgd_path(loss, np.zeros((4, 1, 2)), np.zeros(2), step_size=0.1, tau=1.0, batch_size=2, radius=1.0)
    with pytest.raises(InvalidArgument, match=re.escape("`StreamingAboveThreshold`: `sensitivity` must be in (0, inf); got sensitivity=0.")):
        StreamingAboveThreshold(1.0, 0.0, 0)
    with pytest.raises(InvalidArgument, match=re.escape("`ConcentrationTest.scores`: `data` must be a multiple of batch_size = 4 users; got data=6.")):
        ConcentrationTest(loss, 1.0, 3.0, 1.0, 4).scores(np.zeros((6, 1, 2)))
