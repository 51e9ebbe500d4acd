"""AboveThreshold: its privacy cost, its loss on near-worst-case streams, and the check of a calibration.

:func:`above_threshold_budget` is the cost the coupling in the proof of [DR14, Thm 3.23] charges; the loss of a
near-worst-case stream comes certified (:func:`certified_stream_loss`, exact Arb enclosures from
:mod:`dpaudit.exact.threshold`) and by quadrature (:func:`above_threshold_loss`, mpmath, evidence only);
:func:`check_above_threshold` puts both against a budget. :mod:`dpaudit.bounds.calibration` re-exports all four.

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
   Thm 3.23 and its proof (AboveThreshold).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from flint import arb

from dpaudit._validation import check_nonnegative, check_positive
from dpaudit.bounds.calibration_inputs import ExactInputs, positivity_obligation
from dpaudit.bounds.checks import _decimal, _label, _shown, check_inequality, random_points
from dpaudit.bounds.verdict import CheckResult, Premise, Verdict
from dpaudit.exact.enclosure import precision
from dpaudit.exact.threshold import ThresholdSpec, threshold_profile
from dpaudit.verify.proof import Proof
from dpaudit.verify.verdict import APPROX, combine_results

__all__ = [
    "above_threshold_budget",
    "above_threshold_loss",
    "certified_stream_loss",
    "certified_stream_pattern",
    "check_above_threshold",
]

DR14_AT = "[DR14, Thm 3.23]"


def above_threshold_budget(sensitivity: sp.Expr, threshold_scale: sp.Expr, query_scale: sp.Expr) -> sp.Expr:
    """Privacy cost of AboveThreshold [DR14, Thm 3.23, proof]: ``Delta/b_th + 2 Delta/b_q``.

    The proof couples the threshold noise shifted by Delta (cost Delta/b_th) with the halting query's
    noise shifted by 2 Delta (cost 2 Delta/b_q); with b_th = 2/eps, b_q = 4/eps and Delta = 1 this is eps.
    """
    return sensitivity / threshold_scale + 2 * sensitivity / query_scale


def _laplace_sf(z: Any, b: Any) -> Any:
    return mpmath.exp(-z / b) / 2 if z >= 0 else 1 - mpmath.exp(z / b) / 2


def _laplace_pdf(z: Any, b: Any) -> Any:
    return mpmath.exp(-abs(z) / b) / (2 * b)


def certified_stream_pattern(threshold_scale: float, query_scale: float, sensitivity: float) -> tuple[float, float, str]:
    """The output pattern of AboveThreshold with the largest certified lower bound on its privacy loss.

    Returns ``(num, den, where)``: ``num`` is the lower end of an Arb enclosure of the pattern's probability on one
    stream and ``den`` the upper end of its enclosure on the neighbouring one (floats, i.e. exact binary rationals),
    so ``ln(num/den)`` bounds the loss from below; ``where`` names the streams and the direction. The streams and the
    exact laws are those of :func:`certified_stream_loss`.

    Raises
    ------
    InvalidArgument
        If a scale is not a finite positive number or the sensitivity is negative, NaN or infinite (the Laplace
        densities of [DR14, Thm 3.23] need positive scales).
    """
    threshold_scale = check_positive("certified_stream_pattern", "threshold_scale", threshold_scale)
    query_scale = check_positive("certified_stream_pattern", "query_scale", query_scale)
    sensitivity = check_nonnegative("certified_stream_pattern", "sensitivity", sensitivity)
    best, where, best_pair = -math.inf, "none", (0.0, 1.0)
    with precision(200):
        for mult in (1.25, 2.5, 3.75):
            for k in (5, 10, 20):
                base = -mult * query_scale
                d0, d1 = [base] * k, [base + sensitivity] * (k - 1) + [base - sensitivity]
                law = threshold_profile(ThresholdSpec(0.0, threshold_scale, query_scale, cutoff=1, halt_on="below"),
                                        d1, d0, description="AboveThreshold halting at the first query below")
                for on, num, den in (("D'", law.p_lo, law.q_hi), ("D", law.q_lo, law.p_hi)):
                    for a, b in zip(num, den, strict=True):
                        if a > 0 and b > 0 and math.log(a) - math.log(b) > best:  # choosing only: the bound is ln(a/b)
                            best, best_pair = math.log(a) - math.log(b), (float(a), float(b))
                            where = (f"{k} queries at {base:g} on D; on D' {k - 1} at {base + sensitivity:g}, "
                                     f"then {base - sensitivity:g}; the pattern's probability on {on} over the other")
    return best_pair[0], best_pair[1], where


def certified_stream_loss(threshold_scale: float, query_scale: float, sensitivity: float) -> tuple[arb, str]:
    """A certified lower bound (an Arb ball at 200 bits) on AboveThreshold's privacy loss, and the stream reaching it.

    AboveThreshold halting at the first query below the threshold (0), on streams of ``k`` queries at ``base`` on D
    and, on D', ``k - 1`` at ``base + Delta`` then one at ``base - Delta`` (``base`` 1.25, 2.5 or 3.75 query scales
    below the threshold; ``k`` 5, 10 or 20): the pattern laws are exact Arb enclosures from
    :func:`dpaudit.exact.threshold.threshold_profile` (exponential polynomials integrated exactly [DR14, proof of
    Thm 3.23]), so ``ln(P_lo / Q_hi)`` over the patterns, either direction, bounds the loss from below. At Ghazi et
    al. 2025's printed scales (Lap(4/eps), Lap(8/eps), sensitivity 2) it is 0.99965 eps, against a budget eps/2.
    """
    num, den, where = certified_stream_pattern(threshold_scale, query_scale, sensitivity)
    with precision(200):
        return (arb(num) / arb(den)).log(), where


def above_threshold_loss(threshold_scale: float, query_scale: float, sensitivity: float) -> float:
    """Privacy loss of AboveThreshold on a near-worst-case stream, by quadrature.

    Stream (threshold 0): ``k - 1`` below-threshold queries at level ``a = 0`` on D and ``a + Delta``
    on D', then a final query at ``c`` on D and ``c - Delta`` on D'; the output is
    ``(bottom^(k-1), top)``. With ``k - 1 = 2 exp(40 max(b_th, b_q) / b_q)`` the first k-1 queries
    confine the threshold noise to its upper tail and ``c`` puts the final query in its tail, where
    the coupling of [DR14, Thm 3.23] is exact; the loss then approaches ``Delta/b_th + 2 Delta/b_q``
    from below. Returns ``log P_D(output) - log P_D'(output)``.
    """
    b_th = check_positive("above_threshold_loss", "threshold_scale", threshold_scale)
    b_q = check_positive("above_threshold_loss", "query_scale", query_scale)
    sens = check_nonnegative("above_threshold_loss", "sensitivity", sensitivity)
    with mpmath.workdps(30):
        bt, bq, s = mpmath.mpf(b_th), mpmath.mpf(b_q), mpmath.mpf(sens)
        rho_star = 40 * max(bt, bq)
        count = 2 * mpmath.exp(rho_star / bq)  # k - 1
        c_level = rho_star - 20 * bq

        def integrand(rho: Any, shift: Any) -> Any:
            below = 1 - _laplace_sf(rho - shift, bq)  # P(a + shift + nu < rho), a = 0
            if below <= 0:
                return mpmath.mpf(0)
            return _laplace_pdf(rho, bt) * mpmath.exp(count * mpmath.log(below)) * _laplace_sf(rho - c_level + shift, bq)

        points = [rho_star + j * bq for j in range(-20, 41, 2)]
        p_d = mpmath.quad(lambda r: integrand(r, 0), [-mpmath.inf, *points, mpmath.inf])
        p_dp = mpmath.quad(lambda r: integrand(r, s), [-mpmath.inf, *[pt + s for pt in points], mpmath.inf])
        return float(mpmath.log(p_d) - mpmath.log(p_dp))


# ------------------------------------------------------------------------------------------------
# checks
# ------------------------------------------------------------------------------------------------

def check_above_threshold(
    *,
    sensitivity: sp.Expr,
    threshold_scale: sp.Expr,
    query_scale: sp.Expr,
    budget: sp.Expr,
    claim: str,
    source: str,
    rng: np.random.Generator,
    region: Mapping[sp.Symbol, tuple[float, float]] | None = None,
    count: int = 2,
) -> CheckResult:
    """Check an AboveThreshold calibration: noise scales for queries of a given sensitivity spend at most ``budget``.

    PROVED (given the cited [DR14, Thm 3.23], whose proof's coupling costs ``Delta/b_th + 2 Delta/b_q``): the kernel
    decides ``above_threshold_budget(sensitivity, b_th, b_q) <= budget``. DISPROVED: at a point of the region where
    the scales and the sensitivity are exact binary numbers (a candidate's coordinates rounded to two significant
    digits, else to a power of two), the output law of a leaking stream pair is integrated exactly in Arb
    (:func:`certified_stream_pattern`) and the kernel signs ``budget - ln(num/den) < 0``, the point's membership of
    the region checked exactly too (:meth:`dpaudit.verify.Proof.refute`). Numeric, at random points (evidence): the
    same certified lower bound at the float scales, and the quadrature of :func:`above_threshold_loss`. When the
    scales are proportional to 1/eps (the usual case) loss/budget does not depend on eps, so a couple of points
    suffice. UNDECIDED otherwise (the coupling bound exceeds the budget and no leak re-checks).
    """
    region = dict(region or {})
    inputs = ExactInputs("check_above_threshold")
    sensitivity, budget = inputs.read("sensitivity", sensitivity), inputs.read("budget", budget)
    threshold_scale, query_scale = inputs.read("threshold_scale", threshold_scale), inputs.read("query_scale", query_scale)
    for name, value in (("threshold_scale", threshold_scale), ("query_scale", query_scale)):
        inputs.refuse_numeric(name, value, "> 0 (a Laplace scale; [DR14, Thm 3.23])", lower=0)
    inputs.refuse_numeric("sensitivity", sensitivity, ">= 0 (a sensitivity)", lower=0, strict_lower=False)
    label = _label("check_above_threshold", claim)
    cost = above_threshold_budget(sensitivity, threshold_scale, query_scale)
    sym = check_inequality(cost, budget, claim=claim, source=source, rng=rng, region=region, count=16)
    # the hypotheses of [DR14, Thm 3.23] on the region, decided by the kernel and part of the certified conjunction
    box = [rel for s, (lo, hi) in region.items()
           for rel in (sp.Le(_decimal(lo), s, evaluate=False), sp.Le(s, _decimal(hi), evaluate=False))]
    hypotheses = [positivity_obligation("threshold_scale", threshold_scale, strict=True, source=DR14_AT, rng=rng, where=box),
                  positivity_obligation("query_scale", query_scale, strict=True, source=DR14_AT, rng=rng, where=box),
                  positivity_obligation("sensitivity", sensitivity, strict=False, source=DR14_AT, rng=rng, where=box)]
    hypotheses_proved = all(h.verdict is Verdict.PROVED for h in hypotheses)
    exprs = [threshold_scale, query_scale, sensitivity, budget]
    # every symbol of the inputs (a symbolic sensitivity can cancel out of the cost and still be needed below)
    syms = sorted(set().union(*(e.free_symbols for e in exprs)), key=lambda s: s.name)
    pts = random_points(syms, rng, count, region=region, corners=False)
    f = [sp.lambdify(syms, e, "math") for e in exprs]
    candidates = []
    worst = quad_worst = 0.0
    for pt in pts:
        args = [pt[s] for s in syms]
        b_th, b_q, sens, bud = (float(fn(*args)) for fn in f)
        if not (b_th > 0 and b_q > 0 and sens >= 0 and math.isfinite(b_th + b_q + sens + bud)):
            continue  # outside the theorem's hypotheses (decided by the kernel above): no stream law to integrate
        lower, _ = certified_stream_loss(b_th, b_q, sens)
        if bud > 0:  # the ratios are evidence only
            quad_worst = max(quad_worst, above_threshold_loss(b_th, b_q, sens) / bud)
            worst = max(worst, float(lower.mid()) / bud)
        if lower - arb(bud) > 0:  # a leak at the float scales: a candidate, re-checked at an exact point below
            candidates.append(pt)
    details = (f"hypotheses threshold_scale > 0, query_scale > 0, sensitivity >= 0 (kernel): "
               f"{', '.join(h.verdict.name for h in hypotheses)}; "
               f"symbolic: {sym.verdict.name} ({sym.details}); certified (Arb, dpaudit.exact) stream loss / budget = "
               f"{worst:.4g}, quadrature's (evidence) {quad_worst:.4g}, at {len(pts)} points")
    fields = dict(source=source, method="kernel+exact", residual=sym.residual,
                  cases=sym.cases + sum(h.cases for h in hypotheses) + len(pts), details=details)
    refuted = _refute_above_threshold(label or claim, syms, exprs, candidates, region) if candidates else None
    if refuted is not None:
        return combine_results(label, refuted, assumptions=tuple(inputs.notes), **fields)
    if sym.verdict is Verdict.PROVED and hypotheses_proved and not candidates:
        return combine_results(label, sym, *hypotheses, premises=(_DR14_AT_PREMISE,), assumptions=tuple(inputs.notes),
                               **fields)
    if candidates:
        reason = f"a leak at the float scales of {_shown(candidates[0])} did not re-check at an exact point"
    elif not hypotheses_proved:
        reason = ("threshold_scale > 0, query_scale > 0 and sensitivity >= 0 are not all shown on the region, so "
                  "[DR14, Thm 3.23] does not apply")
    else:
        reason = f"the coupling bound of [DR14, Thm 3.23] is not shown within the budget ({sym.verdict})"
    return CheckResult(Verdict.UNDECIDED, claim, assumptions=("AboveThreshold, one threshold draw", *inputs.notes),
                       reason=reason, statement=label, **fields)


_DR14_AT_PREMISE = Premise("cited", "[DR14] Thm 3.23",
                           "AboveThreshold's privacy cost is Delta/b_th + 2 Delta/b_q (the coupling in its proof)")


def _dyadic_points(pt: Mapping[sp.Symbol, float]) -> list[dict[sp.Symbol, sp.Rational]]:
    """Exact points near a candidate: its coordinates to two significant digits, then each to the nearest power of two."""
    readable = {s: sp.Rational(f"{float(v):.2g}") for s, v in pt.items()}
    powers = {s: sp.Integer(2) ** round(math.log2(float(v))) if v > 0 else sp.Rational(float(v)) for s, v in pt.items()}
    return [readable, powers]


def _refute_above_threshold(name: str, syms: Sequence[sp.Symbol], exprs: Sequence[sp.Expr],
                            candidates: Sequence[Mapping[sp.Symbol, float]],
                            region: Mapping[sp.Symbol, tuple[float, float]], limit: int = 2) -> CheckResult | None:
    """A certified DISPROVED of an AboveThreshold calibration at an exact point near a candidate, or ``None``.

    At the point, the scales, sensitivity and budget are exact; the scales and sensitivity must be exact binary
    numbers (the Arb integration takes floats). The margin ``budget - ln(num/den)`` is a closed form the kernel signs,
    and the point's membership of the region is checked exactly.
    """
    for pt in candidates[:limit]:
        for exact in _dyadic_points(pt):
            b_th, b_q, sens, bud = (e.subs(exact) for e in exprs)
            floats = [b_th, b_q, sens]
            if not all(v.is_Rational and v > 0 for v in floats) or any(sp.Rational(float(v)) != v for v in floats):
                continue  # not exact binary numbers: the Arb law would be that of rounded scales
            num, den, where = certified_stream_pattern(float(b_th), float(b_q), float(sens))
            if num <= 0 or den <= 0:
                continue
            conditions: dict[str, Any] = {}
            for s, (lo, hi) in region.items():
                if s in exact:
                    conditions[f"{s} >= {_decimal(lo)}"] = exact[s] - _decimal(lo)
                    conditions[f"{s} <= {_decimal(hi)}"] = _decimal(hi) - exact[s]
            proof = Proof(name)
            proof.given("the output law of AboveThreshold (threshold 0 + Lap(b_th), halting at the first query whose noisy "
                        "value, with Lap(b_q) noise, falls below it) on two streams whose queries differ by at most the "
                        "sensitivity, integrated exactly: Arb enclosures of exponential-polynomial integrals "
                        "(dpaudit.exact.threshold)")
            point = {**{s.name: v for s, v in sorted(exact.items(), key=lambda t: t[0].name)},
                     "threshold scale": b_th, "query scale": b_q, "sensitivity": sens, "budget": bud, "streams": where,
                     "P(pattern), lower end": sp.Rational(num), "P'(pattern), upper end": sp.Rational(den),
                     APPROX: {"certified loss lower bound": math.log(num) - math.log(den), "budget": float(bud)}}
            margin = bud - sp.log(sp.Rational(num) / sp.Rational(den))
            if proof.refute("budget - ln(P(pattern)/P'(pattern)) < 0: the loss exceeds the budget", point, margin,
                            conditions=conditions):
                return proof.result()
    return None
