"""Utility of Ghazi et al. (2025) on the linear instance of :mod:`dpaudit.userlevel.comparison`: noise-free outputs and rates.

The problem is the paper's lower-bound instance [GKLM25, Sec. 4]: the linear loss
``f(theta; x) = -<theta, x>`` over ``X = [-D, D]^d`` with features ``x = mu + U[-a, a]^d``, so
``F(theta) = -<theta, mu>``, ``x* = D sign(mu)`` and the excess risk is
``sum_j |mu_j| (D - sign(mu_j) theta_j)`` [GKLM25, Eq. (5)], linear in the distance to the optimum.

What the measurements show (``python -m benchmarks.bench_ghazi2025_utility``):

* the *optimisation term* (the algorithm with its privacy noise removed, :func:`noise_free_output`)
  follows Theorem 3.1's second term exactly as the proof of Lemma 3.12 evaluates it: starting from
  ``x_0 = 0`` the averaged iterate needs ``D / (eta |mu_j|)`` steps to reach the corner, so the excess is
  ``~ d D^2 / (2 eta T)``; with Theorem 3.1's ``eta = (D/G) sqrt(m) eps / sqrt(d ln(1/delta) ln(nmd))``
  and ``T = n / B`` this is ``50 G D d^{3/2} ln(mnd/delta) sqrt(ln(1/delta) ln(nmd)) / (n sqrt(m) eps^2)``,
  i.e. slopes ``-1`` in ``n``, ``-1/2`` in ``m`` and ``+3/2`` in ``d`` (plus logs);
* the *released* output adds Gaussian noise of standard deviation ``sigma_1 ~ 500 D`` in phase 1 at
  ``eps = 1`` (``sigma_s = 12 sqrt(d) eta_s / (tau eps) sqrt(2 ln(2.5 e^eps/delta))``, with
  ``eta_s / tau`` independent of ``m``), decaying only like ``kappa^-s``; at every size that fits in
  memory the released point is then a near-random corner and the excess sits at the trivial level
  ``D sum_j |mu_j|``. The proof of Lemma 3.12 bounds this last term with
  ``1/(log m)^{log n} <= 1/(nm)``, which is false (note, Lem3.12-pf3).

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025. Thm 3.1, Lemmas 3.11-3.12, Lemma A.6, Sec. 4, Eq. (5).
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, Algorithm 4 (Phased ERM).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_finite_array, check_int, check_positive
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization, RobustStatsSGD
from dpaudit.userlevel.ghazi2025.losses import LinearLoss
from dpaudit.userlevel.ghazi2025.sgd import robust_sgd_path

__all__ = ["LinearUtilityProblem", "lemma_a6_bound", "noise_free_output", "theorem_3_1_rate", "transient_excess"]


@dataclass(frozen=True)
class LinearUtilityProblem:
    """The linear instance with known optimum: features ``mu + U[-spread, spread]^d``, domain ``[-D, D]^d``.

    ``E x = mu`` exactly, and every feature lies in ``[-feature_bound, feature_bound]`` (so the loss
    is ``feature_bound``-Lipschitz in l_1 on every item, Assumption 2.4).
    """

    mu: tuple[float, ...]
    spread: float = 0.75
    feature_bound: float = 1.0
    radius: float = 1.0

    def __post_init__(self) -> None:
        owner = "LinearUtilityProblem"
        mu = check_finite_array(owner, "mu", self.mu, ndim=1)
        if mu.size < 1 or np.any(mu == 0):
            raise argument_error(owner, "mu", "a non-empty vector with non-zero entries (a unique optimum)", self.mu)
        check_positive(owner, "spread", self.spread)
        check_positive(owner, "feature_bound", self.feature_bound)
        check_positive(owner, "radius", self.radius)
        if np.abs(mu).max() + self.spread > self.feature_bound:
            raise argument_error(owner, "spread", f"at most feature_bound - max|mu| = {self.feature_bound - np.abs(mu).max():g}",
                                 self.spread)
        object.__setattr__(self, "mu", tuple(float(v) for v in mu))

    @property
    def dim(self) -> int:
        """The dimension ``d`` (the length of ``mu``)."""
        return len(self.mu)

    @property
    def loss(self) -> LinearLoss:
        """The linear loss with this problem's feature bound."""
        return LinearLoss(self.feature_bound)

    @property
    def optimum(self) -> NDArray[np.float64]:
        """``x* = D sign(mu)`` [GKLM25, Sec. 4]."""
        return self.radius * np.sign(np.asarray(self.mu))

    @property
    def trivial_excess(self) -> float:
        """Excess risk of the start ``x_0 = 0`` (and the mean excess of a uniformly random corner)."""
        return float(self.radius * np.abs(np.asarray(self.mu)).sum())

    def sample(self, n_users: int, m_items: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """A dataset ``(n_users, m_items, d + 1)`` of i.i.d. items (last column 0)."""
        n = check_int("LinearUtilityProblem.sample", "n_users", n_users, minimum=1)
        m = check_int("LinearUtilityProblem.sample", "m_items", m_items, minimum=1)
        z = np.zeros((n, m, self.dim + 1))
        z[..., : self.dim] = np.asarray(self.mu) + rng.uniform(-self.spread, self.spread, size=(n, m, self.dim))
        return z

    def excess_risk(self, theta: Any, project: bool = True) -> NDArray[np.float64]:
        """``F(theta) - F(x*) = sum_j |mu_j| (D - sign(mu_j) theta_j)`` [GKLM25, Eq. (5)], per row.

        With ``project=True`` the points are first projected onto the box (post-processing: the
        excess is defined over ``X``; outputs of the paper preset and of l_2-ball methods may leave it).
        """
        th = np.asarray(theta, dtype=float)
        if project:
            th = np.clip(th, -self.radius, self.radius)
        mu = np.asarray(self.mu)
        return np.asarray((np.abs(mu) * (self.radius - np.sign(mu) * th)).sum(axis=-1))


def noise_free_output(mechanism: RobustStatsSGD | RobustStatsLocalization, data: Any) -> tuple[NDArray[np.float64], bool]:
    """The mechanism's output with its privacy noise removed: ``(x_bar_S, every noise-free test passed)``.

    Runs the resolved parameters (:meth:`parameters`) through :func:`robust_sgd_path` phase by phase,
    with the same batches, step sizes ``eta_s``, ``tau``, statistic and projection, and no Laplace or
    Gaussian noise; a test "passes" when the score is at least the phase threshold. This is the
    quantity the optimisation part of the utility proof bounds (Lemma 3.11 with Lemma A.6).
    """
    z = mechanism._validated_data(data, "noise_free_output")
    n, m, d = z.shape[0], z.shape[1], z.shape[2] - 1
    p = mechanism.parameters(n, m, d)
    x = np.zeros(d) if mechanism.initial_point is None else np.asarray(mechanism.initial_point, dtype=float)
    ok = True
    start = 0
    for s in range(p.phases):
        users = z[start : start + p.phase_users[s]]
        path = robust_sgd_path(mechanism.loss, users, x, step_size=p.phase_step_sizes[s], tau=p.tau,
                               batch_size=p.batch_size, radius=p.radius, statistic=mechanism.statistic)
        ok = ok and bool(np.all(path.scores >= p.phase_thresholds[s]))
        x = path.average
        start += p.phase_users[s]
    return x, ok


def transient_excess(problem: LinearUtilityProblem, step_size: float, steps: int) -> float:
    """Excess of the averaged iterate when every step moves by exactly ``eta |mu_j|`` (the drift).

    ``x_t = min(D, t eta |mu_j|)`` towards the optimum, so per coordinate
    ``D - x_bar = (1/T) sum_{t<=T} (D - min(D, t eta |mu_j|))``. Its continuous version is
    ``D^2 / (2 eta T)`` (once ``T eta |mu_j| >= D``), the first term of Lemma A.6 [GKLM25] with the factor 1/2.
    """
    eta = check_positive("transient_excess", "step_size", step_size)
    t_ = check_int("transient_excess", "steps", steps, minimum=1)
    t = np.arange(1, t_ + 1)[:, None]
    a = np.abs(np.asarray(problem.mu))[None, :]
    gap = (problem.radius - np.minimum(problem.radius, t * eta * a)).mean(axis=0)
    return float((np.abs(np.asarray(problem.mu)) * gap).sum())


def lemma_a6_bound(step_size: float, steps: int, dim: int, radius: float, gradient_bound: float, batch_size: int,
                   m_items: int, smoothness: float = 0.0) -> float:
    """Lemma A.6 as Lemma 3.11 applies it: ``(beta + 1/eta) R^2 / T + eta G^2 d / (2 B m)`` with ``R^2 = d D^2``.

    ``R^2 = E ||x_0 - x*||_2^2 = d D^2`` for ``x_0 = 0`` and ``x*`` a corner; ``G^2 d / (B m)`` bounds the
    variance of the batch-mean gradient [GKLM25, proof of Lemma 3.11].
    """
    r2 = dim * radius**2
    return (smoothness + 1.0 / step_size) * r2 / steps + step_size * gradient_bound**2 * dim / (2.0 * batch_size * m_items)


def theorem_3_1_rate(n_users: float, m_items: float, dim: float, epsilon: float, delta: float, gradient_bound: float = 1.0,
                     radius: float = 1.0, *, with_logs: bool = True) -> tuple[float, float]:
    """The two terms of Theorem 3.1, ``(G D d / sqrt(nm), G D d^{3/2} / (n sqrt(m) eps^2))``.

    With ``with_logs`` they carry the factors the proof of Lemma 3.12 produces for the paper's
    parameters: ``2 G D d / sqrt(nm)`` and ``50 G D d^{3/2} ln(mnd/delta) sqrt(ln(1/delta) ln(nmd)) /
    (n sqrt(m) eps^2)`` (the latter is ``d D^2 / (2 eta T)`` with Theorem 3.1's second ``eta``, ``T = n/B``).
    """
    n, m, d, eps = float(n_users), float(m_items), float(dim), float(epsilon)
    g, big_d = float(gradient_bound), float(radius)
    first = g * big_d * d / math.sqrt(n * m)
    second = g * big_d * d**1.5 / (n * math.sqrt(m) * eps**2)
    if with_logs:
        first *= 2.0
        second *= 50.0 * math.log(m * n * d / delta) * math.sqrt(math.log(1.0 / delta) * math.log(n * m * d))
    return first, second
