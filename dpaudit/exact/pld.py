"""Privacy-loss distributions on a grid, rounded up and down: certified composition.

Under ``P`` the privacy loss ``L = ln(dP/dQ)`` takes values in ``(-inf, +inf]`` and
``H_{e^eps}(P || Q) = E_P[(1 - e^{eps - L})_+]`` [BW18, Thm 5]. For independent releases the
losses add, so the loss of a composition is the convolution of the steps' loss distributions
[KJH20; DGKKM22]. Here each is replaced by two measures on the grid ``k h`` (``h`` a power of
two, so ``k h`` is exact):

* ``upper``: ``upper(U) >= P_L(U)`` for every up-set ``U`` (rays ``(t, inf]``, ``[t, inf]``): loss
  rounded *up* to the grid, the tail above the grid moved to ``+inf``, the mass below it lumped
  onto its lowest point (the "pessimistic" discretisation of [DGKKM22, Sec. 3]);
* ``lower``: ``lower(U) <= P_L(U)`` for every up-set: loss rounded *down*, mass below the grid
  dropped.

Both orders are kept by convolution (``E f(X + Y)`` is non-decreasing in each law in this order
when ``f >= 0`` is non-decreasing with ``f(-inf) = 0``), and ``x -> (1 - e^{eps - x})_+`` is such an
``f``; so the two composed measures bracket the composed hockey-stick divergence. Masses are kept
as floats whose *exact* values respect the orders: every rounding is outward, convolutions are
widened by [Hig02, Eq. (3.4)], and the grid weights ``e^{-k h}`` come from Arb.

References
----------
.. [BW18] B. Balle and Y.-X. Wang. ICML 2018, Theorem 5.
.. [KJH20] A. Koskela, J. Jälkö and A. Honkela. Computing tight differential privacy guarantees
   using FFT. AISTATS 2020.
.. [DGKKM22] V. Doroshenko, B. Ghazi, P. Kamath, R. Kumar and P. Manurangsi. Connect the dots:
   tighter discrete approximations of privacy loss distributions. PoPETs 2022 (the pessimistic
   discretisation that dp-accounting implements).
.. [Hig02] N. J. Higham. Accuracy and Stability of Numerical Algorithms, 2nd ed., SIAM 2002.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_exact_float, check_positive
from dpaudit.exact.enclosure import (
    Enclosure,
    arb_bounds,
    arb_of,
    down,
    precision,
    scaled_bounds,
    sum_bounds,
    up,
)
from dpaudit.exact.profile import EXACT, PrivacyProfile, ProfileUnavailable, exp_bounds

__all__ = ["DEFAULT_RESOLUTION", "GridMeasure", "LossDistribution", "PLDProfile", "bin_masses", "grid_step"]

#: Default grid step of privacy losses (rounded down to a power of two): 2^-12 = 2.4e-4.
DEFAULT_RESOLUTION = 2.0**-12
#: Longest grid kept after a convolution (the lowest losses are lumped or dropped beyond it).
MAX_GRID = 1 << 16
#: Most grid points one release's loss distribution may span before composition (``2^22``: losses up
#: to 1024 at the default step); a wider range is refused (:class:`ProfileUnavailable`), not allocated.
MAX_SPAN = 1 << 22

_U = 2.0**-53


def grid_step(resolution: float) -> float:
    """The power of two at most ``resolution`` (so grid points ``k h`` are exact floats)."""
    resolution = check_positive("grid_step", "resolution", check_exact_float("grid_step", "resolution", resolution))
    return 2.0 ** math.floor(math.log2(resolution))


@dataclass(frozen=True)
class GridMeasure:
    """Non-negative masses on the grid points ``(start + j) h``, plus a mass at ``+inf``."""

    start: int
    masses: NDArray[np.float64]
    infinite: float
    _suffix: dict[float, tuple[NDArray[np.float64], NDArray[np.float64]]] = field(default_factory=dict, repr=False, compare=False)

    def total(self) -> Enclosure:
        """Enclosure of the finite masses' sum."""
        return sum_bounds(self.masses, self.masses)

    def suffix_sums(self, step: float, upper: bool) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(A, B)`` with ``A_j`` bounding ``sum_{i >= j} m_i`` and ``B_j`` bounding ``sum_{i >= j} m_i e^{-(start+i) h}``.

        Bounded from above when ``upper`` (then B from below: it is subtracted), else the reverse.
        """
        key = step if upper else -step
        if key not in self._suffix:
            self._suffix[key] = _suffix_sums(self, step, upper)
        return self._suffix[key]

    def top(self, step: float) -> float:
        """The largest grid point with positive mass (``+inf`` with mass at ``+inf``, ``-inf`` when empty)."""
        if self.infinite > 0:
            return math.inf
        nonzero = np.flatnonzero(self.masses > 0)
        return -math.inf if nonzero.size == 0 else (self.start + int(nonzero[-1])) * step


def _suffix_sums(m: GridMeasure, step: float, upper: bool) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    n = m.masses.size
    with precision():
        r = arb_bounds(arb_of(-step).exp())
        base = arb_bounds(arb_of(-m.start * step).exp())
    index = np.arange(n, dtype=float)
    gamma = np.nextafter(2.0 * (index + 1) * _U / (1.0 - (index + 1) * _U), np.inf)
    if upper:  # e^{-kh} from below
        powers = np.concatenate([[1.0], np.cumprod(np.full(n - 1, r.lo))]) if n > 1 else np.ones(1)
        weights = np.maximum(np.nextafter(powers * (1.0 - gamma) * base.lo, -np.inf), 0.0)
        terms = np.maximum(np.nextafter(m.masses * weights, -np.inf), 0.0)
    else:
        powers = np.concatenate([[1.0], np.cumprod(np.full(n - 1, r.hi))]) if n > 1 else np.ones(1)
        weights = np.nextafter(np.nextafter(powers * (1.0 + gamma), np.inf) * base.hi, np.inf)
        terms = np.nextafter(m.masses * weights, np.inf)
    g = 2.0 * (n + 1) * _U / (1.0 - (n + 1) * _U)
    a = np.cumsum(m.masses[::-1])[::-1]
    b = np.cumsum(terms[::-1])[::-1]
    if upper:
        return np.nextafter(a * (1.0 + g), np.inf), np.maximum(np.nextafter(b * (1.0 - g), -np.inf), 0.0)
    return np.maximum(np.nextafter(a * (1.0 - g), -np.inf), 0.0), np.nextafter(b * (1.0 + g), np.inf)


@dataclass(frozen=True)
class LossDistribution:
    """One direction's privacy-loss distribution as an ``upper`` and a ``lower`` grid measure."""

    step: float
    upper: GridMeasure
    lower: GridMeasure

    def hockey_stick(self, epsilon: float) -> Enclosure:
        """Enclosure of ``E[(1 - e^{eps - L})_+]`` from the two measures."""
        e = exp_bounds(epsilon)
        return Enclosure(self._side(self.lower, epsilon, e, upper=False), self._side(self.upper, epsilon, e, upper=True))

    def _side(self, m: GridMeasure, epsilon: float, e: Enclosure, *, upper: bool) -> float:
        j0 = max(0, math.floor(epsilon / self.step) - m.start + 1)  # first grid point strictly above epsilon
        if j0 >= m.masses.size:
            finite = 0.0
        else:
            a, b = m.suffix_sums(self.step, upper)
            if upper:
                finite = up(a[j0] - down(e.lo * b[j0]))
            else:
                finite = down(a[j0] - up(e.hi * b[j0]))
        total = up(finite + m.infinite) if upper else down(finite + m.infinite)
        return min(max(total, 0.0), 1.0) if upper else max(total, 0.0)

    def max_loss(self) -> Enclosure:
        """Enclosure of the largest loss: the lower measure's top to the upper measure's top."""
        return Enclosure(self.lower.top(self.step), self.upper.top(self.step))

    def infinite_mass(self) -> Enclosure:
        """Enclosure of the mass at ``+inf``: the lower measure's to the upper measure's."""
        return Enclosure(self.lower.infinite, self.upper.infinite)

    # -- construction ----------------------------------------------------------------------------
    @classmethod
    def from_atoms(cls, loss_lo: NDArray[np.float64], loss_hi: NDArray[np.float64], mass_lo: NDArray[np.float64],
                   mass_hi: NDArray[np.float64], infinite: Enclosure, step: float) -> LossDistribution:
        """From atoms whose losses lie in ``[loss_lo, loss_hi]`` and masses in ``[mass_lo, mass_hi]``."""
        upper = bin_masses(np.ceil(loss_hi / step), mass_hi, infinite.hi, upper=True)
        keep = np.isfinite(loss_lo) & (mass_lo > 0)
        lower = bin_masses(np.floor(loss_lo[keep] / step), mass_lo[keep], infinite.lo, upper=False)
        return cls(step, upper, lower)

    @classmethod
    def from_survival(cls, survival: Callable[[float], Enclosure], low: float, high: float, infinite: Enclosure,
                      step: float) -> LossDistribution:
        """From enclosures of ``S(t) = P(L > t)`` on the grid over ``[low, high]`` (``S`` counts the mass at ``+inf``).

        Upper: tail masses ``T_k >= S(g_{k-1})``, running minima of the upper enclosures, the mass
        below ``low`` lumped onto the lowest point and ``S(g_top)`` sent to ``+inf``. Lower: tails
        ``T'_k <= S(g_k)``, running maxima from the right of the lower enclosures.
        """
        k_lo, k_hi = math.floor(low / step), math.ceil(high / step)
        _check_span(k_hi - k_lo + 1, f"over the losses [{low:.6g}, {high:.6g}] at grid step {step:g}")
        points = np.arange(k_lo, k_hi + 1)
        bounds = [survival(float(k * step)) for k in points]
        s_lo = np.array([b.lo for b in bounds])
        s_hi = np.array([min(b.hi, 1.0) for b in bounds])
        # upper: T_k (k = k_lo..k_hi+1) with T_{k_lo} = 1 and T_k = min_{j <= k} S_hi(g_{j-1})
        tails = np.concatenate([[1.0], np.minimum.accumulate(s_hi)])
        tails = np.minimum.accumulate(tails)
        inf_hi = max(float(tails[-1]), infinite.hi)
        masses = np.nextafter(tails[:-1] - tails[1:], np.inf)
        upper = GridMeasure(k_lo, np.maximum(masses, 0.0), inf_hi)
        # lower: T'_k = max_{j >= k} max(S_lo(g_j), inf_lo), masses T'_k - T'_{k+1}, T'_{k_hi+1} = inf_lo
        floor_tail = np.maximum(s_lo, infinite.lo)
        lows = np.maximum.accumulate(floor_tail[::-1])[::-1]
        lows = np.concatenate([lows, [infinite.lo]])
        lmass = np.maximum(np.nextafter(lows[:-1] - lows[1:], -np.inf), 0.0)
        lower = GridMeasure(k_lo, lmass, infinite.lo)
        return cls(step, upper, lower)

    def compose(self, other: LossDistribution) -> LossDistribution:
        """The loss distribution of the two releases side by side (independent randomness)."""
        if other.step != self.step:
            raise argument_error("LossDistribution.compose", "other", f"on the same grid step {self.step}", other.step)
        return LossDistribution(self.step, _convolve(self.upper, other.upper, upper=True),
                                _convolve(self.lower, other.lower, upper=False))


