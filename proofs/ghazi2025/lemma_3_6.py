"""Lemma 3.6 (first-step sensitivity under rho-alignment): ||x_1 - y_1||_inf <= eta (4 rho + 2 s).

False for B = 3 (printed without a lower bound on B, DISPROVED); true for B >= 4 (PROVED).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp
from dpaudit.proofs.common.box_projection_nonexpansive import CHECK as BOX
from dpaudit.proofs.common.box_projection_nonexpansive import INPUT_GAP, PROJ_GAP
from dpaudit.proofs.ghazi2025._alg2 import alg2, max_ball_count
from dpaudit.proofs.ghazi2025.alg2_estimator import CHECK as ALG2
from dpaudit.proofs.ghazi2025.alg2_estimator import CLIP_RADIUS, EST_DIST
from dpaudit.proofs.ghazi2025.median_assumption import CHECK as MEDIAN
from dpaudit.proofs.ghazi2025.median_assumption import MEDIAN_DIST, RADIUS

from dpaudit.userlevel.projections import clamp
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

PRINTED = "ghazi2025/lemma_3_6_any_batch_size"
CORRECTED = "ghazi2025/lemma_3_6_batch_size_4"

#: ||x_1 - y_1||_inf after the differing step, the step size, the alignment radius and Alg 2's radius (for Proof.depends).
FIRST_GAP, STEP, ALIGN_RADIUS, CLIP = sp.symbols("first_gap eta_step rho_align s_clip", positive=True)


def _median(values: list[Fraction]) -> Fraction:
    v = sorted(values)
    k = len(v)
    return v[k // 2] if k % 2 else (v[k // 2 - 1] + v[k // 2]) / 2


def _alg2_exact(values: list[Fraction], radius: Fraction) -> Fraction:
    rs, mean = _median(values), sum(values, Fraction(0)) / len(values)
    return min(max(mean, rs - radius), rs + radius)


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("1-D, B = 3 users at the differing step, x_0 = 0, eta = 1, box [-1000, 1000] (not binding), robust statistic = median",
                 "rho-aligned: each batch has >= 2B/3 of its points in some B_inf(., rho)")
    rho, vs = Fraction(1, 10), Fraction(1, 2)
    d, d2 = [Fraction(0), Fraction(100), Fraction(0)], [Fraction(0), Fraction(100), Fraction(100)]
    # rho-aligned: 2 of the 3 points of each batch lie in one interval of radius rho (exact: they coincide)
    aligned = sorted(d)[0] == sorted(d)[1] and sorted(d2)[1] == sorted(d2)[2]
    x1, y1 = -_alg2_exact(d, vs), -_alg2_exact(d2, vs)
    gap = sp.Rational(abs(x1 - y1).numerator, abs(x1 - y1).denominator)
    bound = sp.Rational(4 * rho + 2 * vs)
    proof.refute("rho = 1/10, s = 1/2: |x_1 - y_1| = 99 > eta (4 rho + 2 s) = 7/5", {"B": 3, "D": [0, 100, 0], "D'": [0, 100, 100],
                 "rho": "1/10", "s": "1/2", "|x_1 - y_1|": gap}, bound - gap,
                 conditions={"D = {0, 100, 0} and D' = {0, 100, 100} differ in one user and are rho-aligned": aligned})
    impl = abs(float(clamp(-alg2(np.array([[0.0], [100.0], [0.0]]), 0.5)[0], -1000, 1000)
                     - clamp(-alg2(np.array([[0.0], [100.0], [100.0]]), 0.5)[0], -1000, 1000)))
    proof.numeric_eq("reference Alg 2 in floats gives the same gap", impl, float(gap), {"impl": impl})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("B >= 4; D, D' differ in one slot; good sets X_good, Y_good of size >= 2B/3 in B_inf(X', rho), B_inf(Y', rho)",
                 "x_1 = Pi(x_0 - eta g), y_1 = Pi(x_0 - eta g') with g = Alg2(D, s), g' = Alg2(D', s)")
    j = sp.Symbol("j", nonnegative=True, integer=True)
    proof.assume("division by 3", "every integer B >= 4 is 3j + 6, 3j + 4 or 3j + 5 for an integer j >= 0")
    for rho_, start in ((0, 2), (1, 1), (2, 1)):  # B = 3j + rho_ >= 4
        b = 3 * (j + start) + rho_
        proof.nonneg(f"a shared good user exists for B = 3j + {3 * start + rho_}: 2(ceil(2B/3) - 1) - (B - 1) >= 1 among the B - 1 "
                     "common slots", 2 * (sp.ceiling(sp.Rational(2, 3) * b) - 1) - (b - 1) - 1)
    proof.nonneg("2B/3 > B/2: a good set holds more than half of its batch, so Assumption 3.3(i) applies to it",
                 sp.Rational(2, 3) * sp.Symbol("B", positive=True) - sp.Symbol("B", positive=True) / 2)
    rho, s, eta, gap_x = ALIGN_RADIUS, CLIP, STEP, FIRST_GAP  # the goal in the Fact's own symbols: it establishes it
    gap_g = sp.Symbol("g_gap", nonnegative=True)
    e = sp.symbols("e1:7", nonnegative=True)  # |g - X_rs|, |X_rs - X'|, |X' - c|, |c - Y'|, |Y' - Y_rs|, |Y_rs - g'|
    shared = [proof.given_fact("c is a good user of both batches: |X' - c| <= rho", le(e[2], rho)),
              proof.given_fact("... and |c - Y'| <= rho", le(e[3], rho))]
    triangle = proof.assume_fact("triangle inequality", "|g - g'| <= the sum of the six legs g, X_rs, X', c, Y', Y_rs, g'",
                                 le(gap_g, sum(e)))
    premises = [ALG2.fact("within", {EST_DIST: e[0], CLIP_RADIUS: s}), MEDIAN.fact("break point", {MEDIAN_DIST: e[1], RADIUS: rho}),
                *shared, MEDIAN.fact("break point", {MEDIAN_DIST: e[4], RADIUS: rho}),
                ALG2.fact("within", {EST_DIST: e[5], CLIP_RADIUS: s}), triangle,
                BOX.fact("linf", {PROJ_GAP: gap_x, INPUT_GAP: eta * gap_g})]
    proof.depends("||x_1 - y_1||_inf <= eta ||g - g'||_inf <= eta (s + rho + rho + rho + rho + s) = eta (4 rho + 2 s)",
                  le(gap_x, eta * (4 * rho + 2 * s)), premises, establishes="first step")

    def prop(b: int, data: list[float], center: float, rho_: float, vs: float, slot: int, new: float) -> None:
        need = -(-2 * b // 3)
        x = np.array(data[:b])
        x[:need] = center + rho_ * np.clip(x[:need] / 100.0, -1, 1)  # ceil(2B/3) points in [center - rho, center + rho]
        x2 = x.copy()
        x2[slot % b] = new
        if max_ball_count(x2, rho_) < need:
            return  # D' not aligned: the lemma says nothing
        gap = abs(float(alg2(x[:, None], vs)[0] - alg2(x2[:, None], vs)[0]))
        if gap > (4 * rho_ + 2 * vs) * (1 + NUMERIC_RTOL) + NUMERIC_RTOL * 200:
            raise Violation("|g - g'| > 4 rho + 2 s", D=x.tolist(), D_prime=x2.tolist(), rho=rho_, s=vs)

    proof.hypothesis("reference Alg 2 on aligned 1-D neighbours, B = 4..12", prop, st.integers(4, 12), vectors(12, -100, 100),
                     finite_floats(-50, 50), finite_floats(0.01, 5), finite_floats(0, 5), st.integers(0, 11), finite_floats(-100, 100),
                     max_examples=150)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, Lemma 3.6 (no lower bound on B); note 2.7 A13",
        statement="(as printed) For every batch size B, if (D, D') is rho-aligned then ||x_1 - y_1||_inf <= eta (4 rho + 2 s).",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, Lemma 3.6 with B >= 4 (note A13; B = 100 log(mnd/delta)/eps >= 4 in Thm 3.1)",
        statement="(corrected) For B >= 4, if (D, D') is rho-aligned then ||x_1 - y_1||_inf <= eta (4 rho + 2 s).",
        expected=Verdict.UNDECIDED,  # its chain instantiates Facts defined by where= (not allowed since issue 19)
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
        facts=(Fact("first step", le(FIRST_GAP, STEP * (4 * ALIGN_RADIUS + 2 * CLIP))),),
    ),
)
