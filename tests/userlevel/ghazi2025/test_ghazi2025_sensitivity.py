"""Iteration and query sensitivity of Ghazi et al. (2025), Lemmas 3.5-3.7 and 3.9, on the real SGD.

Random neighbouring pairs differ in all ``m`` items of the user at step 1 (the worst slot). Each
pair is made rho-aligned by choosing rho as the smallest radius at which both step-1 batches have
``ceil(2B/3)`` gradients in one l_inf ball; then ``tau = 1/rho`` and ``varsigma = rho`` as in
Algorithm 1. Preconditions of the end-to-end bound ``max_t ||x_t - y_t||_inf <= 6 eta / tau``:
convex losses with diagonally dominant Hessians (Assumptions 2.4-2.5), ``eta <= 2/beta``
(Lemma 3.2), a robust statistic with Assumption 3.3 (ii)-(iii) and the (2B/3) break point,
``B >= 4``, the box domain and the same users at every later step. The score bound
``|s_t - s'_t| <= 2`` additionally needs ``6 beta eta B <= 1`` (Lemma 3.9), which Theorem 3.1 omits.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.userlevel.ghazi2025.concentration import concentration_score
from dpaudit.userlevel.ghazi2025.gradient_estimation import robust_gradient_estimate
from dpaudit.userlevel.ghazi2025.losses import DiagonallyDominantQuadratic, SeparableHuberLoss
from dpaudit.userlevel.ghazi2025.sgd import robust_sgd_path
from dpaudit.userlevel.robust_stats import (
    CoordinateMedian,
    TrimmedMean,
    alignment_count,
    alignment_threshold,
)

RADIUS = 1.0


def _min_alignment_radius(q: np.ndarray) -> float:
    """Smallest rho with ceil(2B/3) of the B rows of q in one l_inf ball of radius rho."""
    b = q.shape[0]
    need = alignment_threshold(b)
    cands = np.unique(np.abs(q[:, None, :] - q[None, :, :]).ravel() / 2)
    lo, hi = 0, cands.size - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if alignment_count(q, float(cands[mid])) >= need:
            hi = mid
        else:
            lo = mid + 1
    return float(cands[lo])


def _dd_psd(rng: np.random.Generator, d: int) -> np.ndarray:
    a = rng.normal(size=(d, d))
    a = (a + a.T) / 2
    np.fill_diagonal(a, 0.0)
    np.fill_diagonal(a, np.abs(a).sum(axis=1) + rng.uniform(0, 0.5, size=d))
    return a


@st.composite
def aligned_pairs(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    d = draw(st.integers(1, 3))
    b = draw(st.integers(4, 9))
    steps = draw(st.integers(2, 5))
    m = draw(st.integers(1, 2))
    if draw(st.booleans()):
        loss = SeparableHuberLoss(beta=float(rng.uniform(0.2, 3)), gradient_cap=float(rng.uniform(0.5, 2)))
    else:
        loss = DiagonallyDominantQuadratic(_dd_psd(rng, d), location_bound=2.0)
    n = b * steps
    z = np.empty((n, m, d + 1))
    centre = rng.uniform(-1, 1, size=d)
    spread = float(rng.choice([0.05, 0.3, 1.0]))
    z[..., :d] = np.clip(centre + spread * rng.normal(size=(n, m, d)), -2, 2)
    z[..., d] = rng.uniform(0.3, 1.0, size=(n, m))
    # a few outlier users anywhere (including at step 1), within the universe
    outliers = rng.random(n) < 0.2
    z[outliers, :, :d] = rng.uniform(-2, 2, size=(int(outliers.sum()), m, d))
    z2 = z.copy()
    z2[0, :, :d] = rng.uniform(-2, 2, size=(m, d))  # the differing user: all m items replaced
    z2[0, :, d] = rng.uniform(0, 1, size=m)
    x0 = rng.uniform(-RADIUS, RADIUS, size=d)
    stat = CoordinateMedian() if draw(st.booleans()) else TrimmedMean()
    return loss, z, z2, x0, b, stat, rng


def _alignment(loss, z, z2, x0, b):
    q1 = loss.mean_gradient(x0[None, :], z[:b])
    q1b = loss.mean_gradient(x0[None, :], z2[:b])
    return max(_min_alignment_radius(q1), _min_alignment_radius(q1b)), q1, q1b


def _paths(loss, z, z2, x0, b, stat, eta, tau, varsigma=None):
    pair = np.stack([z, z2])
    path = robust_sgd_path(loss, pair, np.stack([x0, x0]), step_size=eta, tau=tau, batch_size=b, radius=RADIUS,
                           statistic=stat, varsigma=varsigma)
    gaps = np.abs(path.iterates[0] - path.iterates[1]).max(axis=-1)  # ||x_t - y_t||_inf, t = 1..T
    return path, gaps


@settings(max_examples=60)
@given(case=aligned_pairs(), frac=st.floats(0.05, 1.0))
def test_lemmas_3_6_and_3_7_end_to_end_gap_within_6_eta_over_tau(case, frac):
    """Under eta <= 2/beta: ||x_1 - y_1|| <= eta(4 rho + 2 varsigma) (3.6) and ||x_t - y_t|| <= ||x_1 - y_1|| (3.7)."""
    loss, z, z2, x0, b, stat, rng = case
    rho, _, _ = _alignment(loss, z, z2, x0, b)
    if rho == 0.0:
        rho = 1e-9  # identical good sets: any positive radius is aligned
    tau = 1.0 / rho
    eta = frac * 2.0 / loss.smoothness_constant
    _, gaps = _paths(loss, z, z2, x0, b, stat, eta, tau)
    assert gaps[0] <= eta * (4 * rho + 2 / tau) * (1 + 1e-9) + 1e-12  # Lemma 3.6 with varsigma = 1/tau
    assert np.all(gaps <= gaps[0] * (1 + 1e-9) + 1e-12)  # Lemma 3.7
    assert gaps.max() <= 6 * eta / tau * (1 + 1e-9) + 1e-12
    # Lemma 3.6 for an arbitrary clip radius varsigma >= 0 (the bound eta(4 rho + 2 varsigma))
    vs = float(rng.uniform(0, 3)) * rho + 1e-12
    _, gaps_vs = _paths(loss, z, z2, x0, b, stat, eta, tau, varsigma=vs)
    assert gaps_vs[0] <= eta * (4 * rho + 2 * vs) * (1 + 1e-9) + 1e-12


@settings(max_examples=60)
@given(case=aligned_pairs(), frac=st.floats(0.05, 1.0))
def test_lemma_3_9_scores_within_two_when_6_beta_eta_b_at_most_1(case, frac):
    """Under 6 beta eta B <= 1 (and alignment): |s_t(D) - s_t(D')| <= 2 at every step (Eq. (4) for t = 1)."""
    loss, z, z2, x0, b, stat, _ = case
    rho, _, _ = _alignment(loss, z, z2, x0, b)
    tau = 1.0 / max(rho, 1e-9)
    eta = frac / (6 * loss.smoothness_constant * b)
    path, _ = _paths(loss, z, z2, x0, b, stat, eta, tau)
    diff = np.abs(path.scores[0] - path.scores[1])
    assert diff[0] <= 2 - 2 / b + 1e-9
    assert np.all(diff[1:] <= (1 - np.exp(-12 * loss.smoothness_constant * eta)) * b + 1e-9)  # proof's bound
    assert np.all(diff <= 2 + 1e-9)


@settings(max_examples=200)
@given(a=st.floats(-10, 10), b=st.floats(-10, 10), c=st.floats(-10, 10), d=st.floats(-10, 10), r=st.floats(0, 5))
def test_lemma_3_5_general_form(a, b, c, d, r):
    """|clip(c, a +- r) - clip(d, b +- r)| <= max(|a - b|, |c - d|) (the printed form is the case max <= 1)."""
    lhs = abs(min(max(c, a - r), a + r) - min(max(d, b - r), b + r))
    assert lhs <= max(abs(a - b), abs(c - d)) * (1 + 1e-12) + 1e-12


# ---------------------------------------------------------------------------------------------
# The preconditions matter: negative controls
# ---------------------------------------------------------------------------------------------


def _staircase(b: int, steps: int, late_location: float, late_weight: float, loss: SeparableHuberLoss):
    """Step 1: zero losses, and in D' one user with slope +G; later steps: every user identical."""
    far = RADIUS + loss.knee + 1.0
    z = np.zeros((b * steps, 1, 2))
    z[b:, 0, 0] = late_location
    z[b:, 0, 1] = late_weight
    z2 = z.copy()
    z2[0, 0] = [-far, 1.0]
    return z, z2


def test_missing_eta_le_2_over_beta_lets_the_gap_grow_past_6_eta_over_tau():
    """Lemma 3.2's eta <= 2/beta (not implied by Thm 3.1 for large n, erratum A2) is needed for Lemma 3.7.

    Later steps: every user has beta theta^2 / 2; the gap is multiplied by |1 - eta beta| per step.
    """
    loss = SeparableHuberLoss(beta=1.0, gradient_cap=100.0)
    b, steps, tau = 5, 6, 500.0
    z, z2 = _staircase(b, steps, 0.0, 1.0, loss)
    for eta_beta, ok in ((2.0, True), (1.0, True), (3.0, False)):
        eta = eta_beta / loss.beta
        _, gaps = _paths(loss, z, z2, np.zeros(1), b, CoordinateMedian(), eta, tau)
        assert np.isclose(gaps[0], eta / tau, rtol=1e-12)  # step 1: the clip moves y_1 by eta * varsigma
        within = gaps.max() <= 6 * eta / tau * (1 + 1e-12)
        assert within == ok, (eta_beta, gaps / (eta / tau))
    # with eta beta = 3 the gap doubles every step, to 2^(T-1) eta/tau = 32 eta/tau (inside the box)
    _, gaps = _paths(loss, z, z2, np.zeros(1), b, CoordinateMedian(), 3.0, tau)
    assert np.allclose(gaps / (3.0 / tau), 2.0 ** np.arange(steps))


def test_missing_6_beta_eta_b_lets_an_aligned_pair_move_a_score_by_much_more_than_2():
    """Lemma 3.9's precondition (absent from Thm 3.1, erratum A2): with eta beta = 1 <= 2 the iterates
    stay within 6 eta / tau (Lemma 3.7 holds) but the step-2 score moves by (B/2)(1 - 1/e) >> 2."""
    loss = SeparableHuberLoss(beta=1.0, gradient_cap=100.0)
    b, tau = 40, 50.0
    z, z2 = _staircase(b, 3, 0.0, 0.0, loss)
    z[b : 2 * b : 2, 0] = [0.0, 1.0]  # step 2: half the batch beta theta^2 / 2, half the zero loss
    z2[b:] = z[b:]
    eta = 1.0 / loss.beta
    path, gaps = _paths(loss, z, z2, np.zeros(1), b, CoordinateMedian(), eta, tau)
    assert gaps.max() <= 6 * eta / tau
    diff = abs(path.scores[0, 1] - path.scores[1, 1])
    assert abs(diff - (b / 2) * (1 - np.exp(-1))) < 1e-9
    assert diff > 12  # = 12.6 for B = 40, against the bound 2
    # the fix: eta <= 1/(6 beta B) gives a score change below 2
    eta_ok = 1.0 / (6 * loss.beta * b)
    path_ok, _ = _paths(loss, z, z2, np.zeros(1), b, CoordinateMedian(), eta_ok, tau)
    assert np.abs(path_ok.scores[0] - path_ok.scores[1]).max() <= 2


def test_b_equal_3_breaks_lemma_3_6():
    """Erratum A13: with B = 3 the two good sets need not share a point. D = {0, 100, 0}, D' = {0, 100, 100}
    are both 0-aligned (two of three points coincide) yet the estimates differ by 99 >> 4 rho + 2 varsigma = 1."""
    q, q2 = np.array([[0.0], [100.0], [0.0]]), np.array([[0.0], [100.0], [100.0]])
    assert alignment_count(q, 0.0) >= alignment_threshold(3) and alignment_count(q2, 0.0) >= alignment_threshold(3)
    gap = np.abs(robust_gradient_estimate(q, 0.5) - robust_gradient_estimate(q2, 0.5)).max()
    assert gap == 99.0


def test_mean_without_the_clip_is_far_more_sensitive():
    """Pitfall P5: without Algorithm 2's clip (varsigma = inf, i.e. the plain mean) one outlier user moves
    x_1 by eta G / B, here about 16 times the 6 eta / tau that the clipped estimate guarantees."""
    loss = SeparableHuberLoss(beta=1.0, gradient_cap=100.0)
    b, tau, eta = 10, 100.0, 0.1
    z, z2 = _staircase(b, 2, 0.0, 0.0, loss)
    _, clipped = _paths(loss, z, z2, np.zeros(1), b, CoordinateMedian(), eta, tau)
    _, plain = _paths(loss, z, z2, np.zeros(1), b, CoordinateMedian(), eta, tau, varsigma=1e12)
    assert clipped.max() <= 6 * eta / tau
    assert plain[0] == np.float64(eta * loss.gradient_cap / b)
    assert plain[0] / (6 * eta / tau) > 16


def test_score_of_the_pair_used_in_the_proof_is_the_used_batch():
    """The scored batch is the batch used in the same step (pitfall P11): s_t is computed on the q_t of step t."""
    rng = np.random.default_rng(7)
    loss = SeparableHuberLoss(beta=1.0, gradient_cap=1.0)
    z = np.concatenate([rng.uniform(-1, 1, size=(12, 2, 1)), np.ones((12, 2, 1))], axis=-1)
    path = robust_sgd_path(loss, z, np.zeros(1), step_size=0.2, tau=3.0, batch_size=4, radius=RADIUS)
    assert np.allclose(path.scores, concentration_score(path.user_gradients, 3.0))
    assert np.allclose(path.user_gradients[1], loss.mean_gradient(path.iterates[0][None, :], z[4:8]))


@settings(max_examples=40)
@given(case=aligned_pairs())
def test_safe_preset_calibrated_sensitivity_holds_on_every_pair(case):
    """With the safe preset's own eta (<= 1/(6 beta B)) and tau, 1/tau exceeds the spread of any two
    gradients in [-G, G]^d, so *every* neighbouring pair is aligned; the iterate gap then stays within
    the l_inf sensitivity the Gaussian noise is calibrated for, and every score within 2."""
    from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsSGD

    loss, z, z2, x0, b, stat, _ = case
    mech = RobustStatsSGD(loss, 1.0, 1e-3, batch_size=b, statistic=stat, radius=RADIUS)
    n, m, d = z.shape[0], z.shape[1], z.shape[2] - 1
    p = mech.parameters(n, m, d)
    assert p.varsigma >= 2 * loss.gradient_bound(RADIUS)  # any two gradients lie in one ball of radius 1/tau
    path, gaps = _paths(loss, z, z2, x0, b, stat, p.step_size, p.tau)
    assert gaps.max() <= p.phase_linf_sensitivities[0] * (1 + 1e-9)
    assert np.abs(path.scores[0] - path.scores[1]).max() <= 2 + 1e-9
