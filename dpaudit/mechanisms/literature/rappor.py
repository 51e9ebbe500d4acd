"""RAPPOR [EPK14]: a Bloom filter of the client's value, then randomized response on its bits.

``data`` is the client's value (an integer); in local DP any two values are neighbours
(:class:`AnyTwoValues`). The value sets ``hashes`` of the ``filter_size`` bits. The permanent
randomized response (PRR) keeps each bit with probability ``1 - f`` and otherwise sets it to 1 or
0 with probability ``f/2`` each; the instantaneous one (IRR) reports 1 with probability ``q`` for
a PRR bit of 1 and ``p`` for a 0.

* :class:`OneTimeRappor` releases the PRR bits: ``eps_inf = 2h ln((1 - f/2) / (f/2))``-DP
  [EPK14, Sec. 3.1, Thm 1].
* :class:`Rappor` releases one IRR report: with ``q* = f(p+q)/2 + (1-f) q`` and
  ``p* = f(p+q)/2 + (1-f) p``, ``eps_1 = h ln(q* (1 - p*) / (p* (1 - q*)))``-DP [EPK14, Sec. 3.1,
  Thm 2], the privacy of a single report.

Both bounds are tight when the two values' bits do not overlap. The Bloom-filter hash here is
BLAKE2b of the value and the hash index (DP-Sniper uses MurmurHash3; any fixed hash gives the
same guarantee, and the suite's pairs set disjoint bits with this one).

References
----------
.. [EPK14] U. Erlingsson, V. Pihur and A. Korolova. RAPPOR: randomized aggregatable
   privacy-preserving ordinal response. CCS 2014.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_array, check_in_range, check_int
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import NeighborRelation

if TYPE_CHECKING:
    from dpaudit.exact import PrivacyProfile

__all__ = ["AnyTwoValues", "OneTimeRappor", "Rappor", "bloom_bits"]


@dataclass(frozen=True)
class AnyTwoValues(NeighborRelation):
    """Local DP: any two inputs of the same shape are neighbours."""

    name = "any two values (local DP)"
    min_ndim = 0

    def _reason_not_neighbors(self, a: NDArray[Any], b: NDArray[Any]) -> str | None:
        return None if a.shape == b.shape else f"inputs must have equal shapes, got {a.shape} and {b.shape}"


def bloom_bits(value: int, hashes: int, filter_size: int) -> NDArray[np.int64]:
    """The Bloom-filter bit positions set by ``value`` (a fixed hash; repeats possible)."""
    return np.array(
        [int.from_bytes(hashlib.blake2b(f"bloom:{value}:{i}".encode(), digest_size=8).digest(), "little") % filter_size for i in range(hashes)],
        dtype=np.int64,
    )


class _Bloom:
    hashes: int
    filter_size: int
    f: float

    def _check_bloom(self) -> None:
        owner = type(self).__name__
        check_int(owner, "hashes", self.hashes, minimum=1)
        check_int(owner, "filter_size", self.filter_size, minimum=1)
        check_in_range(owner, "f", self.f, 0.0, 1.0, low_closed=False, high_closed=True)

    def _value(self, data: Any) -> int:
        owner = f"{type(self).__name__}.sample"
        x = check_array(owner, "data", data, dtype=None)
        if x.size != 1 or not float(x.ravel()[0]).is_integer():
            raise argument_error(owner, "data", "a single integer value", data)
        return int(x.ravel()[0])

    def _permanent(self, data: Any, size: int, rng: np.random.Generator) -> NDArray[np.int8]:
        size = check_size(f"{type(self).__name__}.sample", size)
        truth = self._truth(self._value(data))
        u = rng.random((size, self.filter_size))
        # with probability f/2 set to 1, f/2 set to 0, else keep [EPK14, Sec. 2, step 2]
        return np.where(u < self.f / 2, 1, np.where(u < self.f, 0, truth)).astype(np.int8)

    def claimed_guarantee(self) -> PureDP:
        return PureDP(self.epsilon, AnyTwoValues())

    @property
    def epsilon(self) -> float:
        raise NotImplementedError

    def _report_one(self, truth: int) -> Fraction:
        """``P(reported bit = 1 | Bloom bit = truth)``, exactly as the sampler realises it."""
        raise NotImplementedError

    def _permanent_one(self, truth: int) -> Fraction:
        """``P(permanent bit = 1)``: ``u < f/2`` sets 1, ``f/2 <= u < f`` sets 0, else the truth."""
        set_one = _below(self.f / 2)
        return set_one + (1 - _below(self.f)) * truth

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The exact law (rational) of the reported bits.

        Bits set by both values have one law on both and cancel; the rest are merged by how many of
        each kind are reported 1.
        """
        from dpaudit.exact.finite import finite_from_fractions

        t0, t1 = (self._truth(self._value(d)) for d in (d0, d1))
        a = int(np.count_nonzero((t0 == 1) & (t1 == 0)))
        b = int(np.count_nonzero((t0 == 0) & (t1 == 1)))
        one, zero = self._report_one(1), self._report_one(0)

        def law(first: Fraction, second: Fraction) -> list[Fraction]:
            return [math.comb(a, k) * first**k * (1 - first) ** (a - k) * math.comb(b, j) * second**j * (1 - second) ** (b - j)
                    for k in range(a + 1) for j in range(b + 1)]

        return finite_from_fractions(law(one, zero), law(zero, one),
                                     description=f"{type(self).__name__}: {a} + {b} Bloom bits differ")

    def _truth(self, value: int) -> NDArray[np.int8]:
        truth = np.zeros(self.filter_size, dtype=np.int8)
        truth[bloom_bits(value, self.hashes, self.filter_size)] = 1
        return truth


