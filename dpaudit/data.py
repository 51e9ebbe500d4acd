"""User-level datasets: arrays of shape ``(n_users, m_items, ...)``, and conversions.

An item-level dataset ``(N, ...)`` becomes user-level by grouping consecutive items
(:func:`group_items`); :func:`flatten_users` is the inverse.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_finite_array, check_int

__all__ = ["as_user_dataset", "flatten_users", "group_items"]


def as_user_dataset(data: Any, owner: str = "dpaudit", name: str = "data", *, item_ndim: int | None = None) -> NDArray[np.float64]:
    """Validate a user-level dataset and return it as float64.

    Parameters
    ----------
    data : array_like
        Shape ``(n_users, m_items, ...)`` with ``n_users >= 1`` and ``m_items >= 1``; finite.
    item_ndim : int, optional
        If given, the number of dimensions of one item (0 for scalars, 1 for vectors).
    """
    x = check_finite_array(owner, name, data, min_ndim=2)
    if x.shape[0] < 1 or x.shape[1] < 1:
        raise argument_error(owner, name, "shaped (n_users >= 1, m_items >= 1, ...)", data)
    if item_ndim is not None and x.ndim != 2 + item_ndim:
        want = "(n_users, m_items)" if item_ndim == 0 else "(n_users, m_items" + ", d" * item_ndim + ")"
        raise argument_error(owner, name, f"shaped {want} (got shape {x.shape})", data)
    return x


def flatten_users(data: Any) -> NDArray[np.float64]:
    """``(n_users, m_items, ...)`` -> ``(n_users * m_items, ...)``, user-major order."""
    x = as_user_dataset(data, "flatten_users")
    return x.reshape(x.shape[0] * x.shape[1], *x.shape[2:])


def group_items(data: Any, m_items: int) -> NDArray[np.float64]:
    """Group consecutive items of an item-level dataset ``(N, ...)`` into users of ``m_items`` each.

    ``N`` must be a multiple of ``m_items``; nothing is dropped silently.
    """
    x = check_finite_array("group_items", "data", data, min_ndim=1)
    m = check_int("group_items", "m_items", m_items, minimum=1)
    if x.shape[0] % m:
        raise argument_error("group_items", "m_items", f"a divisor of the number of items ({x.shape[0]})", m_items)
    return x.reshape(x.shape[0] // m, m, *x.shape[1:])
