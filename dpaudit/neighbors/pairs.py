"""Named worst-case pairs: one neighbouring pair per relation, by name.

``worst_case_pair("user-replace", shape=(100, 10))`` returns a base dataset with every entry at
``low`` and its worst-case neighbour from :func:`~dpaudit.neighbors.worst_case_neighbors`, ranked by
how far it moves the mean of all entries (so one user's items all move from ``low`` to ``high``, or
an all-``high`` user is added). This is the extreme pair for sums and means clipped to
``[low, high]``, the queries the user-level papers privatise. The command line's ``--pair NAME``
and :mod:`dpaudit.strategies` use these names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_int
from dpaudit.neighbors.generators import worst_case_neighbors
from dpaudit.neighbors.relations import (
    ItemAddRemove,
    ItemReplace,
    NeighborRelation,
    QueryDistance,
    UserAddRemove,
    UserReplace,
)

__all__ = ["PAIR_RELATIONS", "default_shape", "worst_case_pair"]

#: Pair names and the relation each is a worst case of (query pairs at sensitivity 1).
PAIR_RELATIONS: dict[str, Callable[[], NeighborRelation]] = {
    "item-replace": ItemReplace,
    "item-add-remove": ItemAddRemove,
    "user-replace": UserReplace,
    "user-add-remove": UserAddRemove,
    "query-l1": lambda: QueryDistance(1.0, "l1"),
    "query-l2": lambda: QueryDistance(1.0, "l2"),
    "query-linf": lambda: QueryDistance(1.0, "linf"),
}

_DEFAULT_SHAPES = {"item": (100,), "user": (100, 10), "query": ()}


def default_shape(name: str) -> tuple[int, ...]:
    """Base dataset shape used when none is given: 100 items, 100 users of 10 items, or a scalar."""
    _relation(name)
    return _DEFAULT_SHAPES[name.split("-", 1)[0]]


def _relation(name: str) -> NeighborRelation:
    if name not in PAIR_RELATIONS:
        raise argument_error("worst_case_pair", "name", "one of " + ", ".join(PAIR_RELATIONS), name)
    return PAIR_RELATIONS[name]()


def _mean(data: NDArray[Any]) -> float:
    return float(np.mean(data)) if data.size else 0.0


def worst_case_pair(
    name: str, *, shape: tuple[int, ...] | None = None, low: float = -1.0, high: float = 1.0
) -> tuple[NDArray[np.float64], NDArray[np.float64], NeighborRelation]:
    """The named relation's worst-case pair ``(d0, d1)`` and the relation itself.

    Parameters
    ----------
    name : str
        One of :data:`PAIR_RELATIONS`.
    shape : tuple of int, optional
        Shape of ``d0`` (``(n,)`` or more for item relations, ``(n_users, m_items, ...)`` for user
        ones, anything for query ones); default :func:`default_shape`.
    low, high : float
        The data domain: ``d0`` is all ``low``; the moved or added row is all ``high``. Query
        pairs ignore them: ``d0`` is all zeros and ``d1`` is shifted by the sensitivity, 1.

    Examples
    --------
    >>> d0, d1, relation = worst_case_pair("user-replace", shape=(3, 2), low=0.0, high=1.0)
    >>> d1
    array([[1., 1.],
           [0., 0.],
           [0., 0.]])
    >>> str(relation)
    'user replace'
    """
    relation = _relation(name)
    shape = default_shape(name) if shape is None else tuple(shape)
    for i, size in enumerate(shape):
        check_int("worst_case_pair", f"shape[{i}]", size, minimum=1)
    if len(shape) < relation.min_ndim:
        raise argument_error("worst_case_pair", "shape", f"of at least {relation.min_ndim} dimension(s) for {name}", shape)
    # query answers have no data domain: the pair is 0 and its shift by the full sensitivity
    d0 = np.zeros(shape) if isinstance(relation, QueryDistance) else np.full(shape, float(low))
    d1 = worst_case_neighbors(relation, d0, low=low, high=high, query=_mean, max_candidates=1)[0]
    return d0, np.asarray(d1, dtype=float), relation
