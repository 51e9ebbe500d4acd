"""Exponential polynomials, integrated exactly in Arb.

The engine behind the selection and sparse-vector profiles.

Conditionally on one noise variable ``r`` (the threshold noise of sparse vector, the winning value
of report-noisy-max), the probability of an output is a product of Laplace or exponential CDFs and
densities. Between the points where their arguments change sign each factor is
``alpha + beta e^{r / b}``, so the integrand is an *exponential polynomial*
``sum_k c_k exp(lambda_k r)`` with ``lambda_k = sum_j k_j / b_j`` for integer vectors ``k`` over
the noise scales ``b_j``, and ``int_a^b c e^{lambda r} dr = c (e^{lambda b} - e^{lambda a}) / lambda``
(``c (b - a)`` at ``lambda = 0``, decided exactly on the rationals ``1/b_j``). The integral of
every output is so an exact formula evaluated in ball arithmetic: no quadrature error at all, only
Arb's rigorous rounding.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from flint import arb

from dpaudit.errors import EnclosureError
from dpaudit.exact.enclosure import arb_of

__all__ = ["ExpPoly", "Primitive", "interior_point"]

Key = tuple[int, ...]


class ExpPoly:
    """``sum_k c_k exp((sum_j k_j / b_j) r)`` over the scales ``b`` (Arb coefficients)."""

    __slots__ = ("scales", "terms")

    def __init__(self, scales: tuple[float, ...], terms: dict[Key, arb] | None = None) -> None:
        self.scales = scales
        self.terms: dict[Key, arb] = {} if terms is None else terms

    @classmethod
    def constant(cls, scales: tuple[float, ...], value: arb | int) -> ExpPoly:
        """The constant ``value`` over the scales ``scales``."""
        return cls(scales, {(0,) * len(scales): arb(value) if isinstance(value, int) else value})

    @classmethod
    def exponential(cls, scales: tuple[float, ...], which: int, sign: int, coefficient: arb) -> ExpPoly:
        """``coefficient * exp(sign * r / b_which)``."""
        key = tuple(sign if j == which else 0 for j in range(len(scales)))
        return cls(scales, {key: coefficient})

    def __add__(self, other: ExpPoly) -> ExpPoly:
        out = dict(self.terms)
        for k, c in other.terms.items():
            out[k] = out[k] + c if k in out else c
        return ExpPoly(self.scales, out)

    def __mul__(self, other: ExpPoly) -> ExpPoly:
        out: dict[Key, arb] = {}
        for k1, c1 in self.terms.items():
            for k2, c2 in other.terms.items():
                k = tuple(a + b for a, b in zip(k1, k2, strict=True))
                prod = c1 * c2
                out[k] = out[k] + prod if k in out else prod
        return ExpPoly(self.scales, out)

    def scaled(self, factor: arb | int) -> ExpPoly:
        """Every coefficient times ``factor``."""
        return ExpPoly(self.scales, {k: c * factor for k, c in self.terms.items()})

    def is_zero(self) -> bool:
        """True when there are no terms (the zero function)."""
        return not self.terms

    def integrate(self, low: float | None, high: float | None) -> arb:
        """``int_low^high`` (``None`` for an infinite end; every term must then decay there)."""
        total = arb(0)
        for key, c in self.terms.items():
            total += c * _integral_of_exp(self.scales, key, low, high)
        return total


def _is_zero_rate(scales: Sequence[float], key: Key) -> bool:
    return sum((Fraction(k) / Fraction(b) for k, b in zip(key, scales, strict=True)), Fraction(0)) == 0


def _rate(scales: Sequence[float], key: Key) -> arb:
    return sum((k / arb_of(b) for k, b in zip(key, scales, strict=True) if k), arb(0))


def _integral_of_exp(scales: Sequence[float], key: Key, low: float | None, high: float | None) -> arb:
    if _is_zero_rate(scales, key):
        if low is None or high is None:
            raise EnclosureError("a constant term on an infinite interval: the integrand does not decay")
        return arb_of(high) - arb_of(low)
    lam = _rate(scales, key)
    positive = sum(Fraction(k) / Fraction(b) for k, b in zip(key, scales, strict=True)) > 0
    if high is None:
        if positive:
            raise EnclosureError("a growing term on [a, inf): the integrand does not decay")
        upper = arb(0)
    else:
        upper = (lam * arb_of(high)).exp()
    if low is None:
        if not positive:
            raise EnclosureError("a growing term on (-inf, b]: the integrand does not decay")
        lower = arb(0)
    else:
        lower = (lam * arb_of(low)).exp()
    return (upper - lower) / lam


def interior_point(lo: float | None, hi: float | None) -> float:
    """A point inside the interval ``(lo, hi)`` (``None``: infinite end), to read off which piece applies."""
    if lo is None:
        return -1.0 if hi is None else hi - 1.0
    if hi is None:
        return lo + 1.0
    return 0.5 * (lo + hi)


class Primitive:
    """An antiderivative of an :class:`ExpPoly`, to evaluate at many points.

    ``sum_k c_k e^{lambda_k r} / lambda_k`` (``c_0 r`` for a zero rate): one exponential per term
    and point.
    """

    __slots__ = ("terms",)

    def __init__(self, poly: ExpPoly) -> None:
        self.terms: list[tuple[arb | None, arb, int]] = []  # (rate or None for 0, coefficient / rate, sign of the rate)
        for key, c in poly.terms.items():
            if _is_zero_rate(poly.scales, key):
                self.terms.append((None, c, 0))
            else:
                positive = sum(Fraction(k) / Fraction(b) for k, b in zip(key, poly.scales, strict=True)) > 0
                lam = _rate(poly.scales, key)
                self.terms.append((lam, c / lam, 1 if positive else -1))

    def at(self, x: float) -> arb:
        """The antiderivative at ``x`` (``-inf``/``+inf``: its limit, 0 for the decaying terms)."""
        total = arb(0)
        for lam, c, sign in self.terms:
            if math.isinf(x):
                if sign == 0 or (sign > 0) == (x > 0):
                    raise EnclosureError("the integrand does not decay at this infinite end")
                continue
            total += c * arb_of(x) if lam is None else c * (lam * arb_of(x)).exp()
        return total
