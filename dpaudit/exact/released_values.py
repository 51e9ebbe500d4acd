"""Sparse vector that releases the noisy answer on ⊤ (Lyu, Su and Li's Alg. 3), by conditioning on the threshold noise.

Alg. 3 [LSL17, Alg. 3] draws ``rho ~ Lap(b_1)`` once and ``nu_i ~ Lap(b_2)`` per query; on
``q_i + nu_i >= T + rho`` it releases ``v_i = q_i + nu_i`` (and counts it towards the cutoff ``c``),
else 0; after ``c`` releases the remaining queries get 0. An output is so the set ``H`` of released
positions (``|H| <= c``; all queries answered when ``|H| < c``, those up to the ``c``-th release
otherwise) with the values ``v_H``; the answered queries outside ``H`` form ``B``. Given
``rho = r`` the queries are independent, so the output has the density (over the reals)

    p(H, v) = prod_{h in H} f(v_h - q_h) * G_B(min_h v_h - T),   G_B(s) = int_{-inf}^s f_rho(r) prod_{j in B} F(T + r - q_j) dr

with the Laplace density ``f`` and CDF ``F`` of scale ``b_2``, and ``P(H = {}) = G_B(inf)`` [LSL17,
proof of Thm 2, with the released value in place of ⊤]. ``G_B`` is an exponential polynomial on
each interval between the points ``r = 0`` and ``r = q_j - T`` (:mod:`dpaudit.exact.exppoly`), so
every cell's mass below is an exact integral in Arb:

* one released value, cell ``v in [T + a, T + b]``: ``Phi(b) - Phi(a)`` with
  ``Phi(s) = F(T + s - q_h) G_B(s) - int_{-inf}^s g_B(r) F(T + r - q_h) dr`` (swap the integrals);
* two, ``c = 2``: the product grid of such cells; off the diagonal the smaller value is in the
  lower cell and the mass factorises, on the diagonal one more exact integral.

The likelihood ratio is ``prod_h R_h(v_h) * Gamma_B(min v - T)`` with ``R_h = f(v - q_h)/f(v - q'_h)``
(monotone: its range on a cell is its value at the ends) and ``Gamma_B = G_B / G'_B``, enclosed on
``[a, b]`` by ``[G_B(a)/G'_B(b), G_B(b)/G'_B(a)]`` (both increasing) and by the range of the
integrands' ratio ``prod_j F(T + r - q_j)/F(T + r - q'_j)`` over ``r <= b`` (a ratio of integrals
lies between the extremes of the integrands' ratio; each factor is monotone, the Laplace CDF being
log-concave). Left of every breakpoint all factors are single exponentials: the ratio is constant
there. The largest loss is refined cell by cell (:func:`dpaudit.exact.cells.refine_maximum`): over
outputs whose smallest value is ``v_a = m`` it is ``R_a(m) Gamma_B(m - T) prod_{h != a} sup_{w > m} R_h(w)``,
and ``sup_{w > m} R_h = max(R_h(m), R_h(inf))`` as ``R_h`` is monotone.

On a fixed pair of ``n`` queries every factor is bounded, so the pair's epsilon is finite; it
grows without bound with the number of ⊥ answers before a release (each contributes up to
``|q_j - q'_j| / b_2`` as the released value, and with it the threshold noise, goes to ``-inf``),
which is the sense in which Alg. 3 is not DP for any epsilon.

References
----------
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique for differential
   privacy. PVLDB 10(6), 2017, Alg. 3 and the proof of Thm 2.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import arb

from dpaudit._validation import argument_error, check_exact_floats
from dpaudit.exact.cells import CellProfile, Cells, Interval, hull, laplace_cdf_ball, refine_maximum
from dpaudit.exact.enclosure import Enclosure, arb_bounds, arb_of, precision
from dpaudit.exact.exppoly import ExpPoly
from dpaudit.exact.profile import ProfileUnavailable
from dpaudit.exact.threshold import MAX_OUTPUTS, ThresholdSpec, _Conditional, shifted_integral

__all__ = ["released_value_profile"]

#: Cells of the middle region (between the smallest and largest breakpoint), at least and at most.
MIDDLE_CELLS = (32, 128)
#: Right-tail cells beyond the largest breakpoint, at ``scale * 2^(k/2 - 6)`` for ``0 <= k < TAIL_CELLS``.
TAIL_CELLS = 24


@dataclass(frozen=True)
class _Kind:
    """A kind of output: the ``(q0, q1)`` values of its released queries (sorted) and of its ⊥ ones (a sorted multiset)."""

    tops: tuple[tuple[float, float], ...]
    bottoms: tuple[tuple[float, float], ...]


def _kinds(q0: Sequence[float], q1: Sequence[float], cutoff: int) -> Counter[_Kind]:
    """Every output pattern, merged by kind (equal kinds have the same law, so their cells add)."""
    n = len(q0)
    count = sum(math.comb(n, k) for k in range(min(cutoff, n) + 1))
    if count > MAX_OUTPUTS:
        raise argument_error("released_value_profile", "q0", f"few enough queries for at most {MAX_OUTPUTS} patterns ({count} here)", n)
    kinds: Counter[_Kind] = Counter()
    for k in range(min(cutoff, n) + 1):
        for released in itertools.combinations(range(n), k):
            answered = range(released[-1] + 1) if k == cutoff else range(n)
            bottoms = tuple(sorted((q0[j], q1[j]) for j in answered if j not in released))
            kinds[_Kind(tuple(sorted((q0[h], q1[h]) for h in released)), bottoms)] += 1
    return kinds


class _Side:
    """One dataset's cumulative integrals for a kind: ``G_B``, ``int g_B F_t`` per released value ``t``, ``int g_B F_t F_u``."""

    def __init__(self, cond: _Conditional, bottoms: Sequence[float], tops: Sequence[float]) -> None:
        self.cond = cond
        self.tops = list(tops)
        names: list[tuple[float, ...]] = [(), *[(t,) for t in sorted(set(tops))]]
        if len(tops) == 2:
            names.append(tuple(tops))
        self.names = names
        self.pieces: list[dict[tuple[float, ...], ExpPoly]] = []  # per interval of cond, the integrand of each name
        powers = Counter(bottoms)
        for j in range(len(cond.intervals)):
            g = cond.density[j]
            for value, power in powers.items():
                for _ in range(power):
                    g = g * cond.factors[value][j][1]
            polys = {}
            for name in names:
                poly = g
                for t in name:
                    poly = poly * cond.factors[t][j][1]
                polys[name] = poly
            self.pieces.append(polys)
        self.prefix: list[dict[tuple[float, ...], arb]] = []  # the integrals over the intervals before each one
        running = {name: arb(0) for name in names}
        for (lo, hi), ref, polys in zip(cond.intervals, cond.refs, self.pieces, strict=True):
            self.prefix.append(dict(running))
            running = {name: running[name] + shifted_integral(polys[name], ref, lo, hi) for name in names}
        self.total = running
        self._cache: dict[tuple[tuple[float, ...], float], arb] = {}

    def cumulative(self, name: tuple[float, ...], s: float) -> arb:
        """``int_{-inf}^s g_B(r) prod_{t in name} F(T + r - t) dr`` (``s`` may be infinite)."""
        if s == -math.inf:
            return arb(0)
        if s == math.inf:
            return self.total[name]
        key = (name, s)
        if key not in self._cache:
            # the interval holding s, compared exactly (a Fraction and a float compare as the rationals they equal)
            j = next(i for i, (lo, hi) in enumerate(self.cond.intervals) if (lo is None or lo <= s) and (hi is None or s <= hi))
            lo = self.cond.intervals[j][0]
            self._cache[key] = self.prefix[j][name] + shifted_integral(self.pieces[j][name], self.cond.refs[j], lo, Fraction(s))
        return self._cache[key]


