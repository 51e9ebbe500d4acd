"""Naive user-level baselines for mean estimation: what a reader compares the papers' algorithms against.

Three mechanisms, each a frozen dataclass with a vectorised ``sample(data, size, *, rng)`` on a
user-level dataset ``(n_users, m_items, d)`` and a claim under :class:`~dpaudit.neighbors.UserReplace`:

* :class:`ClippedUserMeanGaussian`: every user's mean, clipped to ``B_2(0, C)``, averaged, plus
  Gaussian noise calibrated exactly (analytic Gaussian) to the user-level l2 sensitivity ``2C/n``
  [DR14, Thm A.1; BW18, Thm 8]. ``(eps, delta)``-DP; the claim is tight on the pair that moves one
  user's mean across the ball.
* :class:`ClippedUserMeanLaplace`: the same average plus Laplace noise on every coordinate, scale
  ``b = 2C sqrt(d) / (n eps)`` from the l1 sensitivity ``2C sqrt(d)/n`` of the clipped average
  [DR14, Thm 3.6]. Pure ``eps``-DP; tight on the pair that moves one user's mean along the diagonal.
* :class:`GroupPrivateItemMean`: an *item-level* algorithm made user-level by group privacy. Every
  item is clipped to ``B_2(0, C)`` and the ``n m`` items are averaged (item-level l2 sensitivity
  ``2C/(nm)``), plus Gaussian noise calibrated (analytic Gaussian) to item-level
  ``(eps/m, delta_item)``. A user is a group of ``m`` items, so group privacy gives
  ``(m eps/m, delta_item (e^{eps} - 1)/(e^{eps/m} - 1))`` at user level [DR14, Thm 2.2 for the pure
  part; the same chain argument adds ``sum_{i<m} e^{i eps/m} delta_item <= m e^{(m-1) eps/m} delta_item``
  of delta, Vad17, Lemma 2.2]; ``delta_item`` is chosen so that this is ``delta``. The claim
  ``(eps, delta)`` is valid but not tight: :meth:`GroupPrivateItemMean.tight_guarantee` gives the
  exact user-level epsilon of the released Gaussian (user-level l2 sensitivity ``2C/n``).

Why they do not improve with ``m``: a user's contribution is bounded only by the public clip ``C``,
however concentrated the user's ``m`` items are, so the noise is ``Theta(C sqrt(d)/(n eps))`` for every
``m`` (for the group-private mean the ``m`` in the item-level sensitivity ``2C/(nm)`` cancels against the
budget ``eps/m``). Levy et al.'s Corollary 1 estimator clips to a private range of width
``O(C/sqrt(m))`` instead, so its noise falls like ``1/sqrt(m)`` [LSA+21, Cor 1].

Projections onto ``B_2(0, C)`` (:func:`clip_to_ball`) and user means are computed so that no
intermediate overflows for finite data near the float limits (1e308); non-finite data are refused
up front.

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [BW18] B. Balle and Y.-X. Wang. Improving the Gaussian mechanism for differential privacy.
   ICML 2018, arXiv:1805.06530v2.
.. [Vad17] S. Vadhan. The complexity of differential privacy. In Tutorials on the Foundations of
   Cryptography, 2017.
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import optimize

from dpaudit._validation import check_int, check_positive, check_probability
from dpaudit.accounting.calibrate import gaussian_sigma_analytic, laplace_scale
from dpaudit.accounting.conversions import analytic_gaussian_delta
from dpaudit.data import as_user_dataset
from dpaudit.guarantees import ApproxDP, PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import UserReplace

__all__ = [
    "ClippedUserMeanGaussian",
    "ClippedUserMeanLaplace",
    "GroupPrivateItemMean",
    "clip_to_ball",
    "gaussian_epsilon",
]


def clip_to_ball(x: Any, radius: float) -> NDArray[np.float64]:
    """Euclidean projection of the vectors on the last axis onto ``B_2(0, radius)``, finite for every finite input.

    The norm is computed as ``s ||x / s||`` with ``s = max_j |x_j|``, so no square overflows (values
    near 1e308 included); the identity on the ball.
    """
    v = np.asarray(x, dtype=float)
    scale = np.max(np.abs(v), axis=-1, keepdims=True)
    safe = np.where(scale > 0, scale, 1.0)
    unit = v / safe  # entries in [-1, 1]
    unit_norm = np.linalg.norm(unit, axis=-1, keepdims=True)  # ||x|| / s, in [1, sqrt(d)] (or 0)
    with np.errstate(over="ignore", under="ignore"):  # radius / s may round to inf or 0: still the right side
        outside = unit_norm > radius / safe  # ||x|| > radius, without forming ||x|| (which can overflow)
    # outside the ball: radius x / ||x|| = unit * (radius / ||unit||), the factor rounded down one ulp so
    # that the product stays inside; inside, x unchanged
    factor = np.nextafter(radius / np.where(unit_norm > 0, unit_norm, 1.0), 0.0)
    return np.asarray(np.where(outside, unit * factor, v))


def gaussian_epsilon(sigma: float, sensitivity: float, delta: float) -> float:
    """Smallest ``epsilon`` with ``analytic_gaussian_delta(epsilon, sigma, sensitivity) <= delta`` [BW18, Thm 8].

    The exact privacy curve of the Gaussian mechanism at a given ``delta`` (rounded up slightly,
    relative 1e-12, so that it is never below the true value).
    """
    owner = "gaussian_epsilon"
    sigma = check_positive(owner, "sigma", sigma)
    sensitivity = check_positive(owner, "sensitivity", sensitivity)
    delta = check_probability(owner, "delta", delta, allow_zero=False)
    if analytic_gaussian_delta(0.0, sigma, sensitivity) <= delta:
        return 0.0
    hi = 1.0
    while analytic_gaussian_delta(hi, sigma, sensitivity) > delta:
        hi *= 2.0
    eps = optimize.brentq(lambda e: analytic_gaussian_delta(e, sigma, sensitivity) - delta, 0.0, hi,
                          xtol=1e-15, rtol=1e-14)
    return float(eps * (1.0 + 1e-12))


def _user_means(owner: str, data: Any, clip: float) -> NDArray[np.float64]:
    """Each user's mean projected onto ``B_2(0, clip)``, shape ``(n, d)``.

    The mean is ``s * (sum_j x_j / s) / m`` with ``s`` the user's largest ``|x_ij|``: the scaled
    items lie in ``[-1, 1]``, so their mean does too and its product with ``s`` is at most ``s``.
    (``sum_j x_j / m`` can overflow: ``m`` terms each rounded up to at most ``max / m`` may sum past
    the largest float.)
    """
    x = as_user_dataset(data, owner, "data", item_ndim=1)
    scale = np.max(np.abs(x), axis=(1, 2), keepdims=True) if x.size else np.ones((x.shape[0], 1, 1))
    safe = np.where(scale > 0, scale, 1.0)
    return clip_to_ball(np.sum(x / safe, axis=1) / x.shape[1] * safe[:, 0], clip)


@dataclass(frozen=True)
class _ApproxBaseline(MechanismBase):
    """Fields and checks shared by the ``(epsilon, delta)`` baselines: the target and the clip ``C``."""

    epsilon: float
    delta: float
    clip: float

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_positive(owner, "epsilon", self.epsilon)
        check_probability(owner, "delta", self.delta, allow_zero=False)
        check_positive(owner, "clip", self.clip)


@dataclass(frozen=True)
class ClippedUserMeanGaussian(_ApproxBaseline):
    """Average of clipped user means plus analytic Gaussian noise. ``(eps, delta)``-user-level DP.

    Parameters
    ----------
    epsilon : float
        In (0, inf).
    delta : float
        In (0, 1).
    clip : float
        ``C``: each user's mean is mapped into ``B_2(0, C)`` (public; ``C = B`` for data in
        ``B_2(0, B)`` changes nothing).

    Notes
    -----
    Output ``(1/n) sum_u Pi_C(mean_u) + N(0, sigma^2 I_d)``, ``(size, d)``. Replacing one user moves one
    clipped mean by at most ``2C`` in l2, so the average moves by ``2C/n``; ``sigma`` is the smallest
    noise for which the Gaussian mechanism of that sensitivity is ``(eps, delta)``-DP [BW18, Thm 8],
    so the claim is exactly tight on a pair that moves one user's mean from ``C u`` to ``-C u``.

    Examples
    --------
    >>> import numpy as np
    >>> mech = ClippedUserMeanGaussian(epsilon=1.0, delta=1e-6, clip=1.0)
    >>> data = np.full((100, 5, 2), 0.25)
    >>> out = mech.sample(data, 4000, rng=np.random.default_rng(0))
    >>> out.shape, bool(np.allclose(out.mean(axis=0), 0.25, atol=0.01))
    ((4000, 2), True)
    """

    def sensitivity(self, n_users: int) -> float:
        """User-level l2 sensitivity ``2C/n`` of the clipped average."""
        return 2.0 * self.clip / check_int(type(self).__name__, "n_users", n_users, minimum=1)

    def noise_scale(self, n_users: int) -> float:
        """``sigma``: the analytic Gaussian calibration for ``(eps, delta)`` at sensitivity ``2C/n`` [BW18]."""
        return gaussian_sigma_analytic(self.sensitivity(n_users), self.epsilon, self.delta)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of the mean of the clipped user means plus ``N(0, sigma^2 I)`` (:meth:`noise_scale`).

        Returns
        -------
        ndarray of float
            Shape ``(size, d)``.
        """
        owner = f"{type(self).__name__}.sample"
        size = check_size(owner, size)
        means = _user_means(owner, data, self.clip)
        centre = means.mean(axis=0)
        return centre + rng.normal(0.0, self.noise_scale(means.shape[0]), size=(size, centre.size))

    def claimed_guarantee(self) -> ApproxDP:
        """(epsilon, delta)-DP under user replacement (sensitivity ``2C/n`` of the mean of clipped means [BW18])."""
        return ApproxDP(self.epsilon, self.delta, UserReplace())


