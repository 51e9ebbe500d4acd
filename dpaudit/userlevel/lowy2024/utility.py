"""Utility of Lowy, Liu and Asi (2024)'s algorithms on a convex problem whose optimum is known exactly.

The problem (:class:`LinearBallProblem`) is a linear loss on the ball ``X = B_2(0, R)``: items
``(x, -Y)`` with ``x = mu + U[-a, a]^d`` and a label ``-Y`` beyond every margin, so that the absolute
loss ``|<theta, x> + Y| = <theta, x> + Y`` is linear on the domain (declared ``beta = 0``). Then
``F(theta) = <theta, mu> + Y``, the optimum is ``theta* = -R mu/||mu||`` and the excess risk is
``<theta, mu> + R ||mu||`` exactly. It is the standard hard instance for the ``1/sqrt(nm)`` term
(the lower bound of [LSA+21] is attained by linear losses).

:func:`noise_free_alg1` and :func:`noise_free_alg3` run the algorithms with their privacy noise
removed (no Gaussian noise, tests passed): everything else (phases, groups, step sizes, the robust
averaging, ``T_i``, ``K_i``, ``lambda_i``) is the mechanism's own. They measure the optimisation and
statistical terms of Theorems 2.1 and 3.2, the terms the released outputs' excess risk is
compared with at sizes where the privacy noise has not yet decayed.

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024, Theorems 2.1, 3.2, Lemma B.3.
.. [LSA+21] D. Levy et al. Learning with user-level privacy. NeurIPS 2021.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_int, check_positive
from dpaudit.userlevel.losses import AbsoluteLoss
from dpaudit.userlevel.lowy2024.minibatch_sgd import MinibatchPhase, run_minibatch_phase
from dpaudit.userlevel.lowy2024.phased_erm import _Alg3Base
from dpaudit.userlevel.lowy2024.phased_sgd import OutlierRemovalPhasedSGD

__all__ = ["LinearBallProblem", "noise_free_alg1", "noise_free_alg3", "theorem_2_1_rate", "theorem_3_2_rate"]


@dataclass(frozen=True)
class LinearBallProblem:
    """``f(theta; (x, -Y)) = |<theta, x> + Y|`` with ``x = mu + U[-spread, spread]^d`` on ``B_2(0, radius)``.

    ``Y = label_bound`` exceeds ``radius * feature_bound``, so every margin ``<theta, x> + Y`` is
    positive and the loss is linear, ``L = feature_bound``-Lipschitz, with ``beta = 0``.
    """

    mu: tuple[float, ...]
    spread: float = 0.5
    radius: float = 1.0

    def __post_init__(self) -> None:
        owner = "LinearBallProblem"
        mu = np.asarray(self.mu, dtype=float)
        if mu.ndim != 1 or mu.size < 1 or not np.all(np.isfinite(mu)) or not np.linalg.norm(mu) > 0:
            raise argument_error(owner, "mu", "a non-zero finite vector", self.mu)
        check_positive(owner, "spread", self.spread)
        check_positive(owner, "radius", self.radius)
        object.__setattr__(self, "mu", tuple(float(v) for v in mu))

    @property
    def dim(self) -> int:
        """The dimension ``d`` (the length of ``mu``)."""
        return len(self.mu)

    @property
    def feature_bound(self) -> float:
        """``||x|| <= ||mu|| + spread sqrt(d)``."""
        return float(np.linalg.norm(self.mu) + self.spread * math.sqrt(self.dim))

    @property
    def label_bound(self) -> float:
        """``Y = 2 radius feature_bound``: large enough that every margin is positive."""
        return 2.0 * self.radius * self.feature_bound

    @property
    def loss(self) -> AbsoluteLoss:
        """The absolute loss, linear on this instance (every margin is positive)."""
        return AbsoluteLoss()

    @property
    def optimum(self) -> NDArray[np.float64]:
        """``theta* = -R mu/||mu||``."""
        mu = np.asarray(self.mu)
        return -self.radius * mu / np.linalg.norm(mu)

    def sample(self, n: int, m: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``n`` users of ``m`` i.i.d. items, shape ``(n, m, d + 1)``."""
        n = check_int("LinearBallProblem.sample", "n", n, minimum=1)
        m = check_int("LinearBallProblem.sample", "m", m, minimum=1)
        x = np.asarray(self.mu) + rng.uniform(-self.spread, self.spread, size=(n, m, self.dim))
        y = np.full((n, m, 1), -self.label_bound)
        return np.concatenate([x, y], axis=-1)

    def excess_risk(self, theta: Any) -> NDArray[np.float64]:
        """``F(theta) - F* = <theta, mu> + R ||mu||`` per row (exact)."""
        th = np.asarray(theta, dtype=float)
        return th @ np.asarray(self.mu) + self.radius * float(np.linalg.norm(self.mu))


