"""Report-noisy-max that releases the maximum *value* (alone, or with its index): the law of a max of noises.

With i.i.d. noise of density ``f`` and CDF ``F`` (Laplace or exponential, scale ``b``) on the
answers ``q_1..q_k``, the maximum ``M = max_i (q_i + Z_i)`` has the CDF ``prod_j F(x - q_j)`` and the
density ``sum_i f(x - q_i) prod_{j != i} F(x - q_j)``; the pair (index, value) has the density
``f(x - q_i) prod_{j != i} F(x - q_j)`` on branch ``i`` [DR14, Claim 3.9, proof; the value is the
released statistic of [DWWZK18, Alg. 7-8]]. Everything is over the reals.

Cells of ``x``: every ``q_j`` and ``q'_j`` is a cell boundary, with an even grid between them and a
geometric one to the right. Masses are exact: CDF differences of the maximum, or (with the index)
integrals of exponential polynomials in Arb (:mod:`dpaudit.exact.exppoly`). On a cell each factor
is ``e^{mu x} h(x)`` with ``h`` constant or monotone (``F``'s right branch), so each term's range,
after dividing by one common ``e^{mu* x}``, is the product of its factors' values at the cell's
ends: the two densities' ranges give the ratio's range. Where every term has the same ``mu`` (left
of every ``q`` for Laplace noise: the ratio is constant; right of every ``q``: the ratio tends to
``sum_i e^{q_i/b} / sum_i e^{q'_i/b}``) this is tight. Intersected with the range of the terms'
own ratios (a ratio of sums lies between the extremes of the terms' ratios), each a product of
monotone ratios (``f(x-q)/f(x-q')``; ``F(x-q)/F(x-q')``, monotone as both noises have log-concave
CDFs). Exponential noise has no mass below ``max_j q_j``: where one dataset's maximum can be and the
other's cannot, the loss is infinite.

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014, Claim 3.9.
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer. Detecting violations of differential
   privacy. CCS 2018, Algorithms 7 and 8 (the noisy maximum's value).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
from flint import arb

from dpaudit._validation import (
    argument_error,
    check_exact_float,
    check_exact_floats,
    check_one_of,
    check_positive,
)
from dpaudit.exact.cells import CellProfile, Cells, Interval, hull, refine_maximum
from dpaudit.exact.enclosure import Enclosure, arb_bounds, arb_of, precision
from dpaudit.exact.exppoly import ExpPoly
from dpaudit.exact.selection import _pieces, _right_of

__all__ = ["noisy_max_value_profile"]

#: Cells between the smallest and the largest answer (at least, at most), and in the right tail.
MIDDLE_CELLS = (32, 128)
TAIL_CELLS = 24


class _Factors:
    """The noise's density and CDF at ``x - q``, split on a cell as ``e^{mu x / b} h(x)`` (``mu`` an integer)."""

    def __init__(self, noise: str, scale: float) -> None:
        self.noise, self.scale, self.b = noise, scale, arb_of(scale)
        # every term of a branch repeats the other answers' factors: computed once per cell (or point)
        self._splits: dict[tuple[str, float, float, float], tuple[int, Enclosure | None]] = {}
        self._ratios: dict[tuple[str, float, float, float], Enclosure] = {}

    def split(self, kind: str, q: float, lo: float, hi: float) -> tuple[int, Enclosure | None]:
        """``(mu, range of h on [lo, hi])``; ``h = None`` when the factor is 0 on the cell."""
        key = (kind, q, lo, hi)
        if key not in self._splits:
            self._splits[key] = self._split(kind, q, lo, hi)
        return self._splits[key]

    def _split(self, kind: str, q: float, lo: float, hi: float) -> tuple[int, Enclosure | None]:
        right = _right_of(q, lo, hi)  # from the exact cell ends: every q is a cell boundary
        b, cq = self.b, arb_of(q)
        if self.noise == "exponential" and not right:
            return 0, None
        if kind == "f":
            if right:
                return -1, arb_bounds((cq / b).exp() / (b if self.noise == "exponential" else 2 * b))
            return 1, arb_bounds((-cq / b).exp() / (2 * b))
        if not right:  # Laplace F left of its centre: e^{(x - q)/b} / 2
            return 1, arb_bounds((-cq / b).exp() / 2)
        half = 1 if self.noise == "exponential" else 2
        ends = [arb(1) if math.isinf(x) else 1 - (-(arb_of(x) - cq) / b).exp() / half for x in (lo, hi)]
        return 0, hull([arb_bounds(e) for e in ends])

    def log_ratio(self, kind: str, q0: float, q1: float, x: float) -> Enclosure:
        """``ln(factor(x - q0) / factor(x - q1))`` at a point, or its limit at an infinite ``x`` (both factors positive)."""
        key = (kind, q0, q1, x)
        if key not in self._ratios:
            self._ratios[key] = self._log_ratio(kind, q0, q1, x)
        return self._ratios[key]

    def _log_ratio(self, kind: str, q0: float, q1: float, x: float) -> Enclosure:
        b = self.b
        if math.isinf(x):
            if kind == "F" and x > 0:
                return Enclosure(0.0, 0.0)
            sign = 1 if (kind == "f" and x > 0) else -1  # f at +inf: e^{(q0-q1)/b}; f, F at -inf (Laplace): e^{(q1-q0)/b}
            return arb_bounds(sign * (arb_of(q0) - arb_of(q1)) / b)
        v0, v1 = self.value(kind, q0, x), self.value(kind, q1, x)
        if v0.is_zero() or v1.is_zero():  # the start of an exponential noise's support: one factor vanishes
            return Enclosure(0.0, 0.0) if v0.is_zero() and v1.is_zero() else Enclosure(*((-math.inf,) * 2 if v0.is_zero() else (math.inf,) * 2))
        return arb_bounds(v0.log() - v1.log())

    def value(self, kind: str, q: float, x: float) -> arb:
        y, b = arb_of(x) - arb_of(q), self.b
        if self.noise == "laplace":
            if kind == "f":
                return (-abs(y) / b).exp() / (2 * b)
            return (y / b).exp() / 2 if x < q else 1 - (-y / b).exp() / 2
        if x < q:
            return arb(0)
        return (-y / b).exp() / b if kind == "f" else 1 - (-y / b).exp()


