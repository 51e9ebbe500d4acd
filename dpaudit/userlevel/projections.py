"""Projections used by the user-level algorithms, vectorised over leading (trial) axes.

All functions act on the last axis and broadcast over the others, so a batch of iterates of
shape ``(trials, d)`` is projected in one call.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_nonnegative

__all__ = ["clamp", "project_box", "project_l2_ball", "project_linf_ball"]


def clamp(x: Any, low: Any, high: Any) -> NDArray[np.float64]:
    """Coordinate-wise clamp to ``[low, high]`` (broadcasting); 1-Lipschitz in every l_p norm."""
    lo = np.asarray(low, dtype=float)
    hi = np.asarray(high, dtype=float)
    if np.any(lo > hi):
        raise argument_error("clamp", "high", "at least low everywhere", high)
    return np.minimum(np.maximum(np.asarray(x, dtype=float), lo), hi)


def project_box(x: Any, low: Any, high: Any) -> NDArray[np.float64]:
    """Euclidean projection onto the box ``[low, high]`` (it is the coordinate-wise clamp)."""
    return clamp(x, low, high)


def project_linf_ball(x: Any, center: Any, radius: Any) -> NDArray[np.float64]:
    """Projection onto ``{y : ||y - center||_inf <= radius}`` (coordinate-wise clamp around ``center``).

    ``radius`` may be an array broadcasting against the leading axes (one radius per trial).
    """
    c = np.asarray(center, dtype=float)
    r = np.asarray(radius, dtype=float)
    if np.any(r < 0):
        raise argument_error("project_linf_ball", "radius", "in [0, inf)", radius)
    return clamp(x, c - r, c + r)


def project_l2_ball(x: Any, radius: float, center: Any = 0.0) -> NDArray[np.float64]:
    """Euclidean projection onto ``{y : ||y - center||_2 <= radius}`` along the last axis."""
    radius = check_nonnegative("project_l2_ball", "radius", radius, allow_inf=True)
    v = np.asarray(x, dtype=float) - np.asarray(center, dtype=float)
    if np.isinf(radius):
        return v + center
    norm = np.linalg.norm(v, axis=-1, keepdims=True)
    # divide only where outside the ball; inside, the factor is 1 (avoids 0/0 at the centre).
    # The factor is rounded down one ulp so that rounding in the product cannot land outside.
    factor = np.where(norm > radius, np.nextafter(radius / np.where(norm > 0, norm, 1.0), 0.0), 1.0)
    return v * factor + center
