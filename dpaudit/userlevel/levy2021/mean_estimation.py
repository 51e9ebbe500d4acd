"""The user-level mean estimator of Levy et al. 2021, Corollary 1.

:class:`UserMeanEstimator`: Algorithm 2 on the users' means with the user-mean concentration radius
``tau_m = (B / sqrt(m)) (1 + sqrt(2 ln(n / gamma)))`` and a final projection on the support ball
[LSA+21, Cor 1; ``docs/papers/levy2021.md``, ALG-3, PROP].

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    check_one_of,
    check_positive,
    check_probability,
)
from dpaudit.guarantees import ApproxDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.domain import check_magnitude
from dpaudit.userlevel.levy2021.parameters import (
    check_alg2_region,
    user_means,
)
from dpaudit.userlevel.levy2021.private_range import RangeMode
from dpaudit.userlevel.levy2021.winsorized_1d import TauRule
from dpaudit.userlevel.levy2021.winsorized_highd import WinsorizedMeanHighD
from dpaudit.userlevel.projections import project_l2_ball

__all__ = ["UserMeanEstimator", "user_mean_radius"]


def user_mean_radius(bound: float, m_items: int, n_users: int, gamma: float) -> float:
    """Concentration radius of ``n`` user means of ``m`` i.i.d. vectors in ``B_2(0, B)``.

    ``tau_m = (B / sqrt(m)) (1 + sqrt(2 ln(n / gamma)))`` [``docs/papers/levy2021.md``, ALG-3, PROP]: by
    McDiarmid (bounded differences ``2B/m``), ``||X̄_u - mu|| <= E||X̄_u - mu|| + B sqrt(2 ln(1/g)/m)``
    with probability ``1 - g``, ``E||X̄_u - mu|| <= B / sqrt(m)``, and a union over ``n`` users.
    """
    return bound / math.sqrt(m_items) * (1.0 + math.sqrt(2.0 * math.log(n_users / gamma)))


@dataclass(frozen=True)
class UserMeanEstimator(MechanismBase):
    """User-level DP mean of l2-bounded vectors (Levy et al. 2021, Corollary 1). ``(eps, delta)``-DP.

    Parameters
    ----------
    epsilon, delta : float
        Privacy parameters (``delta`` in (0, 1)).
    bound : float
        ``B``: the support of ``P_0`` is the l2 ball ``B_2(0, B)`` [LSA+21, Cor 1], in (0, 2^960].
        Every item is projected onto that ball before the user's mean (a fixed per-item map, the
        identity on the support), so any finite input gives a finite output and the privacy
        argument is Theorem 2's, unchanged.
    gamma : float, optional
        Failure probability of the concentration event. Default ``1 / (m (d n + n^2 eps^2))``,
        inferred from the log factor in Corollary 1's condition on ``n`` [``docs/papers/levy2021.md``, ALG-3, PROP].
    tau : float, optional
        Radius of the user means; default :func:`user_mean_radius` (``B / sqrt(m)`` times a log).
    mode, tau_rule :
        As in :class:`WinsorizedMeanHighD`.
    project : bool
        Project the estimate on ``B_2(0, B)`` (post-processing; bounds the error on the failure
        event by ``4 B^2``) [``docs/papers/levy2021.md``, ALG-3 step 3, PROP].
    signs : tuple of float, optional
        Fix the rotation signs of Algorithm 2 (for audits; DP holds conditionally on them); by
        default they are drawn afresh for every trial (see :class:`WinsorizedMeanHighD`).

    Notes
    -----
    Data ``(n_users, m_items, d)``; output ``(size, d)``. Each user contributes one vector, the mean
    of their items, and Algorithm 2 runs on the means with ``tau = tau_m``:

    .. math:: \\mathbb E\\|A(\\mathcal S) - \\mu\\|^2 = \\frac{\\mathrm{Var}(P_0)}{mn}
              + \\tilde O\\Big(\\frac{d B^2}{m n^2 \\varepsilon^2}\\Big)   \\quad [LSA+21, Cor 1]

    References
    ----------
    [LSA+21, Cor 1, Thm 2].
    """

    epsilon: float
    delta: float
    bound: float
    gamma: float | None = None
    tau: float | None = None
    mode: RangeMode = "safe"
    tau_rule: TauRule = "paper"
    project: bool = True
    signs: tuple[float, ...] | None = field(default=None)

    #: The steps a faulty variant may replace, and nothing else (:mod:`dpaudit.userlevel.steps`).
    STEPS: ClassVar[tuple[str, ...]] = ("_user_means", "estimator", "sample")

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_magnitude(owner, "epsilon", self.epsilon)
        check_probability(owner, "delta", self.delta, allow_zero=False)
        check_magnitude(owner, "bound", self.bound)
        if self.gamma is not None:
            check_probability(owner, "gamma", self.gamma, allow_zero=False)
        if self.tau is not None:
            check_positive(owner, "tau", self.tau)
        check_one_of(owner, "mode", self.mode, ("safe", "paper"))
        check_one_of(owner, "tau_rule", self.tau_rule, ("paper", "tight"))
        check_alg2_region(owner, self.epsilon, self.delta)

    def failure_probability(self, n_users: int, m_items: int, dim: int) -> float:
        """``gamma`` (given, or ``1 / (m (d n + n^2 eps^2))``) [``docs/papers/levy2021.md``, ALG-3, PROP]."""
        if self.gamma is not None:
            return self.gamma
        return min(0.5, 1.0 / (m_items * (dim * n_users + n_users**2 * self.epsilon**2)))

    def radius(self, n_users: int, m_items: int, dim: int) -> float:
        """``tau`` (given, or :func:`user_mean_radius`)."""
        if self.tau is not None:
            return self.tau
        return user_mean_radius(self.bound, m_items, n_users, self.failure_probability(n_users, m_items, dim))

    def estimator(self, n_users: int, m_items: int, dim: int) -> WinsorizedMeanHighD:
        """Algorithm 2 as run on ``n_users`` means of ``m_items`` items in dimension ``dim``."""
        return WinsorizedMeanHighD(self.epsilon, self.delta, self.radius(n_users, m_items, dim), self.bound,
                                   self.failure_probability(n_users, m_items, dim), self.mode, self.tau_rule,
                                   self.signs)

    def _user_means(self, owner: str, data: Any) -> NDArray[np.float64]:
        """Every user's mean after each item is projected onto ``B_2(0, B)`` [LSA+21, Cor 1], shape ``(n, d)``."""
        return user_means(owner, data, item_ndim=1, bound=self.bound, domain="ball")

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` runs on ``data`` of shape ``(n_users, m_items, d)``; returns ``(size, d)``."""
        owner = f"{type(self).__name__}.sample"
        size = check_size(owner, size)
        means = self._user_means(owner, data)
        n_users, dim = means.shape
        m_items = np.shape(data)[1]
        out = self.estimator(n_users, m_items, dim).release(means[None], size, rng=rng)
        return project_l2_ball(out, self.bound) if self.project else out

    def claimed_guarantee(self) -> ApproxDP:
        """``(eps, delta)``-DP under user replacement [LSA+21, Cor 1]."""
        return ApproxDP(self.epsilon, self.delta, UserReplace())

    def tight_guarantee(self, dim: int) -> ApproxDP:
        """The smaller of basic and advanced composition in dimension ``dim`` (Algorithm 2's, [``docs/papers/levy2021.md``, P2'])."""
        return self.estimator(1, 1, dim).tight_guarantee(dim)