def _check_span(points: int, where: str) -> None:
    """Refuse a loss distribution spanning more than :data:`MAX_SPAN` grid points (before allocating it)."""
    if points > MAX_SPAN:
        raise ProfileUnavailable(
            f"a privacy-loss distribution {where} needs {points:.3g} grid points, "
            f"more than {MAX_SPAN} (a release whose loss is that large): compose fewer such releases, use a coarser "
            f"`resolution`, or read that release's own profile (it is not composed on a grid)")


def bin_masses(index: NDArray[np.float64], mass: NDArray[np.float64], infinite: float, *, upper: bool) -> GridMeasure:
    """Masses at the grid indices ``index`` (summed, rounded outward: up for an upper measure), plus ``infinite``."""
    if index.size == 0:
        return GridMeasure(0, np.zeros(1), infinite)
    if not np.all(np.isfinite(index)):
        raise ProfileUnavailable("a privacy loss is not finite where a finite grid index is needed")
    _check_span(int(index.max() - index.min()) + 1, f"over the grid indices [{index.min():.6g}, {index.max():.6g}]")
    k = index.astype(np.int64)
    start = int(k.min())
    sums = np.asarray(np.bincount(k - start, weights=mass), dtype=np.float64)  # float64 already: typed, not copied
    lo, hi = scaled_bounds(sums, int(mass.size))
    return GridMeasure(start, hi if upper else lo, infinite)


