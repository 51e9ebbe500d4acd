"""Neighbouring relations: what exactly changes between two neighbouring datasets.

Shapes (the data model of ``docs/conventions.md``):

* item-level datasets are arrays of shape ``(n, ...)``: one row per item (record);
* user-level datasets are arrays of shape ``(n_users, m_items, ...)``: one slice per user,
  each user holding the same number ``m`` of items;
* query-answer vectors (what the primitive mechanisms add noise to) are arrays of any shape.

Each relation is a frozen dataclass with ``is_neighbor(a, b)``, a ``check_neighbors`` that raises
:class:`~dpaudit.errors.NotNeighborsError` with the reason, a seeded ``random_neighbor`` and a
``worst_case_neighbors`` candidate list (see :mod:`dpaudit.neighbors.generators`).

Identical datasets are neighbours under every relation here ("differ in at most one ..."), which is
the convention under which DP guarantees are stated; the auditor warns on such pairs because they
cannot reveal anything.
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import check_array, check_one_of, check_positive
from dpaudit.errors import NotNeighborsError

__all__ = [
    "ItemAddRemove",
    "ItemReplace",
    "NeighborRelation",
    "QueryDistance",
    "UserAddRemove",
    "UserReplace",
]


def _exact(x: float) -> str:
    """``x`` with every digit its float holds (``repr``), without a trailing ``.0``.

    A distance just above the sensitivity must not print as the sensitivity itself (``:g`` shows
    ``1.0000001`` as ``1``).
    """
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def _same(a: NDArray[Any], b: NDArray[Any]) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a, b))


class NeighborRelation(abc.ABC):
    """A symmetric relation on datasets; ``is_neighbor(a, b)`` decides it exactly."""

    name: str = "relation"
    min_ndim: int = 1

    def _as_data(self, value: Any, name: str) -> NDArray[Any]:
        return check_array(type(self).__name__, name, value, min_ndim=self.min_ndim, dtype=None)

    @abc.abstractmethod
    def _reason_not_neighbors(self, a: NDArray[Any], b: NDArray[Any]) -> str | None:
        """None when a and b are neighbours, else a short reason."""

    def is_neighbor(self, a: Any, b: Any) -> bool:
        """True when ``a`` and ``b`` are neighbours under this relation."""
        return self._reason_not_neighbors(self._as_data(a, "a"), self._as_data(b, "b")) is None

    def check_neighbors(self, a: Any, b: Any, owner: str = "dpaudit") -> None:
        """Raise :class:`NotNeighborsError` naming the reason if ``a`` and ``b`` are not neighbours."""
        reason = self._reason_not_neighbors(self._as_data(a, "a"), self._as_data(b, "b"))
        if reason is not None:
            raise NotNeighborsError(f"`{owner}`: the datasets are not neighbours under {self}: {reason}.")

    def __str__(self) -> str:
        return self.name


def _differing_rows(a: NDArray[Any], b: NDArray[Any]) -> NDArray[np.intp]:
    """Indices along axis 0 where two same-shape arrays differ."""
    diff = a != b
    if diff.ndim > 1:
        diff = diff.reshape(diff.shape[0], int(np.prod(diff.shape[1:]))).any(axis=1)
    return np.flatnonzero(diff)


def _add_remove_reason(a: NDArray[Any], b: NDArray[Any], unit: str) -> str | None:
    if a.shape[1:] != b.shape[1:]:
        return f"each {unit} must have the same shape, got {a.shape[1:]} and {b.shape[1:]}"
    if a.shape[0] == b.shape[0]:
        return None if _same(a, b) else f"same number of {unit}s ({a.shape[0]}) but different contents"
    big, small = (a, b) if a.shape[0] > b.shape[0] else (b, a)
    if big.shape[0] != small.shape[0] + 1:
        return f"the numbers of {unit}s differ by {big.shape[0] - small.shape[0]}, not by 1"
    rows = _differing_rows(big[:-1], small)
    i = int(rows[0]) if rows.size else small.shape[0]
    if np.array_equal(big[i + 1 :], small[i:]):
        return None
    return f"removing one {unit} from the larger dataset does not give the smaller one"


@dataclass(frozen=True)
class ItemAddRemove(NeighborRelation):
    """Item-level add/remove: ``b`` is ``a`` with one row (item) inserted or deleted, order kept.

    Datasets have shape ``(n, ...)``; the other rows are identical and in the same order.
    """

    name = "item add/remove"

    def _reason_not_neighbors(self, a: NDArray[Any], b: NDArray[Any]) -> str | None:
        return _add_remove_reason(a, b, "item")


@dataclass(frozen=True)
class ItemReplace(NeighborRelation):
    """Item-level replace (bounded DP): same shape ``(n, ...)``, at most one row differs."""

    name = "item replace"

    def _reason_not_neighbors(self, a: NDArray[Any], b: NDArray[Any]) -> str | None:
        if a.shape != b.shape:
            return f"replace needs equal shapes, got {a.shape} and {b.shape}"
        k = _differing_rows(a, b).size
        return None if k <= 1 else f"{k} items differ, at most 1 may"


@dataclass(frozen=True)
class UserReplace(NeighborRelation):
    """User-level replace: shape ``(n_users, m_items, ...)``, at most one user's slice differs.

    All ``m`` items of the one user may change; the other users are identical. This is the
    relation under which the four user-level DP-SCO papers state their guarantees.
    """

    name = "user replace"
    min_ndim = 2

    def _reason_not_neighbors(self, a: NDArray[Any], b: NDArray[Any]) -> str | None:
        if a.shape != b.shape:
            return f"replace needs equal shapes (n_users, m_items, ...), got {a.shape} and {b.shape}"
        k = _differing_rows(a, b).size
        return None if k <= 1 else f"{k} users differ, at most 1 may"


@dataclass(frozen=True)
class UserAddRemove(NeighborRelation):
    """User-level add/remove: one user's whole ``(m_items, ...)`` slice is inserted or deleted."""

    name = "user add/remove"
    min_ndim = 2

    def _reason_not_neighbors(self, a: NDArray[Any], b: NDArray[Any]) -> str | None:
        return _add_remove_reason(a, b, "user")


