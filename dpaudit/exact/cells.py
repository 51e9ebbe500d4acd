"""Outputs with a continuous part: cells, each with its two masses and its likelihood-ratio range.

A mechanism that releases a real value (the noisy answer of Lyu et al.'s Alg. 3, the value of a
noisy maximum, the Laplace releases of numerical sparse vector) has densities ``p`` and ``q``
rather than atoms. Cut the output space into cells ``C_j``; for each cell this module holds
enclosures of ``P(C_j)``, ``Q(C_j)`` and of the likelihood ratio ``ell(o) = p(o)/q(o)`` over the
cell, ``ratio_lo_j <= ell(o) <= ratio_hi_j`` (``+inf`` where ``q = 0 < p``). Then for ``a = e^eps``

* ``H_a(P||Q) >= sum_j (P(C_j) - a Q(C_j))_+``: the cells are a post-processing of the output, and
  the hockey-stick divergence does not grow under post-processing [BBG18, Def. 1; DR14, Prop. 2.1];
* ``H_a(P||Q) <= sum_j int_{C_j} p (1 - a / ell)_+ <= sum_j P(C_j) (1 - a / ratio_hi_j)_+``, and a
  cell with ``ratio_lo_j >= a`` contributes exactly ``P(C_j) - a Q(C_j)``, one with
  ``ratio_hi_j <= a`` nothing;

the same with ``P`` and ``Q`` exchanged (ratio range ``[1/ratio_hi, 1/ratio_lo]``) for the other
direction. The largest privacy loss lies between ``max_j ln max(ratio_lo_j, P(C_j)/Q(C_j))`` (over
cells of positive mass) and ``max_j ln ratio_hi_j``; a tighter enclosure found by refining the cells
near the maximum (:func:`refine_maximum`) may be given. The cells' losses also give certified
privacy-loss distributions (each cell's mass at the top, resp. bottom, of its loss range), so these
profiles compose (:func:`dpaudit.exact.compose`). A finite law is the special case of atoms, whose
ratio range is ``P/Q`` itself.

References
----------
.. [BBG18] B. Balle, G. Barthe and M. Gaboardi. Privacy amplification by subsampling: tight
   analyses via couplings and divergences. NeurIPS 2018, Definition 1.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014,
   Proposition 2.1 (post-processing).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_exact_float_array
from dpaudit.errors import EnclosureError
from dpaudit.exact.enclosure import Enclosure, arb_bounds, arb_of, precision, sum_bounds
from dpaudit.exact.pld import LossDistribution, bin_masses
from dpaudit.exact.profile import EXACT, PrivacyProfile, exp_bounds

__all__ = ["CellProfile", "Cells", "Interval", "hull", "laplace_cdf", "laplace_cdf_ball", "laplace_pair_cells", "refine_maximum"]

Array = NDArray[np.float64]
#: A cell of the real line: ``(lo, hi)``, either end possibly infinite.
Interval = tuple[float, float]
#: A cell of one of several functions: ``(tag, interval)``.
Cell = tuple[Hashable, Interval]


def _down(x: Array) -> Array:
    return np.nextafter(x, -np.inf)


def _up(x: Array) -> Array:
    return np.nextafter(x, np.inf)


def _reciprocal(r: Array, *, upper: bool) -> Array:
    """Outward-rounded ``1 / r`` (``1/0 = inf``, ``1/inf = 0``)."""
    with np.errstate(divide="ignore"):
        out = 1.0 / r
    return np.where(np.isfinite(out) & (out > 0), _up(out) if upper else np.maximum(_down(out), 0.0), out)


@dataclass(frozen=True)
class Cells:
    """Cells as eight float arrays: the two masses, the ratio ``p/q`` and the loss ``ln(p/q)``, each ``[lo, hi]``."""

    p_lo: Array
    p_hi: Array
    q_lo: Array
    q_hi: Array
    r_lo: Array
    r_hi: Array
    l_lo: Array
    l_hi: Array

    def __post_init__(self) -> None:
        # enclosures are read as the floats they equal: a rounded bound could cross the value it bounds
        for name in ("p_lo", "p_hi", "q_lo", "q_hi", "r_lo", "r_hi", "l_lo", "l_hi"):
            value = getattr(self, name)
            if not (isinstance(value, np.ndarray) and value.dtype == np.float64):  # the internal case costs nothing
                object.__setattr__(self, name, check_exact_float_array("Cells", name, value))

    @property
    def size(self) -> int:
        """The number of cells."""
        return int(self.p_lo.size)

    @classmethod
    def atoms(cls, p: Sequence[arb], q: Sequence[arb]) -> Cells:
        """Atoms from Arb balls of their two masses: the ratio range is ``P/Q`` itself."""
        cols: list[list[float]] = [[] for _ in range(8)]
        with precision():
            for a, b in zip(p, q, strict=True):
                pa, qb = arb_bounds(a), arb_bounds(b)
                pa, qb = Enclosure(max(pa.lo, 0.0), pa.hi), Enclosure(max(qb.lo, 0.0), qb.hi)
                if qb.hi == 0.0:
                    ratio, loss = Enclosure(math.inf, math.inf), Enclosure(math.inf, math.inf)
                elif pa.hi == 0.0:
                    ratio, loss = Enclosure(0.0, 0.0), Enclosure(-math.inf, -math.inf)
                elif pa.lo == 0.0 or qb.lo == 0.0:  # a ball touching 0: bound the ratio through the float ends
                    ratio = Enclosure(float(_down(np.array(pa.lo / qb.hi))), math.inf if qb.lo == 0 else float(_up(np.array(pa.hi / qb.lo))))
                    loss = Enclosure(*(float(x[0]) for x in _log_bounds(np.array([ratio.lo]), np.array([ratio.hi]))))
                else:
                    ratio, loss = arb_bounds(a / b), arb_bounds((a / b).log())
                for col, value in zip(cols, (*pa, *qb, max(ratio.lo, 0.0), ratio.hi, *loss), strict=True):
                    col.append(value)
        return cls(*(np.array(c, dtype=float) for c in cols))

    @classmethod
    def atoms_from_bounds(cls, p_lo: Array, p_hi: Array, q_lo: Array, q_hi: Array) -> Cells:
        """Atoms from float enclosures of their masses: ratio range ``[p_lo / q_hi, p_hi / q_lo]``, rounded outward."""
        p_lo, p_hi, q_lo, q_hi = (check_exact_float_array("Cells.atoms_from_bounds", name, x) for name, x in
                                  (("p_lo", p_lo), ("p_hi", p_hi), ("q_lo", q_lo), ("q_hi", q_hi)))
        with np.errstate(divide="ignore", invalid="ignore"):
            r_lo = np.where(q_hi == 0, np.where(p_lo > 0, np.inf, 0.0), np.maximum(_down(p_lo / np.where(q_hi == 0, 1.0, q_hi)), 0.0))
            r_hi = np.where(q_lo == 0, np.where(p_hi > 0, np.inf, 0.0), _up(p_hi / np.where(q_lo == 0, 1.0, q_lo)))
        r_hi = np.where((p_hi == 0) & (q_hi == 0), np.inf, r_hi)  # an output neither law produces: no information
        l_lo, l_hi = _log_bounds(r_lo, r_hi)
        return cls(p_lo, p_hi, q_lo, q_hi, r_lo, r_hi, l_lo, l_hi)

    def take(self, index: int | slice) -> Cells:
        """The cell ``index`` (or the cells of a slice)."""
        where = index if isinstance(index, slice) else slice(index, index + 1)
        return Cells(*(getattr(self, f)[where] for f in _FIELDS))

    @classmethod
    def concat(cls, parts: Sequence[Cells]) -> Cells:
        """The cells of ``parts`` in one collection, in order."""
        return cls(*(np.concatenate([getattr(c, f) for c in parts]) for f in _FIELDS))

    def weighted(self, count: int) -> Cells:
        """Every mass times the integer ``count`` (``count`` copies of these cells merged: same ratios)."""
        if count == 1:
            return self
        return Cells(np.maximum(_down(self.p_lo * count), 0.0), _up(self.p_hi * count), np.maximum(_down(self.q_lo * count), 0.0),
                     _up(self.q_hi * count), self.r_lo, self.r_hi, self.l_lo, self.l_hi)

    def times(self, other: Cells) -> Cells:
        """The cells of two independent releases side by side (outer products, rounded outward)."""
        def mul(a: Array, b: Array, upper: bool) -> Array:
            with np.errstate(invalid="ignore"):
                prod = np.multiply.outer(a, b).ravel()
                zero = np.logical_or.outer(a == 0, b == 0).ravel()
            return np.where(zero, 0.0, _up(prod) if upper else np.maximum(_down(prod), 0.0))

        def add(a: Array, b: Array, upper: bool) -> Array:
            with np.errstate(invalid="ignore"):
                total = np.add.outer(a, b).ravel()
            total = np.where(np.isnan(total), np.inf if upper else -np.inf, total)
            return _up(total) if upper else _down(total)

        return Cells(mul(self.p_lo, other.p_lo, False), mul(self.p_hi, other.p_hi, True), mul(self.q_lo, other.q_lo, False),
                     mul(self.q_hi, other.q_hi, True), mul(self.r_lo, other.r_lo, False), mul(self.r_hi, other.r_hi, True),
                     add(self.l_lo, other.l_lo, False), add(self.l_hi, other.l_hi, True))

    def profile(self, *, description: str, max_losses: tuple[Enclosure | None, Enclosure | None] | None = None,
                kind: str = EXACT) -> CellProfile:
        """The profile these cells certify (see the module docstring for the bounds it uses).

        Parameters
        ----------
        description : str
            What the pair is, for reports.
        max_losses : tuple of two Enclosure or None, optional
            Tighter enclosures of the largest loss per direction (from :func:`refine_maximum`); ``None``
            keeps the cells' own ``max_j ln ratio_hi_j``.
        kind : str
            ``"exact"`` or ``"upper bound"``.

        Returns
        -------
        CellProfile
        """
        return CellProfile(self.p_lo, self.p_hi, self.q_lo, self.q_hi, self.r_lo, self.r_hi, loss_lo=self.l_lo, loss_hi=self.l_hi,
                           max_losses=max_losses, description=description, kind=kind)


_FIELDS = ("p_lo", "p_hi", "q_lo", "q_hi", "r_lo", "r_hi", "l_lo", "l_hi")


def hull(bounds: Sequence[Enclosure]) -> Enclosure:
    """The smallest enclosure holding every one given (float ends, no Arb radius rounding)."""
    return Enclosure(min(b.lo for b in bounds), max(b.hi for b in bounds))


def laplace_cdf(x: Fraction, scale: arb) -> arb:
    """``P(Lap(scale) <= x)`` for an exact ``x`` (its sign decided exactly): ``e^{x/b}/2`` below 0, ``1 - e^{-x/b}/2`` above."""
    t = arb_of(x) / scale
    return t.exp() / 2 if x < 0 else 1 - (-t).exp() / 2


def laplace_cdf_ball(x: arb, scale: arb) -> arb:
    """``P(Lap(scale) <= x)`` over an Arb ball ``x`` (both formulas joined when the ball holds 0)."""
    t = x / scale
    if x > 0:
        return 1 - (-t).exp() / 2
    if x < 0:
        return t.exp() / 2
    return (t.exp() / 2).union(1 - (-t).exp() / 2)


def laplace_pair_cells(t0: float, t1: float, scale: float, band: int) -> Cells:
    """``Lap(t0, scale)`` against ``Lap(t1, scale)`` on cells.

    The cells are ``(-inf, lo]``, ``band`` equal cells of ``[lo, hi]`` and ``[hi, inf)`` (``lo, hi =
    min, max(t0, t1)``).

    The loss ``(|v - t1| - |v - t0|)/scale`` is constant outside ``[lo, hi]`` (``+-|t0 - t1|/scale``) and
    linear inside, so each cell's loss range is its value at the cell's ends: exact up to Arb's rounding.
    """
    with precision():
        b = arb_of(scale)
        if t0 == t1:
            one = [arb(1)]
            return Cells.atoms(one, one)
        lo, hi = (Fraction(min(t0, t1)), Fraction(max(t0, t1)))
        ends = [lo + (hi - lo) * Fraction(k, band) for k in range(band + 1)]
        points: list[Fraction | None] = [None, *ends, None]
        cols: list[list[float]] = [[] for _ in range(8)]
        for a, c in itertools.pairwise(points):
            masses = []
            for t in (Fraction(t0), Fraction(t1)):
                upper = arb(1) if c is None else laplace_cdf(c - t, b)
                lower = arb(0) if a is None else laplace_cdf(a - t, b)
                masses.append(arb_bounds(upper - lower))
            # the loss is constant on a tail cell: its value at the cell's finite end
            ends_here = [v for v in (a, c) if v is not None]
            at_ends = [arb_of(abs(v - Fraction(t1)) - abs(v - Fraction(t0))) / b for v in ends_here]
            loss, ratio = hull([arb_bounds(x) for x in at_ends]), hull([arb_bounds(x.exp()) for x in at_ends])
            values = (max(masses[0].lo, 0.0), masses[0].hi, max(masses[1].lo, 0.0), masses[1].hi, ratio.lo, ratio.hi, loss.lo, loss.hi)
            for col, value in zip(cols, values, strict=True):
                col.append(value)
        return Cells(*(np.array(col, dtype=float) for col in cols))


class CellProfile(PrivacyProfile):
    """The profile of two laws given on a partition into cells (see the module docstring).

    Parameters
    ----------
    p_lo, p_hi, q_lo, q_hi : array of float
        Enclosures of each cell's mass under the law on ``d0`` (``P``) and on ``d1`` (``Q``).
    ratio_lo, ratio_hi : array of float
        Enclosure of the likelihood ratio ``p/q`` over each cell (``0 <= lo <= hi <= inf``).
    loss_lo, loss_hi : array of float, optional
        Enclosure of ``ln(p/q)`` over each cell; computed from the ratios (in Arb, one cell at a
        time) when not given.
    max_losses : tuple of two Enclosure (or None), optional
        Tighter enclosures of the largest loss in each direction (intersected with the cells').
    description : str
        What the pair is.
    kind : {"exact", "upper bound"}
    """

    def __init__(
        self,
        p_lo: Array,
        p_hi: Array,
        q_lo: Array,
        q_hi: Array,
        ratio_lo: Array,
        ratio_hi: Array,
        *,
        loss_lo: Array | None = None,
        loss_hi: Array | None = None,
        max_losses: tuple[Enclosure | None, Enclosure | None] | None = None,
        description: str = "cells",
        kind: str = EXACT,
    ) -> None:
        # bounds are read as the floats they equal (a rounded bound could cross the value it bounds)
        arrays = [check_exact_float_array("CellProfile", name, x) for name, x in
                  (("p_lo", p_lo), ("p_hi", p_hi), ("q_lo", q_lo), ("q_hi", q_hi), ("ratio_lo", ratio_lo), ("ratio_hi", ratio_hi))]
        if len({a.size for a in arrays}) != 1 or arrays[0].size == 0:
            raise argument_error("CellProfile", "p_lo", "six non-empty arrays of one size", [a.size for a in arrays])
        p_lo, p_hi, q_lo, q_hi, r_lo, r_hi = arrays
        for lo, hi, name in ((p_lo, p_hi, "p"), (q_lo, q_hi, "q")):
            if not (np.all(lo >= 0) and np.all(lo <= hi) and np.all(np.isfinite(hi))):
                raise argument_error("CellProfile", f"{name}_lo, {name}_hi", "finite bounds with 0 <= lo <= hi", (lo, hi))
        if not (np.all(r_lo >= 0) and np.all(r_lo <= r_hi)):
            raise argument_error("CellProfile", "ratio_lo, ratio_hi", "bounds with 0 <= lo <= hi", (r_lo, r_hi))
        if loss_lo is None or loss_hi is None:
            loss_lo, loss_hi = _log_bounds(r_lo, r_hi)
        loss_lo, loss_hi = (check_exact_float_array("CellProfile", name, x) for name, x in (("loss_lo", loss_lo), ("loss_hi", loss_hi)))
        self._cells = (
            (p_lo, p_hi, q_lo, q_hi, r_lo, r_hi, np.asarray(loss_lo, dtype=float).ravel(), np.asarray(loss_hi, dtype=float).ravel()),
            (q_lo, q_hi, p_lo, p_hi, _reciprocal(r_hi, upper=False), _reciprocal(r_lo, upper=True),
             -np.asarray(loss_hi, dtype=float).ravel(), -np.asarray(loss_lo, dtype=float).ravel()),
        )
        self._max_given = max_losses
        self.description = description
        self.kind = kind

    @property
    def size(self) -> int:
        """The number of cells."""
        return int(self._cells[0][0].size)

    def masses(self, direction: int = 0) -> tuple[Array, Array]:
        """``(lo, hi)`` of the cells' masses under the law on ``d0`` (direction 0) or ``d1`` (direction 1)."""
        cells = self._cells[direction]
        return cells[0], cells[1]

    def hockey_stick(self, epsilon: float, direction: int) -> Enclosure:
        """Enclosure of ``H_{e^epsilon}`` in ``direction``: the cell sums of the module docstring.

        Lower end ``sum_j (P(C_j) - a Q(C_j))_+``; upper end ``sum_j P(C_j) (1 - a / ratio_hi_j)_+``,
        capped by the cell's own ``P(C_j) - a Q(C_j)`` when its whole ratio range lies above ``a``.
        """
        a = exp_bounds(epsilon)
        n_lo, n_hi, d_lo, d_hi, r_lo, r_hi, _, _ = self._cells[direction]
        with np.errstate(invalid="ignore", over="ignore"):
            sub_hi = np.where(d_hi == 0, 0.0, _up(a.hi * d_hi))
            lo = np.where(sub_hi == 0, n_lo, np.maximum(_down(n_lo - sub_hi), 0.0))
            full = np.maximum(_up(n_hi - np.where(d_lo == 0, 0.0, _down(a.lo * d_lo))), 0.0)
            share = np.where(np.isinf(r_hi), 1.0, _up(1.0 - np.where(r_hi > 0, _down(a.lo / np.where(r_hi > 0, r_hi, 1.0)), 0.0)))
            straddle = np.where(n_hi == 0, 0.0, _up(n_hi * np.maximum(share, 0.0)))
            hi = np.where(r_hi <= a.lo, 0.0, np.where(r_lo >= a.hi, np.minimum(full, straddle), straddle))
        return sum_bounds(lo, hi)

    def infinite_loss_mass(self, direction: int) -> Enclosure:
        """Enclosure of the mass of the cells the other law cannot produce (ratio ``+inf``)."""
        n_lo, n_hi, _, d_hi, _, r_hi, _, _ = self._cells[direction]
        return sum_bounds(n_lo[d_hi == 0], n_hi[np.isinf(r_hi)])

    def max_loss(self, direction: int) -> Enclosure:
        """Enclosure of the largest loss over cells of positive mass (the given ``max_losses`` when tighter)."""
        n_lo, n_hi, _, d_hi, _, _, l_lo, l_hi = self._cells[direction]
        support = n_hi > 0
        hi = float(np.max(l_hi[support])) if np.any(support) else -math.inf
        certain = n_lo > 0
        if np.any(certain & (d_hi == 0)):
            lo = math.inf
        elif np.any(certain):
            with np.errstate(divide="ignore"):
                average = _log_of_ratios(n_lo[certain], d_hi[certain])
            lo = float(np.max(np.maximum(l_lo[certain], average)))
        else:
            lo = -math.inf
        given = None if self._max_given is None else self._max_given[direction]
        if given is not None:
            if given.lo > hi or given.hi < lo:
                raise EnclosureError(f"the given largest loss {given} misses the cells' enclosure [{lo}, {hi}]")
            lo, hi = max(lo, given.lo), min(hi, given.hi)
        return Enclosure(lo, hi)

    def loss_distribution(self, direction: int, step: float) -> LossDistribution:
        """Each cell's mass at the top of its loss range (upper measure) and at the bottom (lower)."""
        n_lo, n_hi, _, _, _, _, l_lo, l_hi = self._cells[direction]
        infinite = self.infinite_loss_mass(direction)
        finite_hi = np.isfinite(l_hi) & (n_hi > 0)
        inf_hi = sum_bounds(np.zeros(0), n_hi[np.isinf(l_hi) & (l_hi > 0)]).hi
        upper = bin_masses(np.ceil(l_hi[finite_hi] / step), n_hi[finite_hi], max(inf_hi, infinite.hi), upper=True)
        keep = np.isfinite(l_lo) & (n_lo > 0)
        inf_lo = sum_bounds(n_lo[np.isinf(l_lo) & (l_lo > 0)], np.zeros(0)).lo
        lower = bin_masses(np.floor(l_lo[keep] / step), n_lo[keep], max(inf_lo, infinite.lo), upper=False)
        return LossDistribution(step, upper, lower)


def _log_of_ratios(num: Array, den: Array) -> Array:
    """Lower bounds of ``ln(num / den)`` (certified: Arb's log of an outward-rounded quotient)."""
    quotient = np.maximum(_down(num / den), 0.0)
    return _log_bounds(quotient, quotient)[0]


def _log_bounds(r_lo: Array, r_hi: Array) -> tuple[Array, Array]:
    """Certified ``ln`` of ratio bounds (Arb per distinct value; ``ln 0 = -inf``, ``ln inf = inf``)."""
    out_lo, out_hi = np.empty(r_lo.size), np.empty(r_hi.size)
    cache: dict[float, Enclosure] = {}
    with precision():
        for values, out, side in ((r_lo, out_lo, 0), (r_hi, out_hi, 1)):
            for i, v in enumerate(values.tolist()):
                if v == 0.0:
                    out[i] = -math.inf
                elif math.isinf(v):
                    out[i] = math.inf
                else:
                    if v not in cache:
                        cache[v] = arb_bounds(arb_of(v).log())
                    out[i] = cache[v][side]
    return out_lo, out_hi


#: Refinement stops when the largest loss is enclosed this tightly (absolute, in nats) ...
REFINE_TOLERANCE = 1e-10
#: ... or after this many rounds of halving the cells that may hold it, or once this many cells have
#: been evaluated (a smooth or flat maximum, where first-order bounds need many small cells: the
#: enclosure is then certified, only wider).
REFINE_ROUNDS = 64
REFINE_EVALUATIONS = 4000


def refine_maximum(bounds: Callable[[Any], tuple[Array, Array]], cells: Sequence[Cell], *,
                   tolerance: float = REFINE_TOLERANCE, rounds: int = REFINE_ROUNDS, spread: float = 1.0) -> Enclosure:
    """Branch and bound for ``sup f`` over the union of ``cells``, each ``(tag, interval of the real line)``.

    ``bounds(cells)`` returns, per cell, a certified upper bound of ``f`` on the cell and a
    certified lower bound of ``sup f`` (for example ``f`` at a point of the cell, when ``f`` is
    continuous and the point is in the interior of a set of positive mass); the tag says which
    function a cell belongs to (the supremum is over all of them). Cells whose upper bound is below
    the best lower bound are dropped, the others halved (an unbounded cell is cut at ``spread``
    beyond its finite end, then twice as far, ...), until the enclosure is ``tolerance`` wide, or
    ``rounds`` have passed or :data:`REFINE_EVALUATIONS` cells have been evaluated: the result is
    then certified, only wider. Raises ``ArithmeticError`` when the upper bounds fall below the lower
    ones (a wrong bound: a declared profile then reports no bracket rather than a wrong one).
    """
    live = list(cells)
    upper, lower = bounds(live)
    evaluated = len(live)
    best = float(np.max(lower))
    dropped = -math.inf  # the largest upper bound of a cell let go
    for _ in range(rounds):
        top = float(np.max(upper))
        if top - best <= tolerance:
            break
        keep = upper > best + tolerance
        if np.any(~keep):
            dropped = max(dropped, float(np.max(upper[~keep])))
        split = [(tag, half) for (tag, cell), k in zip(live, keep, strict=True) if k for half in _halves(cell, spread)]
        if len(split) == int(np.sum(keep)) or evaluated + len(split) > REFINE_EVALUATIONS:  # nothing to split, or out of budget
            break
        live = split
        upper, lower = bounds(live)
        evaluated += len(live)
        best = max(best, float(np.max(lower)))
    top = max(float(np.max(upper)), dropped)
    if top < best:  # both are certified, so sup f lies between them: a bound is wrong, and neither end can be trusted
        raise EnclosureError(f"branch and bound: the certified upper bound {top!r} is below the certified lower bound {best!r}")
    return Enclosure(best, top)


def _halves(cell: Interval, spread: float) -> list[Interval]:
    lo, hi = cell
    if math.isinf(lo) and math.isinf(hi):
        return [(lo, 0.0), (0.0, hi)]
    if math.isinf(lo):
        cut = hi - spread - abs(hi)
        return [(lo, cut), (cut, hi)]
    if math.isinf(hi):
        cut = lo + spread + abs(lo)
        return [(lo, cut), (cut, hi)]
    mid = 0.5 * (lo + hi)
    if not lo < mid < hi:
        return [cell]
    return [(lo, mid), (mid, hi)]