def theorem_2_1_rate(n: float, m: float, d: int, epsilon: float, delta: float, lipschitz: float, diameter: float) -> float:
    """``LR (1/sqrt(nm eps) + sqrt(d log(1/delta))/(sqrt(n) eps sqrt(m)))`` [LLA24, Thm 2.1], log factors omitted."""
    return lipschitz * diameter * (1.0 / math.sqrt(n * m * epsilon) + math.sqrt(d * math.log(1.0 / delta)) / (math.sqrt(n) * epsilon * math.sqrt(m)))


def theorem_3_2_rate(n: float, m: float, d: int, epsilon: float, delta: float, lipschitz: float, diameter: float) -> float:
    """``LR (1/sqrt(mn) + sqrt(d log(1/delta))/(eps n sqrt(m)))`` [LLA24, Thm 3.2], log factors omitted."""
    return lipschitz * diameter * (1.0 / math.sqrt(n * m) + math.sqrt(d * math.log(1.0 / delta)) / (epsilon * n * math.sqrt(m)))


def noise_free_alg1(mech: OutlierRemovalPhasedSGD, data: Any, *, rng: np.random.Generator) -> NDArray[np.float64]:
    """Algorithm 1 with ``sigma_i = 0`` and every test passed: ``x_l`` in original units, shape ``(d,)``.

    Each phase: the ``C`` groups' SGD outputs from ``x_{i-1}``, the robust mean with the ramp
    (coins from ``rng``), and no noise [LLA24, Alg 1 lines 3-25 without lines 12-13, 21-22 and ``zeta_i``].
    """
    z = mech.domain.validated("noise_free_alg1", data)
    n, m, d = z.shape[0], z.shape[1], z.shape[2] - 1
    p = mech.parameters(n, m, d)
    u = np.zeros((1, d)) if mech.initial_point is None else np.asarray(mech.initial_point)[None, :] / mech.radius
    offset = 0
    for i in range(p.phases):
        iterates = mech._phase_iterates(z, p, i, offset, None, u, None)
        offset += p.groups * p.group_users[i]
        _, _, probs = mech._phase_statistics(p, i, iterates)
        keep = rng.random(probs.shape) < probs
        if not keep.any():
            keep[:] = True
        u = (keep[..., None] * iterates).sum(axis=-2) / keep.sum(axis=-1, keepdims=True)
    return mech.radius * u[0]


def noise_free_alg3(mech: _Alg3Base, data: Any, *, rng: np.random.Generator) -> NDArray[np.float64]:
    """Algorithm 3 (or 2) with ``sigma_i = 0`` and every test passed: ``x_l``, shape ``(d,)`` [LLA24, Alg 3]."""
    owner = "noise_free_alg3"
    from dpaudit.userlevel.lowy2024.domain import PublicDomain

    z = PublicDomain(mech.loss, mech.radius, mech.feature_bound, mech.label_bound).validated(owner, data)
    n, m, d = z.shape[0], z.shape[1], z.shape[2] - 1
    p = mech.parameters(n, m, d)
    dom, smooth = mech.domain_for(n, m, d)
    center = np.zeros((1, d)) if mech.initial_point is None else np.asarray(mech.initial_point)[None, :] / mech.radius
    offset = 0
    for i in range(p.phases):
        plan = MinibatchPhase(p.phase_users[i], p.phase_steps[i], p.phase_batch[i], p.phase_lams[i], p.tau, 0.0,
                              -math.inf, p.above_threshold_epsilon, p.smoothness)
        center, _, _, _ = run_minibatch_phase(dom, z[offset : offset + p.phase_users[i]], plan, center, rng=rng,
                                              smoothing=smooth)
        offset += p.phase_users[i]
    return mech.radius * center[0]
