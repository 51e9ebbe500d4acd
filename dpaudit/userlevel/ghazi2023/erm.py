"""The regularised ERM problems of Ghazi et al. (2023): loss, declared domain, and unit-free coordinates.

A problem is a shared per-item loss (:class:`~dpaudit.userlevel.losses.SquaredLoss` or
:class:`~dpaudit.userlevel.losses.LogisticLoss`) of a linear predictor, an l2 regulariser
``(l2/2) ||theta||^2``, the constraint set ``K = {||theta|| <= radius}`` and the *declared public
domain* of an item ``z = (x, y)``: ``||x|| <= feature_bound`` and ``|y| <= label_bound``.

Private for every input
-----------------------
Data outside the declared domain are refused before any arithmetic (nothing is clipped). Data
inside it are mapped to unit scale, ``x~ = x / feature_bound`` and ``y~ = y / label_bound``, and
clamped into the unit ball and ``[-1, 1]`` (this only removes rounding of the division). Every
later computation runs on these O(1) numbers in the coordinates ``phi = theta / s`` in which the
problem reads ``(1/N) sum l~(phi; z~) + (lam~/2) ||phi||^2`` with unit-scale data:

* squared loss: ``s = label_bound / feature_bound``, ``lam~ = l2 / feature_bound^2`` (the objective is
  ``label_bound^2`` times the unit one);
* logistic loss: ``s = 1 / (feature_bound label_bound)``, ``lam~ = l2 s^2``.

Minimisers, thresholds and noise are scale-equivariant (``Delta ∝ G/mu`` and ``sigma ∝ Delta``), so
they are computed in ``phi`` and multiplied by ``s`` once, at the end, so values near the float
limits (1e308) never overflow in between. The derived public numbers (``lam~``, the radius in
``phi``) are checked finite when the problem is built: a domain whose *public* numbers overflow is
refused there, independently of any data.

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, Sec. 1.3 and Alg 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_nonnegative, check_positive
from dpaudit.data import as_user_dataset
from dpaudit.userlevel.losses import LogisticLoss, Loss, SquaredLoss

__all__ = ["ERMProblem", "GroupedData", "UnitData", "identical_rows"]

# rounding allowance of the unit-scale domain check: x / B with |x| <= B can round above 1 by an ulp
_DOMAIN_SLACK = 1e-12


@dataclass(frozen=True)
class UnitData:
    """A user-level dataset at unit scale: features ``(n, m, d)`` in the unit ball, labels ``(n, m)`` in [-1, 1]."""

    features: NDArray[np.float64]
    labels: NDArray[np.float64]

    @property
    def shape(self) -> tuple[int, int, int]:
        """``(n, m, d)``: users, items per user, feature dimension."""
        n, m, d = self.features.shape
        return n, m, d

    def users(self, index: Any) -> UnitData:
        """The users selected by ``index`` (any numpy index on the user axis)."""
        return UnitData(self.features[index], self.labels[index])


@dataclass(frozen=True, eq=False)
class GroupedData:
    """Users grouped into *types* (identical multisets of items), with per-type statistics.

    ``counts[t]`` users share type ``t``. A type's items are stored once per distinct item, with
    ``item_weights[t]`` the fraction of the type's ``m`` items equal to it (rows padded with weight 0),
    so a user whose ``m`` items repeat a few values costs a few evaluations. For the squared loss the
    per-type means ``A[t] = mean x~ x~^T`` and ``b[t] = mean y~ x~`` are all a minimiser needs.
    """

    counts: NDArray[np.int64]
    user_type: NDArray[np.int64]
    features: NDArray[np.float64]  # (types, k, d), distinct items
    labels: NDArray[np.float64]  # (types, k)
    item_weights: NDArray[np.float64]  # (types, k), each row sums to 1
    second_moment: NDArray[np.float64] | None = None  # (types, d, d), squared loss
    cross_moment: NDArray[np.float64] | None = None  # (types, d), squared loss

    @property
    def n_types(self) -> int:
        """The number of distinct user types."""
        return int(self.counts.size)

    @property
    def dim(self) -> int:
        """The feature dimension ``d``."""
        return int(self.features.shape[2])


def identical_rows(rows: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Group identical rows of ``rows`` ``(n, k)``: representatives, counts, and each row's group.

    Representatives are first occurrences, in order of appearance. ``-0.0`` and ``0.0`` are the same
    value.
    """
    flat = np.ascontiguousarray(np.where(rows == 0.0, 0.0, rows))
    keys = flat.view(np.dtype((np.void, flat.dtype.itemsize * flat.shape[1]))).ravel()  # one byte string per row
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rank = np.argsort(np.argsort(first, kind="stable"), kind="stable")  # groups numbered by first appearance
    group = rank[inverse.reshape(-1)]
    reps = first[np.argsort(rank, kind="stable")]
    return reps.astype(np.int64), np.bincount(group, minlength=reps.size).astype(np.int64), group.astype(np.int64)


