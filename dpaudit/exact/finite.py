"""Finite output spaces: the pair's two probability vectors, each entry enclosed, and their profile.

``H_a(P || Q) = sum_o (P(o) - a Q(o))_+`` over the outputs ``o`` [BBG18, Def. 1]: with
``P(o) in [p_lo, p_hi]`` and ``Q(o) in [q_lo, q_hi]`` each term lies between
``(p_lo - a_hi q_hi)_+`` and ``(p_hi - a_lo q_lo)_+``; the float arithmetic is rounded outward
operation by operation, and the sums are bounded with [Hig02, Eq. (3.4)]
(:func:`dpaudit.exact.enclosure.sum_bounds`). Outputs with the same likelihood ratio may be
merged (the ratio is a sufficient statistic for the hockey-stick divergence), which is how the
builders below keep countable supports finite.

References
----------
.. [BBG18] B. Balle, G. Barthe and M. Gaboardi. NeurIPS 2018, Definition 1.
.. [Hig02] N. J. Higham. Accuracy and Stability of Numerical Algorithms, 2nd ed., SIAM 2002.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import TypedDict, Unpack

import numpy as np
from flint import arb
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_exact_float_array
from dpaudit.exact.enclosure import (
    Enclosure,
    arb_bounds,
    arb_of,
    fraction_bounds,
    precision,
    sum_bounds,
)
from dpaudit.exact.profile import EXACT, PrivacyProfile, exp_bounds

__all__ = ["FiniteProfile", "finite_from_arbs", "finite_from_fractions", "product"]

#: Largest output space a product is enumerated over; beyond it compose privacy-loss distributions.
MAX_PRODUCT_OUTPUTS = 200_000


def _mul_down(a: NDArray[np.float64], b: NDArray[np.float64] | float) -> NDArray[np.float64]:
    with np.errstate(invalid="ignore", over="ignore"):
        return np.maximum(np.nextafter(np.where(a == 0, 0.0, a * b), -np.inf), 0.0)  # 0 * inf is 0 here


def _mul_up(a: NDArray[np.float64], b: NDArray[np.float64] | float) -> NDArray[np.float64]:
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(a == 0, 0.0, np.nextafter(a * b, np.inf))


class FiniteOptions(TypedDict, total=False):
    """The keyword options :func:`finite_from_fractions` and :func:`finite_from_arbs` pass on to :class:`FiniteProfile`."""

    labels: Sequence[str] | None
    description: str
    kind: str
    exact_max_losses: tuple[Fraction | None, Fraction | None] | None


class FiniteProfile(PrivacyProfile):
    """The profile of two laws on the same finite set of outputs, given as entry-wise enclosures.

    Parameters
    ----------
    p_lo, p_hi : array of float
        Bounds of ``P(o)``, the law on ``d0``.
    q_lo, q_hi : array of float
        Bounds of ``Q(o)``, the law on ``d1``.
    labels : sequence of str, optional
        What each output is (for reports).
    description : str
        What the pair is.
    kind : {"exact", "upper bound"}
        ``"upper bound"`` for a dominating pair rather than the pair's own law.
    exact_probabilities : tuple of two lists of Fraction, optional
        The exact probabilities when they are rational.
    exact_max_losses : tuple of two Fraction or None, optional
        The largest privacy loss in each direction when it is a known rational (makes the
        epsilon at delta = 0 exact, e.g. ``rate * shift`` for the discrete Laplace).
    """

    def __init__(
        self,
        p_lo: NDArray[np.float64],
        p_hi: NDArray[np.float64],
        q_lo: NDArray[np.float64],
        q_hi: NDArray[np.float64],
        *,
        labels: Sequence[str] | None = None,
        description: str = "finite outputs",
        kind: str = EXACT,
        exact_probabilities: tuple[Sequence[Fraction], Sequence[Fraction]] | None = None,
        exact_max_losses: tuple[Fraction | None, Fraction | None] | None = None,
    ) -> None:
        # bounds are read as the floats they equal (a rounded bound could cross the value it bounds)
        arrays = [check_exact_float_array("FiniteProfile", name, x) for name, x in
                  (("p_lo", p_lo), ("p_hi", p_hi), ("q_lo", q_lo), ("q_hi", q_hi))]
        if len({a.size for a in arrays}) != 1 or arrays[0].size == 0:
            raise argument_error("FiniteProfile", "p_lo", "four non-empty arrays of one size", [a.size for a in arrays])
        for lo, hi, name in ((arrays[0], arrays[1], "p"), (arrays[2], arrays[3], "q")):
            if not (np.all(lo >= 0) and np.all(lo <= hi) and np.all(np.isfinite(hi))):
                raise argument_error("FiniteProfile", f"{name}_lo, {name}_hi", "finite bounds with 0 <= lo <= hi", (lo, hi))
        self.p_lo, self.p_hi, self.q_lo, self.q_hi = arrays
        self.labels = tuple(labels) if labels is not None else None
        self.description = description
        self.kind = kind
        self._exact = exact_probabilities
        self._exact_max = exact_max_losses

    @property
    def size(self) -> int:
        """The number of outputs."""
        return int(self.p_lo.size)

    def _laws(self, direction: int) -> tuple[NDArray[np.float64], ...]:
        if direction == 0:
            return self.p_lo, self.p_hi, self.q_lo, self.q_hi
        return self.q_lo, self.q_hi, self.p_lo, self.p_hi

    def hockey_stick(self, epsilon: float, direction: int) -> Enclosure:
        """Enclosure of ``H_{e^epsilon} = sum_o (P(o) - e^epsilon Q(o))_+`` in ``direction``.

        Each term is rounded outward; a term with nothing to subtract keeps its mass exactly.
        """
        a = exp_bounds(epsilon)
        p_lo, p_hi, q_lo, q_hi = self._laws(direction)
        prod_lo, prod_hi = _mul_down(q_lo, a.lo), _mul_up(q_hi, a.hi)
        # a term with nothing to subtract is exact: keep it so (an atom of mass exactly delta stays delta)
        hi = np.where(prod_lo == 0, p_hi, np.maximum(np.nextafter(p_hi - prod_lo, np.inf), 0.0))
        lo = np.where(prod_hi == 0, p_lo, np.maximum(np.nextafter(p_lo - prod_hi, -np.inf), 0.0))
        return sum_bounds(lo, hi)

    def infinite_loss_mass(self, direction: int) -> Enclosure:
        """Enclosure of the numerator law's mass on outputs the denominator law cannot produce."""
        p_lo, p_hi, q_lo, q_hi = self._laws(direction)
        return sum_bounds(p_lo[q_hi == 0], p_hi[q_lo == 0])

    def max_loss(self, direction: int) -> Enclosure:
        """Enclosure of ``max_o ln(P(o)/Q(o))`` over outputs of positive numerator mass (``+inf`` if ``Q(o) = 0``)."""
        p_lo, p_hi, q_lo, q_hi = self._laws(direction)
        support = p_hi > 0
        if np.any(support & (q_lo == 0)):
            hi = math.inf
        else:
            hi = _log_ratio(float(np.max(np.nextafter(p_hi[support] / q_lo[support], np.inf))), upper=True)
        certain = p_lo > 0
        if np.any(certain & (q_hi == 0)):
            lo = math.inf
        elif np.any(certain):
            lo = _log_ratio(float(np.max(np.nextafter(p_lo[certain] / q_hi[certain], -np.inf))), upper=False)
        else:
            lo = -math.inf
        return Enclosure(lo, hi)

    def exact_max_loss(self, direction: int) -> Fraction | None:
        """Given at construction, or 0 when the exact laws are equal (``ln`` of a rational is rational only at 1)."""
        if self._exact_max is not None:
            return self._exact_max[direction]
        if self._exact is None:
            return None
        p, q = self._exact if direction == 0 else self._exact[::-1]
        if all(a == b for a, b in zip(p, q, strict=True)):
            return Fraction(0)
        return None

    def loss_atoms(self, direction: int) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], Enclosure]:
        """The privacy-loss distribution under the numerator law: ``(loss_lo, loss_hi, mass_lo, mass_hi, infinite)``.

        Outputs with zero numerator mass are left out (their loss is -inf, which the hockey-stick
        divergence never counts); outputs the denominator cannot produce form the infinite mass.
        """
        p_lo, p_hi, q_lo, q_hi = self._laws(direction)
        finite = (p_hi > 0) & (q_lo > 0)
        loss_lo = np.empty(int(finite.sum()))
        loss_hi = np.empty_like(loss_lo)
        with precision():
            for j, i in enumerate(np.flatnonzero(finite)):
                loss_hi[j] = _log_ratio(float(np.nextafter(p_hi[i] / q_lo[i], np.inf)), upper=True)
                if p_lo[i] > 0 and q_hi[i] > 0:
                    loss_lo[j] = _log_ratio(float(np.nextafter(p_lo[i] / q_hi[i], -np.inf)), upper=False)
                else:
                    loss_lo[j] = -math.inf
        mass_lo = np.where(np.isfinite(loss_lo), p_lo[finite], 0.0)
        return loss_lo, loss_hi, mass_lo, p_hi[finite], self.infinite_loss_mass(direction)


