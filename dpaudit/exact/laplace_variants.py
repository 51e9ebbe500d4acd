"""Laplace laws beyond a shift: two different scales, and Laplace noise snapped to a grid and clamped.

* ``Lap(m0, s0)`` against ``Lap(m1, s1)``: on each interval between ``m0`` and ``m1`` both densities
  are single exponentials, ``ln(p / (a q))`` is affine in the output, and ``H_a = int (p - a q)_+``
  integrates each density over the part of the interval where that affine function is positive
  (its root in Arb). With ``s0 > s1`` the loss ``ln(p/q)`` grows without bound in both tails, so
  ``P`` against ``Q`` is not DP for any epsilon (``delta(eps) > 0`` for every ``eps``), while the
  other direction's largest loss is its value at ``m0`` or ``m1``. This is the law of a noisy sum
  divided by a private count [KMR23, MeanMechanism]: ``(S + Lap(b)) / n = Lap(S/n, b/n)``.
* Mironov's snapping mechanism [Mir12, Sec. 5] over the reals: ``clamp_B(Lambda round((x + Lap(lambda)) /
  Lambda))``. The output is a grid point or ``+-B``; its probability is the Laplace mass of the cell of
  noisy values rounding to it (ties have probability 0). Left of both inputs every cell has the
  same likelihood ratio ``e^{(x0 - x1)/lambda}`` (and right of both the inverse), so those cells are merged
  (the ratio is sufficient for the profile), leaving about ``|x1 - x0| / Lambda + 3`` outputs.

References
----------
.. [KMR23] W. Kong, A. Muñoz Medina, M. Ribero et al. DP-Auditorium. arXiv:2307.05608 (MeanMechanism
   with the true count).
.. [Mir12] I. Mironov. On significance of the least significant bits for differential privacy.
   CCS 2012, Sec. 5 and Thm 1.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from flint import arb

from dpaudit._validation import argument_error, check_exact_float, check_positive, exact_rational
from dpaudit.exact.cells import laplace_cdf
from dpaudit.exact.enclosure import (
    Enclosure,
    arb_bounds,
    arb_of,
    fraction_bounds,
    precision,
    sum_bounds,
)
from dpaudit.exact.finite import FiniteProfile, finite_from_arbs
from dpaudit.exact.profile import PrivacyProfile, ProfileUnavailable

__all__ = ["LaplaceScalesProfile", "snapping_profile"]

#: Largest number of distinct outputs of a snapping profile.
MAX_SNAPPED_OUTPUTS = 100_000
_ZERO = Enclosure(0.0, 0.0)


class LaplaceScalesProfile(PrivacyProfile):
    """``Lap(loc0, scale0)`` against ``Lap(loc1, scale1)``, exactly (locations and scales exact rationals).

    Parameters
    ----------
    loc0, scale0, loc1, scale1 : Fraction or float
        The two laws (scales > 0).
    description : str, optional
    """

    def __init__(self, loc0: Fraction | float, scale0: Fraction | float, loc1: Fraction | float, scale1: Fraction | float,
                 *, description: str | None = None) -> None:
        # read exactly (every later step is rational or Arb): a Fraction such as a count's mean stays itself
        owner = "LaplaceScalesProfile"
        values = [exact_rational(owner, name, v) for name, v in (("loc0", loc0), ("scale0", scale0), ("loc1", loc1), ("scale1", scale1))]
        for name, v in zip(("loc0", "scale0", "loc1", "scale1"), values, strict=True):
            if not isinstance(v, Fraction):
                raise argument_error(owner, name, "finite", v)
        self.locs = (Fraction(values[0]), Fraction(values[2]))
        self.scales = (Fraction(values[1]), Fraction(values[3]))
        if min(self.scales) <= 0:
            raise argument_error("LaplaceScalesProfile", "scale0, scale1", "> 0", self.scales)
        cuts = sorted(set(self.locs))
        self.pieces: list[tuple[Fraction | None, Fraction | None]] = list(zip([None, *cuts], [*cuts, None], strict=True))
        self.description = description or (f"Laplace({float(self.locs[0]):g}, {float(self.scales[0]):g}) against "
                                            f"Laplace({float(self.locs[1]):g}, {float(self.scales[1]):g})")

    def _law(self, d: int, piece: tuple[Fraction | None, Fraction | None]) -> tuple[Fraction, arb]:
        """``(rate, log-coefficient)`` with ``density = e^{log-coefficient + rate y}`` on the piece."""
        loc, scale = self.locs[d], self.scales[d]
        left = piece[1] is not None and piece[1] <= loc  # the piece lies left of the location
        rate = 1 / scale if left else -1 / scale
        return rate, -arb_of(rate) * arb_of(loc) - (2 * arb_of(scale)).log()

    def _mass(self, d: int, piece: tuple[Fraction | None, Fraction | None], lo: arb | None, hi: arb | None) -> arb:
        """``int_lo^hi`` of law ``d``'s density (``None``: the piece's infinite end)."""
        rate, log_c = self._law(d, piece)
        r = arb_of(rate)
        upper = arb(0) if hi is None else (log_c + r * hi).exp()
        lower = arb(0) if lo is None else (log_c + r * lo).exp()
        return (upper - lower) / r

    def hockey_stick(self, epsilon: float, direction: int) -> Enclosure:
        """Enclosure of ``H_{e^epsilon} = int (p - e^epsilon q)_+`` in ``direction``.

        Integrated piece by piece between the locations, where ``ln(p / (a q))`` is affine in the
        output (see the module docstring); the roots are Arb balls.
        """
        num, den = (0, 1) if direction == 0 else (1, 0)
        with precision():
            log_a = arb_of(epsilon)
            lo_terms, hi_terms = [], []
            for piece in self.pieces:
                (rn, cn), (rd, cd) = self._law(num, piece), self._law(den, piece)
                # ln p - ln(a q) = u + v y on the piece
                u, v = cn - cd - log_a, rn - rd
                ends = [None if e is None else arb_of(e) for e in piece]
                if v == 0:
                    if u > 0:
                        region = ends
                    elif u < 0:
                        continue
                    else:  # p = a q up to rounding: the term is 0 or tiny, in [0, its upper bound]
                        value = self._mass(num, piece, *ends) - log_a.exp() * self._mass(den, piece, *ends)
                        hi_terms.append(max(arb_bounds(value).hi, 0.0))
                        lo_terms.append(0.0)
                        continue
                else:
                    root = -u / arb_of(v)
                    if v > 0:  # positive right of the root
                        low = root if ends[0] is None else root.max(ends[0])
                        if ends[1] is not None and low > ends[1]:
                            continue
                        region = [low if ends[1] is None else low.min(ends[1]), ends[1]]
                    else:
                        high = root if ends[1] is None else root.min(ends[1])
                        if ends[0] is not None and high < ends[0]:
                            continue
                        region = [ends[0], high if ends[0] is None else high.max(ends[0])]
                value = self._mass(num, piece, *region) - log_a.exp() * self._mass(den, piece, *region)
                b = arb_bounds(value)
                lo_terms.append(max(b.lo, 0.0))
                hi_terms.append(max(b.hi, 0.0))
        total = sum_bounds(np.array(lo_terms), np.array(hi_terms)) if lo_terms else _ZERO
        return Enclosure(total.lo, min(total.hi, 1.0))

    def infinite_loss_mass(self, direction: int) -> Enclosure:
        """Zero: both Laplace laws have full support."""
        return _ZERO

    def _unbounded(self, direction: int) -> bool:
        return self.scales[direction] > self.scales[1 - direction]  # heavier tails in the numerator

    def max_loss(self, direction: int) -> Enclosure:
        """Enclosure of the largest loss: ``+inf`` when the numerator's scale is larger, else its value at a location."""
        if self._unbounded(direction):
            return Enclosure(math.inf, math.inf)
        num, den = (0, 1) if direction == 0 else (1, 0)
        with precision():
            values = []
            for y in set(self.locs):
                ly = arb_of(y)
                loss = (-abs(ly - arb_of(self.locs[num])) / arb_of(self.scales[num]) - arb_of(self.scales[num]).log()
                        + abs(ly - arb_of(self.locs[den])) / arb_of(self.scales[den]) + arb_of(self.scales[den]).log())
                values.append(arb_bounds(loss))
            if self.scales[0] == self.scales[1]:  # equal scales: the tails' constant loss, +-|m1 - m0| / s
                values.append(fraction_bounds(abs(self.locs[1] - self.locs[0]) / self.scales[0]))
        return Enclosure(max(v.lo for v in values), max(v.hi for v in values))