def _below(t: float) -> Fraction:
    """``P(U < t)`` for numpy's ``Generator.random()``, uniform on the grid ``k / 2^53``: ``ceil(t 2^53) / 2^53``."""
    grid = 2**53
    return Fraction(min(math.ceil(Fraction(t) * grid), grid), grid)


@dataclass(frozen=True)
class OneTimeRappor(_Bloom, MechanismBase):
    """The permanent randomized response of RAPPOR [EPK14, steps 1-2]; ``eps_inf``-DP."""

    hashes: int = 4
    filter_size: int = 20
    f: float = 0.95

    def __post_init__(self) -> None:
        self._check_bloom()

    @property
    def epsilon(self) -> float:
        """``2h ln((1 - f/2) / (f/2))`` [EPK14, Thm 1]."""
        return 2 * self.hashes * math.log((1 - self.f / 2) / (self.f / 2))

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int8]:
        """``size`` permanent randomized responses of the Bloom filter of ``data`` [EPK14, steps 1-2].

        Returns
        -------
        ndarray of int8
            Shape ``(size, filter_size)``, bits in ``{0, 1}``.
        """
        return self._permanent(data, size, rng)

    def _report_one(self, truth: int) -> Fraction:
        return self._permanent_one(truth)


@dataclass(frozen=True)
class Rappor(_Bloom, MechanismBase):
    """One RAPPOR report: permanent then instantaneous randomized response [EPK14, steps 1-3]; ``eps_1``-DP."""

    hashes: int = 4
    filter_size: int = 20
    f: float = 0.75
    p: float = 0.45
    q: float = 0.55

    def __post_init__(self) -> None:
        self._check_bloom()
        check_in_range("Rappor", "p", self.p, 0.0, 1.0, low_closed=False, high_closed=False)
        check_in_range("Rappor", "q", self.q, self.p, 1.0, low_closed=False, high_closed=False)

    @property
    def epsilon(self) -> float:
        """``h ln(q* (1 - p*) / (p* (1 - q*)))`` [EPK14, Thm 2]."""
        q_star = 0.5 * self.f * (self.p + self.q) + (1 - self.f) * self.q
        p_star = 0.5 * self.f * (self.p + self.q) + (1 - self.f) * self.p
        return self.hashes * math.log(q_star * (1 - p_star) / (p_star * (1 - q_star)))

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int8]:
        """``size`` RAPPOR reports [EPK14, step 3]: a permanent 1 reported as 1 with probability ``q``, a permanent 0 with ``p``.

        Returns
        -------
        ndarray of int8
            Shape ``(size, filter_size)``, bits in ``{0, 1}``.
        """
        prr = self._permanent(data, size, rng)
        report_one = np.where(prr == 1, self.q, self.p)
        return (rng.random(prr.shape) < report_one).astype(np.int8)

    def _report_one(self, truth: int) -> Fraction:
        prr = self._permanent_one(truth)
        return prr * _below(self.q) + (1 - prr) * _below(self.p)
