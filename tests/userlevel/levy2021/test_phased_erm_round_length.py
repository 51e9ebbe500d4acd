"""Phased ERM's round length (Levy et al. 2021, Algorithm 4 with Corollary 2's accuracy): derivation and cost.

* :func:`localization_steps` against Corollary 2's printed form ``T = (H/mu) log(.)`` (a two-sided
  bracket from ``1/kappa <= -log q <= 1/(kappa - 1)``) and against noiseless projected gradient descent on
  strongly convex quadratics (the tolerance is reached, and one step fewer does not reach it on the
  worst case);
* the schedule's round lengths use Corollary 2's tolerance computed here from the paper's formula;
* the ``"balanced"`` rule returns the brute-force minimiser of the round's error bound;
* the error bound holds, and the noise model behind it is exact: the measured ``E||theta_hat - theta*||^2``
  of a round matches the linear-recursion prediction computed here, and is below ``error_bound``;
* the privacy accounting follows the step count: every round's per-step budget composes to at most
  ``(eps, delta)`` by advanced composition [DR14, Thm 3.20], evaluated here;
* skipped rounds (0 steps) read no data.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.userlevel.levy2021.phased_erm import PhasedERM
from dpaudit.userlevel.levy2021.round_length import localization_steps, round_noise_variance
from dpaudit.userlevel.losses import SquaredLoss
from dpaudit.userlevel.projections import project_l2_ball

FAILURE_PROB = 1e-6
SEED = 4242
THETA_STAR = np.array([0.4, -0.3])


def _binary_regression(rng: np.random.Generator, n: int, m: int, noise: float = 0.3) -> np.ndarray:
    d = THETA_STAR.size
    x = rng.choice([-1.0, 1.0], size=(n, m, d)) / math.sqrt(d)
    y = x @ THETA_STAR + noise * rng.choice([-1.0, 1.0], size=(n, m))
    return np.concatenate([x, y[..., None]], axis=-1)


@pytest.mark.parametrize("kappa", [1.5, 4.0, 89.0, 1e4])
@pytest.mark.parametrize("ratio", [1.5, 1e3, 1e8])
def test_localization_steps_is_bracketed_by_corollary_2(kappa, ratio):
    # q = 1 - 1/kappa with kappa = (H + mu)/mu; Corollary 2: T = kappa log(ratio) for the squared distance
    # contraction 1 - 1/kappa; the distance contraction q gives T = log(ratio) / (-2 log q), and
    # 1/kappa <= -log q <= 1/(kappa - 1) brackets it
    q = 1.0 - 1.0 / kappa
    t = localization_steps(q, math.sqrt(ratio), 1.0)
    log_r = math.log(ratio)
    assert math.ceil((kappa - 1.0) * log_r / 2.0) <= t <= math.ceil(kappa * log_r / 2.0)
    assert t <= max(1, math.ceil(kappa * log_r))  # never more than Corollary 2's printed (H/mu) log(.)


def test_localization_steps_edge_cases():
    assert localization_steps(0.0, 5.0, 1e-9) == 1  # H = 0: one step of size 1/lambda is exact
    assert localization_steps(0.9, 1.0, 2.0) == 1  # already within the tolerance


def test_localization_steps_reach_the_tolerance_on_quadratics(rng):
    """Noiseless projected GD with step 1/(H + lambda) on F(theta) = (1/2)(theta - a)^T A (theta - a)
    + (lambda/2)||theta - c||^2, 0 <= A <= H I: after localization_steps steps the squared distance to
    the minimiser is within the tolerance; on the worst case (start along A's null space) one step
    fewer is not."""
    h, lam, dim = 1.0, 0.05, 3
    q = h / (h + lam)
    for trial in range(20):
        basis, _ = np.linalg.qr(rng.normal(size=(dim, dim)))
        eig = np.concatenate([[0.0], rng.uniform(0.0, h, size=dim - 1)])
        a_mat = basis @ np.diag(eig) @ basis.T
        a = rng.normal(size=dim) * 0.3
        centre = np.zeros(dim)
        opt = np.linalg.solve(a_mat + lam * np.eye(dim), a_mat @ a + lam * centre)
        assert np.linalg.norm(opt) < 10.0  # the ball of radius 10 does not bind at the minimiser
        worst = trial % 2 == 0
        start = opt + basis[:, 0] * 0.7 if worst else centre  # basis[:, 0] spans A's null space
        dist = float(np.linalg.norm(start - opt))
        tol = 1e-6
        steps = localization_steps(q, dist, tol)
        theta = start.copy()
        path = [theta]
        for _ in range(steps):
            grad = a_mat @ (theta - a) + lam * (theta - centre)
            theta = project_l2_ball(theta - grad / (h + lam), 10.0)
            path.append(theta)
        assert np.sum((path[-1] - opt) ** 2) <= tol * (1 + 1e-9)
        if worst and steps > 1:
            assert np.sum((path[-2] - opt) ** 2) > tol


def test_schedule_steps_follow_corollary_2_tolerance():
    """``step_rule="corollary2"``: each round's steps are localization_steps for Corollary 2's tolerance
    sigma^2 d^2 / (lambda_t^2 n_t^2 m eps^2), D_t = min(R, G/lambda_t) and q_t = H/(H + lambda_t)."""
    n, m, d, eps = 10_000, 10, 2, 1.0
    erm = PhasedERM(SquaredLoss(), eps, 1e-8, 1.0, 1.0, label_bound=0.65, step_rule="corollary2")
    g = (1.0 * 1.0 + 0.65) * 1.0  # squared loss: (radius * feature_bound + label_bound) * feature_bound
    h = 1.0
    plan = erm.schedule(n, m, d)
    assert plan[0].steps > 32  # the old fixed cap bound here
    for p in plan:
        tol = g**2 * d**2 / (p.lam**2 * p.n_users**2 * m * eps**2)  # sigma = G by default
        dist = min(2.0, g / p.lam)
        assert p.steps == localization_steps(h / (h + p.lam), dist, tol)
        assert math.isclose(p.tolerance, tol, rel_tol=1e-12)


def test_balanced_steps_minimise_the_error_bound():
    erm = PhasedERM(SquaredLoss(), 16.0, 1e-8, 1.0, 1.0, label_bound=0.65, tau=0.48, gamma=1e-3, mode="paper",
                    tau_rule="tight", step_rule="balanced")
    n, m, d = 8192, 256, 2
    plan = erm.schedule(n, m, d)
    ref = PhasedERM(SquaredLoss(), 16.0, 1e-8, 1.0, 1.0, label_bound=0.65, tau=0.48, gamma=1e-3, mode="paper",
                    tau_rule="tight", step_rule="corollary2").schedule(n, m, d)
    assert any(p.steps > 0 for p in plan) and any(p.steps == 0 for p in plan)
    for p, limit in zip(plan, ref, strict=True):
        bounds = [erm.round_error_bound(p, m, d, t) for t in range(limit.steps + 1)]  # brute force
        assert p.steps == int(np.argmin(bounds)), (p.index, bounds[:8])
        assert math.isclose(p.error_bound, min(bounds), rel_tol=1e-12)


def test_more_steps_mean_less_budget_per_step_and_the_total_stays_within_the_claim():
    eps, delta = 1.0, 1e-8
    erm = PhasedERM(SquaredLoss(), eps, delta, 1.0, 1.0, label_bound=0.65, step_rule="corollary2")
    plan = erm.schedule(10_000, 10, 2)
    last = math.inf
    for p in sorted(plan, key=lambda r: r.steps):
        if p.steps == 0:
            continue
        e1, d1 = erm.round_optimizer(p).step_privacy()
        t = p.steps
        # advanced composition of T (e1, d1)-DP steps at slack delta/2 [DR14, Thm 3.20]
        total = math.sqrt(2 * t * math.log(2 / delta)) * e1 + t * e1 * math.expm1(e1)
        assert total <= eps * (1 + 1e-12)
        assert t * d1 + delta / 2 <= delta * (1 + 1e-12)
        assert e1 <= last  # more steps, smaller per-step budget (more noise per step)
        last = e1


def test_round_error_matches_the_noise_model_and_stays_below_its_bound():
    """Round 1 from the centre 0 with T = 3 steps: in Algorithm 2's concentration event the iterates are
    theta_{k+1} = theta_k - eta (A theta_k - r + lambda (theta_k - c) + zeta_k), zeta_k of covariance
    2 b^2 I, so E||theta_T - theta*||^2 = ||M^T (c - theta*)||^2 + 2 b^2 eta^2 sum_j tr(M^(2j)) with
    M = I - eta (A + lambda I). The measured mean matches it (two-sided z-test), and the schedule's
    error_bound (a bound with the worst-case distance D_t) is at least the prediction."""
    rng = np.random.default_rng(SEED)
    n, m, d, eps, delta, gamma, trials = 16_384, 32, 2, 16.0, 1e-8, 1e-3, 300
    tau = 1.3 * math.sqrt(2 * math.log(6 * n / gamma) / m)  # Hoeffding + union bound for this design
    # radius 3: the projection never binds, so the iterates follow the linear recursion (checked below)
    erm = PhasedERM(SquaredLoss(), eps, delta, 3.0, 1.0, label_bound=0.65, rounds=1, steps=3, tau=tau, gamma=gamma,
                    mode="paper", tau_rule="tight")
    data = _binary_regression(rng, n, m)
    phase = erm.schedule(n, m, d)[0]
    x = data[phase.start:phase.stop, :, :d].reshape(-1, d)
    y = data[phase.start:phase.stop, :, d].reshape(-1)
    a_mat = x.T @ x / x.shape[0]
    r = x.T @ y / x.shape[0]
    centre = np.zeros(d)
    lam, eta = phase.lam, phase.step_size
    opt = np.linalg.solve(a_mat + lam * np.eye(d), r + lam * centre)
    b = erm.round_optimizer(phase).gradient_estimator(phase.n_users, m, d).coordinate_mechanism(
        phase.n_users, d).noise_scale(phase.n_users)
    mmat = np.eye(d) - eta * (a_mat + lam * np.eye(d))
    powers = [np.linalg.matrix_power(mmat, j) for j in range(phase.steps + 1)]
    predicted = float(np.sum((powers[-1] @ (centre - opt)) ** 2)
                      + 2 * b**2 * eta**2 * sum(np.trace(p @ p) for p in powers[:-1]))
    out = erm.round_stage(1, n, m, d, centre).sample(data, trials, rng=rng)
    assert np.all(np.linalg.norm(out, axis=1) < 2.9), "the projection bound; the linear model does not apply"
    sq = np.sum((out - opt) ** 2, axis=1)
    mean, se = float(sq.mean()), float(sq.std(ddof=1) / math.sqrt(trials))
    z = stats.norm.isf(FAILURE_PROB / 2)
    assert abs(mean - predicted) <= z * se, f"measured {mean:.4g} +- {se:.2g} vs {predicted:.4g}, trials={trials}, seed={SEED}"
    assert phase.error_bound >= predicted
    assert math.isclose(phase.error_bound, erm.round_error_bound(phase, m, d, 3))


def test_skipped_rounds_read_no_data(rng):
    # at n = 10^4, m = 10, eps = 1 one step's noise exceeds what it can gain in every round
    erm = PhasedERM(SquaredLoss(), 1.0, 1e-8, 1.0, 1.0, label_bound=0.65, theta0=(0.1, -0.2), step_rule="balanced")
    plan = erm.schedule(10_000, 10, 2)
    assert all(p.steps == 0 for p in plan)
    assert all(p.error_bound == p.initial_distance**2 for p in plan)
    data = _binary_regression(rng, 10_000, 10)
    out = erm.sample(data, 5, rng=rng)
    np.testing.assert_array_equal(out, np.tile([0.1, -0.2], (5, 1)))
    assert erm.tight_guarantee(10_000, 10, 2).epsilon == 0.0
    assert erm.gradient_count(10_000, 10, 2) == 0


@pytest.mark.parametrize("steps", [1, 12])
def test_round_noise_variance_is_the_measured_variance_of_a_private_gradient(steps):
    """nu^2(T): the released gradient of a T-step run of round 1, on users whose gradients all coincide
    (PrivateRange's bin then holds every user), deviates from the true mean by exactly the noise; its
    mean squared size matches round_noise_variance (two-sided z-test), and it grows with T."""
    rng = np.random.default_rng(SEED)
    n, m, d = 4096, 8, 2
    erm = PhasedERM(SquaredLoss(), 4.0, 1e-6, 1.0, 1.0, label_bound=0.65, rounds=1, tau=0.3, gamma=1e-3)
    phase = erm.schedule(n, m, d)[0]
    est = erm.round_optimizer(dataclasses.replace(phase, steps=steps)).gradient_estimator(phase.n_users, m, d)
    grads = np.tile([0.2, -0.1], (1, phase.n_users, 1))
    out = est.release(grads, 6000, rng=rng)
    sq = np.sum((out - [0.2, -0.1]) ** 2, axis=1)
    predicted = round_noise_variance(erm, phase, m, d, steps)
    z = stats.norm.isf(FAILURE_PROB / 4)
    assert abs(sq.mean() - predicted) <= z * sq.std(ddof=1) / math.sqrt(sq.size), (steps, sq.mean(), predicted, SEED)
    if steps > 1:
        assert predicted > 12 * round_noise_variance(erm, phase, m, d, 1)  # T log(2T/delta) grows faster than T
