"""Rigorous enclosures of real numbers: every number here is a pair ``lo <= x <= hi`` of floats.

Three sources of certified numbers, and how each is turned into float bounds:

* exact rationals (:class:`fractions.Fraction`, Python integers): rounded to the nearest float
  (correctly rounded in CPython) and then stepped one float outward;
* Arb balls (python-flint's :class:`flint.arb`, ball arithmetic with rigorous error bounds
  [Joh17]): their lower and upper endpoints, each stepped one float outward;
* float arithmetic on numpy arrays, bounded by its worst-case rounding error: IEEE-754 ``+``, ``-``
  and ``*`` are correctly rounded, so one step outward (``nextafter``) bounds a single operation,
  and a sum of ``n`` non-negative floats computed in any order has a relative error at most
  ``gamma_{n-1} = (n - 1) u / (1 - (n - 1) u)`` with ``u = 2^-53`` [Hig02, Sec. 3.1, Eq. (3.4)].

No transcendental function is ever evaluated in plain float arithmetic: exponentials, logarithms
and ``erfc`` go through Arb.

References
----------
.. [Joh17] F. Johansson. Arb: efficient arbitrary-precision midpoint-radius interval arithmetic.
   IEEE Transactions on Computers 66(8), 2017.
.. [Hig02] N. J. Higham. Accuracy and Stability of Numerical Algorithms, 2nd ed., SIAM 2002.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
from flint import arb, ctx, fmpq
from numpy.typing import NDArray

from dpaudit._validation import exact_rational
from dpaudit.errors import EnclosureError

__all__ = [
    "PRECISION",
    "Enclosure",
    "arb_bounds",
    "arb_of",
    "down",
    "fraction_bounds",
    "precision",
    "sum_bounds",
    "up",
]

#: Working precision of Arb in bits inside :mod:`dpaudit.exact` (about 38 decimal digits).
PRECISION = 128

_U = 2.0**-53


class Enclosure(NamedTuple):
    """A certified enclosure ``lo <= x <= hi`` of a real number ``x`` (either end may be infinite)."""

    lo: float
    hi: float

    @property
    def width(self) -> float:
        """``hi - lo``."""
        return self.hi - self.lo

    def contains(self, value: float) -> bool:
        """True when ``lo <= value <= hi``."""
        return self.lo <= value <= self.hi

    def __str__(self) -> str:
        return f"[{self.lo:.10g}, {self.hi:.10g}]"


@contextlib.contextmanager
def precision(bits: int = PRECISION) -> Iterator[None]:
    """Run Arb at ``bits`` of precision (Arb's precision is global; restored on exit)."""
    old = ctx.prec
    ctx.prec = max(old, bits)
    try:
        yield
    finally:
        ctx.prec = old


def down(x: float) -> float:
    """The float just below ``x`` (``x`` itself when it is -inf)."""
    return math.nextafter(x, -math.inf)


def up(x: float) -> float:
    """The float just above ``x`` (``x`` itself when it is +inf)."""
    return math.nextafter(x, math.inf)


def arb_of(value: float | int | Fraction) -> arb:
    """The exact Arb value of a float, an integer or a fraction; nothing is rounded.

    Any other real (a Decimal, a numpy or sympy number) is read as its exact rational
    (:func:`dpaudit._validation.exact_rational`), never through ``float()``.
    """
    if isinstance(value, Fraction):
        return arb(fmpq(value.numerator, value.denominator))
    if isinstance(value, float):
        return arb(value)  # a double is exactly representable in Arb
    if isinstance(value, int) and not isinstance(value, bool):
        return arb(value)
    exact = exact_rational("arb_of", "value", value)
    return arb(exact) if isinstance(exact, float) else arb(fmpq(exact.numerator, exact.denominator))


def arb_bounds(x: arb) -> Enclosure:
    """Float bounds of an Arb ball, one float outward of its endpoints."""
    if not x.is_finite():
        raise EnclosureError(f"an Arb ball is not finite ({x}); the computation lost all precision")
    low, high = x.lower(), x.upper()  # exact points
    lo, hi = float(low), float(high)
    while arb(lo) > low:
        lo = down(lo)
    while arb(hi) < high:
        hi = up(hi)
    return Enclosure(lo, hi)


def fraction_bounds(value: Fraction | int) -> Enclosure:
    """Float bounds of an exact rational."""
    approx = float(value)  # correctly rounded (CPython divides integers exactly rounded)
    lo = approx if Fraction(approx) <= value else down(approx)
    hi = approx if Fraction(approx) >= value else up(approx)
    return Enclosure(lo, hi)


def sum_bounds(lo_terms: NDArray[np.float64], hi_terms: NDArray[np.float64]) -> Enclosure:
    """Bounds of ``sum(x_i)`` given ``lo_i <= x_i <= hi_i``: the exact sums of the float ends, rounded outward.

    ``math.fsum`` returns the correctly rounded exact sum; a second ``fsum`` of the terms minus that
    result is the (exactly representable) rounding error's sign, so a sum that is exact stays exact.
    """
    return Enclosure(_exact_sum(np.asarray(lo_terms, dtype=float), upper=False),
                     _exact_sum(np.asarray(hi_terms, dtype=float), upper=True))


def _exact_sum(terms: NDArray[np.float64], *, upper: bool) -> float:
    values = terms.ravel().tolist()
    s = math.fsum(values)
    if math.isinf(s):
        return s
    residual = math.fsum([*values, -s])
    if residual == 0:
        return s
    if upper:
        return up(s) if residual > 0 else s
    return down(s) if residual < 0 else s


def _gamma(n: int) -> float:
    """``gamma_n = n u / (1 - n u)`` rounded up [Hig02, Lemma 3.1], doubled for the final multiply."""
    nu = n * _U
    if nu >= 0.01:
        raise EnclosureError(f"too many terms ({n}) for the float summation bound")
    return up(2.0 * nu / (1.0 - nu))


def scaled_bounds(values: NDArray[np.float64], n_terms: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Bounds of exact values whose float computation summed at most ``n_terms`` non-negative products each.

    For a convolution of non-negative arrays computed in float (any summation order), every entry
    is within a relative ``gamma_{n_terms + 1}`` of the exact one [Hig02, Eq. (3.4) and Lemma 3.3].
    """
    gamma = _gamma(n_terms + 1)
    lo = np.nextafter(values * (1.0 - gamma), -np.inf)
    hi = np.nextafter(values * (1.0 + gamma), np.inf)
    return np.maximum(lo, 0.0), hi


def as_float_array(values: Any) -> NDArray[np.float64]:
    return np.ascontiguousarray(values, dtype=np.float64)
