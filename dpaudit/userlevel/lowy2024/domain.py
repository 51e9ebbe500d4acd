"""The declared public domain of Lowy, Liu and Asi (2024)'s algorithms, and overflow-safe gradients.

A problem is a convex loss of a linear predictor (:mod:`dpaudit.userlevel.losses`) on the ball
``X = B_2(0, radius)`` (the paper's diameter is ``R = 2 radius``, Assumption 1.1), with items
``z = (x, y)`` in the declared domain ``||x||_2 <= feature_bound``, ``|y| <= label_bound``. The
Lipschitz constant ``L`` and smoothness ``beta`` follow from these public bounds.

Privacy for every input: data outside the declared domain is refused before anything is computed
(:meth:`PublicDomain.validated`). Inside it every intermediate value is bounded by the declared
constants, which are themselves checked finite with headroom at construction, and iterates,
gradients and distances are computed in units of ``radius`` and ``L`` so that no square or sum
can overflow, even for data at the largest declarable bounds (``2^960``, about ``1e289``).

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024, Assumptions 1.1-1.2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_positive
from dpaudit.data import as_user_dataset
from dpaudit.mechanisms.base import MechanismBase
from dpaudit.userlevel.domain import MAX_MAGNITUDE
from dpaudit.userlevel.losses import Loss

__all__ = ["HEADROOM", "PublicDomain", "check_common_fields", "safe_norm"]

HEADROOM = MAX_MAGNITUDE
"""Every declared constant (radius, bounds, ``L``, ``radius * feature_bound + label_bound``, noise scales)
is at most ``2^960`` (:data:`dpaudit.userlevel.domain.MAX_MAGNITUDE`, the cap shared by every
user-level mechanism), so that the few products and sums the algorithms form with them stay finite."""

_NORM_RTOL = 8 * float(np.finfo(float).eps)


def safe_norm(x: Any) -> NDArray[np.float64]:
    """Euclidean norm along the last axis without spurious overflow or underflow (scaled by the largest entry).

    The result is ``inf`` (silently, no overflow warning) only when the norm itself exceeds the
    largest float, e.g. for finite items near 1.5e308 outside a declared domain; comparisons with
    a bound are then still right.
    """
    a = np.abs(np.asarray(x, dtype=float))
    top = a.max(axis=-1)
    scale = np.where(top > 0, top, 1.0)
    with np.errstate(over="ignore"):
        return top * np.sqrt(np.square(a / scale[..., None]).sum(axis=-1))


@dataclass(frozen=True)
class PublicDomain:
    """``X = B_2(0, radius)`` and items with ``||x||_2 <= feature_bound``, ``|y| <= label_bound``.

    Parameters
    ----------
    loss : Loss
        A convex loss of a linear predictor.
    radius, feature_bound, label_bound : float
        Public bounds, each in ``(0, 2^960]``; with them ``L = loss.lipschitz(radius, feature_bound,
        label_bound)`` and ``radius * feature_bound + label_bound`` must also stay at most ``2^960``.
    lipschitz_radius : float, optional
        Radius over which ``L`` is taken (default ``radius``; the smoothed algorithm needs
        ``radius + r``, Thm D.3).
    """

    loss: Loss
    radius: float
    feature_bound: float
    label_bound: float
    lipschitz_radius: float | None = None

    def __post_init__(self) -> None:
        owner = "PublicDomain"
        if not isinstance(self.loss, Loss):
            raise argument_error(owner, "loss", "a dpaudit.userlevel.losses.Loss", self.loss)
        for name in ("radius", "feature_bound", "label_bound"):
            value = check_positive(owner, name, getattr(self, name))
            if value > HEADROOM:
                raise argument_error(owner, name, "at most 2^960 (products with it must stay finite)", value)
        if self.lipschitz_radius is not None:
            check_positive(owner, "lipschitz_radius", self.lipschitz_radius)
        reach = self.radius * self.feature_bound + self.label_bound
        if not reach <= HEADROOM:
            raise argument_error(owner, "feature_bound", "such that radius * feature_bound + label_bound <= 2^960 "
                                 "(the largest margin minus label)", self.feature_bound)
        lip = self.lipschitz
        if not (math.isfinite(lip) and 0 < lip <= HEADROOM):
            raise argument_error(owner, "loss", f"with a Lipschitz constant <= 2^960 on this domain (got L = {lip})",
                                 self.loss)

    @property
    def lipschitz(self) -> float:
        """``L`` over ``B_2(0, lipschitz_radius)`` [LLA24, Assumption 1.1]."""
        r = self.radius if self.lipschitz_radius is None else self.lipschitz_radius
        return float(self.loss.lipschitz(r, self.feature_bound, self.label_bound))

    @property
    def smoothness(self) -> float:
        """``beta`` (inf for a non-smooth loss) [LLA24, Assumption 1.2]."""
        return float(self.loss.smoothness(self.feature_bound))

    @property
    def diameter(self) -> float:
        """``R = 2 radius`` [LLA24, Assumption 1.1: ``||x - x'|| <= R``]."""
        return 2.0 * self.radius

    def validated(self, owner: str, data: Any) -> NDArray[np.float64]:
        """Return ``data`` ``(n_users, m_items, d + 1)`` as float64, or refuse it if any item leaves the domain.

        Norms are computed overflow-safely and compared with a relative tolerance of 8 ulps (a
        point on the sphere may round outside). The error names the first offending user and item.
        """
        z = as_user_dataset(data, owner, "data", item_ndim=1)
        if z.shape[2] < 2:
            raise argument_error(owner, "data", "shaped (n_users, m_items, d + 1) with d >= 1 (items are (x, y))", data)
        norms = safe_norm(z[..., :-1])
        bad_x = norms > self.feature_bound * (1.0 + _NORM_RTOL)
        if bad_x.any():
            u, j = (int(v) for v in np.argwhere(bad_x)[0])
            raise argument_error(owner, "data", f"inside the declared domain ||x||_2 <= feature_bound = {self.feature_bound:g} "
                                 f"(user {u}, item {j} has ||x||_2 = {norms[u, j]:.6g})", data)
        bad_y = np.abs(z[..., -1]) > self.label_bound
        if bad_y.any():
            u, j = (int(v) for v in np.argwhere(bad_y)[0])
            raise argument_error(owner, "data", f"inside the declared domain |y| <= label_bound = {self.label_bound:g} "
                                 f"(user {u}, item {j} has |y| = {abs(z[u, j, -1]):.6g})", data)
        return z

    def slope(self, margin: NDArray[np.float64], label: NDArray[np.float64]) -> NDArray[np.float64]:
        """``d loss/d margin`` per item (a subgradient where non-smooth); the gradient is ``slope * x``."""
        return self.loss._slope(margin, label)

    def user_mean_gradients(self, theta: NDArray[np.float64], items: NDArray[np.float64]) -> NDArray[np.float64]:
        """``q(Z)/L``: each user's mean item gradient in units of ``L``, clamped to the unit ball [LLA24, Alg 2 line 5].

        ``theta`` ``(..., d)`` (original units), ``items`` ``(..., K, m, d + 1)`` broadcasting against it.
        Each item's gradient is at most ``L`` for data in the domain, so dividing by ``L`` before
        averaging keeps the sum of ``m`` terms O(m); the clamp keeps one user's contribution in the
        unit ball whatever the loss does (each user's share of the score and of the mean is bounded).
        """
        x, y = items[..., :-1], items[..., -1]
        margin = np.einsum("...kmd,...d->...km", x, theta)
        scaled_slope = self.slope(margin, y) / self.lipschitz
        q = (scaled_slope[..., None, :] @ x)[..., 0, :] / x.shape[-2]
        norm = safe_norm(q)
        # 1 / norm only where the norm exceeds 1 (for a subnormal norm it overflows, and is not needed)
        shrink = np.divide(1.0, norm, out=np.ones_like(norm), where=norm > 1.0)
        return q * shrink[..., None]


@dataclass(frozen=True)
class PhasedMechanismFields(MechanismBase):
    """The leading fields of the paper's phased algorithms (Algs 1 and 3, and Alg 2 run alone), in order.

    Validated by :func:`check_common_fields` in each algorithm's ``__post_init__``.
    """

    audit_block_size: ClassVar[int] = 1024  # every trial runs a whole SGD loop

    loss: Loss
    epsilon: float
    delta: float
    radius: float = 1.0
    feature_bound: float = 1.0
    label_bound: float = 1.0
    preset: str = "audit"
    q: float = 0.25
    phases: int | None = None


def check_common_fields(owner: str, mech: Any, presets: tuple[str, ...]) -> None:
    """Validate what every algorithm of the paper shares: budget, preset, q, the domain, and ``initial_point``.

    ``epsilon`` in ``(0, 10]`` (Thms 2.1, 3.1), ``delta`` in ``(0, 1)``, ``q`` in ``(0, 8]``; ``initial_point``
    (public, default 0) must lie in the ball and is stored as a tuple of floats.
    """
    from dpaudit._validation import check_in_range, check_one_of, check_probability

    check_in_range(owner, "epsilon", mech.epsilon, 0.0, 10.0, low_closed=False)
    check_probability(owner, "delta", mech.delta, allow_zero=False)
    check_one_of(owner, "preset", mech.preset, presets)
    check_in_range(owner, "q", mech.q, 0.0, 8.0, low_closed=False)
    PublicDomain(mech.loss, mech.radius, mech.feature_bound, mech.label_bound)
    if mech.initial_point is not None:
        x0 = np.asarray(mech.initial_point, dtype=float)
        if x0.ndim != 1 or x0.size < 1 or not np.all(np.isfinite(x0)) or safe_norm(x0 / mech.radius) > 1.0:
            raise argument_error(owner, "initial_point", f"a point of the ball of radius {mech.radius:g}", mech.initial_point)
        object.__setattr__(mech, "initial_point", tuple(float(v) for v in x0))