class _KindLaw:
    """A kind of output on both datasets: its cells on a grid of the (shifted) released values, and its largest losses."""

    def __init__(self, spec: ThresholdSpec, cond: _Conditional, kind: _Kind) -> None:
        self.spec, self.kind = spec, kind
        self.b2 = arb_of(spec.query_scale)  # type: ignore[arg-type]
        self.sides = [_Side(cond, [b[d] for b in kind.bottoms], [t[d] for t in kind.tops]) for d in (0, 1)]
        self.same_bottoms = all(a == b for a, b in kind.bottoms)
        self._rho: dict[float, list[Enclosure]] = {}
        self._cdf: dict[tuple[float, float], arb] = {}

    # -- the factors at points and over cells --------------------------------------------------
    def cdf(self, t: float, s: float) -> arb:
        """``F(T + s - t)``, the Laplace CDF of the query noise (``s`` may be infinite)."""
        if math.isinf(s):
            return arb(1 if s > 0 else 0)
        key = (t, s)
        if key not in self._cdf:
            self._cdf[key] = laplace_cdf_ball(arb(self.spec.threshold) + arb(s) - arb(t), self.b2)
        return self._cdf[key]

    def log_r(self, top: tuple[float, float], s: float) -> arb:
        """``ln R(v) = (|v - t1| - |v - t0|) / b_2`` at ``v = T + s`` (its limits at the infinite ends)."""
        if math.isinf(s):
            t0, t1 = arb(top[0]), arb(top[1])
            return (t1 - t0 if s < 0 else t0 - t1) / self.b2
        v = arb(self.spec.threshold) + arb(s)
        return (abs(v - arb(top[1])) - abs(v - arb(top[0]))) / self.b2

    def log_gamma_at(self, s: float) -> arb:
        """``ln Gamma_B(s)``; at ``-inf`` its constant value left of every breakpoint (the integrands' ratio there)."""
        if self.same_bottoms:
            return arb(0)
        if s == -math.inf:
            return sum(((arb_of(q1) - arb_of(q0)) / self.b2 for q0, q1 in self.kind.bottoms), arb(0))
        return self.sides[0].cumulative((), s).log() - self.sides[1].cumulative((), s).log()

    def log_gamma_range(self, a: float, b: float) -> Enclosure:
        """Enclosure of ``ln Gamma_B`` over ``s in [a, b]`` (see the module docstring).

        With ``rho = g_B / g'_B`` (the integrands' ratio, a product of monotone factors: its range on
        ``[a, b]`` is read at the ends) and ``I(s) = int_a^s g'_B``, ``Gamma_B(s) = (G_B(a) + rho~ I(s)) /
        (G'_B(a) + I(s))`` for some ``rho~`` in that range [a weighted mediant], so ``Gamma_B(s)`` lies
        between ``Gamma_B(a)`` and ``(G_B(a) + rho~ (G'_B(b) - G'_B(a))) / G'_B(b)``; on ``(-inf, b]`` it lies
        in the range of ``rho``. Intersected with ``[G_B(a)/G'_B(b), G_B(b)/G'_B(a)]`` (both increasing),
        and with the values at the ends when the range of ``rho`` misses that of ``Gamma_B``
        (``Gamma_B' = (g'_B / G'_B) (rho - Gamma_B)`` then keeps one sign: ``Gamma_B`` is monotone).
        """
        if self.same_bottoms:
            return Enclosure(0.0, 0.0)
        at_a, at_b = self.log_rho(a), self.log_rho(b)
        rho = _sum_enclosures([hull([x, y]) for x, y in zip(at_a, at_b, strict=True)])
        if a == -math.inf:
            return rho
        g0, g1 = self.sides[0].cumulative, self.sides[1].cumulative
        g0a, g0b, g1a, g1b = g0((), a), g0((), b), g1((), a), g1((), b)
        lo = arb_bounds(g0a.log() - g1b.log()).lo
        hi = arb_bounds(g0b.log() - g1a.log()).hi
        start = arb_bounds((g0a / g1a).log())
        grown = g1b - g1a
        toward_lo = arb_bounds(((g0a + arb_of(rho.lo).exp() * grown) / g1b).log())
        toward_hi = arb_bounds(((g0a + arb_of(rho.hi).exp() * grown) / g1b).log())
        lo, hi = max(lo, min(start.lo, toward_lo.lo)), min(hi, max(start.hi, toward_hi.hi))
        if rho.hi < lo or rho.lo > hi:
            ends = hull([start, arb_bounds(self.log_gamma_at(b))])
            lo, hi = max(lo, ends.lo), min(hi, ends.hi)
        return Enclosure(lo, hi)

    def log_rho(self, s: float) -> list[Enclosure]:
        """Per group of equal ⊥ queries, ``ln`` of its factors of ``g_B / g'_B`` at ``r = s``: ``n ln(F(T + s - q)/F(T + s - q'))``."""
        if s not in self._rho:
            out = []
            for (q0, q1), power in Counter(self.kind.bottoms).items():
                if s == -math.inf:
                    value = (arb_of(q1) - arb_of(q0)) / self.b2 * power
                elif s == math.inf:
                    value = arb(0)
                else:
                    value = (self.cdf(q0, s).log() - self.cdf(q1, s).log()) * power
                out.append(arb_bounds(value))
            self._rho[s] = out
        return self._rho[s]

    def log_r_range(self, top: tuple[float, float], a: float, b: float) -> Enclosure:
        return hull([arb_bounds(self.log_r(top, a)), arb_bounds(self.log_r(top, b))])

    # -- the cells -------------------------------------------------------------------------------
    def cells(self, grid: Sequence[float]) -> Cells:
        """The kind's cells on ``(-inf, grid_0], ..., [grid_last, inf)`` (per released value, product grid for two)."""
        ends = [-math.inf, *grid, math.inf]
        intervals = list(itertools.pairwise(ends))
        k = len(self.kind.tops)
        if k == 0:
            return Cells.atoms([self.sides[0].total[()]], [self.sides[1].total[()]])
        gamma = [self.log_gamma_range(a, b) for a, b in intervals]
        rs = [[self.log_r_range(top, a, b) for a, b in intervals] for top in self.kind.tops]
        if k == 1:
            masses = [[self._single(d, 0, a, b) for a, b in intervals] for d in (0, 1)]
            losses = [_sum_enclosures([rs[0][i], gamma[i]]) for i in range(len(intervals))]
            return _cells_from(masses, losses)
        if k != 2:
            raise ProfileUnavailable(f"{k} released values form a {k}-dimensional law: cells are enumerated for at most 2")
        return self._pairs(intervals, gamma, rs)

    def _single(self, d: int, i: int, a: float, b: float) -> arb:
        """``int_{T+a}^{T+b} f(v - t_i) G_B(v - T) dv``: the cell's mass for one released value.

        With two released values, the factor of the smaller one (the larger contributes its Laplace
        mass).
        """
        side, t = self.sides[d], self.kind.tops[i][d]

        def phi(s: float) -> arb:
            if s == -math.inf:
                return arb(0)
            return self.cdf(t, s) * side.cumulative((), s) - side.cumulative((t,), s)

        return phi(b) - phi(a)

    def _pairs(self, intervals: list[Interval], gamma: list[Enclosure], rs: list[list[Enclosure]]) -> Cells:
        """Two released values on the product grid: off the diagonal the mass factorises."""
        n = len(intervals)
        mass = []
        for d in (0, 1):
            side = self.sides[d]
            t1, t2 = self.kind.tops[0][d], self.kind.tops[1][d]
            first = [arb_bounds(self._single(d, 0, a, b)) for a, b in intervals]
            second = [arb_bounds(self._single(d, 1, a, b)) for a, b in intervals]
            lap1 = [arb_bounds(self.cdf(t1, b) - self.cdf(t1, a)) for a, b in intervals]
            lap2 = [arb_bounds(self.cdf(t2, b) - self.cdf(t2, a)) for a, b in intervals]
            diag = [arb_bounds(self._diagonal(side, t1, t2, a, b)) for a, b in intervals]
            f_lo, f_hi = np.array([max(x.lo, 0.0) for x in first]), np.array([x.hi for x in first])
            s_lo, s_hi = np.array([max(x.lo, 0.0) for x in second]), np.array([x.hi for x in second])
            l1_lo, l1_hi = np.array([max(x.lo, 0.0) for x in lap1]), np.array([x.hi for x in lap1])
            l2_lo, l2_hi = np.array([max(x.lo, 0.0) for x in lap2]), np.array([x.hi for x in lap2])
            upper = np.triu(np.ones((n, n), dtype=bool), 1)  # cell i of v1 below cell j of v2: v1 is the smaller
            lo = np.where(upper, np.outer(f_lo, l2_lo), np.outer(l1_lo, s_lo))
            hi = np.where(upper, np.outer(f_hi, l2_hi), np.outer(l1_hi, s_hi))
            lo, hi = np.maximum(np.nextafter(lo, -np.inf), 0.0), np.nextafter(hi, np.inf)
            np.fill_diagonal(lo, [max(x.lo, 0.0) for x in diag])
            np.fill_diagonal(hi, [x.hi for x in diag])
            mass.append((lo.ravel(), hi.ravel()))
        i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        low = np.minimum(i, j).ravel()  # the cell of the smaller value
        r1_lo, r1_hi = (np.array([e[s] for e in rs[0]]) for s in (0, 1))
        r2_lo, r2_hi = (np.array([e[s] for e in rs[1]]) for s in (0, 1))
        g_lo, g_hi = (np.array([e[s] for e in gamma]) for s in (0, 1))
        l_lo = np.nextafter(np.nextafter(r1_lo[i.ravel()] + r2_lo[j.ravel()], -np.inf) + g_lo[low], -np.inf)
        l_hi = np.nextafter(np.nextafter(r1_hi[i.ravel()] + r2_hi[j.ravel()], np.inf) + g_hi[low], np.inf)
        # the ratio: products of the factors' ratio ranges (e^x once per 1-d cell), rounded outward
        (e1_lo, e1_hi), (e2_lo, e2_hi), (eg_lo, eg_hi) = (_exp_bounds(a, b) for a, b in ((r1_lo, r1_hi), (r2_lo, r2_hi), (g_lo, g_hi)))
        with np.errstate(invalid="ignore"):
            r_lo = np.maximum(np.nextafter(np.nextafter(e1_lo[i.ravel()] * e2_lo[j.ravel()], -np.inf) * eg_lo[low], -np.inf), 0.0)
            r_hi = np.nextafter(np.nextafter(e1_hi[i.ravel()] * e2_hi[j.ravel()], np.inf) * eg_hi[low], np.inf)
        r_lo, r_hi = np.nan_to_num(r_lo, nan=0.0), np.nan_to_num(r_hi, nan=np.inf)
        return Cells(mass[0][0], mass[0][1], mass[1][0], mass[1][1], r_lo, r_hi, l_lo, l_hi)

    def _diagonal(self, side: _Side, t1: float, t2: float, a: float, b: float) -> arb:
        """``P(v_1, v_2 in [T + a, T + b])``: ``int g_B(r) prod_i (F_i(b) - F_i(max(a, r)))_+ dr``."""
        f1a, f1b, f2a, f2b = self.cdf(t1, a), self.cdf(t1, b), self.cdf(t2, a), self.cdf(t2, b)
        c = side.cumulative
        inside = (f1b * f2b * (c((), b) - c((), a)) - f1b * (c((t2,), b) - c((t2,), a)) - f2b * (c((t1,), b) - c((t1,), a))
                  + (c((t1, t2), b) - c((t1, t2), a)))
        return c((), a) * (f1b - f1a) * (f2b - f2a) + inside

    # -- the largest loss ------------------------------------------------------------------------
    def _bounds(self, a: int, sign: int, cells: Sequence[Interval]) -> tuple[np.ndarray, np.ndarray]:
        """Per cell of the smallest value ``m``: an upper bound of ``sign * ln L`` and ``sign * ln L`` at a point."""
        upper, lower = np.empty(len(cells)), np.empty(len(cells))
        others = [h for h in range(len(self.kind.tops)) if h != a]
        with precision():
            for k, (lo, hi) in enumerate(cells):
                r = self.log_r_range(self.kind.tops[a], lo, hi)
                g = self.log_gamma_range(lo, hi)
                terms = [r, g]
                # a point of the cell, or the limit at +inf (approached on sets of positive mass: below the ess sup too)
                point = hi if math.isinf(hi) else (hi if math.isinf(lo) else 0.5 * (lo + hi))
                value = self.log_r(self.kind.tops[a], point) + self.log_gamma_at(point)
                for h in others:
                    far = arb_bounds(self.log_r(self.kind.tops[h], math.inf))
                    near = self.log_r_range(self.kind.tops[h], lo, hi)
                    at = self.log_r(self.kind.tops[h], point)
                    far_arb = self.log_r(self.kind.tops[h], math.inf)
                    if sign > 0:
                        terms.append(Enclosure(max(near.lo, far.lo), max(near.hi, far.hi)))
                        value += at.max(far_arb)
                    else:
                        terms.append(Enclosure(min(near.lo, far.lo), min(near.hi, far.hi)))
                        value += at.min(far_arb)
                total = _sum_enclosures(terms)
                upper[k] = total.hi if sign > 0 else -total.lo
                lower[k] = arb_bounds(value).lo if sign > 0 else arb_bounds(-value).lo
        return upper, lower


