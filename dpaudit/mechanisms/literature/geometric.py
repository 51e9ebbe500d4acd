"""The truncated geometric mechanism sampled exactly with integers: GeoSample [BV18, Alg. 4.8].

``data`` is a count ``c`` in ``{0, ..., n}`` (sensitivity 1). The output ``z`` in ``{0, ..., n}``
has ``P[z] ∝ alpha^|z - c|`` with ``alpha = 2^k / (2^k + 1)``, the tails folded onto 0 and ``n``
[GRS09]. With ``beta = 2^k`` and ``gamma = 2^k + 1`` every probability is an integer over
``d = (2 beta + 1) gamma^(n-1)``: ``d P[z] = beta^|z-c| gamma^(n-1-|z-c|)`` inside and
``beta^c gamma^(n-c)`` (``beta^(n-c) gamma^c``) at 0 (``n``), so the sampler draws a uniform
integer in ``[1, d]`` and inverts the integer CDF: no floating point anywhere. It is
``ln(1 + 2^-k)``-DP [BV18, Thm 4.7]: adjacent counts change every probability by a factor
``gamma / beta`` at most.

DP-Sniper audits it with ``eps = 0.1``, ``n = 5`` and ``k = ceil(ln(2 / eps)) = 3`` (the natural
logarithm, as in their code), hence the claim ``ln(9/8) = 0.1178``.

References
----------
.. [BV18] V. Balcer and S. Vadhan. Differential privacy on finite computers. ITCS 2018,
   arXiv:1709.05396, Alg. 4.8 and Thm 4.7.
.. [GRS09] A. Ghosh, T. Roughgarden and M. Sundararajan. Universally utility-maximizing privacy
   mechanisms. STOC 2009.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_int
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase, check_integer_valued, check_size
from dpaudit.neighbors.relations import QueryDistance

if TYPE_CHECKING:
    from dpaudit.exact import PrivacyProfile

__all__ = ["TruncatedGeometric"]


@dataclass(frozen=True)
class TruncatedGeometric(MechanismBase):
    """GeoSample(k, n) [BV18, Alg. 4.8]: exact integer sampling, ``ln(1 + 2^-k)``-DP [BV18, Thm 4.7]."""

    k: int = 3
    n: int = 5

    def __post_init__(self) -> None:
        check_int("TruncatedGeometric", "k", self.k, minimum=1)
        check_int("TruncatedGeometric", "n", self.n, minimum=1)
        d = (2 ** (self.k + 1) + 1) * (2**self.k + 1) ** (self.n - 1)
        if d >= 2**62:  # the integer CDF must fit numpy's int64
            raise argument_error("TruncatedGeometric", "k", f"small enough that (2^(k+1)+1)(2^k+1)^(n-1) < 2^62 (n={self.n})", self.k)

    @property
    def epsilon(self) -> float:
        """``ln(1 + 2^-k)``: the guarantee of GeoSample(k, n) [BV18, Thm 4.7]."""
        return math.log1p(2.0 ** -self.k)

    def weights(self, c: int) -> list[int]:
        """Integer weights ``d P[z]`` for ``z = 0..n`` (exact Python integers)."""
        beta, gamma, n = 2**self.k, 2**self.k + 1, self.n
        w = [beta ** abs(z - c) * gamma ** (n - 1 - abs(z - c)) for z in range(n + 1)]
        w[0] = beta**c * gamma ** (n - c)
        w[n] = beta ** (n - c) * gamma**c
        return w

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int64]:
        """``size`` exact draws of GeoSample(k, n) [BV18, Alg. 4.8] by inverse CDF over its integer weights.

        Returns
        -------
        ndarray of int64
            Shape ``(size,)``; values in ``{0, ..., n}``.
        """
        owner = "TruncatedGeometric.sample"
        count = self._count(owner, "data", data)
        size = check_size(owner, size)
        cdf = np.cumsum(np.array(self.weights(count), dtype=np.int64))
        u = rng.integers(1, int(cdf[-1]) + 1, size=size)  # uniform on {1, ..., d}
        return np.searchsorted(cdf, u, side="left").astype(np.int64)

    def claimed_guarantee(self) -> PureDP:
        """``ln(1 + 2^-k)``-DP for a count of sensitivity 1 [BV18, Thm 4.7]."""
        return PureDP(self.epsilon, QueryDistance(1.0, "l1"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The exact law (rational): the integer weights of both counts [BV18, Alg. 4.8]."""
        from dpaudit.exact.closed_forms import weights_profile

        counts = [self._count("TruncatedGeometric.privacy_profile", name, d) for name, d in (("d0", d0), ("d1", d1))]
        return weights_profile(self.weights(counts[0]), self.weights(counts[1]),
                               f"GeoSample k = {self.k}, n = {self.n}, counts {counts[0]} and {counts[1]}")

    def _count(self, owner: str, name: str, data: Any) -> int:
        c = check_integer_valued(owner, name, data)
        if c.size != 1 or not 0 <= int(c.ravel()[0]) <= self.n:
            raise argument_error(owner, name, f"a single count in [0, {self.n}]", data)
        return int(c.ravel()[0])
