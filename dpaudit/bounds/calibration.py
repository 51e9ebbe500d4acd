"""Closed forms of the DP primitives the papers use, and checks of their calibration.

Each closed form is a sympy expression with its citation; each check compares it with
:mod:`dpaudit.accounting` numerically and checks the privacy claim symbolically where sympy can
and numerically at random points always (conventions 8 and 11 of ``docs/conventions.md``).
AboveThreshold's cost, loss and check live in :mod:`dpaudit.bounds.above_threshold` and are re-exported here.

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

from collections.abc import Mapping, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from scipy import stats

from dpaudit import accounting
from dpaudit._validation import check_positive, check_probability
from dpaudit.bounds.above_threshold import (
    above_threshold_budget,
    above_threshold_loss,
    certified_stream_loss,
    check_above_threshold,
)
from dpaudit.bounds.checks import DIGITS, _label, check_identity, check_inequality, random_points
from dpaudit.bounds.symbols import Delta, T, delta, epsilon, mu_gdp, sigma, x
from dpaudit.bounds.verdict import CheckResult, Premise, Verdict, combine_verdicts
from dpaudit.errors import CheckFailed
from dpaudit.verify.decide import decide_nonneg, decide_positive

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


def normal_cdf(z: sp.Expr) -> sp.Expr:
    """Standard normal CDF ``Phi(z) = erfc(-z / sqrt(2)) / 2`` as a sympy expression.

    The erfc form equals ``(1 + erf(z/sqrt(2)))/2`` but does not cancel for negative z, so that
    tiny deltas keep their relative accuracy when evaluated numerically.
    """
    return sp.erfc(-z / sp.sqrt(2)) / 2


def laplace_scale_expr(sensitivity: sp.Expr = Delta, eps: sp.Expr = epsilon) -> sp.Expr:
    """Laplace scale ``b = sensitivity / epsilon`` giving epsilon-DP [DR14, Thm 3.6]."""
    return sensitivity / eps


def gaussian_sigma_classical_expr(sensitivity: sp.Expr = Delta, eps: sp.Expr = epsilon,
                                  dlt: sp.Expr = delta) -> sp.Expr:
    """Classical Gaussian ``sigma = sensitivity sqrt(2 ln(1.25/delta)) / epsilon`` [DR14, Thm A.1] (epsilon < 1)."""
    return sensitivity * sp.sqrt(2 * sp.log(sp.Rational(5, 4) / dlt)) / eps


def gaussian_delta_expr(eps: sp.Expr = epsilon, sig: sp.Expr = sigma, sensitivity: sp.Expr = Delta) -> sp.Expr:
    """Exact delta(epsilon) of the Gaussian mechanism [BW18, Thm 8].

    .. math::
        \\delta = \\Phi\\left(\\frac{\\Delta}{2\\sigma} - \\frac{\\varepsilon\\sigma}{\\Delta}\\right)
        - e^{\\varepsilon}\\Phi\\left(-\\frac{\\Delta}{2\\sigma} - \\frac{\\varepsilon\\sigma}{\\Delta}\\right)
    """
    a = sensitivity / (2 * sig)
    b = eps * sig / sensitivity
    return normal_cdf(a - b) - sp.exp(eps) * normal_cdf(-a - b)


def gdp_delta_expr(mu: sp.Expr = mu_gdp, eps: sp.Expr = epsilon) -> sp.Expr:
    """delta(epsilon) of a mu-GDP mechanism [DRS19, Cor 2.13]: ``Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``."""
    return normal_cdf(-eps / mu + mu / 2) - sp.exp(eps) * normal_cdf(-eps / mu - mu / 2)


def advanced_composition_expr(eps: sp.Expr = epsilon, count: sp.Expr = T,
                              delta_prime: sp.Expr | None = None) -> sp.Expr:
    """Total epsilon of ``count``-fold adaptive composition [DR14, Thm 3.20]: ``sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1)``."""
    dp = delta if delta_prime is None else delta_prime
    return sp.sqrt(2 * count * sp.log(1 / dp)) * eps + count * eps * (sp.exp(eps) - 1)


# ------------------------------------------------------------------------------------------------
# numerical helpers (mpmath, independent of dpaudit.accounting's scipy implementation)
# ------------------------------------------------------------------------------------------------


def _mp_phi(z: Any) -> Any:
    return mpmath.erfc(-z / mpmath.sqrt(2)) / 2


def _mp_gauss_delta(eps: Any, sig: Any, sens: Any) -> Any:
    a = sens / (2 * sig)
    b = eps * sig / sens
    return _mp_phi(a - b) - mpmath.exp(eps) * _mp_phi(-a - b)


def analytic_gaussian_sigma(epsilon_value: float, delta_value: float, sensitivity: float = 1.0) -> float:
    """Smallest sigma with ``gaussian_delta_expr <= delta`` [BW18, Thm 8], by bisection in mpmath.

    An implementation independent of :func:`dpaudit.accounting.gaussian_sigma_analytic` (which uses
    scipy), for cross-checks. Accurate to a relative 1e-12.
    """
    eps_v = check_positive("analytic_gaussian_sigma", "epsilon", epsilon_value)
    dlt_v = check_probability("analytic_gaussian_sigma", "delta", delta_value, allow_zero=False)
    sens = check_positive("analytic_gaussian_sigma", "sensitivity", sensitivity)
    with mpmath.workdps(DIGITS):
        e, dl, s = mpmath.mpf(eps_v), mpmath.mpf(dlt_v), mpmath.mpf(sens)
        lo, hi = s * mpmath.mpf(10) ** -6, s
        while _mp_gauss_delta(e, hi, s) > dl:
            hi *= 2
        while _mp_gauss_delta(e, lo, s) <= dl:
            lo /= 2
        for _ in range(200):  # the curve decreases in sigma; keep delta(lo) > delta >= delta(hi)
            mid = (lo + hi) / 2
            if _mp_gauss_delta(e, mid, s) > dl:
                lo = mid
            else:
                hi = mid
            if hi - lo <= hi * mpmath.mpf(10) ** -15:
                break
        return float(hi)


def gdp_epsilon_from_curve(mu_value: float, delta_value: float) -> float:
    """Smallest epsilon >= 0 with ``gdp_delta_expr(mu, eps) <= delta`` [DRS19, Cor 2.13], in mpmath.

    Independent of :func:`dpaudit.accounting.gdp_epsilon`, for cross-checks.
    """
    mu_v = check_positive("gdp_epsilon_from_curve", "mu", mu_value)
    dlt_v = check_probability("gdp_epsilon_from_curve", "delta", delta_value, allow_zero=False)
    with mpmath.workdps(DIGITS):
        mu_m, dl = mpmath.mpf(mu_v), mpmath.mpf(dlt_v)

        def curve(e: Any) -> Any:
            return _mp_phi(-e / mu_m + mu_m / 2) - mpmath.exp(e) * _mp_phi(-e / mu_m - mu_m / 2)

        if curve(mpmath.mpf(0)) <= dl:
            return 0.0
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while curve(hi) > dl:
            lo, hi = hi, hi * 2
        for _ in range(200):
            mid = (lo + hi) / 2
            if curve(mid) > dl:
                lo = mid
            else:
                hi = mid
            if hi - lo <= hi * mpmath.mpf(10) ** -15:
                break
        return float(hi)


def _numeric_result(claim: str, source: str, ok: bool, counterexample: Mapping[str, float] | None, cases: int,
                    details: str, method: str = "numeric", reason: str = "") -> CheckResult:
    verdict = Verdict.DISPROVED if counterexample is not None else (Verdict.PROVED if ok else Verdict.UNDECIDED)
    return CheckResult(verdict, claim, source, method, None, (), counterexample, cases, details,
                       reason=reason if verdict is Verdict.UNDECIDED else "")


_CODE_REASON = ("the claim is about dpaudit.accounting's floating-point code (it agrees with a formula to a relative "
                "tolerance), not a formula the kernel can decide: agreement at sampled points can only refute it")


def check_laplace_calibration(scale: sp.Expr | None = None, *, budget: sp.Expr = epsilon,
                              sensitivity: sp.Expr = Delta, rng: np.random.Generator,
                              claim: str | None = None, source: str = DR14_LAPLACE,
                              count: int = 64) -> CheckResult:
    """Check that Laplace noise of scale ``scale`` on a ``sensitivity``-bounded query is ``budget``-DP.

    Symbolic: (i) the privacy-loss function ``(|x - Delta| - |x|)/b`` of Lap(b) has supremum
    ``Delta/b``, shown region by region (x <= 0, 0 <= x <= Delta, x >= Delta); (ii)
    ``sensitivity/scale <= budget``. Numeric, at random points: (iii) ``|log p(x) - log p(x - Delta)|``
    from ``scipy.stats.laplace`` stays below the budget; (iv) the scale is at least
    :func:`dpaudit.accounting.laplace_scale` (up to 4 ulps of its upward rounding).
    """
    scale = laplace_scale_expr(sensitivity, budget) if scale is None else sp.sympify(scale)
    claim = claim or f"Lap({scale}) on a query of sensitivity {sensitivity} is ({budget})-DP"
    b = sp.Symbol("b", positive=True)
    u = sp.Symbol("u", positive=True)
    loss = (sp.Abs(x - Delta) - sp.Abs(x)) / b
    region_left = sp.simplify(loss.subs(x, -u))                         # x <= 0: loss = Delta/b
    region_right = sp.simplify(loss.subs(x, Delta + u))                 # x >= Delta: loss = -Delta/b
    mid = sp.simplify(loss.subs(x, Delta / (1 + u)))                    # 0 < x < Delta (u > 0)
    sup_ok = (sp.simplify(region_left - Delta / b) == 0 and sp.simplify(region_right + Delta / b) == 0
              and decide_nonneg(Delta / b - mid) is Verdict.PROVED
              and decide_nonneg(Delta / b + mid) is Verdict.PROVED)
    ineq = check_inequality(sensitivity / scale, budget, claim=claim, source=source, rng=rng, count=count)
    # numeric: the loss at random x via scipy, and comparison with dpaudit.accounting
    syms = sorted((scale.free_symbols | budget.free_symbols | sensitivity.free_symbols), key=lambda s: s.name)
    pts = random_points(syms, rng, count, corners=False)
    f_scale = sp.lambdify(syms, scale, "mpmath")
    f_budget = sp.lambdify(syms, budget, "mpmath")
    f_sens = sp.lambdify(syms, sensitivity, "mpmath")
    counterexample = None
    for pt in pts:
        args = [pt[s] for s in syms]
        bval, eps_v, sens_v = float(f_scale(*args)), float(f_budget(*args)), float(f_sens(*args))
        xs = np.concatenate([rng.uniform(-3 * sens_v, 4 * sens_v, size=8), [-sens_v, 0.0]])
        lp_x = stats.laplace.logpdf(xs, scale=bval)
        lp_shift = stats.laplace.logpdf(xs - sens_v, scale=bval)
        losses = np.abs(lp_x - lp_shift)
        # float64 error of the difference of two log-densities: a few ulps of their magnitudes
        slack = 8 * np.finfo(float).eps * (np.abs(lp_x) + np.abs(lp_shift))
        if np.any(losses > eps_v + slack):
            counterexample = {**{s.name: float(v) for s, v in pt.items()}, "x": float(xs[losses.argmax()]),
                              "loss": float(losses.max())}
            break
        required = accounting.laplace_scale(sens_v, eps_v)
        if bval < required * (1 - 4 * np.finfo(float).eps):
            counterexample = {**{s.name: float(v) for s, v in pt.items()}, "scale": bval,
                              "accounting.laplace_scale": required}
            break
    symbolic = Verdict.PROVED if sup_ok else Verdict.UNDECIDED
    if counterexample is not None:
        verdict = Verdict.DISPROVED
    else:
        verdict = combine_verdicts(symbolic, ineq.verdict)
    details = (f"sup-loss = Delta/b shown by regions: {sup_ok}; budget inequality: {ineq.verdict.name} "
               f"({ineq.details}); scipy losses and accounting.laplace_scale at {len(pts)} points")
    return CheckResult(verdict, claim, source, "sympy+numeric", ineq.residual, ("Lap(b) density exp(-|x|/b)/(2b)",),
                       counterexample or ineq.counterexample, ineq.cases + len(pts), details)


def _exact_gaussian_violation(sigma_expr: sp.Expr, sens_expr: sp.Expr, eps_expr: sp.Expr, delta_expr: sp.Expr,
                              pts: Sequence[Mapping[sp.Symbol, float]]) -> tuple[Mapping[str, float] | None, int, float]:
    syms = sorted(sigma_expr.free_symbols | sens_expr.free_symbols | eps_expr.free_symbols | delta_expr.free_symbols,
                  key=lambda s: s.name)
    fns = [sp.lambdify(syms, e, "mpmath") for e in (sigma_expr, sens_expr, eps_expr, delta_expr)]
    worst = 0.0
    evaluated = 0
    with mpmath.workdps(DIGITS):
        for pt in pts:
            args = [mpmath.mpf(pt[s]) for s in syms]
            sig_v, sens_v, eps_v, dl_v = (f(*args) for f in fns)
            exact = _mp_gauss_delta(eps_v, sig_v, sens_v)
            evaluated += 1
            # cross-check the mpmath curve against dpaudit.accounting's scipy implementation
            acc = accounting.analytic_gaussian_delta(float(eps_v), float(sig_v), float(sens_v))
            if exact > mpmath.mpf(10) ** -250 and abs(acc - float(exact)) > 1e-7 * float(exact) + 1e-300:
                raise CheckFailed(f"mpmath and accounting disagree on the Gaussian curve at {pt}: "
                                     f"{float(exact)} vs {acc}")
            worst = max(worst, float(exact / dl_v))
            if exact > dl_v * (1 + mpmath.mpf(10) ** -20):
                shown = {s.name: float(v) for s, v in pt.items()}
                return {**shown, "sigma": float(sig_v), "exact_delta": float(exact), "claimed_delta": float(dl_v)}, evaluated, worst
    return None, evaluated, worst


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

    Symbolic: ``sigma_expr >= `` the classical sigma [DR14, Thm A.1]; this proves the claim on the
    part of the region where ``eps_budget < 1`` (the theorem's hypothesis). Numeric, at random
    points of the whole region: the exact curve [BW18, Thm 8] at sigma is at most delta_budget
    (computed in mpmath and cross-checked with :func:`dpaudit.accounting.analytic_gaussian_delta`).

    The verdict is PROVED when the symbolic reduction holds and the region forces eps_budget < 1
    (checked on the sampled points); DISPROVED when the exact curve exceeds delta_budget at a
    point; UNDECIDED otherwise (e.g. the region allows eps_budget >= 1 and no violation is seen).
    """
    classical = gaussian_sigma_classical_expr(sensitivity, eps_budget, delta_budget)
    # compare squares: sigma^2 >= classical^2 (both positive), which keeps sqrt out of sympy's way
    reduction = check_inequality(classical**2, sigma_expr**2, claim=f"{sigma_expr} >= classical Gaussian sigma",
                                 source=DR14_GAUSS, rng=rng, region=region, where=where, count=count // 2,
                                 reparametrize=reparametrize)
    syms = sorted(sigma_expr.free_symbols | sensitivity.free_symbols | sp.sympify(eps_budget).free_symbols
                  | sp.sympify(delta_budget).free_symbols | {s for w in where for s in sp.sympify(w).free_symbols},
                  key=lambda s: s.name)
    pts = random_points(syms, rng, count, region=region, where=where)
    counterexample, evaluated, worst = _exact_gaussian_violation(sigma_expr, sensitivity, sp.sympify(eps_budget),
                                                                 sp.sympify(delta_budget), pts)
    # [DR14, Thm A.1] needs eps_budget < 1 on the whole region: decided symbolically (the region is the claim's domain),
    # never from the sampled points
    small_eps = _below_one_on_region(sp.sympify(eps_budget), region or {}, where)
    details = (f"reduction to [DR14, Thm A.1]: {reduction.verdict.name}; eps_budget < 1 on the whole region (symbolic): "
               f"{small_eps.name}; exact-curve [BW18] max delta(sigma)/delta_budget = {worst:.3g} at {evaluated} points")
    reason = ""
    if counterexample is not None:
        verdict = Verdict.DISPROVED
    elif reduction.verdict is Verdict.PROVED and small_eps is Verdict.PROVED:
        verdict = Verdict.PROVED
    else:
        verdict = Verdict.UNDECIDED
        reason = ("eps_budget < 1 is not shown on the whole region, so [DR14, Thm A.1] does not apply"
                  if small_eps is not Verdict.PROVED else f"reduction to [DR14, Thm A.1]: {reduction.verdict}")
    region_text = tuple(f"{s} in [{lo:g}, {hi:g}]" for s, (lo, hi) in (region or {}).items())
    # the certified claim is what was decided; the caller's ``claim`` is a label (CheckResult.statement)
    decided = (f"N(0, ({sigma_expr})**2) noise on a query of l2-sensitivity {sensitivity} is ({eps_budget}, {delta_budget})-DP"
               + (f" for {', '.join(region_text)}" if region_text else "") + (f" where {', '.join(map(str, where))}" if where else ""))
    return CheckResult(verdict, decided, source, "sympy+numeric", reduction.residual,
                       ("classical Gaussian theorem needs eps < 1", *region_text), counterexample or reduction.counterexample,
                       reduction.cases + evaluated, details, premises=(_DR14_A1_PREMISE,), reason=reason,
                       statement=_label("check_gaussian_noise", claim))