def _log_ratio(ratio: float, *, upper: bool) -> float:
    if ratio == 0:
        return -math.inf
    b = arb_bounds(arb_of(ratio).log())
    return b.hi if upper else b.lo


def finite_from_fractions(p: Sequence[Fraction], q: Sequence[Fraction], **kwargs: Unpack[FiniteOptions]) -> FiniteProfile:
    """A finite profile from exact rational probabilities (each rounded outward to floats)."""
    if len(p) != len(q):
        raise argument_error("finite_from_fractions", "q", f"as long as p ({len(p)})", len(q))
    pb = [fraction_bounds(x) for x in p]
    qb = [fraction_bounds(x) for x in q]
    return FiniteProfile(
        np.array([b.lo for b in pb]), np.array([b.hi for b in pb]), np.array([b.lo for b in qb]), np.array([b.hi for b in qb]),
        exact_probabilities=(list(p), list(q)), **kwargs,
    )


def finite_from_arbs(p: Sequence[arb], q: Sequence[arb], **kwargs: Unpack[FiniteOptions]) -> FiniteProfile:
    """A finite profile from Arb balls of the probabilities (negative lower ends clipped to 0)."""
    pb = [arb_bounds(x) for x in p]
    qb = [arb_bounds(x) for x in q]
    return FiniteProfile(
        np.array([max(b.lo, 0.0) for b in pb]), np.array([b.hi for b in pb]),
        np.array([max(b.lo, 0.0) for b in qb]), np.array([b.hi for b in qb]), **kwargs,
    )


