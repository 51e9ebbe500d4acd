"""Alg 2's advanced-composition total, and when it is at most eps.

eps' sqrt(2 d L) + d eps'(e^{eps'} - 1), L = ln(1/delta): not <= eps for every eps (DISPROVED), but
<= eps when eps <= min(2L, sqrt(8 d L)) (PROVED).

The failure is a gap in Thm 2's *proof* (its route through advanced composition), not an erratum of the
statement: at the counterexample eps = 5, delta = 0.1, d = 1, basic composition gives d eps' = 1.165 <= 5,
so Alg 2 is (5, 0.1)-DP there by another route (note P2').
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.accounting.composition import advanced_composition
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

GAP = "levy2021/alg2_drv_total_any_epsilon"
CORRECTED = "levy2021/alg2_drv_total_small_epsilon"
_DRV = "[DR14] Thm 3.20 (advanced composition, as used for Thm 2): d adaptive eps'-DP steps are (eps' sqrt(2 d ln(1/delta)) + d eps'(e^{eps'} - 1), delta)-DP"


def total(eps: sp.Expr, delta: sp.Expr, d: sp.Expr) -> sp.Expr:
    """Epsilon of ``d`` steps at ``eps' = eps / sqrt(8 d ln(1/delta))`` each under [DR14] Thm 3.20."""
    lg = sp.log(1 / delta)
    ep = eps / sp.sqrt(8 * d * lg)
    return ep * sp.sqrt(2 * d * lg) + d * ep * (sp.exp(ep) - 1)


def _gap() -> CheckResult:
    proof = Proof(GAP)
    proof.cite("[DR14] Thm 3.20", _DRV)
    eps, delta, d = sp.Integer(5), sp.Rational(1, 10), sp.Integer(1)
    tot = total(eps, delta, d)
    basic = d * eps / sp.sqrt(8 * d * sp.log(1 / delta))  # basic composition: d eps' (note P2')
    proof.refute("eps = 5, delta = 0.1, d = 1: the advanced-composition total exceeds eps", {"epsilon": 5, "delta": "1/10", "d": 1,
                 "DRV total": tot, "basic composition d eps' (Thm 2 itself holds here)": basic}, eps - tot,
                 conditions={"basic composition d eps' <= eps: the statement of Thm 2 is not refuted here": eps - basic})
    ep = 5 / math.sqrt(8 * math.log(10))
    impl = advanced_composition(ep, 0.0, 1, 0.1).epsilon
    proof.numeric_le("dpaudit advanced_composition gives the same total", abs(impl - float(tot)), 1e-12, {"impl": impl})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.cite("[DR14] Thm 3.20", _DRV)
    proof.given("0 < eps <= min(2 L, sqrt(8 d L)), L = ln(1/delta) > 0, d >= 1")
    x = sp.Symbol("x", real=True)
    proof.concave_nonneg("e^x - 1 <= (e - 1) x on [0, 1] (chord of a convex function)", (sp.E - 1) * x - (sp.exp(x) - 1), x, 0, 1)
    eps, d, lg = sp.symbols("epsilon d L", positive=True)
    ep = eps / sp.sqrt(8 * d * lg)
    w = sp.Symbol("w", nonnegative=True)  # eps <= sqrt(8 d L) written 8 d L = eps^2 + w
    proof.nonneg("eps' = eps/sqrt(8 d L) <= 1 when eps <= sqrt(8 d L), so the chord bound applies at x = eps'",
                 (1 - ep**2).subs(d, (eps**2 + w) / (8 * lg)))
    proof.zero("d eps'^2 = eps^2 / (8 L)", d * ep**2 - eps**2 / (8 * lg))
    ell = sp.Symbol("ell", nonnegative=True)  # L = eps/2 + ell encodes eps <= 2L
    proof.nonneg("(e - 1) eps^2/(8L) <= eps/2 when eps <= 2L", (eps / 2 - (sp.E - 1) * eps**2 / (8 * lg)).subs(lg, eps / 2 + ell))
    proof.zero("first term eps' sqrt(2 d L) = eps/2", ep * sp.sqrt(2 * d * lg) - eps / 2)
    rng = proof.rng
    n = 600
    delta = np.exp(rng.uniform(np.log(1e-12), np.log(0.9), n))
    dd = rng.integers(1, 500, n)
    lgv = np.log(1 / delta)
    cap = np.minimum(2 * lgv, np.sqrt(8 * dd * lgv))
    ee = cap * rng.uniform(0.01, 1.0, n)
    ee[:60] = cap[:60]  # the boundary of the region
    totals = np.array([advanced_composition(e / math.sqrt(8 * k * lv), 0.0, int(k), dl).epsilon
                       for e, k, lv, dl in zip(ee, dd, lgv, delta, strict=True)])
    proof.numeric_le("dpaudit advanced_composition total <= eps at 600 seeded points of the region (60 on its boundary)",
                     totals, ee, {"epsilon": ee, "delta": delta, "d": dd})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=GAP,
        source="Levy et al. 2021, proof of Thm 2 (Alg 2 is (eps, delta)-DP, no restriction on eps, via advanced composition); note P2 [DERIVED]",
        statement=("(gap in the proof, not in the statement) Thm 2's route: for every eps > 0, delta in (0, 1), d >= 1, the "
                   "advanced-composition total of Alg 2, eps' sqrt(2 d ln(1/delta)) + d eps'(e^{eps'} - 1) with "
                   "eps' = eps/sqrt(8 d ln(1/delta)), is at most eps. Where it fails, Thm 2 may still hold by basic composition."),
        expected=Verdict.DISPROVED,
        papers=("levy2021",),
        check=_gap,
        role="gap",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Levy et al. 2021, Thm 2 with the region of note P2 (eps <= min(2 ln(1/delta), sqrt(8 d ln(1/delta))))",
        statement=("(corrected) If 0 < eps <= min(2 ln(1/delta), sqrt(8 d ln(1/delta))), the advanced-composition total of Alg 2 "
                   "is at most eps."),
        expected=Verdict.PROVED,
        papers=("levy2021",),
        check=_corrected,
        role="corrected",
        sibling=GAP,
    ),
)
