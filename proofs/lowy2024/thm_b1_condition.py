"""Finding F3: Thm B.1's condition on n does not guarantee n_l >= C.

n^{1-q} >= 100 log(n/delta)/(eps (1 - 2^{-q})) does not give N_l = n_l/C >= 1 (DISPROVED); requiring
(1 - 2^{-q}) n^{1-q} >= C does (PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "lowy2024/thm_b1_condition_last_phase"
CORRECTED = "lowy2024/thm_b1_condition_last_phase_corrected"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("l = floor(log2 n), n_l = (1 - 2^{-q}) n/2^{lq}, C = 100 log(20 n m e^eps/delta)/eps (Alg 1 lines 1, 4)")
    n, m, eps, q, delta = sp.Integer(2**20), sp.Integer(1), sp.Integer(1), sp.Rational(1, 4), sp.Rational(1, 10**16)
    cond = n ** (1 - q) - 100 * sp.log(n / delta) / (eps * (1 - 2 ** (-q)))
    n_l = (1 - 2 ** (-q)) * n / 2 ** (20 * q)
    big_c = 100 * sp.log(20 * n * m * sp.exp(eps) / delta) / eps
    proof.refute("there n_l < C, so a group of the last phase has N_l = n_l/C < 1 user", {"n": 2**20, "m": 1, "epsilon": 1,
                 "q": "1/4", "delta": "1e-16", "n_l": n_l, "C": big_c}, n_l - big_c,
                 conditions={"n = 2^20, m = 1, eps = 1, q = 1/4, delta = 1e-16 satisfies Thm B.1's condition": cond})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("l = floor(log2 n): n = 2^{l + phi} with phi in [0, 1); condition (1 - 2^{-q}) n^{1-q} >= C")
    q = sp.Symbol("q", positive=True)
    ell = sp.Symbol("l", nonnegative=True)
    phi = sp.Symbol("phi", nonnegative=True)
    n = 2 ** (ell + phi)
    ratio = sp.powsimp(n / 2 ** (ell * q) / n ** (1 - q), force=True)
    proof.zero("(n/2^{lq}) / n^{1-q} = 2^{phi q}", sp.simplify(ratio - 2 ** (phi * q)))
    proof.monotone_nonneg("2^{phi q} >= 1 for phi >= 0, so n_l = (1 - 2^{-q}) n/2^{lq} >= (1 - 2^{-q}) n^{1-q} >= C", 2 ** (phi * q) - 1, phi, 0)
    rng = proof.rng
    nn = rng.integers(2, 10**12, 400)
    qq = rng.uniform(0.01, 0.99, 400)
    n_l = (1 - 2 ** (-qq)) * nn / 2 ** (np.floor(np.log2(nn)) * qq)
    proof.numeric_le("(1 - 2^{-q}) n^{1-q} <= n_l at 400 seeded (n, q)", (1 - 2 ** (-qq)) * nn ** (1 - qq), n_l, {"n": nn, "q": qq})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Lowy et al. 2024, Thm B.1 (n^{1-q} >= (100/(1 - 2^{-q})) log(n/delta)/eps) vs Alg 1's C = 100 log(20 n m e^eps/delta)/eps; note finding F3",
        statement="(as printed) Thm B.1's condition on n implies n_l >= C, i.e. every group of the last phase gets N_l = n_l/C >= 1 user.",
        expected=Verdict.DISPROVED,
        papers=("lowy2024",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Lowy et al. 2024, Thm B.1 with the condition (1 - 2^{-q}) n^{1-q} >= C (note F3 proposal, as in Thm 3.1)",
        statement="(corrected) If (1 - 2^{-q}) n^{1-q} >= C, then n_l = (1 - 2^{-q}) n/2^{lq} >= C for l = floor(log2 n).",
        expected=Verdict.PROVED,
        papers=("lowy2024",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