def _convolve(a: GridMeasure, b: GridMeasure, *, upper: bool) -> GridMeasure:
    conv = np.convolve(a.masses, b.masses)  # direct summation, non-negative terms
    lo, hi = scaled_bounds(conv, min(a.masses.size, b.masses.size))
    ta, tb = a.total(), b.total()
    if upper:
        inf = up(up(up(ta.hi * b.infinite) + up(a.infinite * tb.hi)) + up(a.infinite * b.infinite))
        return _compact(GridMeasure(a.start + b.start, hi, inf), upper=True)
    inf = down(down(down(ta.lo * b.infinite) + down(a.infinite * tb.lo)) + down(a.infinite * b.infinite))
    return _compact(GridMeasure(a.start + b.start, lo, max(inf, 0.0)), upper=False)


def _compact(m: GridMeasure, *, upper: bool) -> GridMeasure:
    """Keep at most :data:`MAX_GRID` points: lump the lowest upward (upper) or drop them (lower)."""
    nz = np.flatnonzero(m.masses > 0)
    if nz.size == 0:
        return GridMeasure(m.start, np.zeros(1), m.infinite)
    masses = m.masses[nz[0]: nz[-1] + 1]
    start = m.start + int(nz[0])
    extra = masses.size - MAX_GRID
    if extra > 0:
        head = masses[: extra + 1]
        masses = masses[extra:].copy()
        if upper:
            masses[0] = sum_bounds(head, head).hi
        start += extra
    return GridMeasure(start, masses, m.infinite)


