"""Randomized smoothing for non-smooth losses, Section 4 / Appendix D of Lowy, Liu and Asi (2024).

``f_r(x, z) = E_{y ~ U(B(0, r))} f(x + y, z)`` (convolution with the uniform density on the
``l_2`` ball of radius ``r``). Lemma D.1 [YNS12, DBW12], for ``f`` convex and ``L``-Lipschitz on
``X + B(0, r)``:

1. ``f(x) <= f_r(x) <= f(x) + L r``. The paper prints the reverse, ``f_r <= f <= f_r + L r``,
   which is false for convex ``f`` (finding F2 of ``docs/papers/lowy2024.md``: ``f = |x|``, ``r = 1`` gives
   ``f_r(0) = 1/2 > 0 = f(0)``); Jensen's inequality gives the direction here. Only
   ``|f_r - f| <= L r`` is used downstream, so Theorem 4.1 is unaffected;
2. ``f_r`` is convex and ``L``-Lipschitz;
3. ``f_r`` is ``L sqrt(d)/r``-smooth;
4. ``E_y grad f(x + y) = grad f_r(x)``: one fresh ``y`` per gradient evaluation is an unbiased
   gradient of ``f_r`` (how the smoothed Algorithm 3 computes its gradients; the paper leaves it
   open, a choice of dpaudit's).

For a loss of a linear predictor only the margin moves: ``<x + y, a> = <x, a> + <y, a>``, and
``<y, a>`` for ``y`` uniform in the ball is ``||a|| r (2B - 1)`` with ``B ~ Beta((d+1)/2, (d+1)/2)``
(the one-dimensional marginal of the uniform ball, density ``~ (1 - w^2)^{(d-1)/2}``). So the
smoothed gradient costs one Beta draw per item, not a ``d``-vector.

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024, Lemma D.1, Lemma D.2, Theorem D.3.
.. [YNS12] F. Yousefian, A. Nedic and U. Shanbhag. On stochastic gradient and subgradient methods
   with adaptive steplength sequences. Automatica 48(1), 2012.
.. [DBW12] J. Duchi, P. Bartlett and M. Wainwright. Randomized smoothing for stochastic
   optimization. SIAM J. Optim. 22(2), 2012.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import check_int, check_positive
from dpaudit.userlevel.losses import Loss
from dpaudit.userlevel.lowy2024.domain import safe_norm

__all__ = ["RandomizedSmoothing", "smoothing_radius"]


def smoothing_radius(n: int, m: int, d: int, epsilon: float, diameter: float) -> float:
    """``r = sqrt(d) R/(eps n sqrt(m))`` [LLA24, Thm D.3]."""
    return math.sqrt(d) * diameter / (epsilon * n * math.sqrt(m))


@dataclass(frozen=True)
class RandomizedSmoothing:
    """Uniform-ball smoothing of radius ``radius`` [LLA24, Sec. 4, Lemma D.1 (with F2's direction)]."""

    radius: float

    def __post_init__(self) -> None:
        check_positive("RandomizedSmoothing", "radius", self.radius)

    def smoothness(self, lipschitz: float, dim: int) -> float:
        """``beta = L sqrt(d)/r`` [LLA24, Lemma D.1, third item]."""
        return lipschitz * math.sqrt(dim) / self.radius

    def value_bounds(self, value: Any, lipschitz: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(f, f + L r)``: the interval holding ``f_r`` (Lemma D.1 corrected; the paper prints ``(f - L r, f)``, F2)."""
        v = np.asarray(value, dtype=float)
        return v, v + lipschitz * self.radius

    def offsets(self, dim: int, shape: tuple[int, ...], *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``y ~ U(B(0, r))`` in ``R^dim``, shape ``shape + (dim,)``: ``r U^{1/d} g/||g||`` (Muller's method)."""
        dim = check_int("RandomizedSmoothing.offsets", "dim", dim, minimum=1)
        g = rng.standard_normal((*shape, dim))
        g /= np.maximum(np.linalg.norm(g, axis=-1, keepdims=True), 1e-300)
        return self.radius * rng.random(shape)[..., None] ** (1.0 / dim) * g

    def margin_offsets(self, features: NDArray[np.float64], *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``<y, a>`` for a fresh ``y ~ U(B(0, r))`` per item with features ``a`` (shape ``features.shape[:-1]``).

        The one-dimensional marginal: ``||a|| r (2B - 1)``, ``B ~ Beta((d + 1)/2, (d + 1)/2)``.
        """
        d = features.shape[-1]
        beta = rng.beta((d + 1) / 2.0, (d + 1) / 2.0, size=features.shape[:-1])
        return safe_norm(features) * self.radius * (2.0 * beta - 1.0)

    def gradient(self, loss: Loss, theta: Any, items: Any, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """Per-item ``grad f(theta + y, z)`` with a fresh ``y`` per item: unbiased for ``grad f_r`` [Lemma D.1, fourth item]."""
        th = np.asarray(theta, dtype=float)
        z = np.asarray(items, dtype=float)
        x, label = z[..., :-1], z[..., -1]
        margin = np.einsum("...kd,...d->...k", x, th) + self.margin_offsets(x, rng=rng)
        return loss._slope(margin, label)[..., None] * x

    def value(self, loss: Loss, theta: Any, items: Any, *, samples: int, rng: np.random.Generator) -> NDArray[np.float64]:
        """Monte Carlo estimate of ``f_r(theta, z)`` per item from ``samples`` draws of ``y``."""
        samples = check_int("RandomizedSmoothing.value", "samples", samples, minimum=1)
        th = np.asarray(theta, dtype=float)
        z = np.asarray(items, dtype=float)
        x, label = z[..., :-1], z[..., -1]
        base = np.einsum("...kd,...d->...k", x, th)
        total = np.zeros(base.shape)
        for _ in range(samples):
            total += loss._value_from_margin(base + self.margin_offsets(x, rng=rng), label)
        return total / samples
