"""Coordinate-wise robust statistics for Ghazi, Kumar, Liu and Manurangsi (2025), Assumption 3.3.

Algorithm 2 of [GKLM25] clips the mean of ``B`` per-user gradients, coordinate by coordinate, to an
l_inf ball around a *robust statistic* of the same gradients. The privacy proof needs the statistic
to satisfy [GKLM25, Assumption 3.3]:

(i) break point: if more than ``B/2`` points lie in ``B_inf(X', rho)`` then ``X_rs`` does too;
(ii) 1-Lipschitz: moving every point by at most ``Delta`` in l_inf moves ``X_rs`` by at most ``Delta``;
(iii) affine equivariance: ``rs(a X + b) = a rs(X) + b`` for real ``a`` (of either sign) and a
      (coordinate-wise) shift ``b``.

Remark 3.4 of the paper says the coordinate-wise median *and the trimmed mean* satisfy it. That is
true for the median and false for a generic trimmed mean with respect to (i): with ``B = 10``,
values ``{0 x 6, 100 x 4}``, ``rho = 0`` and ``X' = 0``, the 10%-trimmed mean is ``37.5``. The proofs
(Lemma 3.6) only use (i) for balls that hold at least ``2B/3`` points (rho-alignment); a symmetric
trimmed mean that removes ``k >= floor(B/3)`` values from each side satisfies that weaker property,
which we call (i'), plus (ii) and (iii). See :meth:`TrimmedMean.satisfies_alignment_break_point`.

Everything here is vectorised: the statistic is taken along one axis (the ``B`` users) of an array
with any number of leading (trial) axes, separately for every coordinate.

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025. Assumption 3.3, Remark 3.4, Lemma 3.6.
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_finite_array, check_int, check_nonnegative

__all__ = [
    "CoordinateMedian",
    "RobustStatistic",
    "TrimmedMean",
    "alignment_count",
    "alignment_threshold",
]


def alignment_threshold(batch_size: int) -> int:
    """Smallest integer count ``k`` with ``k >= 2B/3``: the size of a "good" set [GKLM25, Sec. 3].

    A neighbouring pair is rho-aligned when, on each side, some l_inf ball of radius ``rho`` holds
    ``|X_good| >= 2B/3`` of the ``B`` gradients [GKLM25, definition before Lemma 3.6].
    """
    b = check_int("alignment_threshold", "batch_size", batch_size, minimum=1)
    return -((-2 * b) // 3)  # ceil(2B/3) in exact integer arithmetic


class RobustStatistic(abc.ABC):
    """A coordinate-wise statistic of ``B`` vectors, taken along ``axis`` for every coordinate."""

    name: str = "robust statistic"

    @abc.abstractmethod
    def __call__(self, values: Any, axis: int = -2) -> NDArray[np.float64]:
        """The statistic of ``values`` along ``axis`` (the user axis), for every other index."""

    @abc.abstractmethod
    def satisfies_alignment_break_point(self, batch_size: int) -> bool:
        """Whether (i') holds for ``batch_size`` points: >= ``ceil(2B/3)`` in a ball keeps ``X_rs`` in it."""

    @abc.abstractmethod
    def satisfies_majority_break_point(self, batch_size: int) -> bool:
        """Whether [GKLM25, Assumption 3.3(i)] as printed (> B/2 points in a ball) holds."""


def _values(owner: str, values: Any, axis: int) -> tuple[NDArray[np.float64], int]:
    x = check_finite_array(owner, "values", values, min_ndim=1)
    if not -x.ndim <= axis < x.ndim:
        raise argument_error(owner, "axis", f"a valid axis for an array of shape {x.shape}", axis)
    if x.shape[axis] < 1:
        raise argument_error(owner, "values", "non-empty along the user axis", values)
    return x, axis % x.ndim


@dataclass(frozen=True)
class CoordinateMedian(RobustStatistic):
    """Coordinate-wise median (``np.median``; for even ``B`` the mean of the two middle values).

    Satisfies all of [GKLM25, Assumption 3.3] for every ``B``:

    * (i): if more than ``B/2`` values of a coordinate lie in ``[c - rho, c + rho]``, both middle
      order statistics do, hence so does their average;
    * (ii): every order statistic is 1-Lipschitz under per-point perturbations of size ``Delta``;
    * (iii): order statistics commute with increasing affine maps and swap symmetrically under
      ``a < 0``, which leaves the median (the middle, or the average of the two middles) equivariant.
    """

    name = "coordinate-wise median"

    def __call__(self, values: Any, axis: int = -2) -> NDArray[np.float64]:
        """The coordinate-wise median along ``axis`` (the user axis)."""
        x, ax = _values("CoordinateMedian", values, axis)
        return np.asarray(np.median(x, axis=ax), dtype=np.float64)

    def satisfies_alignment_break_point(self, batch_size: int) -> bool:
        """True for every ``B``: the median keeps (i') (see the class docstring)."""
        check_int("CoordinateMedian", "batch_size", batch_size, minimum=1)
        return True

    def satisfies_majority_break_point(self, batch_size: int) -> bool:
        """True for every ``B``: more than ``B/2`` points in a ball keep the median in it."""
        check_int("CoordinateMedian", "batch_size", batch_size, minimum=1)
        return True


@dataclass(frozen=True)
class TrimmedMean(RobustStatistic):
    """Symmetric coordinate-wise trimmed mean: drop ``k`` smallest and ``k`` largest values, average the rest.

    Parameters
    ----------
    trim : int, optional
        Values dropped from *each* side. ``None`` (default) uses ``k = floor(B/3)``, the smallest
        trimming for which the statistic satisfies the break-point property the proofs use (i');
        see Notes.
    proportion : float, optional
        Alternative to ``trim``: drop ``floor(proportion * B)`` values from each side (the usual
        "``100 * proportion`` % trimmed mean"). At most one of ``trim`` and ``proportion`` may be set.

    Notes
    -----
    (ii) and (iii) hold for every symmetric trimming (the retained order statistics are each
    1-Lipschitz and affine-equivariant, and a negative scale swaps the two tails symmetrically).

    (i') holds iff ``k >= floor(B/3)``: at most ``B - ceil(2B/3) = floor(B/3)`` points lie outside a
    ball that holds ``ceil(2B/3)`` points, so after removing ``k >= floor(B/3)`` from each side
    every retained value is inside the ball and so is their average. With smaller ``k`` the outside
    points on one side can survive and pull the average out (Remark 3.4 of [GKLM25] is false as
    stated). The printed (i), for ``> B/2`` points, needs ``k >= floor((B - 1)/2)``, which leaves
    one or two middle values: only the median.
    """

    trim: int | None = None
    proportion: float | None = None
    name = "trimmed mean"

    def __post_init__(self) -> None:
        owner = "TrimmedMean"
        if self.trim is not None and self.proportion is not None:
            raise argument_error(owner, "proportion", "None when `trim` is given", self.proportion)
        if self.trim is not None:
            check_int(owner, "trim", self.trim, minimum=0)
        if self.proportion is not None:
            p = check_nonnegative(owner, "proportion", self.proportion)
            if not p < 0.5:
                raise argument_error(owner, "proportion", "in [0, 0.5)", self.proportion)

    def trim_count(self, batch_size: int) -> int:
        """Values dropped from each side for ``batch_size`` points."""
        b = check_int("TrimmedMean", "batch_size", batch_size, minimum=1)
        if self.trim is not None:
            k = self.trim
        elif self.proportion is not None:
            k = math.floor(self.proportion * b)
        else:
            k = b // 3
        if 2 * k >= b:
            raise argument_error("TrimmedMean", "trim", f"less than B/2 = {b / 2:g} so that a value is left", k)
        return k

    def __call__(self, values: Any, axis: int = -2) -> NDArray[np.float64]:
        """The trimmed mean along ``axis``: sort, drop :meth:`trim_count` from each side, average."""
        x, ax = _values("TrimmedMean", values, axis)
        b = x.shape[ax]
        k = self.trim_count(b)
        xs = np.sort(x, axis=ax)
        kept = np.take(xs, np.arange(k, b - k), axis=ax)
        return np.asarray(kept.mean(axis=ax), dtype=np.float64)

    def satisfies_alignment_break_point(self, batch_size: int) -> bool:
        """True when at least ``floor(B/3)`` values are trimmed from each side."""
        return self.trim_count(batch_size) >= batch_size // 3

    def satisfies_majority_break_point(self, batch_size: int) -> bool:
        """True when at least ``floor((B-1)/2)`` values are trimmed from each side."""
        return self.trim_count(batch_size) >= (batch_size - 1) // 2


def alignment_count(points: Any, radius: float) -> NDArray[np.int64]:
    """Largest number of the ``B`` points inside one closed l_inf ball of ``radius`` (any centre).

    This is the quantity in the definition of rho-alignment [GKLM25, before Lemma 3.6]: the batch is
    "good" when it is at least ``alignment_threshold(B)``. Exact: an optimal box ``prod_j [l_j,
    l_j + 2 radius]`` can be slid down until each lower edge ``l_j`` touches a point's ``j``-th
    coordinate, so it suffices to try the ``B**d`` corners built from the points' coordinates.

    Parameters
    ----------
    points : array_like, shape (..., B, d)
        Batches of ``B`` points in ``d`` dimensions; leading axes are independent batches.
    radius : float
        Ball radius, ``>= 0``.

    Returns
    -------
    ndarray of int, shape (...)

    Notes
    -----
    Cost ``O(B**(d+1) d)`` per batch: meant for tests and small audits, not for the algorithm.
    """
    owner = "alignment_count"
    x = check_finite_array(owner, "points", points, min_ndim=2)
    r = check_nonnegative(owner, "radius", radius)
    b, d = x.shape[-2], x.shape[-1]
    if b ** d > 200_000:
        raise argument_error(owner, "points", f"small enough to enumerate (B**d = {b ** d} > 200000)", points)
    lead = x.shape[:-2]
    flat = x.reshape(-1, b, d)
    grids = np.meshgrid(*([np.arange(b)] * d), indexing="ij")
    corner_idx = np.stack([g.ravel() for g in grids], axis=-1)  # (b**d, d): which point gives coordinate j
    best = np.zeros(flat.shape[0], dtype=np.int64)
    for start in range(0, corner_idx.shape[0], 4096):
        idx = corner_idx[start : start + 4096]
        lower = flat[:, idx, np.arange(d)]  # (batches, c, d)
        inside = (flat[:, None, :, :] >= lower[:, :, None, :]) & (flat[:, None, :, :] <= lower[:, :, None, :] + 2 * r)
        counts = inside.all(axis=-1).sum(axis=-1)  # (batches, c)
        best = np.maximum(best, counts.max(axis=1))
    return best.reshape(lead)
