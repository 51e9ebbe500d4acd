"""One phase of Algorithm 1 is (eps_test + eps_G, max(delta_G + zeta, e^{eps_test} p_bad))-DP.

The case analysis behind the audit preset's claim
(:func:`dpaudit.userlevel.lowy2024.privacy.alg1_phase_guarantee`), every case exact.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.userlevel.lowy2024.privacy import alg1_phase_guarantee, laplace_upper_tail
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "lowy2024/alg1_phase_budget"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("a = 1(s + Lap(b) >= theta C) [Alg 1 lines 12-13]; halt (a = 0, or an empty kept set) outputs the public 0 "
                "(an atom); else x = robust mean + N(0, sigma^2 I)",
                "for an output set O: P(x in O) = A0 z + A1 Q on D and B0 z + B1 Q' on D' with z = 1(0 in O), "
                "A0 + A1 = B0 + B1 = 1, Q, Q' the pass branch's probabilities of O")
    proof.cite("Laplace mechanism", "the score has sensitivity 2(C-1)/C, so a is eps_test-DP: A_j <= e^{eps_test} B_j [DR14, Thm 3.6]")
    proof.cite("Lemma B.2 + Gaussian", "if both scores are >= gamma C: Q <= e^{eps_G} Q' + delta_G + zeta (explicit coupling, "
               "lowy2024/lemma_b2_explicit_coupling; Gaussian mechanism [BW18, Thm 8])")
    proof.cite("Laplace tail", "a score below gamma C passes with probability <= p_bad = exp(-(theta C - gamma C)/b)/2")
    h, g, b0, s1, s2, s3, u, z, qp, d, p_bad, v = sp.symbols("h g B0 s1 s2 s3 u z Qp d p v", nonnegative=True)
    e_t, e_g = 1 + h, 1 + g  # e^{eps_test}, e^{eps_G}
    a1 = 1 / (1 + u)  # A1 in (0, 1] (A1 = 0 only helps)
    a0 = e_t * b0 - s1  # A0 <= e^{eps_test} B0
    b1 = (a1 + s2) / e_t  # A1 <= e^{eps_test} B1
    q = e_g * qp + d - s3  # Q <= e^{eps_G} Q' + d, d = delta_G + zeta
    target = e_t * e_g * (b0 * z + b1 * qp)
    proof.nonneg("case 1 (both scores >= gamma C): A0 z + A1 Q <= e^{eps_t + eps_G} P'(O) + delta_G + zeta",
                 sp.expand((target + d - (a0 * z + a1 * q)) * (1 + u)))
    # case 2: D's score < gamma C: A1 <= p_bad, Q <= 1
    a1_bad = p_bad / (1 + v)
    q_any = 1 / (1 + v)
    proof.nonneg("case 2 (D's score < gamma C): A0 z + A1 Q <= e^{eps_t} P'(O) + p_bad",
                 sp.expand(e_t * (b0 * z) + p_bad - (a0 * z + a1_bad * q_any)))
    # case 3: D''s score < gamma C <= D's: B1 <= p_bad, A1 <= e^{eps_test} B1 <= e^{eps_test} p_bad
    b1_bad = p_bad / (1 + v)
    a1_3 = e_t * b1_bad - s2
    proof.nonneg("case 3 (D''s score < gamma C): A0 z + A1 Q <= e^{eps_t} P'(O) + e^{eps_t} p_bad",
                 sp.expand((e_t * b0 * z + e_t * p_bad - (a0 * z + a1_3 * q_any)) * (1 + v)))
    proof.given("all three give P(x in O) <= e^{eps_t + eps_G} P'(x in O) + max(delta_G + zeta, e^{eps_t} p_bad); phases use "
                "disjoint users and later phases are post-processing, so the algorithm spends the largest phase's budget")
    rng = proof.rng
    cc = rng.integers(10, 400, 200)
    bb = rng.uniform(0.2, 20, 200)
    gam = (np.floor(2 * cc / 3) + 2) / cc
    thr = np.maximum(gam, rng.uniform(0.7, 1.0, 200)) * cc
    rows = [alg1_phase_guarantee(groups=int(c), test_scale=float(b), threshold=float(t), sigma=1.0, tau=0.1, gamma=float(gm),
                                 delta_gaussian=1e-4, zeta=1e-4) for c, b, t, gm in zip(cc, bb, thr, gam, strict=True)]
    deltas = np.array([r.delta for r in rows])
    expect = np.array([max(2e-4, np.exp(r.epsilon_test) * laplace_upper_tail(t - gm * c, b))
                       for r, c, b, t, gm in zip(rows, cc, bb, thr, gam, strict=True)])
    proof.numeric_le("the implementation's delta is max(delta_G + zeta, e^{eps_test} p_bad) (upper)", deltas, expect * (1 + 1e-12),
                     {"C": cc})
    proof.numeric_le("the implementation's delta is max(delta_G + zeta, e^{eps_test} p_bad) (lower)", expect, deltas * (1 + 1e-12),
                     {"C": cc})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, proof of Thm B.1 (eqs. (2)-(5)), restructured by cases on the true scores (dpaudit's audit preset)",
    statement=("If the test bit is eps_test-DP, the pass branch is (eps_G, delta_G + zeta)-indistinguishable when both scores are "
               ">= gamma C, and a score below gamma C passes with probability <= p_bad, then for every output set O: "
               "P(x in O) <= e^{eps_test + eps_G} P'(x in O) + max(delta_G + zeta, e^{eps_test} p_bad)."),
    expected=Verdict.PROVED,
    papers=("lowy2024",),
    check=_run,
)