class _Branch:
    """One branch of the output (the value alone: every term; with the index ``i``: term ``i``) on both datasets."""

    def __init__(self, factors: _Factors, q: tuple[list[float], list[float]], terms: Sequence[int]) -> None:
        self.factors, self.q, self.terms = factors, q, list(terms)

    def _term_factors(self, d: int, i: int) -> list[tuple[str, float]]:
        q = self.q[d]
        return [("f", q[i])] + [("F", q[j]) for j in range(len(q)) if j != i]

    def mass(self, d: int, lo: float, hi: float) -> arb:
        q, f = self.q[d], self.factors
        if len(self.terms) == len(q):  # the value alone: a difference of the maximum's CDF
            def cdf(x: float) -> arb:
                if math.isinf(x):
                    return arb(1 if x > 0 else 0)
                total = arb(1)
                for qj in q:
                    total *= f.value("F", qj, x)
                return total

            return cdf(hi) - cdf(lo)
        total = arb(0)
        lo_, hi_ = (None if math.isinf(lo) else lo), (None if math.isinf(hi) else hi)
        for i in self.terms:
            poly = ExpPoly.constant((f.scale,), 1)
            for kind, centre in self._term_factors(d, i):
                density, cdf_ = _pieces(f.scale, centre, lo_, hi_, f.noise)
                poly = poly * (density if kind == "f" else cdf_)
            if not poly.is_zero():
                total += poly.integrate(lo_, hi_)
        return total

    def loss_range(self, lo: float, hi: float) -> Enclosure:
        """Enclosure of ``ln(p/q)`` over the cell (both densities positive on it)."""
        ranges = []
        star = None
        for d in (0, 1):
            low = high = 0.0
            for i in self.terms:
                mu, h_lo, h_hi = 0, 1.0, 1.0
                for kind, centre in self._term_factors(d, i):
                    m, h = self.factors.split(kind, centre, lo, hi)
                    if h is None:
                        h_lo = h_hi = 0.0
                        break
                    mu, h_lo, h_hi = mu + m, math.nextafter(h_lo * h.lo, -math.inf), math.nextafter(h_hi * h.hi, math.inf)
                if h_hi == 0.0:
                    continue
                star = mu if star is None else star
                e = _exp_range(mu - star, lo, hi, self.factors.b)
                low = math.nextafter(low + math.nextafter(h_lo * e.lo, -math.inf), -math.inf)
                high = math.nextafter(high + math.nextafter(h_hi * e.hi, math.inf), math.inf)
            ranges.append(Enclosure(max(low, 0.0), high))
        envelope = _log_quotient(ranges[0], ranges[1])
        mediant = None
        for i in self.terms:
            total = Enclosure(0.0, 0.0)
            for (kind, c0), (_, c1) in zip(self._term_factors(0, i), self._term_factors(1, i), strict=True):
                if c0 == c1:
                    continue
                r = hull([self.factors.log_ratio(kind, c0, c1, x) for x in (lo, hi)])
                total = Enclosure(math.nextafter(total.lo + r.lo, -math.inf), math.nextafter(total.hi + r.hi, math.inf))
            mediant = total if mediant is None else Enclosure(min(mediant.lo, total.lo), max(mediant.hi, total.hi))
        assert mediant is not None
        return Enclosure(max(envelope.lo, mediant.lo), min(envelope.hi, mediant.hi))


    def right_limit(self) -> Enclosure:
        """``lim ln(p/q)`` at ``+inf``.

        Every term is ``e^{-x/b} e^{q_i/b} c`` times CDFs tending to 1, so the ratio tends to
        ``sum_i e^{q_i/b} / sum_i e^{q'_i/b}`` over the branch's terms.
        """
        b = self.factors.b
        sums = [sum(((arb_of(self.q[d][i]) / b).exp() for i in self.terms), arb(0)) for d in (0, 1)]
        return arb_bounds(sums[0].log() - sums[1].log())


