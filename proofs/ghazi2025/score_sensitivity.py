"""Eq. (4): replacing one user moves the concentration score by at most 2 - 2/B (PROVED; tight).

The score is s = (1/B) sum_{i,j} exp(-tau ||q_i - q_j||_inf). The proof of Lemma 3.10 says the query
sensitivity is 'bounded by 1' (the sensitivity AboveThreshold's Lap(2/e), Lap(4/e) are calibrated
for, Lemma A.3): false for B >= 3 (DISPROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from dpaudit.proofs.ghazi2025._alg2 import score

from dpaudit.verify import (
    NUMERIC_RTOL,
    CheckResult,
    Fact,
    LemmaCheck,
    Proof,
    Verdict,
    Violation,
    le,
    st,
    vectors,
)

PRINTED = "ghazi2025/score_sensitivity_one"
CORRECTED = "ghazi2025/score_sensitivity_eq4"

#: |s(D) - s(D')| for a batch and the batch with one point replaced, and the batch size (for Proof.depends).
SCORE_GAP, BATCH = sp.symbols("score_gap B_batch", positive=True)


def _exact_score(points: list[int], tau: sp.Expr) -> sp.Expr:
    return sp.Add(*(sp.exp(-tau * abs(a - b)) for a in points for b in points)) / len(points)


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("proof of Lemma 3.10, case (ii): 'the query sensitivity is always bounded by 1'; Lemma A.3 assumes sensitivity 1")
    tau = sp.Integer(1)
    d, d2 = [0, 0, 0], [0, 0, 100]
    gap = _exact_score(d, tau) - _exact_score(d2, tau)
    proof.refute("B = 3, tau = 1: D = {0, 0, 0}, D' = {0, 0, 100} (one user replaced): |s(D) - s(D')| vs 1",
                 {"B": 3, "tau": 1, "D": d, "D'": d2, "s(D)": _exact_score(d, tau), "s(D')": _exact_score(d2, tau), "gap": gap},
                 1 - sp.Abs(gap))
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("B >= 1 points q_1..q_B, tau > 0; D' replaces q_k; s = (1/B) sum_{i,j} e_ij with e_ij = exp(-tau ||q_i - q_j||_inf)")
    tau, dist = sp.Symbol("tau", positive=True), sp.Symbol("r", nonnegative=True)
    proof.monotone_nonneg("e_ij = exp(-tau r) <= 1 for r >= 0", 1 - sp.exp(-tau * dist), dist, 0)
    proof.nonneg("e_ij >= 0", sp.exp(-tau * dist))
    big_b = sp.Symbol("B", positive=True, integer=True)
    proof.zero("ordered pairs (i, j), i != j, that involve k: B^2 - (B - 1)^2 - 1 = 2(B - 1); the diagonal e_kk = 1 is unchanged",
               big_b**2 - (big_b - 1) ** 2 - 1 - 2 * (big_b - 1))
    proof.zero("each changed term moves by <= 1 (both in [0, 1]), so |s - s'| <= 2(B - 1) * 1 / B = 2 - 2/B",
               sp.Add(2 * (big_b - 1) / big_b, -(2 - 2 / big_b), evaluate=False))
    # the fact: |s - s'| <= (the 2(B - 1) changed terms, each moving by <= 1) / B, by the triangle inequality
    proof.establish("eq4", le(SCORE_GAP, 2 - 2 / BATCH), where={SCORE_GAP: 2 * (BATCH - 1) / BATCH}, hypotheses=[le(1, BATCH)])

    def prop(b: int, data: list[float], new: float, tau_: float) -> None:
        q = np.array(data[:b])[:, None]
        q2 = q.copy()
        q2[0, 0] = new
        gap = abs(score(q, tau_) - score(q2, tau_))
        if gap > (2 - 2 / b) * (1 + NUMERIC_RTOL):
            raise Violation("|s - s'| > 2 - 2/B", q=q.ravel().tolist(), new=new, tau=tau_)

    proof.hypothesis("1-D batches of B = 1..12, one point replaced", prop, st.integers(1, 12), vectors(12, -5, 5),
                     st.floats(-1e3, 1e3), st.floats(0.01, 10), max_examples=150)
    far = [float(2 - 2 / b - abs(score(np.zeros((b, 1)), 1.0) - score(np.vstack([np.zeros((b - 1, 1)), [[60.0]]]), 1.0)))
           for b in range(2, 12)]
    proof.numeric_le("tight: B - 1 equal points, the last equal vs 60/tau away, gap within 1e-12 of 2 - 2/B", far, 1e-12,
                     {"B": np.arange(2, 12)})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, proof of Lemma 3.10 case (ii) ('the query sensitivity is always bounded by 1') and Lemma A.3; note A3",
        statement="(as printed) Replacing one user changes the concentration score s^conc of eq. (3) by at most 1.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, eq. (4) (score sensitivity at the differing step); note section 4 and 5.10",
        statement="(corrected) Replacing one of the B users changes s^conc = (1/B) sum_{i,j} exp(-tau ||q_i - q_j||_inf) by at most 2 - 2/B <= 2.",
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
        facts=(Fact("eq4", le(SCORE_GAP, 2 - 2 / BATCH)),),
    ),
)
