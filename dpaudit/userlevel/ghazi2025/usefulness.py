"""Where Ghazi et al. (2025)'s safe preset starts to beat the trivial output, analytically and by a drift model.

The safe preset (:mod:`dpaudit.userlevel.ghazi2025.base`) releases, after phase ``s``,
``x_s = Pi_box(x_bar_s + N(0, sigma_s^2 I_d))`` with

.. math:: \\frac{\\sigma_1}{D} = \\frac{12\\sqrt d}{\\varepsilon}\\sqrt{2\\ln\\frac{2.5 e^{\\varepsilon}}{\\delta}}
          \\,\\frac{40\\sqrt{2L}}{\\kappa}\\,\\min\\Big(\\frac{B}{\\sqrt n},
          \\frac{\\varepsilon}{\\sqrt{d \\ln(1/\\delta)\\ln(nmd)}}\\Big),
          \\qquad \\sigma_s = \\sigma_1 \\kappa^{-(s-1)}

(:func:`phase_noise_ratio`), where ``L = ln(2nd) + 3 ln(nmd)`` (the safe inverse radius
``1/tau = 40 G sqrt(2L/m)``), ``kappa = max(ln m, 4)``, ``B = ceil(100 ln(nmd/delta)/eps)``: the
Gaussian mechanism at ``(eps/2, delta/(2e^eps))`` for the l2 sensitivity ``6 sqrt(d) eta_s / tau``
[GKLM25, Alg. 5, Lemma 3.10; DR14, Thm A.1] with Theorem 3.1's ``eta``. Up to
``n = B^2 d ln(1/delta) ln(nmd) / eps^2`` the second branch holds and ``sigma_1 / D`` does not depend on
``n``, ``d`` or (nearly) ``eps``: about ``1900 / kappa``, so ``sigma_1 ~ 480 D`` for ``m <= e^4``.

Noise alone does not decide usefulness: phase ``s`` moves the iterate by at most ``T_s eta_s |mu_j|``
towards the optimum, and ``eta_s / sigma_s`` is the same in every phase, so a phase whose noise is
below ``D`` has little drift left. :func:`drift_excess` runs the released chain exactly as the
mechanism does (its resolved parameters, its noise and its projections) with the gradient replaced
by its expectation on the linear instance of [GKLM25, Sec. 4] (``-mu``; the batch mean of ``B m``
features deviates by ``O(a / sqrt(B m))``, and the clip at ``1/tau`` never binds there), every
concentration test passing. It costs ``O(trials x phases)`` whatever ``n`` is, so it reaches sizes no
machine can run; with the noise removed it agrees with :func:`noise_free_output` (tested).
:func:`smallest_useful_users` scans ``n`` for the first size at which the predicted excess is below a
fraction of the trivial level ``D sum_j |mu_j|``.

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_count,
    check_in_range,
    check_int,
    check_probability,
)
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization, RobustStatsSGD
from dpaudit.userlevel.ghazi2025.losses import LinearLoss
from dpaudit.userlevel.ghazi2025.utility import LinearUtilityProblem

__all__ = ["UsefulnessPoint", "drift_excess", "phase_noise_ratio", "smallest_useful_users"]


def phase_noise_ratio(n_users: int, m_items: int, dim: int, epsilon: float, delta: float,
                      tau_constant: float = 40.0) -> float:
    """``sigma_1 / D`` of the safe preset for a G-Lipschitz linear loss (the module docstring's formula).

    Independent of ``G`` and ``D``: ``eta`` scales with ``D/G`` and ``1/tau`` with ``G``.
    """
    owner = "phase_noise_ratio"
    n = check_int(owner, "n_users", n_users, minimum=1)
    m = check_int(owner, "m_items", m_items, minimum=1)
    d = check_int(owner, "dim", dim, minimum=1)
    eps = check_in_range(owner, "epsilon", epsilon, 0.0, 1.0, low_closed=False)
    delta = check_probability(owner, "delta", delta, allow_zero=False)
    nmd = n * m * d
    b = max(4, math.ceil(100.0 * math.log(nmd / delta) / eps))
    big_l = math.log(2.0 * n * d) + 3.0 * math.log(nmd)
    kappa = max(math.log(m), 4.0)
    branch = min(b / math.sqrt(n), eps / math.sqrt(d * math.log(1.0 / delta) * math.log(nmd)))
    gauss = math.sqrt(2.0 * math.log(2.5 * math.exp(eps) / delta)) / eps
    return 12.0 * math.sqrt(d) * gauss * tau_constant * math.sqrt(2.0 * big_l) * branch / kappa


def drift_excess(mechanism: RobustStatsSGD | RobustStatsLocalization, problem: LinearUtilityProblem, n_users: int,
                 m_items: int, *, rng: np.random.Generator, trials: int = 2000, noise: bool = True) -> NDArray[np.float64]:
    """Excess risk of ``trials`` released outputs under the drift model (module docstring), shape ``(trials,)``.

    Phase ``s``: from ``x_{s-1}``, every coordinate moves ``eta_s |mu_j|`` per step towards
    ``D sign(mu_j)`` and stops there (the projection); ``x_bar_s`` is the mean of the ``T_s`` iterates
    after each step (closed form, so ``T_s`` may be astronomically large); then
    ``x_s = x_bar_s + N(0, sigma_s^2)``, projected onto the box when the preset does. ``noise=False``
    drops the Gaussian noise (the noise-free output).
    """
    owner = "drift_excess"
    if not isinstance(problem.loss, LinearLoss) or not isinstance(mechanism.loss, LinearLoss):
        raise argument_error(owner, "mechanism", "a mechanism on the linear instance's LinearLoss", mechanism)
    trials = check_count(owner, "trials", trials, minimum=1)
    p = mechanism.parameters(n_users, m_items, problem.dim)
    mu = np.asarray(problem.mu)
    rate = np.abs(mu)  # |E grad_j| = |mu_j|: the drift per unit step size
    big_d = p.radius
    x0 = np.zeros(problem.dim) if mechanism.initial_point is None else np.asarray(mechanism.initial_point)
    # aligned coordinates: a = sign(mu_j) x_j, the optimum is a = D
    a = np.broadcast_to(np.sign(mu) * x0, (trials, problem.dim)).copy()
    for s in range(p.phases):
        steps, move = p.phase_steps[s], p.phase_step_sizes[s] * rate  # per-step move, shape (d,)
        # k = steps before the iterate reaches D (then it stays): y_t = min(D, a + t move)
        k = np.minimum(np.floor((big_d - a) / move), steps)
        moving = k * a + move * k * (k + 1) / 2.0  # sum_{t <= k} (a + t move)
        a = (moving + (steps - k) * big_d) / steps
        if noise:
            a = a + rng.normal(0.0, p.phase_sigmas[s], size=a.shape)
        if p.project_between_phases or (s == p.phases - 1 and p.project_output):
            a = np.clip(a, -big_d, big_d)
    return np.asarray((rate * (big_d - np.clip(a, -big_d, big_d))).sum(axis=-1))


@dataclass(frozen=True)
class UsefulnessPoint:
    """The first scanned ``n`` at which the drift model's mean excess is below ``fraction`` of trivial."""

    n_users: int
    m_items: int
    dim: int
    epsilon: float
    predicted_excess: float
    standard_error: float
    trivial_excess: float
    phase_noise_ratio: float
    last_phase_noise_ratio: float


def smallest_useful_users(mechanism: RobustStatsLocalization, problem: LinearUtilityProblem, m_items: int, *,
                          rng: np.random.Generator, fraction: float = 0.9, trials: int = 2000,
                          max_log2_users: int = 70) -> UsefulnessPoint | None:
    """The first ``n = 2^k`` whose predicted excess is below ``fraction`` of the trivial level.

    Scans ``k`` up to ``max_log2_users``; the predicted excess is taken plus 3 standard errors.
    ``None`` if no scanned ``n`` qualifies.
    """
    owner = "smallest_useful_users"
    fraction = check_in_range(owner, "fraction", fraction, 0.0, 1.0, low_closed=False, high_closed=False)
    m = check_int(owner, "m_items", m_items, minimum=1)
    trivial = problem.trivial_excess
    for k in range(1, check_int(owner, "max_log2_users", max_log2_users, minimum=1) + 1):
        n = 1 << k
        try:
            p = mechanism.parameters(n, m, problem.dim)
        except ValueError:  # too few users for two batches (InvalidArgument is a ValueError)
            continue
        ex = drift_excess(mechanism, problem, n, m, rng=rng, trials=trials)
        mean, se = float(ex.mean()), float(ex.std(ddof=1) / math.sqrt(trials))
        if mean + 3.0 * se < fraction * trivial:
            return UsefulnessPoint(n, m, problem.dim, mechanism.epsilon, mean, se, trivial,
                                   p.phase_sigmas[0] / p.radius, p.phase_sigmas[-1] / p.radius)
    return None
