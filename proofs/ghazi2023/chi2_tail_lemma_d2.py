"""Erratum E11: the chi-square tail Lemma D.2's proof uses, and the one that holds.

P[U >= 70 sqrt(d)] <= e^{-10 d} for U ~ chi^2(d - 1) is false for large d (DISPROVED); P[U >= 70 d]
<= e^{-10 d} holds (Laurent-Massart, PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import stats

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2023/lemma_d2_chi2_tail_sqrt_d"
CORRECTED = "ghazi2023/lemma_d2_chi2_tail_linear_d"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.cite("chi^2 moments", "U ~ chi^2(k) has E U = k and Var U = 2k")
    proof.cite("Chebyshev's inequality", "P[U < E U - s] <= Var U / s^2 for s > 0")
    d = sp.Integer(10**4)
    k = d - 1
    s = k - 70 * sp.sqrt(d)  # = 2999 > 0
    lower = 1 - 2 * k / s**2  # P[U >= 70 sqrt(d)] >= 1 - Var/(E U - 70 sqrt d)^2
    proof.refute("d = 10^4: P[U >= 7000] >= 1 - 2(9999)/2999^2 > e^{-10^5}", {"d": 10**4, "threshold 70 sqrt(d)": 7000,
                 "lower bound on P[U >= 70 sqrt(d)]": lower}, sp.exp(-10 * d) - lower)
    impl = float(stats.chi2.sf(7000.0, 9999))
    proof.numeric_le("scipy chi2.sf(7000, 9999) is above the Chebyshev bound", float(lower), impl, {"scipy": impl})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.cite("[LM00] Lemma 1", "U ~ chi^2(k): P[U >= k + 2 sqrt(k x) + 2 x] <= e^{-x} for x > 0 (Laurent & Massart 2000, Lemma 1)")
    proof.given("k = d - 1, x = 10 d, d >= 1; threshold 70 d")
    e = sp.Symbol("e", nonnegative=True)  # d = 1 + e
    d = 1 + e
    proof.nonneg("sqrt(10 d (d - 1)) <= sqrt(10) d: (sqrt(10) d)^2 - 10 d (d - 1) >= 0", 10 * d**2 - 10 * d * (d - 1))
    proof.nonneg("70 d - (d - 1 + 2 sqrt(10) d + 20 d) >= 0", sp.expand(70 * d - (d - 1 + 2 * sp.sqrt(10) * d + 20 * d)))
    dd = np.arange(1, 3001)
    logp = stats.chi2.logsf(70.0 * dd, np.maximum(dd - 1, 1e-9))
    proof.numeric_le("scipy chi2.logsf(70 d, d - 1) <= -10 d for d = 1..3000", logp, -10.0 * dd, {"d": dd})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2023, proof of Lemma D.2 ('Pr[U >= 70 sqrt(d)] <= e^{-10d}', U ~ chi^2(d - 1)); note erratum E11",
        statement="(as printed) For every d >= 1 and U ~ chi^2(d - 1): P[U >= 70 sqrt(d)] <= e^{-10 d}.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2023, proof of Lemma D.2 with threshold 70 d; note erratum E11",
        statement="(corrected) For every d >= 1 and U ~ chi^2(d - 1): P[U >= 70 d] <= e^{-10 d}.",
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
