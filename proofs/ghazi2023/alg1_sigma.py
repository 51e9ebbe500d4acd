"""Erratum E2: the typeset sigma is not a Gaussian calibration for sensitivity 8 kappa Delta; the corrected one is.

The typeset sigma = 2 sqrt(ln(2/deltabar) (8 kappa Delta))/epsbar fails (DISPROVED); sigma = 2
sqrt(ln(2/deltabar)) 8 kappa Delta/epsbar is one, for eps <= 1 (PROVED).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from dpaudit.proofs.common.gaussian_classical import _BW18, exact_delta

from dpaudit.accounting.conversions import analytic_gaussian_delta
from dpaudit.mechanisms.discrete import tdlap_kappa
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2023/alg1_sigma_typeset"
CORRECTED = "ghazi2023/alg1_sigma_corrected"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.cite("[BW18] Thm 8", _BW18)
    proof.given("line 4 releases f(x_hat) + N(0, sigma^2 I) where ||f(x_hat) - f(x_hat')|| <= 8 kappa Delta (proof of Thm 3.3, step 5)")
    eps, delta, big_delta = sp.Integer(1), sp.Rational(1, 10**5), sp.Integer(1)
    epsbar = eps / 2
    deltabar = delta / (sp.exp(epsbar) + 2)
    kappa = 1 + sp.ceiling(sp.log(1 / deltabar) / epsbar)
    sens = 8 * kappa * big_delta
    sigma = 2 * sp.sqrt(sp.log(2 / deltabar) * sens) / epsbar
    achieved = exact_delta(epsbar, sigma, sens)
    proof.refute("eps = 1, delta = 1e-5, Delta = 1 (kappa = 27): exact delta(epsbar) of the typeset sigma vs deltabar",
                 {"epsilon": 1, "delta": "1e-5", "Delta": 1, "kappa": kappa, "sigma": sigma, "sensitivity": sens,
                  "exact delta(epsbar)": achieved, "deltabar": deltabar}, deltabar - achieved)
    impl = analytic_gaussian_delta(0.5, float(sigma), float(sens))
    proof.numeric_le("dpaudit analytic_gaussian_delta agrees", abs(impl - float(achieved)), 1e-9, {"impl": impl})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.cite("[DR14] Thm A.1", "[DR14] Thm A.1: for epsbar in (0, 1) and c^2 > 2 ln(1.25/deltabar), sigma >= c * sensitivity/epsbar is (epsbar, deltabar)-DP")
    proof.given("0 < eps <= 1, so epsbar = eps/2 <= 1/2; 0 < deltabar < 1")
    db = sp.Symbol("deltabar", positive=True)
    z = sp.Symbol("z", positive=True)  # z = 1/deltabar >= 1
    proof.monotone_nonneg("c^2 - 2 ln(1.25/deltabar) = 4 ln(2/deltabar) - 2 ln(1.25/deltabar) > 0 for deltabar <= 1",
                          (4 * sp.log(2 / db) - 2 * sp.log(sp.Rational(5, 4) / db)).subs(db, 1 / z), z, 1)
    rng = proof.rng
    n = 300
    ee = rng.uniform(0.01, 1.0, n)
    dd = np.exp(rng.uniform(np.log(1e-12), np.log(0.5), n))
    got, want = [], []
    for e_, d_ in zip(ee, dd, strict=True):
        epsbar, deltabar = e_ / 2, d_ / (math.exp(e_ / 2) + 2)
        sens = 8 * tdlap_kappa(epsbar, deltabar)
        sigma = 2 * math.sqrt(math.log(2 / deltabar)) * sens / epsbar
        got.append(analytic_gaussian_delta(epsbar, sigma, sens))
        want.append(deltabar)
    proof.numeric_le("exact delta(epsbar) <= deltabar at 300 seeded (eps <= 1, delta)", got, want, {"epsilon": ee, "delta": dd})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2023, Alg 1 line 3 as typeset (sigma = 2 sqrt(ln(2/deltabar)(8 kappa Delta))/epsbar); note erratum E2",
        statement=("(as printed) sigma = 2 sqrt(ln(2/deltabar) * 8 kappa Delta)/epsbar makes line 4 (sensitivity 8 kappa Delta) "
                   "(epsbar, deltabar)-DP, for all Delta > 0."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2023, Alg 1 line 3 read as sigma = 2 sqrt(ln(2/deltabar)) 8 kappa Delta/epsbar; Thm 3.3 proof step 6; note E2",
        statement=("(corrected) For 0 < eps <= 1, sigma = 2 sqrt(ln(2/deltabar)) 8 kappa Delta/epsbar makes line 4 (epsbar, deltabar)-DP "
                   "for sensitivity 8 kappa Delta."),
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