class PLDProfile(PrivacyProfile):
    """A profile given by its two directions' privacy-loss distributions (certified discretisations).

    ``max_losses`` / ``exact_max_losses`` give tighter enclosures of the largest loss when known
    (e.g. the sum of the steps' largest losses in a composition).
    """

    def __init__(self, directions: tuple[LossDistribution, LossDistribution], *, description: str, kind: str = EXACT,
                 max_losses: tuple[Enclosure, Enclosure] | None = None,
                 exact_max_losses: tuple[Fraction | None, Fraction | None] | None = None) -> None:
        self.directions = directions
        self.description = description
        self.kind = kind
        self._max_losses = max_losses
        self._exact_max = exact_max_losses

    @property
    def step(self) -> float:
        """The grid step ``h`` of both directions."""
        return self.directions[0].step

    def hockey_stick(self, epsilon: float, direction: int) -> Enclosure:
        """Enclosure of ``E_P[(1 - e^{epsilon - L})_+]`` from the two grid measures [BW18, Thm 5]."""
        return self.directions[direction].hockey_stick(epsilon)

    def infinite_loss_mass(self, direction: int) -> Enclosure:
        """Enclosure of the mass at ``+inf`` in ``direction``."""
        return self.directions[direction].infinite_mass()

    def max_loss(self, direction: int) -> Enclosure:
        """Enclosure of the largest loss: the grid's, intersected with ``max_losses`` when given."""
        grid = self.directions[direction].max_loss()
        if self._max_losses is None:
            return grid
        given = self._max_losses[direction]
        return Enclosure(max(grid.lo, given.lo), min(grid.hi, given.hi))

    def exact_max_loss(self, direction: int) -> Fraction | None:
        """The exact largest loss given at construction, or ``None``."""
        return None if self._exact_max is None else self._exact_max[direction]