def product(profiles: Sequence[FiniteProfile], *, description: str | None = None) -> FiniteProfile:
    """The profile of independent finite releases side by side (the product laws), enumerated.

    Raises :class:`ValueError`-derived ``InvalidArgument`` when the product has more than
    ``MAX_PRODUCT_OUTPUTS`` outputs (compose privacy-loss distributions instead).
    """
    if not profiles:
        raise argument_error("product", "profiles", "at least one profile", profiles)
    total = math.prod(p.size for p in profiles)
    if total > MAX_PRODUCT_OUTPUTS:
        raise argument_error("product", "profiles", f"a product of at most {MAX_PRODUCT_OUTPUTS} outputs", total)
    p_lo, p_hi, q_lo, q_hi = (np.ones(1) for _ in range(4))
    for f in profiles:
        p_lo = _outer(p_lo, f.p_lo, down=True)
        p_hi = _outer(p_hi, f.p_hi, down=False)
        q_lo = _outer(q_lo, f.q_lo, down=True)
        q_hi = _outer(q_hi, f.q_hi, down=False)
    kind = EXACT if all(f.kind == EXACT for f in profiles) else "upper bound"
    text = description or " x ".join(f.description for f in profiles)
    return FiniteProfile(p_lo, p_hi, q_lo, q_hi, description=text, kind=kind)


def _outer(a: NDArray[np.float64], b: NDArray[np.float64], *, down: bool) -> NDArray[np.float64]:
    prod = np.multiply.outer(a, b).ravel()  # one correctly rounded multiply per entry
    return np.maximum(np.nextafter(prod, -np.inf), 0.0) if down else np.nextafter(prod, np.inf)
