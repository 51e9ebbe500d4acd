"""Reference implementation of Ghazi et al. 2025 Algorithm 2 (robust gradient estimate) used by the checks."""

from __future__ import annotations

import numpy as np


def alg2(points: np.ndarray, radius: float) -> np.ndarray:
    """X_est = clip(mean, median - radius, median + radius), coordinate-wise (Alg 2 lines 1-6 in closed form)."""
    pts = np.atleast_2d(np.asarray(points, dtype=float))
    rs = np.median(pts, axis=0)
    return np.clip(pts.mean(axis=0), rs - radius, rs + radius)


def score(points: np.ndarray, tau: float) -> float:
    """Eq. (3): s = (1/B) sum_{i, j} exp(-tau ||q_i - q_j||_inf), diagonal included."""
    pts = np.atleast_2d(np.asarray(points, dtype=float))
    dist = np.max(np.abs(pts[:, None, :] - pts[None, :, :]), axis=-1)
    return float(np.exp(-tau * dist).sum() / pts.shape[0])


def max_ball_count(values: np.ndarray, rho: float) -> int:
    """Largest number of 1-D values inside one interval [y - rho, y + rho] (exact sliding window)."""
    v = np.sort(np.asarray(values, dtype=float))
    j, best = 0, 0
    for i in range(v.size):
        while v[i] - v[j] > 2 * rho:
            j += 1
        best = max(best, i - j + 1)
    return best