def _compress(items: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Distinct items of each user (rows of ``items`` ``(g, m, d + 1)``, sorted within a user) with their weights."""
    g, m, width = items.shape
    new = np.ones((g, m), dtype=bool)
    new[:, 1:] = np.any(items[:, 1:] != items[:, :-1], axis=2)
    distinct = new.sum(axis=1)
    k = int(distinct.max())
    feats = np.zeros((g, k, width - 1))
    labels = np.zeros((g, k))
    weights = np.zeros((g, k))
    slot = np.cumsum(new, axis=1) - 1  # index of each item's distinct value within its user
    rows = np.repeat(np.arange(g), m)
    np.add.at(weights, (rows, slot.ravel()), 1.0 / m)
    first = new.ravel()
    feats[rows[first], slot.ravel()[first]] = items.reshape(-1, width)[first, :-1]
    labels[rows[first], slot.ravel()[first]] = items.reshape(-1, width)[first, -1]
    return feats, labels, weights


@dataclass(frozen=True)
class ERMProblem:
    """``min_{||theta|| <= radius} (1/(n m)) sum l(theta; z) + (l2/2) ||theta||^2`` on a declared domain.

    Parameters
    ----------
    loss : SquaredLoss or LogisticLoss
        The per-item loss of a linear predictor (shared with the other papers).
    radius : float
        Radius of the constraint set ``K`` (a ball centred at 0), in (0, inf).
    feature_bound, label_bound : float
        The declared domain: ``||x||_2 <= feature_bound``, ``|y| <= label_bound``; data outside are refused.
    l2 : float
        Regulariser coefficient, in [0, inf); it is the strong-convexity constant ``mu`` claimed for
        every dataset (the data term may add more, but not for every dataset).
    """

    loss: Loss
    radius: float = 1.0
    feature_bound: float = 1.0
    label_bound: float = 1.0
    l2: float = 0.0
    scale: float = field(init=False, repr=False)
    unit_l2: float = field(init=False, repr=False)
    unit_radius: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        owner = "ERMProblem"
        if not isinstance(self.loss, (SquaredLoss, LogisticLoss)):
            raise argument_error(owner, "loss", "SquaredLoss() or LogisticLoss()", self.loss)
        check_positive(owner, "radius", self.radius)
        bx = check_positive(owner, "feature_bound", self.feature_bound)
        by = check_positive(owner, "label_bound", self.label_bound)
        lam = check_nonnegative(owner, "l2", self.l2)
        if self.is_squared:
            scale = by / bx
            unit_l2 = lam / bx / bx
        else:
            scale = 1.0 / bx / by
            unit_l2 = lam * scale * scale
        unit_radius = self.radius / scale if math.isfinite(scale) and scale > 0 else math.nan
        ok = all(math.isfinite(v) and v > 0 for v in (scale, unit_radius)) and math.isfinite(unit_l2)
        if not ok or (lam > 0 and unit_l2 == 0.0):
            raise argument_error(owner, "feature_bound", "a declared domain whose unit-scale numbers are finite and "
                                 f"non-zero (scale {scale!r}, radius {unit_radius!r}, l2 {unit_l2!r})", bx)
        object.__setattr__(self, "scale", float(scale))
        object.__setattr__(self, "unit_l2", float(unit_l2))
        object.__setattr__(self, "unit_radius", float(unit_radius))
        if not math.isfinite(self.lipschitz()):
            raise argument_error(owner, "radius", f"small enough that the Lipschitz constant on K is finite in unit "
                                 f"coordinates (radius {unit_radius!r}, l2 {unit_l2!r})", self.radius)

    @property
    def is_squared(self) -> bool:
        """True for the squared loss (whose minimiser the per-type means determine in closed form)."""
        return isinstance(self.loss, SquaredLoss)

    # -- unit-scale constants ---------------------------------------------------------------------

    def unit_lipschitz(self, ball_radius: float) -> float:
        """Bound on ``||grad l~(phi; z~)||`` for ``||phi|| <= ball_radius`` and unit-scale data (data term only)."""
        return ball_radius + 1.0 if self.is_squared else 1.0  # (R + 1) ||x||, and ||x|| |y| for logistic

    @property
    def unit_smoothness(self) -> float:
        """Bound on the Hessian of the per-item data loss at unit scale: ``||x~||^2`` or ``||x~||^2/4``."""
        return 1.0 if self.is_squared else 0.25

    def lipschitz(self) -> float:
        """G of the regularised per-item loss on K, in phi units: data term plus ``lam~ * radius``."""
        return self.unit_lipschitz(self.unit_radius) + self.unit_l2 * self.unit_radius

    def to_unit_l2(self, coefficient: float) -> float:
        """A regulariser coefficient in theta units (``(c/2)||theta - a||^2``) expressed in phi units."""
        if self.is_squared:
            return coefficient / self.feature_bound / self.feature_bound
        return coefficient * self.scale * self.scale

    # -- data -------------------------------------------------------------------------------------

    def unit_data(self, data: Any, owner: str) -> UnitData:
        """Validate ``data`` (``(n_users, m_items, d + 1)``, finite) against the declared domain and map it to unit scale.

        Raises :class:`~dpaudit.errors.InvalidArgument` when an item lies outside the domain; nothing is clipped.
        """
        z = as_user_dataset(data, owner, "data", item_ndim=1)
        if z.shape[2] < 2:
            raise argument_error(owner, "data", "items of length d + 1 >= 2 (features and a label)", data)
        with np.errstate(over="ignore"):  # x / B overflows only for x far outside the domain: refused below
            feats = z[..., :-1] / self.feature_bound
            labels = z[..., -1] / self.label_bound
            norms = np.sqrt(np.einsum("...d,...d->...", feats, feats)) if feats.shape[-1] > 1 else np.abs(feats[..., 0])
        bad_x = ~(norms <= 1.0 + _DOMAIN_SLACK)
        bad_y = ~(np.abs(labels) <= 1.0 + _DOMAIN_SLACK)
        if bad_x.any() or bad_y.any():
            i, j = np.argwhere(bad_x | bad_y)[0]
            raise argument_error(owner, "data", f"items with ||x||_2 <= feature_bound = {self.feature_bound:g} and "
                                 f"|y| <= label_bound = {self.label_bound:g} (the declared domain; user {i}, item {j} "
                                 "is outside it; nothing is clipped)", data)
        # remove the rounding of the division (at most _DOMAIN_SLACK): the clamp keeps every later bound exact
        over = norms > 1.0
        if over.any():
            feats = np.where(over[..., None], feats / np.where(over, norms, 1.0)[..., None], feats)
        return UnitData(np.ascontiguousarray(feats), np.clip(labels, -1.0, 1.0))

    def group(self, data: UnitData) -> GroupedData:
        """Group users with identical multisets of items (the loss is symmetric in users and in items)."""
        n = data.shape[0]
        canon = self._canonical_items(data)
        reps, counts, user_type = identical_rows(canon.reshape(n, -1))
        return self._grouped(canon[reps], counts, user_type)

    def per_user_groups(self, data: UnitData) -> GroupedData:
        """Every user its own group (no grouping): the reference the type grouping is tested against."""
        n = data.shape[0]
        return self._grouped(self._canonical_items(data), np.ones(n, dtype=np.int64), np.arange(n))

    @staticmethod
    def _canonical_items(data: UnitData) -> NDArray[np.float64]:
        """Each user's items sorted lexicographically, ``-0.0`` read as ``0.0``: ``(n, m, d + 1)``."""
        m = data.shape[1]
        items = np.concatenate([data.features, data.labels[..., None]], axis=2)
        items = np.where(items == 0.0, 0.0, items)
        if m == 1:
            return items
        order = np.lexsort(items.transpose(2, 0, 1)[::-1], axis=-1)
        return np.take_along_axis(items, order[..., None], axis=1)

    def _grouped(self, items: NDArray[np.float64], counts: NDArray[np.int64], user_type: NDArray[np.int64]) -> GroupedData:
        feats, labels, weights = _compress(items)
        second = cross = None
        if self.is_squared:
            second = np.einsum("tk,tki,tkj->tij", weights, feats, feats)
            cross = np.einsum("tk,tki,tk->ti", weights, feats, labels)
        return GroupedData(counts, user_type, feats, labels, weights, second, cross)
