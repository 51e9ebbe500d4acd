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

from collections.abc import Mapping
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from flint import arb

from dpaudit._validation import check_nonnegative, check_positive
from dpaudit.bounds.checks import check_inequality, random_points
from dpaudit.bounds.verdict import CheckResult, Premise, Verdict
from dpaudit.exact.enclosure import precision
from dpaudit.exact.threshold import ThresholdSpec, threshold_profile

__all__ = ["above_threshold_budget", "above_threshold_loss", "certified_stream_loss", "check_above_threshold"]

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


def certified_stream_loss(threshold_scale: float, query_scale: float, sensitivity: float) -> tuple[arb, str]:
    """A certified lower bound (an Arb ball at 200 bits) on AboveThreshold's privacy loss, and the stream reaching it.

    AboveThreshold halting at the first query below the threshold (0), on streams of ``k`` queries at ``base`` on D
    and, on D', ``k - 1`` at ``base + Delta`` then one at ``base - Delta`` (``base`` 1.25, 2.5 or 3.75 query scales
    below the threshold; ``k`` 5, 10 or 20): the pattern laws are exact Arb enclosures from
    :func:`dpaudit.exact.threshold.threshold_profile` (exponential polynomials integrated exactly [DR14, proof of
    Thm 3.23]), so ``ln(P_lo / Q_hi)`` over the patterns, either direction, bounds the loss from below. At Ghazi et
    al. 2025's printed scales (Lap(4/eps), Lap(8/eps), sensitivity 2) it is 0.99965 eps, against a budget eps/2.
    """
    best, where = arb(0), "none"
    with precision(200):
        for mult in (1.25, 2.5, 3.75):
            for k in (5, 10, 20):
                base = -mult * query_scale
                d0, d1 = [base] * k, [base + sensitivity] * (k - 1) + [base - sensitivity]
                law = threshold_profile(ThresholdSpec(0.0, threshold_scale, query_scale, cutoff=1, halt_on="below"),
                                        d1, d0, description="AboveThreshold halting at the first query below")
                for num, den in ((law.p_lo, law.q_hi), (law.q_lo, law.p_hi)):
                    for a, b in zip(num, den, strict=True):
                        if a > 0 and b > 0:
                            low = (arb(float(a)) / arb(float(b))).log()
                            if low.lower() > best.lower():
                                best, where = low, f"{k} queries at {base:g} on D; on D' {k - 1} at {base + sensitivity:g}, " \
                                                   f"then {base - sensitivity:g}"
    return best, where


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

    Symbolic: ``above_threshold_budget(sensitivity, b_th, b_q) <= budget`` [DR14, Thm 3.23, proof].
    Numeric, at random points: the loss of the near-worst-case stream of
    :func:`above_threshold_loss` (quadrature) stays at most the budget; a miscalibration shows up
    as a loss above it. When the scales are proportional to 1/eps (the usual case) loss/budget does
    not depend on eps, so a couple of points suffice.
    """
    cost = above_threshold_budget(sensitivity, threshold_scale, query_scale)
    sym = check_inequality(cost, budget, claim=claim, source=source, rng=rng, region=region, count=16)
    syms = sorted(cost.free_symbols | sp.sympify(budget).free_symbols, key=lambda s: s.name)
    pts = random_points(syms, rng, count, region=region, corners=False)
    f = [sp.lambdify(syms, e, "math") for e in (threshold_scale, query_scale, sensitivity, budget)]
    counterexample = None
    worst = quad_worst = 0.0
    for pt in pts:
        args = [pt[s] for s in syms]
        b_th, b_q, sens, bud = (float(fn(*args)) for fn in f)
        quad_worst = max(quad_worst, above_threshold_loss(b_th, b_q, sens) / bud)  # evidence only
        lower, stream = certified_stream_loss(b_th, b_q, sens)
        worst = max(worst, float(lower.mid()) / bud)
        if lower - arb(bud) > 0:  # the whole Arb ball of the certified lower bound lies above the budget
            counterexample = {s.name: v for s, v in pt.items()} | {"stream": stream, "certified loss lower bound":
                                                                   float(lower.lower()), "budget": bud}
            break
    details = (f"symbolic: {sym.verdict.name} ({sym.details}); certified (Arb, dpaudit.exact) stream loss / budget = "
               f"{worst:.4g}, quadrature's (evidence) {quad_worst:.4g}, at {len(pts)} points")
    if counterexample is not None:
        verdict = Verdict.DISPROVED
    else:
        verdict = sym.verdict if sym.verdict is not Verdict.DISPROVED else Verdict.UNDECIDED
    premise = Premise("cited", "[DR14] Thm 3.23", "AboveThreshold's privacy cost is Delta/b_th + 2 Delta/b_q (the coupling in its proof)")
    return CheckResult(verdict, claim, source, "sympy+exact", sym.residual, ("AboveThreshold, one threshold draw",),
                       counterexample or sym.counterexample, sym.cases + len(pts), details, premises=(premise,))
