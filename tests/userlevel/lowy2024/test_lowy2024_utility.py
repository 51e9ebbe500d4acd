"""Utility of Lowy et al. 2024 on the linear problem with a known optimum (:class:`LinearBallProblem`).

Theorems 2.1 and 3.2 are upper bounds up to log factors, so a fitted log-log slope of the excess
risk must not exceed the rate's slope by more than its statistical tolerance (Student-t on the
regression, failure probability 1e-3 per fit) plus the local slope of the hidden log factors. What
can be measured at sizes that fit in a test, and what the measurements show:

* Algorithm 3's released output (eps = 10, delta = 0.05, d = 1, one full-batch phase) enters its
  decay once the per-step noise falls below the gradient scale (n >= 3200); ``slow``;
* Algorithm 3 without its privacy noise (the optimisation and sampling terms) is far below the
  rate already at n = 800;
* Algorithm 1's phase-1 SGD obeys Lemma B.3 ([FKT20, Lemma 4.5]) exactly in expectation; its
  full run needs ``n m >~ 10^7`` before phase 1 even reaches the optimum (its step ``eta/2^p`` and
  the split into ``C`` groups), so its rate is measured in ``slow`` at ``n m`` up to ``1.3 10^8``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.userlevel.comparison import fit_log_slope
from dpaudit.userlevel.lowy2024 import AcceleratedPhasedERM, OutlierRemovalPhasedSGD
from dpaudit.userlevel.lowy2024.domain import PublicDomain
from dpaudit.userlevel.lowy2024.sgd import one_pass_sgd
from dpaudit.userlevel.lowy2024.utility import LinearBallProblem, noise_free_alg1, noise_free_alg3

FAILURE = 1e-3


def _alg3(prob: LinearBallProblem, eps: float, delta: float) -> AcceleratedPhasedERM:
    return AcceleratedPhasedERM(prob.loss, eps, delta, radius=prob.radius, feature_bound=prob.feature_bound,
                                label_bound=prob.label_bound, smoothness=0.0, phases=1, q=1.0)


def _check_slope(xs, samples, stated_slope: float, log_slope: float) -> float:
    fit = fit_log_slope(xs, samples)
    _, upper = fit.interval(FAILURE)
    assert fit.slope <= stated_slope + (upper - fit.slope) + log_slope, (fit, stated_slope, log_slope)
    return fit.slope


def test_noise_free_algorithm_3_beats_the_rate_in_n():
    """Thm 3.2's non-private term 1/sqrt(mn): the noise-free excess falls at least as fast in n (slope <= -1/2)."""
    prob = LinearBallProblem((0.3, 0.1))
    rng = np.random.default_rng(0)
    ns = (800, 1200, 1600, 2400)
    samples = [[prob.excess_risk(noise_free_alg3(_alg3(prob, 8.0, 1e-2), prob.sample(n, 4, rng=rng), rng=rng))
                for _ in range(4)] for n in ns]
    samples = [[max(v, 1e-12) for v in row] for row in samples]  # an exact hit of the optimum is below any rate
    slope = _check_slope(ns, samples, -0.5, 0.0)
    assert slope < -0.5


def test_lemma_b3_holds_for_the_phase_sgd():
    """Lemma B.3 ([FKT20, Lemma 4.5]): E F(x~) - F(y) <= ||y - x0||^2/(eta T) + eta L^2 for one-pass SGD's average.

    200 independent groups of T = 200 items, eta = 0.01, y = theta*; the mean excess plus a Hoeffding margin
    (excess in [0, 2 R ||mu||], failure probability 1e-6) must stay below the bound.
    """
    prob = LinearBallProblem((0.3, 0.1))
    rng = np.random.default_rng(1)
    dom = PublicDomain(prob.loss, prob.radius, prob.feature_bound, prob.label_bound)
    groups, steps, eta = 200, 200, 0.01
    z = prob.sample(groups, steps, rng=rng)
    avg = one_pass_sgd(dom, z[..., :-1], z[..., -1], np.zeros((1, 2)), eta)[0] * prob.radius
    excess = prob.excess_risk(avg)
    bound = np.linalg.norm(prob.optimum) ** 2 / (eta * steps) + eta * dom.lipschitz**2
    margin = 2 * prob.radius * np.linalg.norm(prob.mu) * math.sqrt(math.log(1 / 1e-6) / (2 * groups))
    assert excess.mean() <= bound + margin
    assert excess.mean() > 0.05 * bound  # the bound is not vacuous here: the average is far from the optimum


def test_noise_free_algorithm_1_moves_towards_the_optimum():
    """At feasible n m the theorem's step size moves phase 1 only part of the way; the excess falls with n m."""
    prob = LinearBallProblem((0.3, 0.0))
    rng = np.random.default_rng(2)
    mech = OutlierRemovalPhasedSGD(prob.loss, 10.0, 1e-3, radius=prob.radius, feature_bound=prob.feature_bound,
                                   label_bound=prob.label_bound)
    values = [prob.excess_risk(noise_free_alg1(mech, prob.sample(n, 100, rng=rng), rng=rng)) for n in (1000, 4000)]
    assert values[1] < values[0] < prob.excess_risk(np.zeros(2))


@pytest.mark.slow
def test_released_algorithm_3_follows_theorem_3_2_in_n():
    """The released output's excess risk falls at least as fast in n as Thm 3.2's privacy term (slope -1 in n).

    eps = 10, delta = 0.05, d = 1, m = 10; n = 3200, 6400, 12 800 (full batches of n/4); 12 trials each.
    Tolerance: the regression's Student-t margin plus the local slope of the hidden logs, 2/log(n).
    """
    prob = LinearBallProblem((0.5,))
    rng = np.random.default_rng(3)
    ns = (3200, 6400, 12800)
    samples = []
    for n in ns:
        out = _alg3(prob, 10.0, 5e-2).sample(prob.sample(n, 10, rng=rng), 12, rng=rng)
        samples.append(np.maximum(prob.excess_risk(out), 1e-12).tolist())
    _check_slope(ns, samples, -1.0, 2.0 / math.log(ns[0]))


@pytest.mark.slow
def test_noise_free_algorithm_1_follows_theorem_2_1_once_phase_1_reaches_the_optimum():
    """Thm 2.1's first term LR/sqrt(nm eps): slope <= -1/2 in nm, at nm from 8e6 to 3.2e7 (d = 1, eps = 10, one phase).

    With q = 1 the phase uses the first n/4 users; the others are never read (zeros, not materialised).
    Tolerance: the regression's margin plus the local slope of the hidden logs, 1/log(nm).
    """
    prob = LinearBallProblem((0.5,))
    rng = np.random.default_rng(4)
    mech = OutlierRemovalPhasedSGD(prob.loss, 10.0, 1e-3, radius=prob.radius, feature_bound=prob.feature_bound,
                                   label_bound=prob.label_bound, phases=1, q=1.0)
    sizes, m = (16_000, 32_000, 64_000), 500
    samples = []
    for n in sizes:
        row = []
        for _ in range(2):
            z = np.zeros((n, m, 2))
            z[: n // 4] = prob.sample(n // 4, m, rng=rng)
            row.append(max(float(prob.excess_risk(noise_free_alg1(mech, z, rng=rng))), 1e-12))
        samples.append(row)
    _check_slope([n * m for n in sizes], samples, -0.5, 1.0 / math.log(8e6))
