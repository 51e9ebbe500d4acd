"""Lemma 3.8's hypothesis as printed leaves non-concentrated batches uncovered; the proof's own one works.

'Every B_inf(Y, 1/tau) holds < B/3 points' (printed, DISPROVED); with '< 2B/3' (what the proof uses)
the score is < (2/3 + 1/(3e)) B < 0.8 B (PROVED).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from dpaudit.proofs.ghazi2025._alg2 import max_ball_count, score

from dpaudit.verify import (
    NUMERIC_RTOL,
    CheckResult,
    Fact,
    LemmaCheck,
    Proof,
    Verdict,
    Violation,
    finite_floats,
    le,
    st,
    vectors,
)

PRINTED = "ghazi2025/lemma_3_8_hypothesis_third"
UNNORMALISED = "ghazi2025/lemma_3_8_score_without_1_over_b"
CORRECTED = "ghazi2025/lemma_3_8_score_ceiling"

#: The score of a batch none of whose radius-1/tau balls holds 2B/3 points, and its size (for Proof.depends).
SCORE, BATCH = sp.symbols("s_score B_batch", positive=True)


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("Lemma 3.10 case (i) treats batches that are not (1/tau)-aligned: no l_inf ball of radius 1/tau holds >= 2B/3 points")
    batch = np.array([0.0, 0.0, 0.0, 100.0, 100.0, 100.0])
    most = max_ball_count(batch, 1.0)  # tau = 1
    proof.refute("B = 6, {0, 0, 0, 100, 100, 100}, tau = 1: a ball holds 3 >= B/3 = 2 points, so Lemma 3.8's hypothesis fails "
                 "and the case is uncovered", {"B": 6, "batch": batch.tolist(), "tau": 1, "largest ball count": most},
                 sp.Rational(6, 3) - 1 - most,
                 conditions={"not aligned: the largest ball holds 3 < 2B/3 = 4 (the batch's two clusters are 100 apart)": most < 4})
    return proof.result()


def _unnormalised() -> CheckResult:
    proof = Proof(UNNORMALISED)
    proof.given("proof of Lemma 3.8: s_1 = sum_i sum_j exp(-tau ||q_i - q_j||) (printed without eq. (3)'s 1/B) <= 2B/3 + e^{-1} B/3")
    batch, tau = [0, 100, 200], sp.Integer(1)
    total = sp.Add(*(sp.exp(-tau * abs(a - b)) for a in batch for b in batch))
    most = max_ball_count(np.array(batch, dtype=float), 1.0)
    proof.refute("B = 3, tau = 1, batch {0, 100, 200}: the double sum (>= its diagonal, 3) vs (2/3 + 1/(3e)) B",
                 {"B": 3, "batch": batch, "double sum": total, "bound": (sp.Rational(2, 3) + 1 / (3 * sp.E)) * 3},
                 (sp.Rational(2, 3) + 1 / (3 * sp.E)) * 3 - total,
                 conditions={"not aligned: every ball B_inf(Y, 1/tau) holds < 2B/3 = 2 points": 3 * most < 2 * 3})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("k_i = #{j : ||q_i - q_j||_inf <= 1/tau} < 2B/3 for every i (implied by 'every ball B_inf(Y, 1/tau) holds < 2B/3')",
                 "row_i = sum_j exp(-tau ||q_i - q_j||_inf): terms within 1/tau are <= 1, the others < e^{-1}")
    tau = sp.Symbol("tau", positive=True)
    y = sp.Symbol("y", nonnegative=True)
    proof.monotone_nonneg("exp(-tau x) <= e^{-1} for x = 1/tau + y", sp.exp(-1) - sp.exp(-tau * (1 / tau + y)), y, 0)
    big_b = sp.Symbol("B", positive=True)
    k = sp.Symbol("k", nonnegative=True)
    proof.nonneg("k + (B - k) e^{-1} increases in k (slope 1 - e^{-1})", sp.diff(k + (big_b - k) * sp.exp(-1), k))
    proof.zero("at k = 2B/3: 2B/3 + (B/3) e^{-1} = (2/3 + 1/(3e)) B",
               (2 * big_b / 3 + (big_b / 3) * sp.exp(-1)) - (sp.Rational(2, 3) + 1 / (3 * sp.E)) * big_b)
    proof.nonneg("(2/3 + 1/(3e)) < 4/5", sp.Rational(4, 5) - sp.Rational(2, 3) - 1 / (3 * sp.E))
    # the fact: s = (1/B) sum_i row_i <= max_i row_i <= k + (B - k) e^{-1} with k <= 2B/3 (the given hypothesis)
    proof.establish("ceiling", le(SCORE, (sp.Rational(2, 3) + 1 / (3 * sp.E)) * BATCH),
                    where={SCORE: k + (BATCH - k) * sp.exp(-1)}, hypotheses=[le(k, 2 * BATCH / 3), le(k, BATCH)])
    ceiling = 2 / 3 + 1 / (3 * math.e)

    def prop(b: int, data: list[float], tau_: float) -> None:
        q = np.array(data[:b])
        if max_ball_count(q, 1 / tau_) * 3 >= 2 * b:
            return  # concentrated batch: not this lemma's case
        s_val = score(q[:, None], tau_)
        if s_val >= ceiling * b * (1 + NUMERIC_RTOL):
            raise Violation("score >= (2/3 + 1/(3e)) B for a non-concentrated batch", q=q.tolist(), tau=tau_, s=s_val)

    proof.hypothesis("1-D batches with every radius-1/tau ball holding < 2B/3 points, B = 2..20", prop, st.integers(2, 20),
                     vectors(20, -10, 10), finite_floats(0.1, 10), max_examples=150)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, Lemma 3.8 (hypothesis '|X_good| < B/3 for any point Y') as used in Lemma 3.10 case (i); note 2.7 A6",
        statement=("(as printed) Every batch that is not (1/tau)-aligned satisfies Lemma 3.8's hypothesis that every ball B_inf(Y, 1/tau) "
                   "holds fewer than B/3 of its points."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=UNNORMALISED,
        source="Ghazi et al. 2025, proof of Lemma 3.8 (s_1 written without the 1/B of eq. (3)); note errata summary",
        statement=("(as printed in the proof) For a batch that is not (1/tau)-aligned, sum_i sum_j exp(-tau ||q_i - q_j||_inf) "
                   "<= 2B/3 + e^{-1} B/3."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_unnormalised,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, Lemma 3.8 with hypothesis '< 2B/3' (as its proof uses); note A6 and 5.11",
        statement=("(corrected) If every ball B_inf(Y, 1/tau) holds fewer than 2B/3 of the B points, then "
                   "s^conc = (1/B) sum_{i,j} exp(-tau ||q_i - q_j||_inf) < (2/3 + 1/(3e)) B < 0.8 B."),
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
        facts=(Fact("ceiling", le(SCORE, (sp.Rational(2, 3) + 1 / (3 * sp.E)) * BATCH)),),
    ),
)
