"""Exact reference for Alg 1's stability search (Ghazi et al. 2023, Def 3.2 and Alg 1), for tiny n.

``stability_k`` enumerates deleted sets as bitmasks: x_{-S} is stable if the local deletion
sensitivity within horizon 4 kappa - |S| is at most Delta; k(x) is the smallest |S| <= 2 kappa of
a stable x_{-S}, or None when there is none (then Alg 1 outputs ⊥ for every R1).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable


def _bits(mask: int) -> list[int]:
    return [j for j in range(mask.bit_length()) if mask >> j & 1]


def stability_k(value: Callable[[int], float], n: int, kappa: int, delta: float) -> int | None:
    """k(x) for a scalar f given as ``value(mask)`` = f(users in mask); horizon 4 kappa (docs/papers/ghazi2023.md, erratum E4)."""
    value = functools.cache(value)

    @functools.cache
    def unstable(mask: int, h: int) -> bool:  # Dbar_h f(x_mask) > Delta
        here = value(mask)
        for j in _bits(mask):
            sub = mask & ~(1 << j)
            if abs(here - value(sub)) > delta or (h >= 1 and unstable(sub, h - 1)):
                return True
        return False

    full = (1 << n) - 1
    for r in range(0, 2 * kappa + 1):
        for removed in itertools.combinations(range(n), r):
            mask = full & ~sum(1 << j for j in removed)
            if not unstable(mask, 4 * kappa - r):
                return r
    return None


def stability_k_symmetric(f_of_size: Callable[[int], float], n: int, kappa: int, delta: float) -> int | None:
    """k(x) when f depends only on the number of users (exact, any n)."""
    for r in range(0, 2 * kappa + 1):
        size, horizon = n - r, 4 * kappa - r
        low = max(size - horizon, 1)
        if all(abs(f_of_size(s) - f_of_size(s - 1)) <= delta for s in range(low, size + 1)):
            return r
    return None
