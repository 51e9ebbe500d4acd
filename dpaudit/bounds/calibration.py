"""Closed forms of the DP primitives the papers use, and checks of their calibration.

Each closed form is a sympy expression with its citation; each check compares it with
:mod:`dpaudit.accounting` numerically and checks the privacy claim symbolically where sympy can
and numerically at random points always (conventions 8 and 11 of ``docs/conventions.md``).
AboveThreshold's cost, loss and check live in :mod:`dpaudit.bounds.above_threshold`, the closed forms in
:mod:`dpaudit.bounds.closed_forms`; both are re-exported here.

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
   Thm 3.6 (Laplace), Thm A.1 (Gaussian), Thm 3.20 (advanced composition).
.. [BW18] B. Balle and Y.-X. Wang. Improving the Gaussian mechanism for differential privacy.
   ICML 2018, arXiv:1805.06530v2, Thm 8.
.. [DRS19] J. Dong, A. Roth and W. Su. Gaussian differential privacy. arXiv:1905.02383v3,
   Cor 2.13.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from scipy import stats

from dpaudit import accounting
from dpaudit.bounds.above_threshold import (
    above_threshold_budget,
    above_threshold_loss,
    certified_stream_loss,
    check_above_threshold,
)
from dpaudit.bounds.calibration_inputs import ExactInputs, positivity_obligation
from dpaudit.bounds.checks import (
    DIGITS,
    _decimal,
    _label,
    _shown,
    check_identity,
    check_inequality,
    random_points,
)
from dpaudit.bounds.closed_forms import (
    _mp_gauss_delta,
    _mp_phi,
    advanced_composition_expr,
    analytic_gaussian_sigma,
    gaussian_delta_expr,
    gaussian_sigma_classical_expr,
    gdp_delta_expr,
    gdp_epsilon_from_curve,
    laplace_scale_expr,
    normal_cdf,
)
from dpaudit.bounds.symbols import Delta, T, delta, epsilon, mu_gdp, sigma, x
from dpaudit.bounds.verdict import CheckResult, Premise, Verdict
from dpaudit.verify.decide import approx, decide_positive
from dpaudit.verify.proof import Proof
from dpaudit.verify.verdict import APPROX, combine_results

__all__ = [
    "above_threshold_budget",
    "above_threshold_loss",
    "advanced_composition_expr",
    "analytic_gaussian_sigma",
    "certified_stream_loss",
    "check_above_threshold",
    "check_advanced_composition",
    "check_analytic_gaussian",
    "check_gaussian_classical",
    "check_gaussian_noise",
    "check_gdp_conversion",
    "check_laplace_calibration",
    "gaussian_delta_expr",
    "gaussian_sigma_classical_expr",
    "gdp_delta_expr",
    "gdp_epsilon_from_curve",
    "laplace_scale_expr",
    "normal_cdf",
]

DR14_LAPLACE = "[DR14, Thm 3.6]"
DR14_GAUSS = "[DR14, Thm A.1]"
DR14_ADV = "[DR14, Thm 3.20]"
BW18 = "[BW18, Thm 8]"
DRS19 = "[DRS19, Cor 2.13]"


def _numeric_result(claim: str, source: str, counterexample: Mapping[str, Any] | None, cases: int, details: str,
                    method: str = "numeric", reason: str = "") -> CheckResult:
    """UNDECIDED with the evidence: a comparison of floating-point code at sampled points proves nothing.

    A disagreement it finds is a float comparison, not a counterexample the kernel re-checked: it goes in the reason.
    """
    if counterexample is not None:
        reason = f"the sampled comparison disagrees (evidence, not re-checked exactly): {counterexample}; {reason}"
    return CheckResult(Verdict.UNDECIDED, claim, source, method, None, (), None, cases, details, reason=reason,
                       evidence=None if counterexample is None else dict(counterexample))


def _cross_check_failed(result: CheckResult, mismatch: Mapping[str, Any] | None, what: str) -> CheckResult:
    """``result`` unless a float cross-check against :mod:`dpaudit.accounting` disagreed: then UNDECIDED, saying so.

    A certified DISPROVED stays (its counterexample was re-checked exactly); a PROVED about the formula is not
    printed beside evidence that dpaudit's code computes something else.
    """
    if mismatch is None or result.verdict is Verdict.DISPROVED:
        return result
    return dataclasses.replace(result, verdict=Verdict.UNDECIDED, certificate=None, counterexample=None,
                               evidence=dict(mismatch),
                               reason=f"{what} disagrees at a sampled point (a float comparison, evidence only): {dict(mismatch)}"
                                      + (f"; {result.reason}" if result.reason else ""))


_CODE_REASON = ("the claim is about dpaudit.accounting's floating-point code (it agrees with a formula to a relative "
                "tolerance), not a formula the kernel can decide: agreement at sampled points can only refute it")


def check_laplace_calibration(scale: sp.Expr | None = None, *, budget: sp.Expr = epsilon,
                              sensitivity: sp.Expr = Delta, rng: np.random.Generator,
                              claim: str | None = None, source: str = DR14_LAPLACE,
                              count: int = 64) -> CheckResult:
    """Check that Laplace noise of scale ``scale`` on a ``sensitivity``-bounded query is ``budget``-DP.

    Decided by the kernel [DR14, Thm 3.6]: (i) the privacy loss of Lap(b) between outputs shifted by ``t``,
    ``log p(x) - log p(x - t) = (|x - t| - |x|)/b``, is at most ``budget`` in absolute value for every real ``x``
    and every shift ``|t| <= sensitivity`` (Z3 on the exact translation; ``Abs`` becomes if-then-else); (ii) the
    closed-form cost ``sensitivity/scale <= budget``. Numeric, at random points (evidence only, never DISPROVED):
    (iii) ``|log p(x) - log p(x - Delta)|`` from ``scipy.stats.laplace`` stays below the budget (a float loss above
    it is noted in ``details``: the kernel decided the same bound exactly); (iv) the scale is at least
    :func:`dpaudit.accounting.laplace_scale` (up to 4 ulps of its upward rounding): dpaudit's own code disagreeing
    with the proved formula makes the verdict UNDECIDED, with the point in the reason.
    """
    inputs = ExactInputs("check_laplace_calibration")
    budget, sensitivity = inputs.read("budget", budget), inputs.read("sensitivity", sensitivity)
    scale = laplace_scale_expr(sensitivity, budget) if scale is None else inputs.read("scale", scale)
    inputs.refuse_numeric("scale", scale, "> 0 (a Laplace scale; [DR14, Thm 3.6])", lower=0)
    inputs.refuse_numeric("sensitivity", sensitivity, ">= 0 (a sensitivity)", lower=0, strict_lower=False)
    claim = claim or f"Lap({scale}) on a query of sensitivity {sensitivity} is ({budget})-DP"
    # the hypotheses of [DR14, Thm 3.6], decided by the kernel and part of the certified conjunction
    scale_positive = positivity_obligation("scale", scale, strict=True, source=source, rng=rng)
    sens_nonnegative = positivity_obligation("sensitivity", sensitivity, strict=False, source=source, rng=rng)
    shift = sp.Symbol("t", real=True)
    loss = sp.Abs(sp.Abs(x - shift) - sp.Abs(x)) / scale
    pointwise = check_inequality(loss, budget, claim="|log p(x) - log p(x - t)| <= budget for every x, |t| <= sensitivity",
                                 source=source, rng=rng, count=count,
                                 where=[sp.Le(-sensitivity, shift, evaluate=False), sp.Le(shift, sensitivity, evaluate=False)],
                                 assumptions=("Lap(b) density exp(-|x|/b)/(2b), so log p(x) - log p(x - t) = (|x - t| - |x|)/b",))
    ineq = check_inequality(sensitivity / scale, budget, claim=claim, source=source, rng=rng, count=count)
    # numeric evidence: the loss at random x via scipy, and comparison with dpaudit.accounting
    syms = sorted((scale.free_symbols | budget.free_symbols | sensitivity.free_symbols), key=lambda s: s.name)
    pts = random_points(syms, rng, count, corners=False)
    f_scale = sp.lambdify(syms, scale, "mpmath")
    f_budget = sp.lambdify(syms, budget, "mpmath")
    f_sens = sp.lambdify(syms, sensitivity, "mpmath")
    mismatch = None
    scipy_note = ""
    for pt in pts:
        args = [pt[s] for s in syms]
        bval, eps_v, sens_v = float(f_scale(*args)), float(f_budget(*args)), float(f_sens(*args))
        if not (bval > 0 and eps_v >= 0 and sens_v >= 0 and np.isfinite(bval + eps_v + sens_v)):
            continue  # outside [DR14, Thm 3.6]'s hypotheses, which the kernel decides above: no density to compare
        xs = np.concatenate([rng.uniform(-3 * sens_v, 4 * sens_v, size=8), [-sens_v, 0.0]])
        lp_x = stats.laplace.logpdf(xs, scale=bval)
        lp_shift = stats.laplace.logpdf(xs - sens_v, scale=bval)
        losses = np.abs(lp_x - lp_shift)
        # float64 error of the difference of two log-densities: a few ulps of the terms each is computed from
        # (|x|/b, log 2, log b), which can be much larger than the log-densities themselves
        terms = (np.abs(xs) + np.abs(xs - sens_v)) / bval + 2 * (np.log(2.0) + abs(np.log(bval)))
        slack = 8 * np.finfo(float).eps * (np.abs(lp_x) + np.abs(lp_shift) + terms)
        if scipy_note == "" and np.any(losses > eps_v + slack):  # scipy's rounding, or a real violation the kernel decides
            worst = int(losses.argmax())
            scipy_note = (f"scipy's float loss {float(losses[worst])!r} exceeds the budget {eps_v!r} at "
                          f"{ {s.name: float(v) for s, v in pt.items()} }, x = {float(xs[worst])!r} (float evidence; the "
                          "kernel decides the loss bound)")
        required = accounting.laplace_scale(sens_v, eps_v)
        if bval < required * (1 - 4 * np.finfo(float).eps):
            mismatch = {**{s.name: float(v) for s, v in pt.items()}, "scale": bval,
                        "accounting.laplace_scale": required}
            break
    details = (f"hypotheses scale > 0: {scale_positive.verdict.name}, sensitivity >= 0: "
               f"{sens_nonnegative.verdict.name}; pointwise loss bound: {pointwise.verdict.name}; budget inequality: {ineq.verdict.name} "
               f"({ineq.details}); scipy losses and accounting.laplace_scale at {len(pts)} points (evidence): "
               + ("agree" if mismatch is None else f"accounting DISAGREES at {mismatch}")
               + (f"; {scipy_note}" if scipy_note else ""))
    result = combine_results(claim, scale_positive, sens_nonnegative, pointwise, ineq, source=source,
                             method="kernel+numeric", residual=ineq.residual, assumptions=tuple(inputs.notes),
                             cases=scale_positive.cases + sens_nonnegative.cases + pointwise.cases + ineq.cases
                             + len(pts), details=details)
    return _cross_check_failed(result, mismatch, "accounting.laplace_scale")


def _gaussian_candidates(sigma_expr: sp.Expr, sens_expr: sp.Expr, eps_expr: sp.Expr, delta_expr: sp.Expr,
                         pts: Sequence[Mapping[sp.Symbol, float]]) -> tuple[list[Mapping[sp.Symbol, float]], int, float, str]:
    """Points where the exact curve [BW18, Thm 8] at sigma exceeds the delta budget, in 50-digit mpmath (candidates only).

    Also returns how many points were evaluated, the largest ``delta(sigma)/delta_budget`` seen, and a note on the
    cross-check of the mpmath curve against :func:`dpaudit.accounting.analytic_gaussian_delta` (evidence).
    """
    syms = sorted(sigma_expr.free_symbols | sens_expr.free_symbols | eps_expr.free_symbols | delta_expr.free_symbols,
                  key=lambda s: s.name)
    fns = [sp.lambdify(syms, e, "mpmath") for e in (sigma_expr, sens_expr, eps_expr, delta_expr)]
    worst = 0.0
    evaluated = 0
    candidates: list[Mapping[sp.Symbol, float]] = []
    disagreement = ""
    with mpmath.workdps(DIGITS):
        for pt in pts:
            args = [mpmath.mpf(pt[s]) for s in syms]
            sig_v, sens_v, eps_v, dl_v = (f(*args) for f in fns)
            if not (sig_v > 0 and sens_v > 0 and eps_v > 0 and 0 < dl_v < 1):
                continue  # outside the hypotheses of [BW18, Thm 8] (decided by the kernel): no curve to evaluate
            exact = _mp_gauss_delta(eps_v, sig_v, sens_v)
            evaluated += 1
            # cross-check the mpmath curve against dpaudit.accounting's scipy implementation (evidence)
            acc = accounting.analytic_gaussian_delta(float(eps_v), float(sig_v), float(sens_v))
            if (not disagreement and exact > mpmath.mpf(10) ** -250
                    and abs(acc - float(exact)) > 1e-7 * float(exact) + 1e-300):
                disagreement = (f"mpmath and accounting.analytic_gaussian_delta disagree at {_shown(pt)}: "
                                f"{float(exact)} vs {acc}")
            worst = max(worst, float(exact / dl_v))
            if exact > dl_v * (1 + mpmath.mpf(10) ** -20):
                candidates.append(pt)
    return candidates, evaluated, worst, disagreement


def _refute_gaussian(name: str, sigma_expr: sp.Expr, sens_expr: sp.Expr, eps_expr: sp.Expr, delta_expr: sp.Expr,
                     candidates: Sequence[Mapping[sp.Symbol, float]], region: Mapping[sp.Symbol, tuple[float, float]],
                     where: Sequence[Any], limit: int = 4) -> CheckResult | None:
    """A DISPROVED re-checked exactly at a point near a candidate, or ``None`` when no candidate re-checks.

    The point is the candidate rounded to two significant digits, else its floats read as exact rationals; there the
    closed-form exact delta [BW18, Thm 8] at sigma exceeds the budget, its sign decided by the kernel (arb balls),
    and the point lies in the region and satisfies ``where`` (checked exactly).
    """
    readable = [{s: sp.Rational(f"{float(v):.2g}") for s, v in pt.items()} for pt in candidates[:limit]]
    exact_points = [{s: sp.Rational(float(v)) for s, v in pt.items()} for pt in candidates[:limit]]
    for exact in [*readable, *exact_points]:  # a short decimal near the candidate first, then its exact binary value
        sig, sens, eps_v, dl = (sp.sympify(e).subs(exact) for e in (sigma_expr, sens_expr, eps_expr, delta_expr))
        achieved = gaussian_delta_expr(eps_v, sig, sens)
        conditions: dict[str, Any] = {}
        for s, (lo, hi) in region.items():
            if s in exact:
                conditions[f"{s} >= {_decimal(lo)}"] = exact[s] - _decimal(lo)
                conditions[f"{s} <= {_decimal(hi)}"] = _decimal(hi) - exact[s]
        for k, w in enumerate(where):
            conditions[f"where[{k}]: {w}"] = sp.sympify(w).subs(exact)
        conditions["sigma > 0"] = sig
        conditions["sensitivity > 0"] = sens
        conditions["epsilon > 0"] = eps_v
        conditions["0 < delta"] = dl
        proof = Proof(name)
        proof.cite("[BW18] Thm 8", _BW18_TEXT)
        point = {**{s.name: v for s, v in sorted(exact.items(), key=lambda t: t[0].name)}, "sigma": sig,
                 "exact delta(eps)": achieved, APPROX: {"sigma": approx(sig), "exact delta(eps)": approx(achieved)}}
        if proof.refute("the exact delta of N(0, sigma^2) exceeds the delta budget", point, dl - achieved,
                        conditions=conditions):
            return proof.result()
    return None


_BW18_TEXT = ("N(0, sigma^2) noise on a query of l2-sensitivity Delta is (eps, delta)-DP iff delta >= "
              "Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta)")


def check_gaussian_noise(
    sigma_expr: sp.Expr,
    *,
    sensitivity: sp.Expr,
    eps_budget: sp.Expr,
    delta_budget: sp.Expr,
    claim: str,
    source: str,
    rng: np.random.Generator,
    region: Mapping[sp.Symbol, tuple[float, float]] | None = None,
    where: Sequence[Any] = (),
    count: int = 64,
    reparametrize: Mapping[sp.Symbol, Any] | None = None,
) -> CheckResult:
    """Check that N(0, sigma^2) noise on a query of l2-sensitivity ``sensitivity`` is (eps_budget, delta_budget)-DP over a region.

    Decided by the kernel: (i) ``sigma_expr >=`` the classical sigma [DR14, Thm A.1] (squares compared, for every
    value of the symbols) and (ii) ``eps_budget < 1`` on the whole region (the theorem's hypothesis; the region's
    box, and ``where``, are the hypotheses of this step). Both PROVED give PROVED given the cited [DR14, Thm A.1],
    on the region. Numeric, at random points of the region: the exact curve [BW18, Thm 8] at sigma, in mpmath
    (cross-checked with :func:`dpaudit.accounting.analytic_gaussian_delta`, evidence); a point where it exceeds
    delta_budget is re-checked exactly (:func:`_refute_gaussian`: closed form, arb signs, the point's membership
    of the region) and only then makes the verdict DISPROVED, given the cited [BW18, Thm 8].

    The certified claim (``CheckResult.claim``) is what the kernel decided; ``claim`` is kept as the label
    (``CheckResult.statement``). UNDECIDED otherwise (e.g. the region allows eps_budget >= 1 and no violation
    re-checks), with the reason.
    """
    region = dict(region or {})
    inputs = ExactInputs("check_gaussian_noise")
    sigma_expr, sensitivity = inputs.read("sigma_expr", sigma_expr), inputs.read("sensitivity", sensitivity)
    eps_budget, delta_budget = inputs.read("eps_budget", eps_budget), inputs.read("delta_budget", delta_budget)
    inputs.refuse_numeric("sigma_expr", sigma_expr, "> 0 (a noise standard deviation)", lower=0)
    inputs.refuse_numeric("sensitivity", sensitivity, "> 0 ([BW18, Thm 8] divides by it; a constant query needs no "
                          "noise)", lower=0)
    inputs.refuse_numeric("delta_budget", delta_budget, "in (0, 1) ([DR14, Thm A.1])", lower=0, upper=1)
    label = _label("check_gaussian_noise", claim)
    classical = gaussian_sigma_classical_expr(sensitivity, eps_budget, delta_budget)
    # compare squares: sigma^2 >= classical^2 (both positive), which keeps sqrt out of sympy's way
    reduction = check_inequality(classical**2, sigma_expr**2, claim=f"{sigma_expr} >= classical Gaussian sigma",
                                 source=DR14_GAUSS, rng=rng, region=region, where=where, count=count // 2,
                                 reparametrize=reparametrize)
    syms = sorted(sigma_expr.free_symbols | sensitivity.free_symbols | eps_budget.free_symbols
                  | delta_budget.free_symbols | {s for w in where for s in sp.sympify(w).free_symbols},
                  key=lambda s: s.name)
    pts = random_points(syms, rng, count, region=region, where=where)
    candidates, evaluated, worst, disagreement = _gaussian_candidates(sigma_expr, sensitivity, eps_budget,
                                                                      delta_budget, pts)
    small_eps = _below_one_on_region(eps_budget, region, where, rng)
    # the other hypotheses of [DR14, Thm A.1] (and of the [BW18] curve the refutation uses), on the region
    box = _region_box(region, where)
    hypotheses = [positivity_obligation("sigma", sigma_expr, strict=True, source=DR14_GAUSS, rng=rng, where=box),
                  positivity_obligation("sensitivity", sensitivity, strict=True, source=DR14_GAUSS, rng=rng, where=box),
                  positivity_obligation("delta_budget", delta_budget, strict=True, source=DR14_GAUSS, rng=rng, where=box,
                                        upper=sp.Integer(1))]
    hypotheses_proved = all(h.verdict is Verdict.PROVED for h in hypotheses)
    details = (f"reduction to [DR14, Thm A.1]: {reduction.verdict.name}; 0 < eps_budget < 1 on the whole region (kernel): "
               f"{small_eps.verdict.name}; sigma > 0, sensitivity > 0, 0 < delta_budget < 1 (kernel): "
               f"{', '.join(h.verdict.name for h in hypotheses)}; exact-curve [BW18] max delta(sigma)/delta_budget = {worst:.3g} at {evaluated} "
               f"points" + (f"; {len(candidates)} candidate violation(s)" if candidates else "")
               + (f"; {disagreement} (evidence)" if disagreement else ""))
    fields = dict(source=source, method="kernel+numeric", residual=reduction.residual, assumptions=tuple(inputs.notes),
                  cases=reduction.cases + small_eps.cases + sum(h.cases for h in hypotheses) + evaluated,
                  details=details)
    refuted = _refute_gaussian(f"gaussian_noise/{label}", sigma_expr, sensitivity, eps_budget, delta_budget,
                               candidates, region, where) if candidates else None
    if refuted is not None:
        return combine_results(label, refuted, **fields)
    if reduction.verdict is Verdict.PROVED and small_eps.verdict is Verdict.PROVED and hypotheses_proved and not candidates:
        return combine_results(label, reduction, small_eps, *hypotheses, premises=(_DR14_A1_PREMISE,), **fields)
    if candidates:
        reason = (f"the mpmath curve exceeds delta_budget at {_shown(candidates[0])} but no candidate re-checked "
                  "exactly")
    elif small_eps.verdict is not Verdict.PROVED:
        reason = "0 < eps_budget < 1 is not shown on the whole region, so [DR14, Thm A.1] does not apply"
    elif not hypotheses_proved:
        reason = ("sigma > 0, sensitivity > 0 and 0 < delta_budget < 1 are not all shown on the whole region, so "
                  "[DR14, Thm A.1] does not apply")
    else:
        reason = f"reduction to [DR14, Thm A.1]: {reduction.verdict}"
    region_text = tuple(f"{s} in [{lo:g}, {hi:g}]" for s, (lo, hi) in region.items())
    return CheckResult(Verdict.UNDECIDED, f"N(0, ({sigma_expr})**2) noise on a query of l2-sensitivity {sensitivity} is "
                       f"({eps_budget}, {delta_budget})-DP" + (f" for {', '.join(region_text)}" if region_text else ""),
                       assumptions=("classical Gaussian theorem needs 0 < eps < 1", *region_text, *inputs.notes),
                       reason=reason, statement=label, **{k: v for k, v in fields.items() if k != "assumptions"})


_DR14_A1_PREMISE = Premise("cited", "[DR14] Thm A.1", "for eps in (0, 1) and c^2 > 2 ln(1.25/delta), N(0, sigma^2) noise "
                            "with sigma >= c Delta/eps on a query of l2-sensitivity Delta is (eps, delta)-DP (the boundary "
                            "c^2 = 2 ln(1.25/delta) follows by continuity of the exact delta in sigma [BW18, Thm 8])")


def _below_one_on_region(eps_budget: sp.Expr, region: Mapping[sp.Symbol, tuple[float, float]], where: Sequence[Any],
                         rng: np.random.Generator) -> CheckResult:
    """``0 < eps_budget < 1`` at every point of the box ``region`` (the claim's domain) satisfying ``where``, by the kernel.

    [DR14, Thm A.1] needs eps in (0, 1). The box's ends are read as the decimals they were written as; a symbol of
    ``eps_budget`` outside the box ranges over its whole declared domain (so an unbounded one leaves the step unproved).
    """
    return positivity_obligation("eps_budget", eps_budget, strict=True, source=DR14_GAUSS, rng=rng,
                                 where=_region_box(region, where), upper=sp.Integer(1))


def _region_box(region: Mapping[sp.Symbol, tuple[float, float]], where: Sequence[Any]) -> list[Any]:
    """The box ``region`` as relations (ends read as the decimals they were written as), then ``where``."""
    box = [rel for s, (lo, hi) in region.items()
           for rel in (sp.Le(_decimal(lo), s, evaluate=False), sp.Le(s, _decimal(hi), evaluate=False))]
    return [*box, *where]


def check_gaussian_classical(*, rng: np.random.Generator, sigma_expr: sp.Expr | None = None,
                             eps_range: tuple[float, float] = (1e-3, 0.999), count: int = 48) -> CheckResult:
    """The classical Gaussian calibration [DR14, Thm A.1] against :mod:`dpaudit.accounting` and the exact curve.

    Numeric: the sympy formula agrees with :func:`dpaudit.accounting.gaussian_sigma_classical` (which
    rounds up by at most 4 ulps) and, on ``eps_range``, the exact curve [BW18] at that sigma is at most
    delta. Pass ``eps_range=(1, 20)`` to see the formula fail outside its hypothesis.
    """
    inputs = ExactInputs("check_gaussian_classical")
    formula = gaussian_sigma_classical_expr() if sigma_expr is None else inputs.read("sigma_expr", sigma_expr)
    inputs.refuse_numeric("sigma_expr", formula, "> 0 (a noise standard deviation)", lower=0)
    region = {epsilon: eps_range}
    noise = check_gaussian_noise(formula, sensitivity=Delta, eps_budget=epsilon, delta_budget=delta,
                                 claim=f"classical Gaussian sigma is (eps, delta)-DP for eps in {eps_range}",
                                 source=DR14_GAUSS, rng=rng, region=region, count=count)
    pts = random_points([Delta, epsilon, delta], rng, count, region={epsilon: (1e-3, 0.999)}, corners=False)
    f = sp.lambdify((Delta, epsilon, delta), formula, "mpmath")
    mismatch = None
    for pt in pts:
        ours = float(f(pt[Delta], pt[epsilon], pt[delta]))
        ref = accounting.gaussian_sigma_classical(pt[Delta], pt[epsilon], pt[delta])
        if not (ref * (1 - 8 * np.finfo(float).eps) <= ours <= ref):
            mismatch = {s.name: v for s, v in pt.items()} | {"formula": ours, "accounting": ref}
            break
    details = noise.details + f"; formula vs accounting.gaussian_sigma_classical at {len(pts)} points (evidence): " + (
        "agree" if mismatch is None else f"DISAGREE at {mismatch}")
    result = combine_results(noise.statement, noise, source=DR14_GAUSS, method=noise.method, residual=noise.residual,
                             assumptions=tuple(inputs.notes), cases=noise.cases + len(pts), details=details)
    return _cross_check_failed(result, mismatch, "accounting.gaussian_sigma_classical")


def check_analytic_gaussian(*, rng: np.random.Generator, count: int = 64) -> CheckResult:
    """The exact Gaussian curve [BW18, Thm 8] and the analytic calibration of :mod:`dpaudit.accounting`.

    Numeric at random points: (i) the sympy curve (mpmath) agrees with
    :func:`dpaudit.accounting.analytic_gaussian_delta` to a relative 1e-7; (ii)
    :func:`dpaudit.accounting.gaussian_sigma_analytic` is safe (curve at sigma <= delta) and tight
    (curve at sigma (1 - 1e-6) > delta); (iii) it agrees with the independent bisection
    :func:`analytic_gaussian_sigma` to a relative 1e-9. Symbolic: the curve is decreasing in sigma
    (its derivative simplifies to a negative expression), which makes (ii) meaningful.
    """
    claim = "accounting's analytic Gaussian sigma is the smallest (eps, delta)-DP sigma"
    curve = gaussian_delta_expr()
    deriv = sp.simplify(sp.diff(curve, sigma))
    symbolic = Verdict.PROVED if decide_positive(-deriv) is Verdict.PROVED else Verdict.UNDECIDED
    pts = random_points([epsilon, delta, Delta], rng, count, region={epsilon: (1e-2, 8.0)}, corners=False)
    counterexample = None
    with mpmath.workdps(DIGITS):
        for pt in pts:
            e, dl, s = pt[epsilon], pt[delta], pt[Delta]
            sig = accounting.gaussian_sigma_analytic(s, e, dl)
            at = _mp_gauss_delta(mpmath.mpf(e), mpmath.mpf(sig), mpmath.mpf(s))
            below = _mp_gauss_delta(mpmath.mpf(e), mpmath.mpf(sig) * (1 - mpmath.mpf(10) ** -6), mpmath.mpf(s))
            ours = analytic_gaussian_sigma(e, dl, s)
            acc_curve = accounting.analytic_gaussian_delta(e, sig, s)
            problems = []
            if at > dl * (1 + mpmath.mpf(10) ** -30):
                problems.append("unsafe")
            if below <= dl:
                problems.append("not tight")
            if abs(ours - sig) > 1e-9 * sig:
                problems.append("disagrees with the mpmath bisection")
            if abs(acc_curve - float(at)) > 1e-7 * float(at):
                problems.append("curve disagrees with accounting")
            if problems:
                counterexample = {s_.name: v for s_, v in pt.items()} | {
                    "sigma": sig, "exact_delta/delta - 1": float(at / dl - 1), "problem": "; ".join(problems)}
                break
    # a universally quantified claim about accounting's root finder can only be sampled, and a problem found is a float
    # comparison (evidence, in the reason): UNDECIDED either way
    details = (f"d delta/d sigma < 0 (kernel): {symbolic.name}; safe, tight and equal to the independent "
               f"bisection at {len(pts)} random points" if counterexample is None else "see the reason")
    result = _numeric_result(claim, BW18, counterexample, 1 + len(pts), details, method="kernel+numeric",
                             reason=_CODE_REASON.replace("agrees with a formula", "finds a root"))
    return dataclasses.replace(result, residual=deriv)


def check_gdp_conversion(*, rng: np.random.Generator, count: int = 32) -> CheckResult:
    """mu-GDP to (epsilon, delta) [DRS19, Cor 2.13] is the Gaussian curve with ``sensitivity/sigma = mu``.

    Symbolic: ``gdp_delta_expr(mu, eps) == gaussian_delta_expr(eps, 1/mu, 1)`` (identity). Numeric:
    the sympy curve agrees with :func:`dpaudit.accounting.gdp_delta`, and
    :func:`dpaudit.accounting.gdp_epsilon` agrees with the independent :func:`gdp_epsilon_from_curve`
    to a relative 1e-8.
    """
    ident = check_identity(gdp_delta_expr(), gaussian_delta_expr(epsilon, 1 / mu_gdp, sp.Integer(1)),
                           claim="GDP curve == Gaussian curve with sensitivity/sigma = mu", source=DRS19,
                           rng=rng, count=count)
    pts = random_points([mu_gdp, delta], rng, count, region={mu_gdp: (0.05, 5.0)}, corners=False)
    counterexample = None
    for pt in pts:
        mu_v, dl = pt[mu_gdp], pt[delta]
        ours = gdp_epsilon_from_curve(mu_v, dl)
        theirs = accounting.gdp_epsilon(mu_v, dl)
        if abs(ours - theirs) > 1e-8 * max(1.0, ours):
            counterexample = {"mu_gdp": mu_v, "delta": dl, "curve_epsilon": ours, "accounting.gdp_epsilon": theirs}
            break
        with mpmath.workdps(DIGITS):
            e_probe = mpmath.mpf(ours) / 2
            curve_v = _mp_phi(-e_probe / mu_v + mpmath.mpf(mu_v) / 2) - mpmath.exp(e_probe) * _mp_phi(-e_probe / mu_v - mpmath.mpf(mu_v) / 2)
        acc_v = accounting.gdp_delta(mu_v, float(e_probe))
        if abs(acc_v - float(curve_v)) > 1e-7 * float(curve_v):
            counterexample = {"mu_gdp": mu_v, "epsilon": float(e_probe), "curve": float(curve_v), "accounting.gdp_delta": acc_v}
            break
    details = ident.details + f"; accounting.gdp_epsilon / gdp_delta vs the mpmath curve at {len(pts)} points (evidence): " + (
        "agree" if counterexample is None else f"DISAGREE at {counterexample}")
    result = combine_results("GDP -> (epsilon, delta) conversion", ident, source=DRS19, method="kernel+numeric",
                             residual=ident.residual, cases=ident.cases + len(pts), details=details)
    return _cross_check_failed(result, counterexample, "accounting.gdp_epsilon / gdp_delta")


def check_advanced_composition(*, rng: np.random.Generator, count: int = 32) -> CheckResult:
    """The advanced-composition formula [DR14, Thm 3.20] against :func:`dpaudit.accounting.advanced_composition`."""
    expr = advanced_composition_expr(epsilon, T, delta)
    f = sp.lambdify((epsilon, T, delta), expr, "mpmath")
    pts = random_points([epsilon, T, delta], rng, count, region={epsilon: (1e-3, 2.0)})
    counterexample = None
    for pt in pts:
        ours = float(f(pt[epsilon], pt[T], pt[delta]))
        theirs = accounting.advanced_composition(pt[epsilon], 0.0, int(pt[T]), pt[delta]).epsilon
        if abs(ours - theirs) > 1e-12 * ours:
            counterexample = {s.name: v for s, v in pt.items()} | {"formula": ours, "accounting": theirs}
            break
    return _numeric_result("advanced composition formula matches dpaudit.accounting", DR14_ADV, counterexample, len(pts),
                           f"compared at {len(pts)} points", reason=_CODE_REASON)
