"""Hypothesis strategies for privacy tests: datasets, neighbouring pairs, worst-case pairs.

Needs hypothesis (the ``test`` extra). Every strategy draws through hypothesis, so failing examples
shrink (to fewer users, fewer items, simpler values) and replay.

* :func:`user_datasets` and :func:`item_datasets`: arrays ``(n_users, m_items, *item_shape)`` and
  ``(n, *item_shape)`` with finite entries in ``[low, high]``;
* :func:`relations`: the relations of :mod:`dpaudit.neighbors`;
* :func:`neighboring_pairs`: a dataset and a neighbour of it under a relation (both orders);
* :func:`worst_case_pairs`: a dataset and one of its
  :func:`~dpaudit.neighbors.worst_case_neighbors` (rows moved to the ends of the domain);
* :func:`named_pairs`: the named worst-case pairs of :mod:`dpaudit.neighbors.pairs`, for drawn
  shapes.

Examples
--------
>>> from hypothesis import given
>>> from dpaudit.neighbors import UserReplace
>>> @given(neighboring_pairs(UserReplace(), user_datasets(max_users=4, max_items=3)))
... def test_pair(pair):
...     d0, d1 = pair
...     assert UserReplace().is_neighbor(d0, d1)
>>> test_pair()
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_int, check_real
from dpaudit.neighbors.generators import worst_case_neighbors
from dpaudit.neighbors.pairs import PAIR_RELATIONS, default_shape, worst_case_pair
from dpaudit.neighbors.relations import (
    ItemAddRemove,
    ItemReplace,
    NeighborRelation,
    QueryDistance,
    UserAddRemove,
    UserReplace,
)

__all__ = [
    "item_datasets",
    "named_pairs",
    "neighboring_pairs",
    "relations",
    "user_datasets",
    "worst_case_pairs",
]

Pair = tuple[NDArray[np.float64], NDArray[np.float64]]


def _domain(owner: str, low: Any, high: Any) -> tuple[float, float]:
    lo, hi = check_real(owner, "low", low), check_real(owner, "high", high)
    if not lo < hi or not (np.isfinite(lo) and np.isfinite(hi)):
        raise argument_error(owner, "high", f"finite and greater than low={lo!r}", high)
    return lo, hi


def _entries(low: float, high: float) -> st.SearchStrategy[float]:
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


def user_datasets(
    *,
    min_users: int = 1,
    max_users: int = 20,
    min_items: int = 1,
    max_items: int = 10,
    item_shape: tuple[int, ...] = (),
    low: float = -1.0,
    high: float = 1.0,
) -> st.SearchStrategy[NDArray[np.float64]]:
    """User-level datasets ``(n_users, m_items, *item_shape)``, every entry in ``[low, high]``.

    Every user holds the same number of items (the user-level papers' setting).
    """
    owner = "user_datasets"
    lo, hi = _domain(owner, low, high)
    min_users = check_int(owner, "min_users", min_users, minimum=1)
    max_users = check_int(owner, "max_users", max_users, minimum=min_users)
    min_items = check_int(owner, "min_items", min_items, minimum=1)
    max_items = check_int(owner, "max_items", max_items, minimum=min_items)
    shapes = st.tuples(st.integers(min_users, max_users), st.integers(min_items, max_items)).map(
        lambda nm: (*nm, *item_shape)
    )
    return arrays(np.float64, shapes, elements=_entries(lo, hi))


def item_datasets(
    *,
    min_items: int = 1,
    max_items: int = 50,
    item_shape: tuple[int, ...] = (),
    low: float = -1.0,
    high: float = 1.0,
) -> st.SearchStrategy[NDArray[np.float64]]:
    """Item-level datasets ``(n, *item_shape)``, every entry in ``[low, high]``."""
    owner = "item_datasets"
    lo, hi = _domain(owner, low, high)
    min_items = check_int(owner, "min_items", min_items, minimum=1)
    max_items = check_int(owner, "max_items", max_items, minimum=min_items)
    shapes = st.integers(min_items, max_items).map(lambda n: (n, *item_shape))
    return arrays(np.float64, shapes, elements=_entries(lo, hi))


def relations(*, user_level: bool | None = None) -> st.SearchStrategy[NeighborRelation]:
    """The relations of :mod:`dpaudit.neighbors` (query distances at sensitivity 1 in each norm).

    ``user_level=True`` keeps the user relations, ``False`` the item ones, ``None`` all of them.
    """
    users: list[NeighborRelation] = [UserReplace(), UserAddRemove()]
    items: list[NeighborRelation] = [ItemReplace(), ItemAddRemove()]
    queries: list[NeighborRelation] = [QueryDistance(1.0, norm) for norm in ("l1", "l2", "linf")]
    chosen = users if user_level else items if user_level is False else users + items + queries
    return st.sampled_from(chosen)


def _datasets_for(relation: NeighborRelation, low: float, high: float) -> st.SearchStrategy[NDArray[np.float64]]:
    if isinstance(relation, UserReplace | UserAddRemove):
        return user_datasets(max_users=8, max_items=5, low=low, high=high)
    if isinstance(relation, ItemReplace | ItemAddRemove):
        return item_datasets(max_items=20, low=low, high=high)
    return arrays(np.float64, st.integers(1, 5), elements=_entries(low, high))


@st.composite
def neighboring_pairs(
    draw: st.DrawFn,
    relation: NeighborRelation,
    datasets: st.SearchStrategy[NDArray[np.float64]] | None = None,
    *,
    low: float = -1.0,
    high: float = 1.0,
) -> Pair:
    """A dataset and a neighbour of it under ``relation``, in either order.

    Replace relations redraw one row (one user's whole ``(m_items, ...)`` slice for user
    relations) from ``[low, high]``; add/remove relations insert a drawn row at a drawn position,
    or delete one (only from datasets of two rows or more, so neither dataset is empty); query
    distances move the answer by up to the sensitivity along a drawn direction. ``datasets``
    defaults to small datasets of the right kind in ``[low, high]``.
    """
    lo, hi = _domain("neighboring_pairs", low, high)
    data = draw(datasets if datasets is not None else _datasets_for(relation, lo, hi))
    if isinstance(relation, QueryDistance):
        direction = draw(arrays(np.float64, data.shape, elements=_entries(-1.0, 1.0)))
        norm = relation.distance(direction, np.zeros_like(direction))
        reach = draw(st.floats(0.0, 1.0)) * relation.sensitivity
        other = data + (direction * (reach / norm) if norm > 0 else 0.0)
    elif isinstance(relation, ItemReplace | UserReplace | ItemAddRemove | UserAddRemove):
        n = data.shape[0]
        row = draw(arrays(np.float64, data.shape[1:], elements=_entries(lo, hi)))
        if isinstance(relation, ItemReplace | UserReplace):
            other = data.copy()
            other[draw(st.integers(0, n - 1))] = row
        elif n >= 2 and draw(st.booleans()):
            other = np.delete(data, draw(st.integers(0, n - 1)), axis=0)
        else:
            other = np.insert(data, draw(st.integers(0, n)), row, axis=0)
    else:
        raise argument_error("neighboring_pairs", "relation", "a dpaudit neighbour relation", relation)
    relation.check_neighbors(data, other, "neighboring_pairs")  # a wrong construction fails loudly
    return (other, data) if draw(st.booleans()) else (data, other)


@st.composite
def worst_case_pairs(
    draw: st.DrawFn,
    relation: NeighborRelation,
    datasets: st.SearchStrategy[NDArray[np.float64]] | None = None,
    *,
    low: float = -1.0,
    high: float = 1.0,
) -> Pair:
    """A dataset and one of its :func:`~dpaudit.neighbors.worst_case_neighbors` under ``relation``.

    The candidates move a first or last row entirely to ``low`` or ``high``, add such a row, delete
    one, or shift a query answer by the full sensitivity. Datasets with no candidate (a replace
    relation on data already at the edges everywhere it is tried) are rejected with ``assume``.
    """
    lo, hi = _domain("worst_case_pairs", low, high)
    data = draw(datasets if datasets is not None else _datasets_for(relation, lo, hi))
    candidates = worst_case_neighbors(relation, data, low=lo, high=hi)
    assume(candidates)
    return data, candidates[draw(st.integers(0, len(candidates) - 1))]


@st.composite
def named_pairs(draw: st.DrawFn, name: str, *, max_size: int = 10, low: float = -1.0, high: float = 1.0) -> Pair:
    """The named worst-case pair ``name`` (see :data:`~dpaudit.neighbors.pairs.PAIR_RELATIONS`).

    Drawn for a shape with as many dimensions as the default one (sizes 1 to ``max_size``).
    """
    if name not in PAIR_RELATIONS:
        raise argument_error("named_pairs", "name", "one of " + ", ".join(PAIR_RELATIONS), name)
    max_size = check_int("named_pairs", "max_size", max_size, minimum=1)
    ndim = len(default_shape(name))
    shape = tuple(draw(st.lists(st.integers(1, max_size), min_size=ndim, max_size=ndim)))
    d0, d1, _ = worst_case_pair(name, shape=shape, low=low, high=high)
    return d0, d1
