"""Erratum E9: Alg 6's localisation radius R' is smaller than what Prop B.1 certifies.

R' uses G sqrt(log(1/beta))/(mu sqrt(nm)) where Prop B.1 only certifies 30 G sqrt(log(2/beta))/(mu
sqrt(nm)) (DISPROVED); with Prop B.1's radius the triangle inequality closes (PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import stats

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2023/alg6_radius_printed"
CORRECTED = "ghazi2023/alg6_radius_corrected"
_PROP_B1 = "Prop B.1: for beta < 1/e, P[||theta*(x) - theta*(D)|| <= 30 G sqrt(log(2/beta))/(mu sqrt(nm))] >= 1 - beta"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.cite("[GKKMMZ23] Prop B.1", _PROP_B1)
    proof.given("the proof of Thm 5.3 needs R''s second term to cover ||theta*(x) - theta*(D)|| via Prop B.1")
    beta = sp.Rational(1, 100)
    printed = sp.sqrt(sp.log(1 / beta))  # in units of G/(mu sqrt(nm))
    needed = 30 * sp.sqrt(sp.log(2 / beta))
    proof.refute("beta = 0.01: printed term G sqrt(log(1/beta))/(mu sqrt(nm)) vs Prop B.1's radius", {"beta": "1/100",
                 "printed / (G/(mu sqrt(nm)))": printed, "Prop B.1 / (G/(mu sqrt(nm)))": needed}, printed - needed)
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.cite("[GKKMMZ23] Prop B.1", _PROP_B1)
    proof.cite("Gaussian norm concentration", "e ~ N(0, sigma^2 I_d): P[||e|| >= sigma (sqrt(d) + sqrt(2 ln(1/beta)))] <= beta (Lipschitz concentration)")
    proof.given("theta_0 = theta*(x) + e (SCOutputPert succeeded); R' = sigma (sqrt(d) + sqrt(2 ln(1/beta))) + 30 G sqrt(log(2/beta))/(mu sqrt(nm))")
    ra, rb = sp.symbols("r_a r_b", nonnegative=True)
    s1, s2 = sp.symbols("s1 s2", nonnegative=True)  # a = r_a - s1 <= r_a, b = r_b - s2 <= r_b
    proof.cite("triangle inequality", "||theta*(D) - theta_0|| <= ||theta*(D) - theta*(x)|| + ||theta*(x) - theta_0|| = a + b")
    proof.nonneg("on both events: a + b <= r_a + r_b = R' (a = r_a - s1 <= r_a, b = r_b - s2 <= r_b)", (ra + rb) - ((ra - s1) + (rb - s2)))
    proof.assume("union bound", "the two events each fail with probability <= beta, so both hold with probability >= 1 - 2 beta")
    rng = proof.rng
    dd = rng.integers(1, 500, 300)
    bb = np.exp(rng.uniform(np.log(1e-9), np.log(np.exp(-1)), 300))
    tail = stats.chi.sf(np.sqrt(dd) + np.sqrt(2 * np.log(1 / bb)), dd)
    proof.numeric_le("scipy chi.sf: P[||e||/sigma >= sqrt(d) + sqrt(2 ln(1/beta))] <= beta at 300 seeded (d, beta)", tail, bb,
                     {"d": dd, "beta": bb})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2023, Alg 6 line 4 (R' = sigma sqrt(d log(1/beta)) + G sqrt(log(1/beta))/(mu sqrt(nm))) vs Prop B.1; note erratum E9",
        statement=("(as printed) Alg 6's term G sqrt(log(1/beta))/(mu sqrt(nm)) is at least Prop B.1's radius "
                   "30 G sqrt(log(2/beta))/(mu sqrt(nm)), so Prop B.1 certifies theta*(D) in B(theta*(x), that term)."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2023, Alg 6 / proof of Thm 5.3 with R' from Prop B.1 and a Gaussian norm bound; note E9 and 5.17",
        statement=("(corrected) With R' = sigma (sqrt(d) + sqrt(2 ln(1/beta))) + 30 G sqrt(log(2/beta))/(mu sqrt(nm)), theta*(D) lies in "
                   "B(theta_0, R') with probability >= 1 - 2 beta."),
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