@dataclass(frozen=True)
class ClippedUserMeanLaplace(MechanismBase):
    """Average of clipped user means plus Laplace noise per coordinate. Pure ``eps``-user-level DP.

    Parameters
    ----------
    epsilon : float
        In (0, inf).
    clip : float
        ``C``: each user's mean is mapped into ``B_2(0, C)``.

    Notes
    -----
    Output ``(1/n) sum_u Pi_C(mean_u) + Lap(b)^d`` with ``b = 2C sqrt(d) / (n eps)``, rounded up
    [DR14, Thm 3.6]: a vector of ``B_2(0, C)`` replaced by another moves at most ``2C sqrt(d)`` in l1
    (``C (1, .., 1)/sqrt(d)`` against its negative attains it), so the average moves ``2C sqrt(d)/n``.

    Examples
    --------
    >>> import numpy as np
    >>> mech = ClippedUserMeanLaplace(epsilon=1.0, clip=1.0)
    >>> mech.noise_scale(100, 4)
    0.04
    """

    epsilon: float
    clip: float

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_positive(owner, "epsilon", self.epsilon)
        check_positive(owner, "clip", self.clip)

    def sensitivity(self, n_users: int, dim: int) -> float:
        """User-level l1 sensitivity ``2C sqrt(d)/n`` of the clipped average."""
        owner = type(self).__name__
        n = check_int(owner, "n_users", n_users, minimum=1)
        d = check_int(owner, "dim", dim, minimum=1)
        return 2.0 * self.clip * math.sqrt(d) / n

    def noise_scale(self, n_users: int, dim: int) -> float:
        """Laplace scale ``2C sqrt(d) / (n eps)``, rounded up [DR14, Thm 3.6]."""
        return laplace_scale(self.sensitivity(n_users, dim), self.epsilon)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of the mean of the clipped user means plus Laplace noise per coordinate (:meth:`noise_scale`).

        Returns
        -------
        ndarray of float
            Shape ``(size, d)``.
        """
        owner = f"{type(self).__name__}.sample"
        size = check_size(owner, size)
        means = _user_means(owner, data, self.clip)
        centre = means.mean(axis=0)
        return centre + rng.laplace(0.0, self.noise_scale(*means.shape), size=(size, centre.size))

    def claimed_guarantee(self) -> PureDP:
        """epsilon-DP under user replacement (l1 sensitivity ``2C sqrt(d)/n`` [DR14, Thm 3.6])."""
        return PureDP(self.epsilon, UserReplace())


@dataclass(frozen=True)
class GroupPrivateItemMean(_ApproxBaseline):
    """Item-level DP mean of clipped items, made user-level by group privacy. ``(eps, delta)``-user-level DP.

    Parameters
    ----------
    epsilon, delta : float
        The *user-level* target, ``epsilon`` in (0, inf) and ``delta`` in (0, 1).
    clip : float
        ``C``: every item is mapped into ``B_2(0, C)``.

    Notes
    -----
    With ``m`` items per user (public: every user holds ``m``), the item-level mechanism is the
    Gaussian mechanism on the mean of the ``n m`` clipped items (item-level l2 sensitivity
    ``2C/(nm)``) at ``(eps_item, delta_item) = (eps/m, delta (e^{eps/m} - 1)/(e^{eps} - 1))``
    (:meth:`item_budget`). Group privacy for groups of ``m`` items:
    ``P[M(D) in S] <= e^{m eps_item} P[M(D') in S] + delta_item sum_{i<m} e^{i eps_item}``
    [DR14, Thm 2.2; Vad17, Lemma 2.2], which is ``(eps, delta)``.

    Examples
    --------
    >>> mech = GroupPrivateItemMean(epsilon=1.0, delta=1e-6, clip=1.0)
    >>> e_item, d_item = mech.item_budget(10)
    >>> round(e_item, 3), bool(d_item < 1e-6 / 10)
    (0.1, True)
    """

    def item_budget(self, m_items: int) -> tuple[float, float]:
        """``(eps/m, delta (e^{eps/m} - 1)/(e^{eps} - 1))``: the item-level budget whose group-``m`` guarantee is the claim."""
        m = check_int(type(self).__name__, "m_items", m_items, minimum=1)
        eps_item = self.epsilon / m
        return eps_item, self.delta * math.expm1(eps_item) / math.expm1(self.epsilon)

    def item_sensitivity(self, n_users: int, m_items: int) -> float:
        """Item-level l2 sensitivity ``2C/(nm)`` of the mean of all clipped items."""
        owner = type(self).__name__
        n = check_int(owner, "n_users", n_users, minimum=1)
        m = check_int(owner, "m_items", m_items, minimum=1)
        return 2.0 * self.clip / (n * m)

    def noise_scale(self, n_users: int, m_items: int) -> float:
        """``sigma``: the analytic Gaussian calibration for :meth:`item_budget` at :meth:`item_sensitivity` [BW18]."""
        eps_item, delta_item = self.item_budget(m_items)
        return gaussian_sigma_analytic(self.item_sensitivity(n_users, m_items), eps_item, delta_item)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of the mean of the clipped items plus item-level Gaussian noise (:meth:`noise_scale`).

        Returns
        -------
        ndarray of float
            Shape ``(size, d)``.
        """
        owner = f"{type(self).__name__}.sample"
        size = check_size(owner, size)
        x = as_user_dataset(data, owner, "data", item_ndim=1)
        centre = clip_to_ball(x, self.clip).mean(axis=(0, 1))
        return centre + rng.normal(0.0, self.noise_scale(x.shape[0], x.shape[1]), size=(size, centre.size))

    def claimed_guarantee(self) -> ApproxDP:
        """``(eps, delta)`` under user replacement, by group privacy [DR14, Thm 2.2; Vad17, Lemma 2.2]."""
        return ApproxDP(self.epsilon, self.delta, UserReplace())

    def tight_guarantee(self, n_users: int, m_items: int) -> ApproxDP:
        """The exact user-level epsilon at ``delta``; never above the claim.

        The released Gaussian has user-level l2 sensitivity ``m * 2C/(nm) = 2C/n`` (all ``m`` items
        of a user move), so its curve is [BW18, Thm 8] at that sensitivity.
        """
        sigma = self.noise_scale(n_users, m_items)
        eps = gaussian_epsilon(sigma, m_items * self.item_sensitivity(n_users, m_items), self.delta)
        return ApproxDP(min(eps, self.epsilon), self.delta, UserReplace())
