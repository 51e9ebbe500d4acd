"""Alg 1 / Alg 2 test margins: 4C/5 - 2C/15 = 2C/3 and 4/5 - 2/20 = 7/10 >= 2/3; Alg 1's test uses at most eps/10 <= eps/4."""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "lowy2024/threshold_margins"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("Alg 1: test s_hat_i >= 4C/5 with noise Lap(20/eps), good event |noise| < 2C/15; "
                 "Alg 2: threshold 4K/5 + Lap(8/eps), score noise Lap(16/eps), good event both |noise| <= K/20")
    c, k, eps = sp.symbols("C K epsilon", positive=True)
    proof.zero("Alg 1: 4C/5 - 2C/15 = 2C/3 (under E_i, s_hat >= 4C/5 gives s >= 2C/3)", 4 * c / 5 - 2 * c / 15 - 2 * c / 3)
    proof.nonneg("Alg 2: 4K/5 - K/20 - K/20 - 2K/3 = K/30 >= 0", 4 * k / 5 - k / 20 - k / 20 - 2 * k / 3)
    proof.cite("[DR14] Thm 3.6", "a query of sensitivity Delta with Lap(b) noise is (Delta/b)-DP; the test bit is post-processing")
    proof.nonneg("Alg 1: sensitivity 2(C - 1)/C < 2 with Lap(20/eps) costs <= 2/(20/eps) = eps/10 <= eps/4 (the budget charged)",
                 eps / 4 - 2 / (20 / eps))
    proof.nonneg("... and 2(C - 1)/C <= 2", 2 - 2 * (c - 1) / c)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, Alg 1 lines 12-13 and Thm B.1 proof (margin 2C/3), Alg 2 lines 4-7 and Lemma C.2 (margin 7/10)",
    statement=("4C/5 - 2C/15 = 2C/3; 4K/5 - K/20 - K/20 = 7K/10 >= 2K/3; and Alg 1's noisy test (sensitivity < 2, Lap(20/eps)) "
               "is eps/10-DP, within the eps/4 the proof charges."),
    expected=Verdict.PROVED,
    papers=("lowy2024",),
    check=_run,
)