_FLOAT_SQUARE_LIMIT = Fraction(2) ** 1000  # a squared norm below it converts to float without overflow


@dataclass(frozen=True)
class QueryDistance(NeighborRelation):
    """Query answers within ``sensitivity`` of each other in the ``norm`` ("l1", "l2" or "linf").

    This is the relation the primitive mechanisms are stated for: they receive ``f(D)`` and the
    guarantee holds whenever ``||f(D) - f(D')||_norm <= sensitivity``. Shapes must match.
    """

    sensitivity: float = 1.0
    norm: str = "l1"
    name = "query distance"
    min_ndim = 0

    def __post_init__(self) -> None:
        check_positive("QueryDistance", "sensitivity", self.sensitivity)
        check_one_of("QueryDistance", "norm", self.norm, ("l1", "l2", "linf"))

    def distance(self, a: Any, b: Any) -> float:
        """``||a - b||`` in this relation's norm (computed exactly for integer data, then rounded)."""
        exact = self._exact_norm(a, b)
        if exact is not None and (self.norm != "l2" or exact < _FLOAT_SQUARE_LIMIT):
            return float(exact) if self.norm != "l2" else math.sqrt(exact)
        return self._float_distance(a, b)  # (an l2 norm whose square passes the float range: the scaled float path)

    def _float_distance(self, a: Any, b: Any) -> float:
        x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        with np.errstate(invalid="ignore"):  # equal infinities are no change (inf - inf would be NaN)
            diff = np.abs(np.where(x == y, 0.0, x - y)).ravel()
        if diff.size == 0:
            return 0.0
        if self.norm == "l1":
            return float(diff.sum())
        if self.norm == "l2":  # scaled by the largest entry: squaring 1e285 would overflow to inf
            top = float(diff.max())
            return top if top in (0.0, np.inf) else top * float(np.sqrt(np.sum((diff / top) ** 2)))
        return float(diff.max())

    def _exact_norm(self, a: Any, b: Any) -> Fraction | None:
        """The exact l1 or linf norm (the exact *squared* l2 norm) of ``a - b``, or None.

        Float64 holds integers exactly only up to ``2**53``: ``2**62`` and ``2**62 + 500`` are the
        same float, so a float difference would call them neighbours at distance 0. When either
        side has an integer (or bool) dtype, the difference is taken in Python integers (the other
        side's finite floats as exact fractions). Float-only data, and float data holding
        infinities or NaN (whose distance is infinite or undefined either way), keep the float
        path.
        """
        x, y = np.asarray(a), np.asarray(b)
        kinds = (x.dtype.kind, y.dtype.kind)
        if not any(k in "iub" for k in kinds) or not all(k in "iubf" for k in kinds):
            return None
        if x.shape != y.shape:
            return None
        exact = []
        for arr in (x, y):
            if arr.dtype.kind == "f":
                if not np.all(np.isfinite(arr)):
                    return None
                exact.append(np.array([Fraction(v) for v in arr.ravel().tolist()], dtype=object))
            else:  # Python ints (object dtype): exact for every int64/uint64 value, no wrap-around
                exact.append(arr.ravel().astype(object))
        diffs = np.abs(exact[0] - exact[1])
        if diffs.size == 0:
            return Fraction(0)
        if self.norm == "l1":
            return Fraction(diffs.sum())
        if self.norm == "l2":
            return Fraction((diffs * diffs).sum())
        return Fraction(diffs.max())

    def _reason_not_neighbors(self, a: NDArray[Any], b: NDArray[Any]) -> str | None:
        if a.shape != b.shape:
            return f"query answers must have equal shapes, got {a.shape} and {b.shape}"
        # one part in 1e12 of slack: sensitivities are often computed in floating point
        limit = self.sensitivity * (1 + 1e-12)
        exact = self._exact_norm(a, b)
        if exact is not None:
            within = exact <= (Fraction(limit) ** 2 if self.norm == "l2" else Fraction(limit))
            if within:
                return None
            shown = str(exact) if self.norm != "l2" else f"sqrt({exact})"
            return f"{self.norm} distance {shown} (exact, integer data) exceeds the sensitivity {_exact(self.sensitivity)}"
        dist = self._float_distance(a, b)
        if dist <= limit:
            return None
        return f"{self.norm} distance {_exact(dist)} exceeds the sensitivity {_exact(self.sensitivity)}"

    def __str__(self) -> str:
        return f"{self.norm} query distance <= {_exact(self.sensitivity)}"
