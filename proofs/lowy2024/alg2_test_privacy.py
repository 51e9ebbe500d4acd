"""Alg 2's concentration test is AboveThreshold at budget eps/2, hence eps/2-DP.

Scores of sensitivity 2, threshold noise Lap(8/eps), score noise Lap(16/eps).
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from dpaudit.proofs.common._above_threshold import exact_profile

from dpaudit.mechanisms.sparse_vector import AboveThreshold
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "lowy2024/alg2_test_privacy"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.cite("[DR14] Thm 3.23", "[DR14] Thm 3.23: threshold noise Lap(2/e), query noise Lap(4/e), sensitivity-1 queries: e-DP")
    proof.given("each user appears at most once in D_i^t (sampling without replacement), so s_i^t has sensitivity 2(K - 1)/K <= 2")
    proof.assume("rescaling the comparisons", "running the test on s/2 with threshold nu/2 is the same mechanism (all comparisons divided by 2)")
    eps, s, nu, a, b = sp.symbols("epsilon s nu a b", real=True)
    proof.equal("rescaling: (s + (16/eps) a - (nu - (8/eps) b))/2 = s/2 + (4/(eps/2)) a - (nu/2 - (2/(eps/2)) b) for unit Laplace a, b",
                (s + 16 * a / eps - nu + 8 * b / eps) / 2, s / 2 + 4 / (eps / 2) * a - (nu / 2 - 2 / (eps / 2) * b),
                hypotheses=[eps > 0])  # a privacy budget is positive (the identity divides by it)
    mech = AboveThreshold(epsilon=0.5, threshold=0.0, sensitivity=2.0, variant="lowy2024")  # eps = 1, budget eps/2
    proof.numeric_eq("dpaudit AboveThreshold(eps/2, sensitivity 2) scales are 8/eps and 16/eps at eps = 1",
                     [mech.threshold_scale, mech.query_scale], [8.0, 16.0], {"scale": np.array(["threshold", "query"])})
    rng = proof.rng
    pairs, where = [], []
    for _ in range(40):
        k = int(rng.integers(1, 5))
        base = rng.uniform(-30, 30, size=k)
        shift = rng.choice([-2.0, 2.0], size=k) * rng.uniform(0.5, 1.0, size=k)
        pairs.append((list(base), list(base + shift)))
        where.append(f"T={k}")
    for k, start in ((5, -10.0), (10, -20.0), (20, -30.0)):  # streams that make the paper-literal scales leak
        pairs.append(([start + 2] * (k - 1) + [start - 2], [start] * k))
        where.append(f"worst-case family T={k}")
    # the upper end of each pair's certified bracket of max |ln P - ln P'| (Arb); still finitely many pairs: evidence
    uppers = [exact_profile(s0, s1, 0.0, mech.threshold_scale, mech.query_scale).epsilon(0.0).upper for s0, s1 in pairs]
    proof.numeric_le("certified upper bound of max |ln P - ln P'| <= eps/2 = 0.5 over 43 stream pairs with |s - s'| <= 2 "
                     "(dpaudit.exact.threshold)", uppers, 0.5, {"stream": np.array(where)})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, Alg 2 lines 4-7 and proof of Thm C.1 step (9) (AboveThreshold, Lemma A.9)",
    statement=("With scores of sensitivity <= 2, threshold noise Lap(8/eps) (drawn once) and score noise Lap(16/eps), the sequence of "
               "test bits of Alg 2 is (eps/2)-DP."),
    expected=Verdict.PROVED,
    papers=("lowy2024",),
    check=_run,
)