_DR14_A1_PREMISE = Premise("cited", "[DR14] Thm A.1", "for eps in (0, 1) and c^2 > 2 ln(1.25/delta), N(0, sigma^2) noise "
                            "with sigma >= c Delta/eps on a query of l2-sensitivity Delta is (eps, delta)-DP (the boundary "
                            "c^2 = 2 ln(1.25/delta) follows by continuity of the exact delta in sigma [BW18, Thm 8])")


def _below_one_on_region(eps_budget: sp.Expr, region: Mapping[sp.Symbol, tuple[float, float]], where: Sequence[Any]) -> Verdict:
    """Is ``eps_budget < 1`` for every point of the box ``region`` (the claim's domain)?

    Each boxed symbol is written ``lo + (hi - lo)/(1 + u)``, u > 0 (onto ``(lo, hi)``; the closed
    end hi is the limit u -> 0, so the margin must stay positive there: the check uses ``1 -
    eps_budget`` at hi too), and the verification kernel decides the sign (:func:`~dpaudit.verify.decide_positive`).
    """
    if where:
        return Verdict.UNDECIDED  # extra constraints are not encoded symbolically
    free = eps_budget.free_symbols - set(region)
    if free:
        return Verdict.UNDECIDED  # an unbounded symbol: eps_budget < 1 cannot follow from the region
    subs, ends = {}, {}
    for k, (sym, (lo, hi)) in enumerate(region.items()):
        lo_q, hi_q = sp.Rational(lo), sp.Rational(hi)
        u = sp.Symbol(f"_u{k}", positive=True)
        subs[sym] = lo_q + (hi_q - lo_q) / (1 + u)
        ends[sym] = hi_q
    inside = decide_positive(1 - eps_budget.subs(subs))
    # strictly below 1 also at the upper ends (the open parametrisation reaches them only in the limit)
    at_ends = decide_positive(1 - eps_budget.subs(ends)) if ends else Verdict.PROVED
    return Verdict.PROVED if inside is Verdict.PROVED and at_ends is Verdict.PROVED else Verdict.UNDECIDED


