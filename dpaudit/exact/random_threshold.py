"""AboveThreshold on random queries: the exact law of the first halting answer when each query is a mixture.

Lowy, Liu and Asi (2024)'s Algorithm 2 asks AboveThreshold, once per step, whether a minibatch's
concentration score is high enough; when the minibatch is drawn *with replacement* (their box's line
3, pitfall P7 of ``docs/papers/lowy2024.md``) the score is itself random: a function of the batch's
multiplicities, drawn afresh at every step and independent of the noise. Here query ``t`` takes the
value ``q`` with probability ``w_t(q)`` (a finite law, possibly different on the two datasets), the
threshold noise ``rho ~ Lap(b_1)`` is drawn once and each query gets fresh ``nu_t ~ Lap(b_2)``; the
answer halts at the first ``t`` with ``q_t + nu_t >= T + rho`` ([DR14, Alg. 1]; the rule of
:class:`~dpaudit.exact.ThresholdSpec` with ``halt_on="above"`` and cutoff 1). Given ``rho = r`` the
steps are independent and step ``t`` halts with probability

    h_t(r) = sum_q w_t(q) S_{b_2}(T + r - q),    S_b(y) = P(Lap(b) >= y),

so ``P(first halt at t) = int f_rho(r) prod_{s < t} (1 - h_s(r)) h_t(r) dr`` and ``P(no halt) =
int f_rho prod_s (1 - h_s)`` [LSL17, proof of Thm 2, with the mixture inside the conditional
probability]. Between consecutive points ``r = q - T`` (and ``r = 0``) every ``S`` term is one
exponential, so ``h_t = A e^{-r/b_2} + B - G e^{r/b_2}`` there, with ``A``, ``B``, ``G`` sums of
positive terms over the values on each side of ``r``; the integrand is an exponential polynomial,
integrated exactly in Arb (:mod:`dpaudit.exact.exppoly`). Each interval is integrated in the variable
``s = r - ref`` with ``ref`` one of its ends, chosen so that every factor is at most 1 on the
interval: no cancellation between huge terms, however far the values lie from the threshold. The
cost is about ``T^2`` polynomial products per distinct value.

References
----------
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique for differential
   privacy. PVLDB 10(6), 2017, proof of Theorem 2.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014, Alg. 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from flint import arb

from dpaudit._validation import argument_error, check_exact_float, check_positive, exact_rational
from dpaudit.exact.enclosure import arb_of, precision
from dpaudit.exact.exppoly import ExpPoly
from dpaudit.exact.finite import FiniteProfile, finite_from_arbs
from dpaudit.exact.threshold import shifted_integral

__all__ = ["MAX_VALUES", "QueryLaw", "random_query_threshold_profile"]

#: A query law: ``(value, probability)`` pairs, the probabilities exact rationals summing to 1.
QueryLaw = Sequence[tuple[float, Fraction]]

#: Largest number of distinct query values over all steps of one side (each is a cut of the integral).
MAX_VALUES = 20_000

#: Largest exponent the integrand may reach, ``2 (steps + 1) max|q - T| / min(b_1, b_2)``: Arb's ``exp``
#: is a finite ball for arguments up to about ``2^256`` at this module's precision and ``[+/- inf]``
#: beyond (then no enclosure is possible), so inputs past ``2^250`` are refused up front.
MAX_EXPONENT = 2**250


def _checked(owner: str, name: str, laws: Sequence[QueryLaw]) -> list[list[tuple[float, Fraction]]]:
    out = []
    for t, law in enumerate(laws):
        # values as the floats they equal (refused, not rounded, when no float64 holds them); probabilities exactly
        values = [check_exact_float(owner, f"{name}[{t}][{k}] value", v) for k, (v, _) in enumerate(law)]
        if not all(math.isfinite(v) for v in values):
            raise argument_error(owner, f"{name}[{t}]", "finite query values", law if len(law) < 8 else f"{len(law)} pairs")
        probabilities = [exact_rational(owner, f"{name}[{t}][{k}] probability", p) for k, (_, p) in enumerate(law)]
        pairs = [(v, p if isinstance(p, Fraction) else Fraction(-1)) for v, p in zip(values, probabilities, strict=True)]
        if not pairs or any(p < 0 for _, p in pairs) or sum(p for _, p in pairs) != 1:
            raise argument_error(owner, f"{name}[{t}]", "a non-empty law: (value, probability) pairs, probabilities "
                                 ">= 0 summing to exactly 1", law if len(law) < 8 else f"{len(law)} pairs")
        merged: dict[float, Fraction] = {}
        for v, p in pairs:
            if p > 0:
                merged[v] = merged.get(v, Fraction(0)) + p
        out.append(sorted(merged.items()))
    return out


def _side_probabilities(threshold: float, b1: float, b2: float, laws: list[list[tuple[float, Fraction]]]) -> list[arb]:
    """``[P(first halt at 1), ..., P(first halt at T), P(no halt)]`` on one dataset, as Arb balls."""
    scales = (b1, b2)
    a1, a2 = arb_of(b1), arb_of(b2)
    t_frac = Fraction(threshold)
    # the breakpoints r = c = q - T of every value (exact rationals: the difference of two floats), and r = 0
    cuts = sorted({Fraction(q) - t_frac for law in laws for q, _ in law} | {Fraction(0)})
    steps = []
    for law in laws:
        cs = [Fraction(q) - t_frac for q, _ in law]  # increasing, as the values are sorted
        ws = [arb_of(w) for _, w in law]
        ups = [w * (arb_of(c) / a2).exp() / 2 for c, w in zip(cs, ws, strict=True)]
        downs = [w * (-arb_of(c) / a2).exp() / 2 for c, w in zip(cs, ws, strict=True)]
        # suffix sums (values strictly above r), summed from the top so that no difference of large sums is taken
        suffix_down, suffix_w = [arb(0)] * (len(cs) + 1), [arb(0)] * (len(cs) + 1)
        for i in range(len(cs) - 1, -1, -1):
            suffix_down[i], suffix_w[i] = suffix_down[i + 1] + downs[i], suffix_w[i + 1] + ws[i]
        steps.append((cs, ws, ups, suffix_down, suffix_w))
    n_steps = len(laws)
    out = [arb(0) for _ in range(n_steps + 1)]
    index = [0] * n_steps  # per step: how many values have their cut at or below the interval's lower end
    below_up = [arb(0)] * n_steps  # per step: sum of w e^{c/b2}/2 over those values
    below_w = [arb(0)] * n_steps
    ends: list[Fraction | None] = [None, *cuts, None]
    for j in range(len(ends) - 1):
        lo, hi = ends[j], ends[j + 1]
        if lo is not None:
            for t, (cs, ws, ups, _, _) in enumerate(steps):
                while index[t] < len(cs) and cs[index[t]] <= lo:
                    below_up[t] += ups[index[t]]
                    below_w[t] += ws[index[t]]
                    index[t] += 1
        ref_frac = lo if lo is not None else hi
        assert ref_frac is not None  # the cut r = 0 always exists
        ref = arb_of(ref_frac)
        # the threshold noise's density in s = r - ref: e^{-|r|/b1}/(2 b1), one exponential on each side of 0
        positive = lo is not None and lo >= 0
        acc = ExpPoly.exponential(scales, 0, -1 if positive else 1, ((-ref if positive else ref) / a1).exp() / (2 * a1))
        for t, (_, _, _, suffix_down, suffix_w) in enumerate(steps):
            # h = A e^{-s/b2} + B - G e^{s/b2}: A e^{-s/b2} = sum_{c <= lo} w e^{-(r - c)/b2}/2, G e^{s/b2} =
            # sum_{c >= hi} w e^{(r - c)/b2}/2 (each at most 1/2 on the interval), B = sum_{c >= hi} w
            a_coef = below_up[t] * (-ref / a2).exp()
            g_coef = suffix_down[index[t]] * (ref / a2).exp()
            rise, fall = ExpPoly.exponential(scales, 1, 1, g_coef), ExpPoly.exponential(scales, 1, -1, a_coef)
            halt = fall + ExpPoly.constant(scales, suffix_w[index[t]]) + rise.scaled(-1)
            go_on = ExpPoly.constant(scales, below_w[t]) + fall.scaled(-1) + rise
            out[t] += shifted_integral(acc * halt, ref_frac, lo, hi)
            acc = acc * go_on
        out[n_steps] += shifted_integral(acc, ref_frac, lo, hi)
    return out


def random_query_threshold_profile(threshold: float, threshold_scale: float, query_scale: float, laws0: Sequence[QueryLaw],
                                   laws1: Sequence[QueryLaw], *, description: str = "") -> FiniteProfile:
    """The exact profile of AboveThreshold's first halting answer when query ``t`` is drawn from ``laws0[t]`` / ``laws1[t]``.

    Parameters
    ----------
    threshold : float
        ``T``: query ``t`` halts when ``q_t + nu_t >= T + rho`` (the "above" rule, cutoff 1).
    threshold_scale, query_scale : float
        ``b_1`` (``rho ~ Lap(b_1)``, drawn once) and ``b_2`` (``nu_t ~ Lap(b_2)``, fresh per query).
    laws0, laws1 : sequence of sequences of (float, Fraction)
        Per query (the same number on both sides), its law on ``d0`` and on ``d1``: ``(value,
        probability)`` pairs with exact rational probabilities summing to 1. The queries are
        independent of each other and of the noise.
    description : str
        For reports.

    Returns
    -------
    FiniteProfile
        Over the outputs "halt at query 1", ..., "halt at query T", "no halt"; the pair's own law
        (``kind == "exact"``), probabilities in Arb balls (see the module docstring).
    """
    owner = "random_query_threshold_profile"
    threshold = check_exact_float(owner, "threshold", threshold)
    if not math.isfinite(threshold):
        raise argument_error(owner, "threshold", "a finite number", threshold)
    b1 = check_positive(owner, "threshold_scale", check_exact_float(owner, "threshold_scale", threshold_scale))
    b2 = check_positive(owner, "query_scale", check_exact_float(owner, "query_scale", query_scale))
    if len(laws0) != len(laws1) or not laws0:
        raise argument_error(owner, "laws1", f"one law per query, as many as laws0 ({len(laws0)})", len(laws1))
    sides = [_checked(owner, name, laws) for name, laws in (("laws0", laws0), ("laws1", laws1))]
    for name, side in zip(("laws0", "laws1"), sides, strict=True):
        if len({q for law in side for q, _ in law}) > MAX_VALUES:
            raise argument_error(owner, name, f"at most {MAX_VALUES} distinct values", "more")
        far = max(abs(Fraction(q) - Fraction(threshold)) for law in side for q, _ in law)
        if 2 * (len(side) + 1) * far / Fraction(min(b1, b2)) > MAX_EXPONENT:
            raise argument_error(owner, name, f"values within {float(MAX_EXPONENT):.3g} * min(threshold_scale, query_scale) / "
                                 f"(2 (queries + 1)) of the threshold (the integrand's exponents must stay below 2^250 for "
                                 f"Arb to enclose them)", f"a value {float(far):.6g} from the threshold",
                                 fix="values this many noise scales from the threshold are not supported (rescaling all "
                                     "inputs by one factor leaves the ratio, and the law, unchanged).")
    with precision():
        p = _side_probabilities(float(threshold), b1, b2, sides[0])
        q = _side_probabilities(float(threshold), b1, b2, sides[1])
    n = len(laws0)
    labels = [f"halt at step {t + 1}" for t in range(n)] + ["no halt"]
    return finite_from_arbs(p, q, labels=labels,
                            description=description or f"AboveThreshold on {n} random queries (first halt, exact)")
