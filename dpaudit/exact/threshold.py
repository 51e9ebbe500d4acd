"""Sparse vector and AboveThreshold: the exact law of the answers, by conditioning on the threshold noise.

Every variant compares noisy queries ``q_i + nu_i`` with a noisy threshold ``T + rho``,
``rho ~ Lap(b_1)`` drawn once (or, in Lyu et al.'s Alg. 2, afresh after every halting answer),
``nu_i ~ Lap(b_2)`` i.i.d. (or no query noise at all, Alg. 5). Given ``rho = r`` the answers are
independent, ``P(q_i + nu_i >= T + r) = S_{b_2}(T + r - q_i)`` with the Laplace survival function
``S``, so an output (a finite code sequence: ⊤, ⊥, and "not reached" after the cutoff) has

    P(output) = int f_rho(r) prod_{i halting} h_i(r) prod_{i answered, not halting} (1 - h_i(r)) dr

[LSL17, proof of Thm 2; DR14, proof of Thm 3.23]. The integrand is an exponential polynomial on each
interval between the points ``r = q_i - T`` and ``r = 0`` (exact rationals, never rounded), integrated
exactly in Arb (:mod:`dpaudit.exact.exppoly`). The output space is finite, so the pair's profile is the finite one
(:class:`~dpaudit.exact.finite.FiniteProfile`). Without a cutoff, queries that take the same values on
both datasets are exchangeable, and outputs are merged by how many of each group halt (same
likelihood ratio), so ``T`` queries in ``g`` groups give ``prod (n_g + 1)`` outputs instead of ``2^T``.

References
----------
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique for differential
   privacy. PVLDB 10(6), 2017, Algorithms 1-6.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014, Alg. 1-2.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from flint import arb

from dpaudit._validation import (
    argument_error,
    check_exact_float,
    check_exact_floats,
    check_int,
    check_one_of,
    check_positive,
)
from dpaudit.errors import EnclosureError
from dpaudit.exact.enclosure import arb_of, precision
from dpaudit.exact.exppoly import ExpPoly
from dpaudit.exact.finite import FiniteProfile, finite_from_arbs

__all__ = ["MAX_OUTPUTS", "ThresholdSpec", "threshold_profile"]

#: Largest number of distinct outputs enumerated.
MAX_OUTPUTS = 50_000

_CODE = {1: "⊤", 0: "⊥", -1: "·"}


@dataclass(frozen=True)
class ThresholdSpec:
    """One sparse-vector variant.

    Parameters
    ----------
    threshold : float
        The public threshold ``T``.
    threshold_scale : float
        ``b_1``: the threshold noise is ``Lap(b_1)``.
    query_scale : float or None
        ``b_2``: each query's noise is ``Lap(b_2)``; ``None`` for no query noise ([LSL17] Alg. 5).
    cutoff : int or None
        Halt after this many halting answers (``None``: answer every query).
    halt_on : {"above", "below"}
        Which answer counts towards the cutoff: ``"above"`` (⊤ when ``q + nu >= T_hat``; Lyu et al.,
        Lowy et al.) or ``"below"`` (⊥ when ``q + nu < T_hat``; Ghazi et al. 2025's mirrored form).
    resample : bool
        Draw fresh threshold noise after every halting answer ([LSL17] Alg. 2).
    """

    threshold: float
    threshold_scale: float
    query_scale: float | None
    cutoff: int | None
    halt_on: Literal["above", "below"] = "above"
    resample: bool = False

    def __post_init__(self) -> None:
        # the numbers as the floats they equal: the profile reads a float's exact binary value, so a
        # number no float64 holds (2**53 + 1, Fraction(1, 3)) is refused, not rounded
        owner = "ThresholdSpec"
        object.__setattr__(self, "threshold", check_exact_float(owner, "threshold", self.threshold))
        for name in ("threshold_scale", "query_scale"):
            value = getattr(self, name)
            if value is not None or name == "threshold_scale":
                object.__setattr__(self, name, check_positive(owner, name, check_exact_float(owner, name, value)))
        if self.cutoff is not None:
            object.__setattr__(self, "cutoff", check_int(owner, "cutoff", self.cutoff, minimum=1))
        check_one_of(owner, "halt_on", self.halt_on, ("above", "below"))

    @property
    def scales(self) -> tuple[float, ...]:
        """The Laplace scales in play: ``(b_1,)`` without query noise, else ``(b_1, b_2)``."""
        return (self.threshold_scale,) if self.query_scale is None else (self.threshold_scale, self.query_scale)

    @property
    def halting_code(self) -> int:
        """The answer code that counts towards the cutoff: 1 (⊤) for ``"above"``, 0 (⊥) for ``"below"``."""
        return 1 if self.halt_on == "above" else 0


class _Conditional:
    """The integrand pieces of one dataset's queries: per interval of ``r``, the density and each query's two factors.

    The breakpoints ``r = q - T`` are exact rationals (a float difference can round, and on the sliver
    between the true and the rounded cut the wrong piece would be integrated), and every piece is an
    exponential polynomial in ``s = r - ref``, ``ref`` the interval's finite lower end (its upper end
    for the first interval), each exponential read from that end: every factor stays at most 1 on
    the interval and no huge terms cancel, however far the queries lie from the threshold.
    """

    def __init__(self, spec: ThresholdSpec, queries: Sequence[float]) -> None:
        self.spec = spec
        self.queries = [float(x) for x in queries]
        threshold = Fraction(spec.threshold)
        self.cut_of = {q: Fraction(q) - threshold for q in set(self.queries)}
        cuts = sorted({Fraction(0)} | set(self.cut_of.values()))
        self.intervals: list[tuple[Fraction | None, Fraction | None]] = list(zip([None, *cuts], [*cuts, None], strict=True))
        self.refs = [cuts[0] if lo is None else lo for lo, _ in self.intervals]
        b1 = arb_of(spec.threshold_scale)
        self.density = []
        for (lo, _), ref in zip(self.intervals, self.refs, strict=True):
            positive = lo is not None and lo >= 0  # f_rho(r) = e^{-|r|/b1}/(2 b1) = e^{-|ref|/b1} e^{-s/b1 or +s/b1}/(2 b1)
            self.density.append(ExpPoly.exponential(spec.scales, 0, -1 if positive else 1, (-abs(arb_of(ref)) / b1).exp() / (2 * b1)))
        self.factors = {q: [self._factors(self.cut_of[q], lo, ref) for lo, ref in zip((i[0] for i in self.intervals), self.refs, strict=True)]
                        for q in sorted(self.cut_of)}

    def _factors(self, cut: Fraction, lo: Fraction | None, ref: Fraction) -> tuple[ExpPoly, ExpPoly]:
        """``(P(halt | r), P(continue | r))`` on the interval starting at ``lo``, exponential polynomials in ``s = r - ref``."""
        spec, scales = self.spec, self.spec.scales
        y_positive = lo is not None and lo >= cut  # y = T + r - q = r - cut >= 0 on the whole interval (else <= 0)
        one = ExpPoly.constant(scales, 1)
        if spec.query_scale is None:  # above iff q >= T + r
            above = ExpPoly(scales) if y_positive else one
            below = one if y_positive else ExpPoly(scales)
        else:
            b2 = arb_of(spec.query_scale)
            shift = arb_of(ref - cut)  # y = shift + s
            if y_positive:  # S(y) = e^{-y/b}/2
                above = ExpPoly.exponential(scales, 1, -1, (-shift / b2).exp() / 2)
                below = one + above.scaled(-1)
            else:  # S(y) = 1 - e^{y/b}/2
                below = ExpPoly.exponential(scales, 1, 1, (shift / b2).exp() / 2)
                above = one + below.scaled(-1)
        return (above, below) if spec.halt_on == "above" else (below, above)

    def probability(self, halting: Sequence[int], continuing: Sequence[int], powers: Sequence[tuple[float, int, int]] = ()) -> arb:
        """``int f_rho prod_{halting} h_i prod_{continuing} (1 - h_i) dr``; ``powers`` adds ``(q, n_halt, n_cont)`` groups."""
        total = arb(0)
        for j, (lo, hi) in enumerate(self.intervals):
            poly = self.density[j]
            for i in halting:
                poly = poly * self.factors[self.queries[i]][j][0]
            for i in continuing:
                poly = poly * self.factors[self.queries[i]][j][1]
            for q, n_halt, n_cont in powers:
                h, c = self.factors[q][j]
                for _ in range(n_halt):
                    poly = poly * h
                for _ in range(n_cont):
                    poly = poly * c
            if not poly.is_zero():
                total += shifted_integral(poly, self.refs[j], lo, hi)
        return total


def shifted_integral(poly: ExpPoly, ref: Fraction, lo: Fraction | None, hi: Fraction | None) -> arb:
    """``int_lo^hi poly(r - ref) dr`` with exact rational ends (``None``: infinite; every term must decay there)."""
    total = arb(0)
    for key, c in poly.terms.items():
        if c.is_zero():  # an exactly absent term: it contributes nothing, and need not decay
            continue
        rate = sum((Fraction(k) / Fraction(b) for k, b in zip(key, poly.scales, strict=True)), Fraction(0))
        if rate == 0:
            if lo is None or hi is None:
                raise EnclosureError("a constant term on an infinite interval: the integrand does not decay")
            total += c * arb_of(hi - lo)
            continue
        if (lo is None and rate < 0) or (hi is None and rate > 0):
            raise EnclosureError("a term that does not decay at an infinite end of its interval")
        lam = sum((k / arb_of(b) for k, b in zip(key, poly.scales, strict=True) if k), arb(0))
        if lo is None:  # int_{-inf}^{hi} e^{lam (r - ref)} dr, lam > 0
            assert hi is not None  # a term decays at one infinite end only
            total += c * (lam * arb_of(hi - ref)).exp() / lam
        elif hi is None:  # lam < 0
            total -= c * (lam * arb_of(lo - ref)).exp() / lam
        else:  # e^{lam (lo - ref)} (e^{lam (hi - lo)} - 1) / lam, without cancellation on a short interval
            total += c * (lam * arb_of(lo - ref)).exp() * (lam * arb_of(hi - lo)).expm1() / lam
    return total


def threshold_profile(spec: ThresholdSpec, q0: Sequence[float], q1: Sequence[float], *, description: str) -> FiniteProfile:
    """The exact profile of a sparse-vector variant on the query vectors ``q0`` and ``q1``."""
    owner = "threshold_profile"
    q0, q1 = check_exact_floats(owner, "q0", q0), check_exact_floats(owner, "q1", q1)
    if len(q0) != len(q1) or len(q0) == 0:
        raise argument_error(owner, "q1", f"as long as q0 ({len(q0)}) and non-empty", len(q1))
    with precision():
        laws = (_Conditional(spec, q0), _Conditional(spec, q1))
        if spec.cutoff is None and not spec.resample:
            p, q, labels = _grouped(laws, q0, q1)
        else:
            p, q, labels = _enumerated(spec, laws, len(q0))
        return finite_from_arbs(p, q, labels=labels, description=description)


def _grouped(laws: tuple[_Conditional, _Conditional], q0: Sequence[float], q1: Sequence[float]) -> tuple[list[arb], list[arb], list[str]]:
    """No cutoff: outputs merged by the number of halting answers in each group of exchangeable queries."""
    groups: dict[tuple[float, float], int] = {}
    for a, b in zip(q0, q1, strict=True):
        groups[(float(a), float(b))] = groups.get((float(a), float(b)), 0) + 1
    keys = list(groups)
    sizes = [groups[k] for k in keys]
    if math.prod(n + 1 for n in sizes) > MAX_OUTPUTS:
        raise argument_error("threshold_profile", "q0", f"queries in few enough groups for {MAX_OUTPUTS} outputs", len(q0))
    p: list[arb] = []
    q: list[arb] = []
    labels: list[str] = []
    for counts in itertools.product(*(range(n + 1) for n in sizes)):
        weight = math.prod(math.comb(n, k) for n, k in zip(sizes, counts, strict=True))
        for side, law in enumerate(laws):
            powers = [(key[side], k, n - k) for key, n, k in zip(keys, sizes, counts, strict=True)]
            (p if side == 0 else q).append(law.probability((), (), powers) * weight)
        labels.append(", ".join(f"{k}/{n} halting at q={key}" for key, n, k in zip(keys, sizes, counts, strict=True)))
    return p, q, labels


def _enumerated(spec: ThresholdSpec, laws: tuple[_Conditional, _Conditional], n: int) -> tuple[list[arb], list[arb], list[str]]:
    """With a cutoff: every set of halting positions (at most ``cutoff`` of them), in order."""
    cutoff = n if spec.cutoff is None else min(spec.cutoff, n)
    count = sum(math.comb(n, j) for j in range(cutoff + 1))
    if count > MAX_OUTPUTS:
        raise argument_error("threshold_profile", "q0", f"few enough queries for at most {MAX_OUTPUTS} outputs ({count} here)", n)
    p: list[arb] = []
    q: list[arb] = []
    labels: list[str] = []
    for size in range(cutoff + 1):
        for halts in itertools.combinations(range(n), size):
            last = halts[-1] if size == cutoff and size > 0 else n - 1
            answered = range(last + 1)
            codes = [-1] * n
            for i in answered:
                codes[i] = spec.halting_code if i in halts else 1 - spec.halting_code
            for side, law in enumerate(laws):
                (p if side == 0 else q).append(_output_probability(spec, law, halts, answered))
            labels.append("".join(_CODE[c] for c in codes))
    return p, q, labels


def _output_probability(spec: ThresholdSpec, law: _Conditional, halts: tuple[int, ...], answered: range) -> arb:
    if not spec.resample:
        return law.probability(halts, [i for i in answered if i not in halts])
    # Alg. 2: independent AboveThreshold runs between halting answers, each with fresh threshold noise
    total, start = arb(1), 0
    for h in halts:
        total *= law.probability((h,), list(range(start, h)))
        start = h + 1
    if start <= answered[-1]:
        total *= law.probability((), list(range(start, answered[-1] + 1)))
    return total
