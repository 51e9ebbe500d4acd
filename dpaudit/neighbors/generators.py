"""Neighbour generators: given a dataset, produce neighbours under a relation.

* :func:`random_neighbor` draws one neighbour at random (seeded, explicit ``rng``);
* :func:`worst_case_neighbors` lists deterministic candidates that push a query to its extremes,
  for example replacing one user's whole data with the lower or upper end of the data domain.

All generated neighbours are checked with the relation's ``is_neighbor`` before they are returned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_finite_array, check_int, check_real
from dpaudit.neighbors.relations import (
    ItemAddRemove,
    ItemReplace,
    NeighborRelation,
    QueryDistance,
    UserAddRemove,
    UserReplace,
)

__all__ = ["random_neighbor", "worst_case_neighbors"]

Query = Callable[[NDArray[Any]], Any]


def _bounds(owner: str, low: Any, high: Any) -> tuple[float, float]:
    lo = check_real(owner, "low", low)
    hi = check_real(owner, "high", high)
    if not lo < hi:
        raise argument_error(owner, "high", f"greater than low={lo!r}", high)
    return lo, hi


def random_neighbor(
    relation: NeighborRelation,
    data: Any,
    *,
    rng: np.random.Generator,
    low: float = -1.0,
    high: float = 1.0,
) -> NDArray[np.float64]:
    """Draw a random neighbour of ``data`` under ``relation``.

    Replaced or added rows are drawn uniformly from ``[low, high]`` per entry. For
    :class:`QueryDistance`, a uniformly random direction scaled to the full sensitivity is added.

    Parameters
    ----------
    relation : NeighborRelation
        The neighbouring relation.
    data : array_like
        The dataset; ``(n, ...)`` for item relations, ``(n_users, m_items, ...)`` for user ones.
    rng : numpy.random.Generator
        Source of randomness.
    low, high : float
        Domain of a data entry.
    """
    owner = "random_neighbor"
    x = check_finite_array(owner, "data", data, min_ndim=relation.min_ndim)
    lo, hi = _bounds(owner, low, high)
    if isinstance(relation, QueryDistance):
        direction = rng.standard_normal(x.shape) if x.size else np.zeros(x.shape)
        norm = relation.distance(direction, np.zeros_like(direction))
        out = x + (direction / norm * relation.sensitivity if norm > 0 else 0.0)
    elif isinstance(relation, ItemReplace | UserReplace):
        if x.shape[0] == 0:
            raise argument_error(owner, "data", "non-empty for a replace relation", data)
        out = x.copy()
        i = int(rng.integers(x.shape[0]))
        out[i] = rng.uniform(lo, hi, size=x.shape[1:])
    elif isinstance(relation, ItemAddRemove | UserAddRemove):
        if x.shape[0] > 0 and rng.random() < 0.5:
            out = np.delete(x, int(rng.integers(x.shape[0])), axis=0)
        else:
            row = rng.uniform(lo, hi, size=(1, *x.shape[1:]))
            out = np.insert(x, int(rng.integers(x.shape[0] + 1)), row, axis=0)
    else:
        raise argument_error(owner, "relation", "a dpaudit neighbour relation", relation)
    relation.check_neighbors(x, out, owner)
    return out


def worst_case_neighbors(
    relation: NeighborRelation,
    data: Any,
    *,
    low: float = -1.0,
    high: float = 1.0,
    query: Query | None = None,
    max_candidates: int = 8,
) -> list[NDArray[np.float64]]:
    """Deterministic neighbour candidates that move the data to the edges of its domain.

    Candidates, for row-based relations (``i`` ranges over the first and last row):

    * replace: row ``i`` set entirely to ``low``, or entirely to ``high`` (for user relations this
      replaces *all* ``m`` items of a user, the case the user-level papers must survive);
    * add/remove: add an all-``low`` or all-``high`` row, or delete row ``i``.

    For :class:`QueryDistance`, candidates shift every coordinate by the full sensitivity along
    the sign patterns ``+1``, ``-1`` and alternating.

    When ``query`` is given, candidates are sorted by ``|query(candidate) - query(data)|``
    (largest first, measured in the l2 norm of the difference), so the first candidate is the
    worst case for that query among those tried.
    """
    owner = "worst_case_neighbors"
    x = check_finite_array(owner, "data", data, min_ndim=relation.min_ndim)
    lo, hi = _bounds(owner, low, high)
    max_candidates = check_int(owner, "max_candidates", max_candidates, minimum=1)
    cands: list[NDArray[np.float64]] = []
    rows = sorted({0, max(x.shape[0] - 1, 0)}) if x.ndim else []
    if isinstance(relation, QueryDistance):
        flat = np.ones(max(x.size, 1))
        alt = np.where(np.arange(flat.size) % 2 == 0, 1.0, -1.0)
        for pattern in (flat, -flat, alt):
            step = pattern[: x.size].reshape(x.shape)
            norm = relation.distance(step, np.zeros_like(step)) if x.size else 0.0
            if norm > 0:
                cands.append(x + step / norm * relation.sensitivity)
    elif isinstance(relation, ItemReplace | UserReplace):
        for i in rows:
            for value in (lo, hi):
                y = x.copy()
                y[i] = value
                if not np.array_equal(x, y):
                    cands.append(y)
    elif isinstance(relation, ItemAddRemove | UserAddRemove):
        for value in (lo, hi):
            cands.append(np.concatenate([x, np.full((1, *x.shape[1:]), value)], axis=0))
        for i in rows if x.shape[0] else []:
            cands.append(np.delete(x, i, axis=0))
    else:
        raise argument_error(owner, "relation", "a dpaudit neighbour relation", relation)
    if query is not None:
        base = np.asarray(query(x), dtype=float)
        cands.sort(key=lambda y: -float(np.linalg.norm(np.asarray(query(y), dtype=float) - base)))
    for y in cands:
        relation.check_neighbors(x, y, owner)
    return cands[:max_candidates]