def _exp_range(mu: int, lo: float, hi: float, b: arb) -> Enclosure:
    """Range of ``e^{mu x / b}`` on ``[lo, hi]`` (``[0, inf]`` across an infinite end where it is unbounded)."""
    if mu == 0:
        return Enclosure(1.0, 1.0)
    values = []
    for x in (lo, hi):
        if math.isinf(x):
            values.append(Enclosure(0.0, 0.0) if (mu > 0) == (x < 0) else Enclosure(math.inf, math.inf))
        else:
            values.append(arb_bounds((mu * arb_of(x) / b).exp()))
    return hull(values)


def _log_quotient(num: Enclosure, den: Enclosure) -> Enclosure:
    lo = -math.inf if num.lo == 0 or math.isinf(den.hi) else arb_bounds(arb_of(num.lo).log() - arb_of(den.hi).log()).lo
    hi = math.inf if den.lo == 0 or math.isinf(num.hi) else arb_bounds(arb_of(num.hi).log() - arb_of(den.lo).log()).hi
    return Enclosure(lo, hi)


def _grid(values: Sequence[float], scale: float) -> list[Interval]:
    low, high = min(values), max(values)
    points = set(values)
    if high > low:
        step = scale / 16  # 0 for a subnormal scale: then the finest grid (the cells only place the exact masses)
        ratio = (high - low) / step if step > 0 else math.inf
        n = MIDDLE_CELLS[1] if not math.isfinite(ratio) else int(min(max(math.ceil(ratio), MIDDLE_CELLS[0]), MIDDLE_CELLS[1]))
        points |= {float(x) for x in np.linspace(low, high, n + 1)}
    points |= {high + scale * 2.0 ** (k / 2 - 6) for k in range(TAIL_CELLS)}
    ends = [-math.inf, *sorted(points), math.inf]
    return list(itertools.pairwise(ends))


