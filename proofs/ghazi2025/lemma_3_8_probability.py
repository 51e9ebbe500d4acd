"""Lemma 3.8, probability part: a non-aligned batch fails the test with probability >= 1 - delta/(T e^eps).

A batch with score s < c0 B, c0 = 2/3 + 1/(3e), gets a_1 = ⊥, where nu = 0.9B + 2 log(T/delta)/eps,
B >= 100 log(T/delta)/eps, and the test compares s + L_q with nu - L_th, L_q ~ Lap(8/eps), L_th ~
Lap(4/eps) (Alg 4 at eps/2).

* gap: the proof models the noise as one Lap(6/eps); the true sum has a heavier tail (DISPROVED at t = 60/eps);
* printed: reading "eps <= O(1)" as eps <= 1 with delta in (0, 1) unrestricted, the bound fails (DISPROVED at eps = 1,
  delta = 0.961, T = 1, B = 4, even for a batch meeting the printed "< B/3" hypothesis);
* corrected: with eps <= 1 and delta <= 1/e (and the hypothesis read as "< 2B/3", note A6) it holds (PROVED).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from dpaudit.proofs.ghazi2025._alg2 import max_ball_count
from dpaudit.proofs.ghazi2025.laplace_sum_tail import closed_form, prove_tail

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

GAP = "ghazi2025/lemma_3_8_probability_lap6"
PRINTED = "ghazi2025/lemma_3_8_probability_printed"
CORRECTED = "ghazi2025/lemma_3_8_probability"

C0 = sp.Rational(2, 3) + 1 / (3 * sp.E)
#: nu - c0 B >= C_MARGIN log(T/delta)/eps when B >= 100 log(T/delta)/eps: C_MARGIN = 100 (0.9 - c0) + 2
C_MARGIN = 100 * (sp.Rational(9, 10) - C0) + 2


def _pass_probability(eps: sp.Expr, t: sp.Expr) -> sp.Expr:
    """P(L_q + L_th >= t) for L_q ~ Lap(8/eps), L_th ~ Lap(4/eps), t >= 0 (closed form of ghazi2025/laplace_sum_tail)."""
    b1, b2 = 8 / eps, 4 / eps
    return (b1**2 * sp.exp(-t / b1) - b2**2 * sp.exp(-t / b2)) / (2 * (b1**2 - b2**2))


def _gap() -> CheckResult:
    proof = Proof(GAP)
    proof.given("proof of Lemma 3.8: 's + Lap(6/eps) <= v' stands for the test's comparison s + L_q < nu - L_th")
    with proof.supporting():  # the tail's closed form, used by the refutation
        b1, b2, t, tail = prove_tail(proof)
    eps, tt = sp.Integer(1), sp.Integer(60)
    actual = tail.subs({b1: 8 / eps, b2: 4 / eps, t: tt})
    modelled = sp.exp(-tt * eps / 6) / 2
    proof.refute("eps = 1, t = 60: P(Lap(8) + Lap(4) >= 60) vs P(Lap(6) >= 60)", {"epsilon": 1, "t": 60, "P(L_q + L_th >= t)": actual,
                 "P(Lap(6/eps) >= t)": modelled}, modelled - actual)
    return proof.result()


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("Lemma 3.8 as printed, eps <= O(1) read as eps <= 1, delta in (0, 1); Alg 4 at eps/2: L_th ~ Lap(4/eps), L_q ~ Lap(8/eps)")
    with proof.supporting():  # the tail's closed form, used by the refutation
        prove_tail(proof)
    eps, delta, big_t, big_b, tau = sp.Integer(1), sp.Rational(961, 1000), sp.Integer(1), sp.Integer(4), sp.Integer(1)
    batch = [0, 10, 20, 30]
    s = sp.Add(*(sp.exp(-tau * abs(a - b)) for a in batch for b in batch)) / big_b
    nu = sp.Rational(9, 10) * big_b + 2 * sp.log(big_t / delta) / eps
    p_pass = _pass_probability(eps, nu - s)
    bound = delta / (big_t * sp.exp(eps))
    most = max_ball_count(np.array(batch, dtype=float), 1.0)
    proof.refute("eps = 1, delta = 0.961, T = 1, B = 4, tau = 1, batch {0, 10, 20, 30}: P(a_1 = T) vs delta/(T e^eps)",
                 {"epsilon": 1, "delta": delta, "T": 1, "B": 4, "batch": batch, "s": s, "nu": nu, "P(pass)": p_pass, "delta/(T e^eps)": bound},
                 bound - p_pass,
                 conditions={"B >= 100 log(T/delta)/eps": big_b - 100 * sp.log(big_t / delta) / eps, "eps <= 1": 1 - eps,
                             "every ball B_inf(Y, 1/tau) holds < B/3 points": 3 * most < 4})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("0 < eps <= 1, 0 < delta <= 1/e, T >= 1, B >= 100 log(T/delta)/eps, nu = 0.9B + 2 log(T/delta)/eps",
                "the batch is not (1/tau)-aligned, so s < c0 B with c0 = 2/3 + 1/(3e) (ghazi2025/lemma_3_8_score_ceiling)",
                "a_1 = T iff s + L_q >= nu - L_th, L_q ~ Lap(8/eps), L_th ~ Lap(4/eps) independent (Alg 4 at eps/2)")
    b1, b2, t, tail = prove_tail(proof)
    eps, ell = sp.symbols("epsilon ell", positive=True)  # ell = log(T/delta) >= 1
    tail_e = sp.simplify(tail.subs({b1: 8 / eps, b2: 4 / eps}))
    proof.nonneg("P(L_q + L_th >= t) <= (2/3) e^{-eps t/8} (drop the -e^{-eps t/4}/6 term)", sp.Rational(2, 3) * sp.exp(-eps * t / 8) - tail_e)
    w = sp.Symbol("w", nonnegative=True)
    big_b = 100 * ell / eps + w
    nu = sp.Rational(9, 10) * big_b + 2 * ell / eps
    proof.nonneg("nu - c0 B >= C ell/eps with C = 100(0.9 - c0) + 2, for B = 100 ell/eps + w", nu - C0 * big_b - C_MARGIN * ell / eps)
    proof.nonneg("C/8 > 1", C_MARGIN / 8 - 1)
    # with s <= c0 B and t = nu - s >= C ell/eps: P(pass) <= (2/3) e^{-C ell/8}; need (2/3) e^{-C ell/8} <= e^{-ell} e^{-eps}
    v = sp.Symbol("v", nonnegative=True)  # ell = 1 + v (delta/T <= 1/e)
    proof.monotone_nonneg("e^{-eps} - e^{-1} >= 0 for eps = 1/(1 + w) in (0, 1]", sp.exp(-1 / (1 + w)) - sp.exp(-1), w, 0)
    proof.nonneg("e^{-1} - (2/3) e^{-(C/8 - 1)} >= 0", sp.exp(-1) - sp.Rational(2, 3) * sp.exp(-(C_MARGIN / 8 - 1)))
    proof.monotone_nonneg("e^{-(C/8 - 1)} - e^{-(C/8 - 1)(1 + v)} >= 0 for v >= 0", sp.exp(-(C_MARGIN / 8 - 1)) - sp.exp(-(C_MARGIN / 8 - 1) * (1 + v)), v, 0)
    parts = (sp.exp(-eps) - sp.exp(-1)) + (sp.exp(-1) - sp.Rational(2, 3) * sp.exp(-(C_MARGIN / 8 - 1))) \
        + sp.Rational(2, 3) * (sp.exp(-(C_MARGIN / 8 - 1)) - sp.exp(-(C_MARGIN / 8 - 1) * (1 + v)))
    proof.zero("e^{ell} (e^{-ell - eps} - (2/3) e^{-C ell/8}) is the sum of the three non-negative terms above (ell = 1 + v)",
               sp.expand(sp.exp(1 + v) * (sp.exp(-(1 + v) - eps) - sp.Rational(2, 3) * sp.exp(-C_MARGIN * (1 + v) / 8))) - sp.expand(parts))
    rng = proof.rng
    ee = rng.uniform(0.01, 1.0, 400)
    dl = np.exp(-1 - rng.exponential(5.0, 400))
    tt = rng.integers(1, 10**4, 400)
    ll = np.log(tt / dl)
    bb = 100 * ll / ee * (1 + rng.exponential(0.2, 400))
    c0 = 2 / 3 + 1 / (3 * math.e)
    nus = 0.9 * bb + 2 * ll / ee
    probs = closed_form(nus - c0 * bb, 8 / ee, 4 / ee)
    proof.numeric_le("P(pass at s = c0 B) <= delta/(T e^eps) at 400 seeded (eps, delta, T, B)", probs, dl / (tt * np.exp(ee)),
                     {"epsilon": ee, "delta": dl, "T": tt, "B": bb})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=GAP,
        source="Ghazi et al. 2025, proof of Lemma 3.8 ('s_1 + Lap(6/eps) <= v'); Alg 3 line 1 and Alg 4 at eps/2; note 2.7 A3 and P19",
        statement=("(proof step) For L_q ~ Lap(8/eps), L_th ~ Lap(4/eps) independent and every t >= 0: "
                   "P(L_q + L_th >= t) <= P(Lap(6/eps) >= t) = e^{-eps t/6}/2."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_gap,
        role="gap",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, Lemma 3.8 (probability part, eps <= O(1) read as eps <= 1, delta unrestricted); note section 4",
        statement=("(as printed) For eps <= 1, delta in (0, 1), B >= 100 log(T/delta)/eps, nu = 0.9B + 2 log(T/delta)/eps and a batch "
                   "with fewer than B/3 points in every ball B_inf(Y, 1/tau), AboveThreshold (Alg 4 at eps/2) returns a_1 = ⊥ with "
                   "probability at least 1 - delta/(T e^eps)."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, Lemma 3.8 (probability part) with eps <= 1, delta <= 1/e and the 2B/3 hypothesis (note A6); Alg 4 at eps/2",
        statement=("(corrected) For 0 < eps <= 1, 0 < delta <= 1/e, T >= 1, B >= 100 log(T/delta)/eps, nu = 0.9B + 2 log(T/delta)/eps and a "
                   "batch with score s <= (2/3 + 1/(3e)) B, the test with L_th ~ Lap(4/eps), L_q ~ Lap(8/eps) returns a_1 = ⊥ with "
                   "probability at least 1 - delta/(T e^eps)."),
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=GAP,
    ),
)
