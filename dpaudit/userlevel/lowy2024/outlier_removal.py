"""The outlier-removal subroutine of Lowy, Liu and Asi (2024): scores, the soft inclusion ramp, the robust mean.

The paper inlines it twice, in Algorithm 1 (lines 12-24, on the ``C`` group iterates) and in
Algorithm 2 (lines 6-13, on the ``K`` sampled users' gradients). For ``k`` points ``y_1..y_k``:

* concentration score ``s(r) = (1/k) sum_{j, j' in [k]} 1(||y_j - y_j'|| <= r)`` over *ordered*
  pairs including the diagonal, so ``s`` lies in ``[1, k]`` [Alg 1 line 12; Alg 2 line 6];
* per-point score ``h_j(r) = sum_{j'} 1(||y_j - y_j'|| <= r)`` (including ``j``) [Alg 1 line 16;
  Alg 2 line 10];
* inclusion probability (the ramp) ``p_j = 0`` if ``h_j < k/2``, ``1`` if ``h_j >= 2k/3`` and
  ``(h_j - k/2)/(k/6)`` otherwise [Alg 1 line 17; Alg 2 line 11]; ``j`` joins ``S`` with
  probability ``p_j``, independently;
* robust mean ``(1/|S|) sum_{j in S} y_j`` [Alg 1 line 24; Alg 2 line 13].

Algorithm 1 scores with radius ``tau`` and ranks with ``2 tau``; Algorithm 2 uses ``2 tau`` for both
(``docs/papers/lowy2024.md``, Sec. 1.1). Every function takes the points with leading (trial) axes and
works on the last two axes, so a batch of trials is one call.

The points must be O(1) in size (callers pass them in units of a public scale, the domain radius
or the Lipschitz constant), so squared distances cannot overflow.

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024.
.. [Note003] The readings, corrections and pitfalls of Lowy, Liu and Asi (2024)
   kept in ``docs/papers/lowy2024.md`` (findings F1-F7, pitfalls P1-P25).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_nonnegative

__all__ = [
    "concentration_score",
    "inclusion_probability",
    "pairwise_sq_distances",
    "point_scores",
    "robust_mean",
]

_BLOCK_BYTES = 64 * 2**20


def _points(owner: str, points: Any) -> NDArray[np.float64]:
    y = np.asarray(points, dtype=float)
    if y.ndim < 2 or y.shape[-2] < 1 or y.shape[-1] < 1:
        raise argument_error(owner, "points", "an array shaped (..., k >= 1, d >= 1)", points)
    return y


def pairwise_sq_distances(points: Any) -> NDArray[np.float64]:
    """Squared Euclidean distances ``||y_j - y_j'||^2``, shape ``(..., k, k)``.

    Accumulated one coordinate at a time from differences (no ``(..., k, k, d)`` array and no
    ``||a||^2 + ||b||^2 - 2 a.b`` cancellation), so each entry depends on its two points only.
    """
    y = _points("pairwise_sq_distances", points)
    out = np.zeros((*y.shape[:-1], y.shape[-2]))
    diff = np.empty_like(out)
    for j in range(y.shape[-1]):
        col = y[..., j]
        np.subtract(col[..., :, None], col[..., None, :], out=diff)
        np.square(diff, out=diff)
        out += diff
    return out


def point_scores(sq_distances: Any, radius: float) -> NDArray[np.int64]:
    """``h_j = #{j' : ||y_j - y_j'|| <= radius}`` (including ``j``) [LLA24, Alg 1 line 16; Alg 2 line 10]."""
    radius = check_nonnegative("point_scores", "radius", radius)
    d2 = np.asarray(sq_distances, dtype=float)
    return np.count_nonzero(d2 <= radius * radius, axis=-1)


def concentration_score(sq_distances: Any, radius: float) -> NDArray[np.float64]:
    """``s = (1/k) sum_{j, j'} 1(||y_j - y_j'|| <= radius)``, ordered pairs with the diagonal [LLA24, Alg 1 line 12].

    Replacing one point changes at most ``2(k - 1)`` ordered pairs, so ``s`` has sensitivity
    ``2(k - 1)/k < 2`` [Note003, Sec. 4.6].
    """
    h = point_scores(sq_distances, radius)
    return h.sum(axis=-1) / h.shape[-1]


def inclusion_probability(h: Any, k: int) -> NDArray[np.float64]:
    """The ramp ``p = 0`` for ``h < k/2``, ``1`` for ``h >= 2k/3``, ``(h - k/2)/(k/6)`` between [LLA24, Alg 1 line 17].

    Continuous at both knots with slope ``6/k``: a change of one in ``h`` moves ``p`` by at most ``6/k``.
    """
    hh = np.asarray(h, dtype=float)
    kf = float(k)
    # clip((h - k/2) / (k/6), 0, 1) equals the three cases: 0 below k/2, 1 from 2k/3 on
    return np.clip((hh - kf / 2.0) * (6.0 / kf), 0.0, 1.0)


def robust_mean(
    points: Any, probabilities: Any, *, rng: np.random.Generator
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Mean of the points kept by independent coins with the given probabilities [LLA24, Alg 1 lines 14-24].

    Parameters
    ----------
    points : array_like, shape (..., k, d)
    probabilities : array_like, shape (..., k)
        Inclusion probabilities (from :func:`inclusion_probability`), broadcast against ``points``.

    Returns
    -------
    mean : ndarray, shape (..., d)
        The mean of the kept points; 0 where nothing was kept (the callers treat that as a halt).
    kept : ndarray, shape (...)
        ``|S|`` per leading index.
    """
    y = _points("robust_mean", points)
    prob = np.asarray(probabilities, dtype=float)
    shape = np.broadcast_shapes(prob.shape, y.shape[:-1])
    keep = rng.random(shape) < prob
    kept = keep.sum(axis=-1)
    total = np.einsum("...k,...kd->...d", keep.astype(float), y)
    mean = total / np.maximum(kept, 1)[..., None]
    return mean, kept