def _sum_enclosures(terms: Sequence[Enclosure]) -> Enclosure:
    lo = hi = 0.0
    for t in terms:
        lo, hi = math.nextafter(lo + t.lo, -math.inf), math.nextafter(hi + t.hi, math.inf)
    return Enclosure(lo, hi)


def _exp_bounds(l_lo: np.ndarray, l_hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Certified ``e^x`` of loss bounds (Arb, once per distinct value)."""
    cache: dict[float, Enclosure] = {}

    def one(x: float, side: int) -> float:
        if math.isinf(x):
            return math.inf if x > 0 else 0.0
        if x not in cache:
            cache[x] = arb_bounds(arb_of(x).exp())
        return cache[x][side]

    with precision():
        lo = np.array([one(x, 0) for x in l_lo.tolist()])
        hi = np.array([one(x, 1) for x in l_hi.tolist()])
    return np.maximum(lo, 0.0), hi


def _cells_from(masses: list[list[arb]], losses: list[Enclosure]) -> Cells:
    p = [arb_bounds(x) for x in masses[0]]
    q = [arb_bounds(x) for x in masses[1]]
    l_lo = np.array([e.lo for e in losses])
    l_hi = np.array([e.hi for e in losses])
    r_lo, r_hi = _exp_bounds(l_lo, l_hi)
    return Cells(np.array([max(x.lo, 0.0) for x in p]), np.array([x.hi for x in p]), np.array([max(x.lo, 0.0) for x in q]),
                 np.array([x.hi for x in q]), r_lo, r_hi, l_lo, l_hi)


def _grid(spec: ThresholdSpec, values: Sequence[float]) -> tuple[list[float], float]:
    """The cell boundaries in ``s = v - T``: every breakpoint, an even middle grid, a geometric right tail."""
    # near the breakpoints (a rounded cut is fine here: any grid partitions the line, and each cell's mass is an exact integral)
    cuts = sorted({0.0} | {v - spec.threshold for v in values})
    scale = max(spec.threshold_scale, spec.query_scale or 0.0)
    finest = min(spec.threshold_scale, spec.query_scale or spec.threshold_scale)
    low, high = cuts[0], cuts[-1]
    points = set(cuts)
    if high > low:
        n = int(min(max(math.ceil((high - low) / (finest / 16)), MIDDLE_CELLS[0]), MIDDLE_CELLS[1]))
        points |= {float(x) for x in np.linspace(low, high, n + 1)}
    points |= {high + scale * 2.0 ** (k / 2 - 6) for k in range(TAIL_CELLS)}
    return sorted(points), scale


def _max_losses(laws: Sequence[_KindLaw], grid: Sequence[float], spread: float) -> tuple[Enclosure, Enclosure]:
    """Enclosures of the largest loss in each direction over every kind, refined around the maximum."""
    ends = [-math.inf, *grid, math.inf]
    intervals = list(itertools.pairwise(ends))
    out = []
    for sign in (1, -1):
        floor = [-math.inf, -math.inf]
        cells = []
        for k, law in enumerate(laws):
            if not law.kind.tops:  # an atom: its loss is known
                atom = Cells.atoms([law.sides[0].total[()]], [law.sides[1].total[()]])
                lo, hi = (float(atom.l_lo[0]), float(atom.l_hi[0])) if sign > 0 else (-float(atom.l_hi[0]), -float(atom.l_lo[0]))
                floor = [max(floor[0], lo), max(floor[1], hi)]
                continue
            for a in range(len(law.kind.tops)):
                cells += [((k, a), cell) for cell in intervals]

        def bounds(batch: Sequence[tuple[tuple[int, int], Interval]], sign: int = sign) -> tuple[np.ndarray, np.ndarray]:
            upper, lower = np.empty(len(batch)), np.empty(len(batch))
            groups: dict[tuple[int, int], list[int]] = {}
            for i, (tag, _) in enumerate(batch):
                groups.setdefault(tag, []).append(i)
            for (k, a), idx in groups.items():
                u, v = laws[k]._bounds(a, sign, [batch[i][1] for i in idx])
                upper[idx], lower[idx] = u, v
            return upper, lower

        found = refine_maximum(bounds, cells, spread=spread) if cells else Enclosure(-math.inf, -math.inf)
        out.append(Enclosure(max(found.lo, floor[0]), max(found.hi, floor[1])))
    return out[0], out[1]


def released_value_profile(spec: ThresholdSpec, q0: Sequence[float], q1: Sequence[float], *, description: str) -> CellProfile:
    """The profile of [LSL17] Alg. 3 on the query vectors ``q0``, ``q1`` (see the module docstring).

    ``spec`` gives ``T``, ``b_1``, ``b_2`` and the cutoff ``c`` (at most 2 released values per output;
    :class:`~dpaudit.exact.ProfileUnavailable` beyond).
    """
    q0, q1 = check_exact_floats("released_value_profile", "q0", q0), check_exact_floats("released_value_profile", "q1", q1)
    if len(q0) != len(q1) or len(q0) == 0:
        raise argument_error("released_value_profile", "q1", f"as long as q0 ({len(q0)}) and non-empty", len(q1))
    if spec.query_scale is None or spec.cutoff is None or spec.halt_on != "above" or spec.resample:
        raise argument_error("released_value_profile", "spec", "query noise, a cutoff, halting on ⊤, no resampling", spec)
    if min(spec.cutoff, len(q0)) > 2:
        raise ProfileUnavailable(f"[LSL17] Alg. 3 with cutoff {spec.cutoff}: up to {spec.cutoff} released values form a "
                                 f"{spec.cutoff}-dimensional continuous law, and cells are enumerated for at most 2")
    q0, q1 = [float(x) for x in q0], [float(x) for x in q1]
    values = sorted(set(q0) | set(q1))
    grid, scale = _grid(spec, values)
    with precision():
        cond = _Conditional(spec, values)
        laws, parts = [], []
        for kind, count in _kinds(q0, q1, spec.cutoff).items():
            laws.append(_KindLaw(spec, cond, kind))
            parts.append(laws[-1].cells(grid).weighted(count))
        return Cells.concat(parts).profile(description=description, max_losses=_max_losses(laws, grid, scale))