def noisy_max_value_profile(q0: Sequence[float], q1: Sequence[float], scale: float, noise: str = "laplace", *,
                            with_index: bool = False, description: str | None = None) -> CellProfile:
    """The profile of the noisy maximum's value (with its index when ``with_index``) on the answers ``q0``, ``q1``."""
    noise = check_one_of("noisy_max_value_profile", "noise", noise, ("laplace", "exponential"))
    scale = check_positive("noisy_max_value_profile", "scale", check_exact_float("noisy_max_value_profile", "scale", scale))
    q0, q1 = check_exact_floats("noisy_max_value_profile", "q0", q0), check_exact_floats("noisy_max_value_profile", "q1", q1)
    if len(q0) != len(q1) or len(q0) == 0:
        raise argument_error("noisy_max_value_profile", "q1", f"as long as q0 ({len(q0)}) and non-empty", len(q1))
    q = ([float(x) for x in q0], [float(x) for x in q1])
    if not with_index:  # the value's law is symmetric in the answers: pair the terms in sorted order (tighter, and equal
        q = (sorted(q[0]), sorted(q[1]))  # multisets give ratio 1 exactly)
    factors = _Factors(noise, scale)
    cells = _grid(sorted(set(q[0]) | set(q[1])), scale)
    branches = [_Branch(factors, q, [i]) for i in range(len(q0))] if with_index else [_Branch(factors, q, range(len(q0)))]
    starts = (max(q[0]), max(q[1])) if noise == "exponential" else (-math.inf, -math.inf)
    parts, refine = [], []
    with precision():
        for k, branch in enumerate(branches):
            cols: list[list[float]] = [[] for _ in range(8)]
            for lo, hi in cells:
                inside = [lo >= s for s in starts]  # the cell lies in the support of each dataset's law
                if not any(inside):
                    continue
                p, pq = (arb_bounds(branch.mass(d, lo, hi)) if inside[d] else Enclosure(0.0, 0.0) for d in (0, 1))
                if inside[0] and inside[1]:
                    loss = branch.loss_range(lo, hi)
                    refine.append((k, (lo, hi)))
                else:
                    loss = Enclosure(math.inf, math.inf) if inside[0] else Enclosure(-math.inf, -math.inf)
                ratio = _exp_bounds(loss)
                for col, v in zip(cols, (max(p.lo, 0.0), p.hi, max(pq.lo, 0.0), pq.hi, ratio.lo, ratio.hi, loss.lo, loss.hi), strict=True):
                    col.append(v)
            parts.append(Cells(*(np.array(c, dtype=float) for c in cols)))
        found = Cells.concat(parts)
        limits = [branch.right_limit() for branch in branches]
        maxima: list[Enclosure | None] = []
        for sign in (1, -1):
            if np.any(np.isinf(found.l_lo if sign > 0 else found.l_hi) & ((found.p_lo if sign > 0 else found.q_lo) > 0)):
                maxima.append(None)  # an infinite loss on a set of positive mass
                continue
            def bounds(batch: Sequence[tuple[int, Interval]], sign: int = sign) -> tuple[np.ndarray, np.ndarray]:
                enc = [branches[k].loss_range(*cell) for k, cell in batch]
                upper = np.array([e.hi if sign > 0 else -e.lo for e in enc])
                lower = np.array([e.lo if sign > 0 else -e.hi for e in enc])  # the loss anywhere on a cell of positive mass
                for i, (k, (_, hi)) in enumerate(batch):
                    if math.isinf(hi):  # and its limit at +inf, approached on sets of positive mass
                        limit = limits[k]
                        lower[i] = max(lower[i], limit.lo if sign > 0 else -limit.hi)
                return upper, lower

            maxima.append(refine_maximum(bounds, refine, spread=scale) if refine else Enclosure(-math.inf, -math.inf))
        what = description or (f"noisy max {'(index, value)' if with_index else 'value'}, {noise} noise of scale {scale:g}, "
                               f"{len(q0)} answers")
        return found.profile(description=what, max_losses=(maxima[0], maxima[1]))


def _exp_bounds(loss: Enclosure) -> Enclosure:
    def one(x: float, side: int) -> float:
        if math.isinf(x):
            return math.inf if x > 0 else 0.0
        return arb_bounds(arb_of(x).exp())[side]

    return Enclosure(max(one(loss.lo, 0), 0.0), one(loss.hi, 1))