def snapping_profile(x0: float, x1: float, scale: float, grid: float, bound: float, *, description: str) -> FiniteProfile:
    """Mironov's snapping mechanism over the reals on the (already clamped) inputs ``x0``, ``x1``.

    ``scale`` is ``lambda``, ``grid`` is ``Lambda`` (a power of two), ``bound`` is ``B``. Every
    number is read as the float it equals (:func:`dpaudit._validation.check_exact_float`).
    """
    owner = "snapping_profile"
    x0, x1 = (check_exact_float(owner, name, v) for name, v in (("x0", x0), ("x1", x1)))
    scale, grid, bound = (check_positive(owner, name, check_exact_float(owner, name, v))
                          for name, v in (("scale", scale), ("grid", grid), ("bound", bound)))
    lam, big = Fraction(grid), Fraction(bound)
    m_low, m_high = math.floor(-big / lam), math.ceil(big / lam)  # the outputs -B and +B; grid points strictly between
    lo_x, hi_x = Fraction(min(x0, x1)), Fraction(max(x0, x1))
    first = max(m_low, math.floor(lo_x / lam - Fraction(1, 2)))  # the last cut at or below both inputs
    last = min(m_high - 1, math.ceil(hi_x / lam - Fraction(1, 2)))  # the first cut at or above both
    if last - first > MAX_SNAPPED_OUTPUTS:
        raise ProfileUnavailable(f"snapping: {last - first} grid cells between the two inputs (more than {MAX_SNAPPED_OUTPUTS})")
    cuts = [(m + Fraction(1, 2)) * lam for m in range(first, last + 1)]
    with precision():
        b = arb_of(scale)
        laws = []
        for x in (Fraction(x0), Fraction(x1)):
            cdf = [arb(0), *(laplace_cdf(c - x, b) for c in cuts), arb(1)]
            laws.append([hi - lo for lo, hi in itertools.pairwise(cdf)])
        labels = [f"<= {float(cuts[0]):g} (merged)"] + [f"{float((first + k + 1) * lam):g}" for k in range(len(cuts) - 1)]
        labels.append(f">= {float(cuts[-1]):g} (merged)")
        return finite_from_arbs(laws[0], laws[1], labels=labels, description=description)