def check_gaussian_classical(*, rng: np.random.Generator, sigma_expr: sp.Expr | None = None,
                             eps_range: tuple[float, float] = (1e-3, 0.999), count: int = 48) -> CheckResult:
    """The classical Gaussian calibration [DR14, Thm A.1] against :mod:`dpaudit.accounting` and the exact curve.

    Numeric: the sympy formula agrees with :func:`dpaudit.accounting.gaussian_sigma_classical` (which
    rounds up by at most 4 ulps) and, on ``eps_range``, the exact curve [BW18] at that sigma is at most
    delta. Pass ``eps_range=(1, 20)`` to see the formula fail outside its hypothesis.
    """
    formula = gaussian_sigma_classical_expr() if sigma_expr is None else sp.sympify(sigma_expr)
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
    verdict = Verdict.DISPROVED if mismatch is not None else noise.verdict
    details = noise.details + f"; formula vs accounting.gaussian_sigma_classical at {len(pts)} points: " + (
        "agree" if mismatch is None else "DISAGREE")
    return CheckResult(verdict, noise.claim, DR14_GAUSS, "sympy+numeric", noise.residual, noise.assumptions,
                       mismatch or noise.counterexample, noise.cases + len(pts), details, premises=noise.premises,
                       reason=noise.reason, statement=noise.statement)


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
    # a universally quantified claim about accounting's root finder can only be sampled: at best UNDECIDED
    verdict = Verdict.DISPROVED if counterexample else Verdict.UNDECIDED
    details = (f"d delta/d sigma < 0 symbolically: {symbolic.name}; safe, tight and equal to the independent "
               f"bisection at {len(pts)} random points" if counterexample is None else "see counterexample")
    return CheckResult(verdict, claim, BW18, "sympy+numeric", deriv, (), counterexample, 1 + len(pts), details,
                       reason="" if counterexample else _CODE_REASON.replace("agrees with a formula", "finds a root"))


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
    verdict = Verdict.DISPROVED if counterexample else ident.verdict
    details = ident.details + f"; accounting.gdp_epsilon / gdp_delta agree with the mpmath curve at {len(pts)} points"
    return CheckResult(verdict, "GDP -> (epsilon, delta) conversion", DRS19, "sympy+numeric", ident.residual, (),
                       counterexample or ident.counterexample, ident.cases + len(pts), details)


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
    return _numeric_result("advanced composition formula matches dpaudit.accounting", DR14_ADV, False,
                           counterexample, len(pts), f"compared at {len(pts)} points", reason=_CODE_REASON)
