"""Projections used by the user-level algorithms, vectorised over leading (trial) axes.

All functions act on the last axis and broadcast over the others, so a batch of iterates of
shape ``(trials, d)`` is projected in one call.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_nonnegative

__all__ = ["clamp", "project_box", "project_l2_ball", "project_linf_ball", "projected_step"]


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
    """Euclidean projection onto ``{y : ||y - center||_2 <= radius}`` along the last axis.

    Overflow-safe for every finite ``x - center``: the norm is taken of ``v / max|v|`` (entries in
    ``[-1, 1]``), so vectors with entries near ``1.8e308`` (whose plain norm overflows to inf) and
    subnormal vectors (whose squares underflow to 0) are projected as exactly as any other.
    """
    radius = check_nonnegative("project_l2_ball", "radius", radius, allow_inf=True)
    v = np.asarray(x, dtype=float) - np.asarray(center, dtype=float)
    if np.isinf(radius):
        return v + center
    big = np.max(np.abs(v), axis=-1, keepdims=True) if v.shape[-1] else np.zeros((*v.shape[:-1], 1))
    scale = np.where(big > 0, big, 1.0)
    unit = v / scale  # entries in [-1, 1]
    norm_unit = np.linalg.norm(unit, axis=-1, keepdims=True)  # in [1, sqrt(d)] where v != 0
    with np.errstate(over="ignore", under="ignore"):  # radius / scale may round to inf or 0: still the right side
        outside = norm_unit > radius / scale  # ||v|| > radius, without forming ||v|| (which can overflow)
    # outside the ball: radius * v / ||v|| = unit * (radius / ||unit||); the factor is rounded down one
    # ulp so that rounding in the product cannot land outside. Inside, v is returned unchanged.
    factor = np.nextafter(radius / np.where(norm_unit > 0, norm_unit, 1.0), 0.0)
    return np.where(outside, unit * factor, v) + center


def projected_step(theta: Any, step: float, direction: Any, radius: float) -> NDArray[np.float64]:
    """``Pi_{B_2(0, radius)}(theta - step * direction)`` without overflow, for finite inputs.

    ``theta`` lies in the ball, so for ``step <= 1`` nothing can overflow; for ``step > 1`` the
    product ``step * direction`` might, and the identity ``Pi_R(eta u) = eta Pi_{R/eta}(u)`` (the
    ball scales with ``eta``) gives the same point from ``u = theta / eta - direction``.
    """
    th = np.asarray(theta, dtype=float)
    g = np.asarray(direction, dtype=float)
    eta = float(step)
    if eta <= 1.0:
        return project_l2_ball(th - eta * g, radius)
    return eta * project_l2_ball(th / eta - g, radius / eta)
