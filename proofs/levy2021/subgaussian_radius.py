"""Concentration radius of an iid sub-Gaussian sample, as printed and as the union bound gives it.

sigma sqrt(d log(2n/gamma)) fails at d = 1 (printed, DISPROVED); sigma sqrt(2 log(2n/gamma)) works
at d = 1 by the union bound (PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import special

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "levy2021/subgaussian_radius_printed"
CORRECTED = "levy2021/subgaussian_radius_d1_corrected"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("iid N(0, 1) samples (N(0, 1) is 1-sub-Gaussian): P(max_i |X_i| <= t) = erf(t/sqrt 2)^n")
    n, gamma = 100, sp.Rational(1, 100)
    t = sp.sqrt(sp.log(2 * n / gamma))
    p_ok = sp.erf(t / sp.sqrt(2)) ** n
    proof.refute("N(0, 1), d = 1, n = 100, gamma = 0.01: P(max |X_i| <= sqrt(log(2n/gamma))) vs 1 - gamma",
                 {"d": 1, "n": n, "gamma": "1/100", "radius": t, "P(concentrated)": p_ok}, p_ok - (1 - gamma))
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.cite("sub-Gaussian tail bound", "a sigma^2-sub-Gaussian X on R has P(|X - EX| > t) <= 2 exp(-t^2/(2 sigma^2)) (Chernoff)")
    proof.assume("union bound", "P(some |X_i - EX| > t) <= sum_i P(|X_i - EX| > t) = n * 2 exp(-t^2/(2 sigma^2))")
    n, gamma, sigma = sp.symbols("n gamma sigma", positive=True)
    t = sigma * sp.sqrt(2 * sp.log(2 * n / gamma))
    proof.equal("n * 2 exp(-t^2/(2 sigma^2)) = gamma at t = sigma sqrt(2 log(2n/gamma))", n * 2 * sp.exp(-t**2 / (2 * sigma**2)), gamma)
    rng = proof.rng
    nn = rng.integers(1, 10**6, 400)
    gg = np.exp(rng.uniform(np.log(1e-9), np.log(0.5), 400))
    tt = np.sqrt(2 * np.log(2 * nn / gg))
    fail = -np.expm1(nn * np.log1p(-special.erfc(tt / np.sqrt(2))))  # 1 - (1 - P(|X| > t))^n for N(0, 1)
    proof.numeric_le("Gaussian: P(max_i |X_i| > t) <= gamma at 400 seeded (n, gamma)", fail, gg, {"n": nn, "gamma": gg})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Levy et al. 2021, section 2 after Def 2 ('(sigma sqrt(d log(2n/gamma)), gamma)-concentrated'); note L20",
        statement=("(as printed) An iid sigma^2-sub-Gaussian sample X_1..X_n in R^d is (sigma sqrt(d log(2n/gamma)), gamma)-concentrated "
                   "around its mean; checked for d = 1."),
        expected=Verdict.DISPROVED,
        papers=("levy2021",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Levy et al. 2021, section 2 radius, corrected for d = 1 (union bound with the sub-Gaussian tail); note L20",
        statement=("(corrected, d = 1) An iid sigma^2-sub-Gaussian sample of size n is (sigma sqrt(2 log(2n/gamma)), gamma)-concentrated "
                   "around its mean."),
        expected=Verdict.PROVED,
        papers=("levy2021",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
