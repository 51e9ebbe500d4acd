"""Laplace noise in floating point, done safely: Mironov's snapping mechanism [Mir12].

The textbook sampler ``loc + scale * log(U)`` (numpy's ``laplace``, and so
:class:`~dpaudit.mechanisms.LaplaceMechanism`) is private over the reals, not in IEEE-754
arithmetic: its outputs' low-order bits depend on ``loc`` [Mir12, Sec. 4]. The snapping
mechanism clamps the input to ``[-B, B]``, adds ``S * lambda * ln(U)`` in floating point, rounds
the sum to the nearest multiple of ``Lambda`` (the smallest power of two at least ``lambda``)
and clamps again. With ``lambda = (1 + B 2^-49) / eps`` it is eps-DP for queries of sensitivity
1 when ``lambda < B < 2^46 lambda`` [Mir12, Thm 1]; ``U`` is numpy's uniform double on the grid
``2^-53 Z`` as in DP-Sniper's audit of it (Mironov's proof assumes 53-bit uniform doubles).

References
----------
.. [Mir12] I. Mironov. On significance of the least significant bits for differential privacy.
   CCS 2012, Sec. 5, Thm 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_finite_array, check_positive
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import QueryDistance

if TYPE_CHECKING:
    from dpaudit.exact import PrivacyProfile

__all__ = ["SnappingLaplace"]


@dataclass(frozen=True)
class SnappingLaplace(MechanismBase):
    """Mironov's snapping mechanism [Mir12, Sec. 5]: eps-DP in floating point for sensitivity 1."""

    epsilon: float = 0.1
    bound: float = 100.0
    scale: float = field(init=False, repr=False)
    grid: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_positive("SnappingLaplace", "epsilon", self.epsilon)
        check_positive("SnappingLaplace", "bound", self.bound)
        scale = (1.0 + self.bound * 2.0**-49) / self.epsilon  # [Mir12, Thm 1]: lambda with the B 2^-49 term
        if not scale < self.bound < 2.0**46 * scale:
            raise argument_error("SnappingLaplace", "bound", f"in ({scale:g}, 2^46 * {scale:g}) (Thm 1 needs lambda < B < 2^46 lambda)", self.bound)
        object.__setattr__(self, "scale", scale)
        object.__setattr__(self, "grid", 2.0 ** math.ceil(math.log2(scale)))

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` snapped releases [Mir12, Sec. 5]: clamp, add ``sign * scale * ln(U)``, round to the grid, clamp.

        Returns
        -------
        ndarray of float
            Shape ``(size,)``; every value a multiple of ``grid`` in ``[-bound, bound]``.
        """
        x = np.clip(check_finite_array("SnappingLaplace.sample", "data", data, ndim=0), -self.bound, self.bound)
        size = check_size("SnappingLaplace.sample", size)
        sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
        with np.errstate(divide="ignore"):  # U = 0 gives -inf, clamped below
            noisy = x + sign * self.scale * np.log(rng.random(size))
        return np.clip(np.round(noisy / self.grid) * self.grid, -self.bound, self.bound)

    def claimed_guarantee(self) -> PureDP:
        """epsilon-DP for a sensitivity-1 scalar, in floating point [Mir12, Thm 1]."""
        return PureDP(self.epsilon, QueryDistance(1.0, "l1"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The law **over the reals**, whose epsilon is ``1 / lambda < eps``.

        ``U`` is uniform on (0, 1), so the noise is exactly ``Lap(lambda)``, and the output is the
        grid point (or ``+-B``) whose cell holds ``clamp(x) + noise``
        (:func:`dpaudit.exact.laplace_variants.snapping_profile`).

        The law of the floating-point sampler (``U`` on the grid ``2^-53 Z``, ``ln`` and the sum
        rounded) is not this one, and cannot be certified here: it depends on numpy's ``log``, whose
        rounding is not specified (Mironov's Thm 1 assumes a correctly rounded one), so an audit with
        ``float_bits=True`` gets no bracket.
        """
        from dpaudit.exact.laplace_variants import snapping_profile
        from dpaudit.exact.pairs import paired_arrays

        x0, x1 = (float(np.clip(x, -self.bound, self.bound)) for x in paired_arrays("SnappingLaplace.privacy_profile", d0, d1, ndim=0))
        return snapping_profile(x0, x1, self.scale, self.grid, self.bound,
                                description=f"snapping mechanism over the reals [Mir12], lambda = {self.scale:.6g}, Lambda = {self.grid:g}")
