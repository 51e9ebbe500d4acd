"""Losses satisfying Assumptions 2.4 and 2.5 of Ghazi, Kumar, Liu and Manurangsi (2025), and a checker.

[GKLM25, Assumption 2.4]: every ``f(.; z)`` in the universe is convex, ``G``-Lipschitz with
respect to the l_1 norm (equivalently ``||grad f||_inf <= G``, Def. 2.1) and ``beta``-smooth in the
sense of Def. 2.2, ``||hess f||_inf = max_i sum_j |H_ij| <= beta`` (the l_inf operator norm, *not*
the spectral norm); the domain is the box ``X = [-D, D]^d``.
[GKLM25, Assumption 2.5]: every Hessian is diagonally dominant, ``|H_ii| >= sum_{j != i} |H_ij|``.

Together they make a gradient step an l_inf contraction for ``eta <= 2/beta`` [GKLM25, Lemma 3.2],
which the privacy proof needs. Generic quadratics and logistic regression violate 2.5.

Items are vectors ``z = (x, y)`` of length ``d + 1`` as everywhere in :mod:`dpaudit.userlevel`
(features ``x = z[..., :d]``, last entry ``y``). The losses here:

* :class:`LinearLoss` ``f(theta; z) = -<theta, x>``, the paper's lower-bound instance
  [GKLM25, Sec. 4] (``beta = 0``; ``y`` unused);
* :class:`SeparableHuberLoss` ``f(theta; z) = y * sum_j h(theta_j - x_j)`` with a Huber ``h`` of
  curvature ``beta`` and slope cap ``G`` (diagonal Hessian; ``y in [0, 1]`` is a weight, so
  ``y = 0`` is the zero loss);
* :class:`DiagonallyDominantQuadratic` ``f(theta; z) = (y / 2) (theta - x)^T H (theta - x)`` for a
  symmetric ``H`` (checked: PSD and diagonally dominant).

:func:`check_ghazi2025_assumptions` reports, per user, which assumption fails (also for the
linear-predictor :class:`~dpaudit.userlevel.losses.SquaredLoss` and
:class:`~dpaudit.userlevel.losses.LogisticLoss`, whose Hessians ``phi'' x x^T`` are diagonally
dominant only for special feature vectors).

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025. Defs. 2.1-2.3, Assumptions 2.4-2.5, Lemma 3.2, Sec. 4.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_nonnegative,
    check_positive,
)
from dpaudit.userlevel.losses import Loss, split_items

__all__ = ["DiagonallyDominantQuadratic", "Ghazi2025Loss", "LinearLoss", "SeparableHuberLoss", "max_row_abs_sum"]


def max_row_abs_sum(matrix: Any) -> NDArray[np.float64]:
    """``||A||_inf = max_i sum_j |A_ij|`` over the last two axes [GKLM25, Def. 2.2]."""
    a = np.asarray(matrix, dtype=float)
    return np.abs(a).sum(axis=-1).max(axis=-1)


def _dd_margin(matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    """``min_i (|A_ii| - sum_{j != i} |A_ij|)``; ``>= 0`` iff diagonally dominant [GKLM25, Def. 2.3]."""
    diag = np.abs(np.diagonal(matrix, axis1=-2, axis2=-1))
    off = np.abs(matrix).sum(axis=-1) - diag
    return (diag - off).min(axis=-1)


class Ghazi2025Loss(abc.ABC):
    """A per-item loss with declared constants ``G`` and ``beta`` over its whole universe.

    Subclasses give values, gradients and Hessians (vectorised: ``theta`` is ``(..., d)``, items
    ``(..., k, d + 1)`` broadcasting against ``theta``'s leading axes), the Lipschitz constant
    :meth:`gradient_bound` over the box of a given radius, the smoothness :attr:`smoothness_constant`, and
    per-item constants used by :func:`check_ghazi2025_assumptions`.
    """

    name: str = "loss"

    @abc.abstractmethod
    def value(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """Loss values, shape ``(..., k)``."""

    @abc.abstractmethod
    def gradient(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """Per-item gradients, shape ``(..., k, d)``."""

    def mean_gradient(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """User gradient ``q(Z) = (1/m) sum_{z in Z} grad f(theta; z)`` [GKLM25, Alg. 1, line 5]: ``(..., d)``."""
        return np.asarray(self.gradient(theta, items).mean(axis=-2), dtype=np.float64)

    @abc.abstractmethod
    def hessian(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """Per-item Hessians, shape ``(..., k, d, d)``."""

    @abc.abstractmethod
    def gradient_bound(self, radius: float) -> float:
        """``G``: a bound on ``||grad f(theta; z)||_inf`` over ``theta in [-radius, radius]^d`` and the universe."""

    @property
    @abc.abstractmethod
    def smoothness_constant(self) -> float:
        """``beta``: a bound on ``||hess f||_inf`` (max absolute row sum) over the universe [GKLM25, Def. 2.2]."""

    @abc.abstractmethod
    def item_constants(self, items: NDArray[np.float64], radius: float) -> dict[str, NDArray[Any]]:
        """Per-item exact constants over the box.

        Keys ``gradient_sup``, ``rowsum_sup``, ``diagonally_dominant``, ``convex`` and
        ``in_universe`` (arrays of shape ``items.shape[:-1]``).
        """


def _theta_items(theta: Any, items: Any) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    th = np.asarray(theta, dtype=float)
    x, y = split_items(items, th.shape[-1])
    return th, x, y


@dataclass(frozen=True)
class LinearLoss(Loss, Ghazi2025Loss):
    """``f(theta; (x, y)) = -<theta, x>`` with features in ``[-feature_bound, feature_bound]^d``.

    The paper's lower-bound instance [GKLM25, Sec. 4] (there ``x`` has entries in
    ``[-sqrt(m), sqrt(m)]``). Gradient ``-x``, so ``G = feature_bound`` (Def. 2.1), ``beta = 0`` and
    the Hessian is zero (Assumptions 2.4, 2.5). With ``E x = mu`` the population minimiser over
    ``[-D, D]^d`` is ``D sign(mu)`` and the excess risk is ``sum_j (D sign(mu_j) - theta_j) mu_j``
    [GKLM25, Eq. (5)]. It is also a :class:`~dpaudit.userlevel.losses.Loss` (a linear predictor
    with slope ``-1``), so algorithms written for those losses accept it.
    """

    feature_bound: float = 1.0
    name = "linear"
    smooth = True

    def __post_init__(self) -> None:
        check_positive("LinearLoss", "feature_bound", self.feature_bound)

    def _value_from_margin(self, margin: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
        return -margin

    def _slope(self, margin: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
        return -np.ones_like(margin)

    def lipschitz(self, radius: float, feature_bound: float, label_bound: float = 1.0) -> float:
        """l_2 Lipschitz constant for features with ``||x||_2 <= feature_bound`` (Loss API)."""
        return float(feature_bound)

    def smoothness(self, feature_bound: float) -> float:
        """Smoothness for the Loss API (the gradient does not depend on theta)."""
        return 0.0

    def gradient(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """``-x`` for every item, shape ``(..., k, d)``."""
        th, x, _ = _theta_items(theta, items)
        shape = np.broadcast_shapes(th.shape[:-1], x.shape[:-2]) + x.shape[-2:]
        return np.broadcast_to(-x, shape).astype(np.float64)

    def mean_gradient(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """``-mean(x)`` over the user's items, shape ``(..., d)``."""
        th, x, _ = _theta_items(theta, items)
        g = -x.mean(axis=-2)
        return np.broadcast_to(g, np.broadcast_shapes(th.shape[:-1], g.shape[:-1]) + g.shape[-1:]).astype(np.float64)

    def hessian(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """Zero: the loss is linear. Shape ``(..., k, d, d)``."""
        th, x, _ = _theta_items(theta, items)
        lead = np.broadcast_shapes(th.shape[:-1], x.shape[:-2])
        return np.zeros((*lead, x.shape[-2], th.shape[-1], th.shape[-1]))

    def gradient_bound(self, radius: float) -> float:
        """``G = feature_bound``, whatever the radius (the gradient is ``-x``)."""
        return float(self.feature_bound)

    @property
    def smoothness_constant(self) -> float:
        """``beta = 0``: the loss is linear."""
        return 0.0

    def item_constants(self, items: NDArray[np.float64], radius: float) -> dict[str, NDArray[Any]]:
        """Per item: ``gradient_sup = max_j |x_j|``, zero Hessian row sums, diagonally dominant, convex; ``in_universe`` per the feature bound."""
        x = items[..., :-1]
        sup = np.abs(x).max(axis=-1)
        return {
            "gradient_sup": sup,
            "rowsum_sup": np.zeros(sup.shape),
            "diagonally_dominant": np.ones(sup.shape, dtype=bool),
            "convex": np.ones(sup.shape, dtype=bool),
            "in_universe": sup <= self.feature_bound,
        }


@dataclass(frozen=True)
class SeparableHuberLoss(Ghazi2025Loss):
    """``f(theta; (x, y)) = y * sum_j h(theta_j - x_j)``, ``h`` Huber with curvature ``beta`` and slope cap ``G``.

    ``h(u) = beta u^2 / 2`` for ``|u| <= G / beta`` and ``G |u| - G^2 / (2 beta)`` beyond, so
    ``h'(u) = clip(beta u, -G, G)`` and ``0 <= h'' <= beta``. The Hessian is diagonal, hence
    diagonally dominant (Assumption 2.5); with the weight ``y in [0, 1]`` the loss is convex,
    ``G``-Lipschitz in l_1 and ``beta``-smooth in the row-sum norm (Assumption 2.4, Defs. 2.1-2.2).

    ``y = 0`` is the zero loss; a location ``x_j`` farther than ``G / beta`` outside the box makes the
    loss linear with slope ``-/+ y G`` on the whole box; ``x = 0`` gives ``y beta theta^2 / 2`` near 0.
    For i.i.d. ``x`` symmetric about ``mu`` (``y = 1``) the population minimiser is ``clip(mu)``.
    """

    beta: float = 1.0
    gradient_cap: float = 1.0
    name = "separable huber"

    def __post_init__(self) -> None:
        check_positive("SeparableHuberLoss", "beta", self.beta)
        check_positive("SeparableHuberLoss", "gradient_cap", self.gradient_cap)

    @property
    def knee(self) -> float:
        """``G / beta``: where ``h`` turns from quadratic to linear."""
        return self.gradient_cap / self.beta

    def value(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """``y * sum_j h(theta_j - x_j)`` per item, shape ``(..., k)`` (``inf`` only for a location near the float limit)."""
        th, x, y = _theta_items(theta, items)
        with np.errstate(over="ignore"):  # a location near 1.8e308 is in the universe: the loss is then inf
            u = np.abs(th[..., None, :] - x)
        k = self.knee
        h = np.where(u <= k, 0.5 * self.beta * u**2, self.gradient_cap * u - 0.5 * self.gradient_cap * k)
        return y * h.sum(axis=-1)

    def gradient(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """``y * clip(beta (theta - x), -G, G)`` per item, shape ``(..., k, d)``."""
        th, x, y = _theta_items(theta, items)
        with np.errstate(over="ignore"):  # beta (theta - x) may round to +-inf for |x| near 1.8e308: the clip gives +-G
            g = np.clip(self.beta * (th[..., None, :] - x), -self.gradient_cap, self.gradient_cap)
        return y[..., None] * g

    def mean_gradient(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """``(1/m) sum_z grad f(theta; z)``, computed in place (one ``(..., k, d)`` temporary)."""
        th, x, y = _theta_items(theta, items)
        with np.errstate(over="ignore"):  # +-inf for |x| near 1.8e308 (x is unrestricted): the clip gives +-G exactly
            u = np.subtract(th[..., None, :], x)
            np.multiply(u, self.beta, out=u)
        np.clip(u, -self.gradient_cap, self.gradient_cap, out=u)
        np.multiply(u, y[..., None], out=u)
        return np.asarray(u.mean(axis=-2))

    def hessian(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """``y * beta * 1[|theta_j - x_j| < G / beta]`` on the diagonal, shape ``(..., k, d, d)``."""
        th, x, y = _theta_items(theta, items)
        with np.errstate(over="ignore"):  # an infinite distance is beyond the knee, as it should be
            curv = np.where(np.abs(th[..., None, :] - x) < self.knee, self.beta, 0.0) * y[..., None]
        return curv[..., :, None] * np.eye(th.shape[-1])

    def gradient_bound(self, radius: float) -> float:
        """``G``, the slope cap, whatever the radius."""
        return float(self.gradient_cap)

    @property
    def smoothness_constant(self) -> float:
        """``beta``, the curvature (the Hessian is diagonal with entries in ``[0, beta]``)."""
        return float(self.beta)

    def item_constants(self, items: NDArray[np.float64], radius: float) -> dict[str, NDArray[Any]]:
        """Per item: the suprema over the box of the gradient's entries and of the Hessian's row sums, and the structural checks."""
        x, w = items[..., :-1], items[..., -1]
        # suprema over the box; an out-of-universe weight near 1.8e308 makes them inf (then refused), never NaN
        with np.errstate(over="ignore"):
            reach = self.beta * (radius + np.abs(x)).max(axis=-1)  # largest |beta (theta_j - x_j)| on the box
            grad = np.abs(w) * np.minimum(self.gradient_cap, reach)  # the clip caps the gradient at G
            rowsum = np.abs(w) * self.beta
        return {
            "gradient_sup": grad,
            "rowsum_sup": rowsum,
            "diagonally_dominant": np.ones(w.shape, dtype=bool),
            "convex": w >= 0,
            "in_universe": (w >= 0) & (w <= 1),
        }


@dataclass(frozen=True, eq=False)
class DiagonallyDominantQuadratic(Ghazi2025Loss):
    """``f(theta; (x, y)) = (y / 2) (theta - x)^T H (theta - x)`` with ``y in [0, 1]``, ``x in [-R, R]^d``.

    Gradient ``y H (theta - x)``, Hessian ``y H``. Assumptions 2.4-2.5 hold iff ``H`` is positive
    semidefinite and diagonally dominant; then ``beta = ||H||_inf`` (row sums, Def. 2.2) and
    ``G = ||H||_inf (D + R)``. The constructor accepts any symmetric ``H`` so that the checker can
    report a violating one (e.g. ``[[1, 1.5], [1.5, 4]]``, PSD but not diagonally dominant, for which
    a gradient step is not an l_inf contraction); the algorithms refuse such a loss.
    """

    hessian_matrix: Any = field(default_factory=lambda: np.eye(1))
    location_bound: float = 1.0
    name = "diagonally dominant quadratic"

    def __post_init__(self) -> None:
        owner = "DiagonallyDominantQuadratic"
        h = check_finite_array(owner, "hessian_matrix", self.hessian_matrix, ndim=2)
        if h.shape[0] != h.shape[1] or h.shape[0] < 1:
            raise argument_error(owner, "hessian_matrix", "a non-empty square matrix", self.hessian_matrix)
        if not np.allclose(h, h.T, rtol=0.0, atol=1e-12 * max(1.0, float(np.abs(h).max()))):
            raise argument_error(owner, "hessian_matrix", "symmetric", self.hessian_matrix)
        check_nonnegative(owner, "location_bound", self.location_bound)
        h = h.copy()
        h.setflags(write=False)
        object.__setattr__(self, "hessian_matrix", h)

    @property
    def H(self) -> NDArray[np.float64]:
        """The matrix ``H`` as a float array."""
        return np.asarray(self.hessian_matrix)

    @property
    def is_diagonally_dominant(self) -> bool:
        """True when ``H_ii >= sum_{j != i} |H_ij|`` for every row (Assumption 2.5)."""
        return bool(_dd_margin(self.H) >= 0)

    @property
    def is_psd(self) -> bool:
        """True when ``H``'s smallest eigenvalue is non-negative, up to ``1e-12`` of its largest entry."""
        return bool(np.linalg.eigvalsh(self.H).min() >= -1e-12 * max(1.0, float(np.abs(self.H).max())))

    def value(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """``(y / 2) (theta - x)^T H (theta - x)`` per item, shape ``(..., k)``."""
        th, x, y = _theta_items(theta, items)
        u = th[..., None, :] - x
        return 0.5 * y * np.einsum("...i,ij,...j->...", u, self.H, u)

    def gradient(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """``y H (theta - x)`` per item, shape ``(..., k, d)``."""
        th, x, y = _theta_items(theta, items)
        return y[..., None] * ((th[..., None, :] - x) @ self.H)

    def hessian(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """``y H`` per item, shape ``(..., k, d, d)``."""
        th, x, y = _theta_items(theta, items)
        lead = np.broadcast_shapes(th.shape[:-1], x.shape[:-2])
        return np.broadcast_to(y[..., None, None] * self.H, (*lead, x.shape[-2], *self.H.shape)).copy()

    def gradient_bound(self, radius: float) -> float:
        """``G = ||H||_inf (D + R)``: the largest row sum times the largest ``|theta_j - x_j|``."""
        return float(max_row_abs_sum(self.H)) * (float(radius) + float(self.location_bound))

    @property
    def smoothness_constant(self) -> float:
        """``beta = ||H||_inf``, the largest absolute row sum [GKLM25, Def. 2.2]."""
        return float(max_row_abs_sum(self.H))

    def item_constants(self, items: NDArray[np.float64], radius: float) -> dict[str, NDArray[Any]]:
        """Per item: ``sup |(H (theta - x))_i|`` over the box (``radius sum_j |H_ij| + |(H x)_i|``), row sums and the checks."""
        x, w = items[..., :-1], items[..., -1]
        # sup over theta in the box of |(H (theta - x))_i| = radius sum_j |H_ij| + |(H x)_i|
        # (take theta_j = -s sign(H_ij) radius for the sign s of -(H x)_i). H x is formed from x / max|x|
        # (entries in [-1, 1]), so a finite x can make it inf but never inf - inf = NaN.
        big = np.abs(x).max(axis=-1, keepdims=True)
        scale = np.where(big > 0, big, 1.0)
        with np.errstate(over="ignore"):  # out-of-universe items near 1.8e308: an infinite sup, refused below
            hx = np.abs((x / scale) @ self.H.T) * scale
            sup = (radius * np.abs(self.H).sum(axis=1) + hx).max(axis=-1)
            grad = np.multiply(np.abs(w), sup, out=np.zeros(w.shape), where=w != 0)  # y = 0 is the zero loss: 0, not 0 * inf
            rowsum = np.abs(w) * self.smoothness_constant
        dd = np.full(w.shape, self.is_diagonally_dominant) | (w == 0)
        convex = (w >= 0) & (np.full(w.shape, self.is_psd) | (w == 0))
        return {
            "gradient_sup": grad,
            "rowsum_sup": rowsum,
            "diagonally_dominant": dd,
            "convex": convex,
            "in_universe": (w >= 0) & (w <= 1) & (np.abs(x).max(axis=-1) <= self.location_bound),
        }
