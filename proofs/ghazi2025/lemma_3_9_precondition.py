"""Erratum A2: Lemma 3.9 needs 6 beta eta B <= 1, which Thm 3.1's settings do not imply.

DISPROVED at the note's example; adding eta <= 1/(6 beta B) gives it, implies eta <= 2/beta, and
bounds the score sensitivity by 2 (PROVED).
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
    finite_floats,
    le,
    st,
    vectors,
)

PRINTED = "ghazi2025/lemma_3_9_precondition_from_thm31"
CORRECTED = "ghazi2025/lemma_3_9_with_step_cap"

#: |s_t(D) - s_t(D')| at a step after the differing one, for aligned neighbours (for Proof.depends).
LATER_SCORE_GAP = sp.Symbol("later_score_gap", nonnegative=True)


def thm31_extremes(n: sp.Expr, m: sp.Expr, d: sp.Expr, eps: sp.Expr, delta: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """B, and the largest beta and eta Thm 3.1 allows (G = D = 1, sqrt(m) eps reading, note A5)."""
    big_b = 100 * sp.log(m * n * d / delta) / eps
    beta = sp.sqrt(n) * eps / (sp.sqrt(m) * sp.log(n * m * d / delta)) + sp.sqrt(d * sp.log(1 / delta) * sp.log(n * m * d)) / (sp.sqrt(m) * eps)
    eta = sp.Min(big_b * sp.sqrt(m) / sp.sqrt(n), sp.sqrt(m) * eps / sp.sqrt(d * sp.log(1 / delta) * sp.log(n * m * d)))
    return big_b, beta, eta


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("Thm 3.1 with G = D = 1: B = 100 log(mnd/delta)/eps, beta and eta at the largest values its conditions allow")
    big_b, beta, eta = thm31_extremes(sp.Integer(10**6), sp.Integer(100), sp.Integer(10), sp.Integer(1), sp.Rational(1, 10**6))
    prod = 6 * beta * eta * big_b
    proof.refute("n = 1e6, m = 100, d = 10, eps = 1, delta = 1e-6: 6 beta eta B vs 1", {"n": 10**6, "m": 100, "d": 10, "epsilon": 1,
                 "delta": "1e-6", "B": big_b, "beta": beta, "eta": eta, "beta eta": beta * eta, "6 beta eta B": prod}, 1 - prod)
    _, beta2, eta2 = thm31_extremes(sp.Integer(10**12), sp.Integer(10), sp.Integer(1), sp.Integer(1), sp.Rational(1, 10**6))
    proof.refute("n = 1e12, m = 10, d = 1: even Lemma 3.2's eta <= 2/beta fails (beta eta vs 2)", {"beta eta": beta2 * eta2},
                 2 - beta2 * eta2)
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("eta <= 1/(6 beta B) added to Thm 3.1 (note 2.8), B >= 1",
                 "Lemma 3.9's chain: ||x_t - y_t||_inf <= 6 eta/tau, per-user gradients beta-Lipschitz in l_inf, so each q moves by "
                 "<= Delta = 6 beta eta/tau and |s - s'| <= (1 - e^{-2 tau Delta}) B = (1 - e^{-12 beta eta}) B")
    beta, big_b = sp.symbols("beta B", positive=True)
    w, b1 = sp.symbols("w b1", nonnegative=True)
    eta = 1 / (6 * beta * big_b * (1 + w))  # every eta in (0, 1/(6 beta B)]
    proof.nonneg("6 beta eta B <= 1", 1 - 6 * beta * eta * big_b)
    proof.nonneg("eta <= 2/beta when B >= 1", (2 / beta - eta).subs(big_b, 1 + b1))
    x = sp.Symbol("x", nonnegative=True)
    proof.monotone_nonneg("1 - e^{-x} <= x", x - (1 - sp.exp(-x)), x, 0)
    proof.nonneg("12 beta eta B <= 2", 2 - 12 * beta * eta * big_b)
    # the fact: |s - s'| <= (1 - e^{-12 beta eta}) B (the given chain) <= 12 beta eta B <= 2
    proof.establish("later scores", le(LATER_SCORE_GAP, 2), where={LATER_SCORE_GAP: (1 - sp.exp(-12 * beta * eta)) * big_b})

    def prop(b: int, dim: int, data: list[float], pert: list[float], delta: float, tau: float) -> None:
        q = np.array(data[: b * dim]).reshape(b, dim)
        q2 = q + delta * np.array(pert[: b * dim]).reshape(b, dim)
        gap = abs(score(q, tau) - score(q2, tau))
        if gap > (1 - np.exp(-2 * tau * delta)) * b * (1 + NUMERIC_RTOL) + NUMERIC_RTOL * b:
            raise Violation("|s - s'| > (1 - e^{-2 tau Delta}) B", q=q.tolist(), delta=delta, tau=tau)

    proof.hypothesis("moving every point by <= Delta (l_inf): |s - s'| <= (1 - e^{-2 tau Delta}) B", prop, st.integers(1, 8),
                     st.integers(1, 2), vectors(16, -5, 5), vectors(16, -1.0, 1.0), finite_floats(0, 2), finite_floats(0.01, 5),
                     max_examples=150)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, Thm 3.1 settings vs Lemma 3.9 (6 beta eta B <= 1) and Lemma 3.2 (eta <= 2/beta); note 2.7 A2, P2",
        statement=("(as printed) The parameter settings of Thm 3.1 imply Lemma 3.9's precondition 6 beta eta B <= 1 (and Lemma 3.2's "
                   "eta <= 2/beta)."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, Lemma 3.9 with eta <= 1/(6 beta B) imposed (note 2.8); score perturbation bound of note 5.10",
        statement=("(corrected) If eta <= 1/(6 beta B) and B >= 1, then 6 beta eta B <= 1, eta <= 2/beta, and the score sensitivity "
                   "(1 - e^{-12 beta eta}) B <= 12 beta eta B <= 2; moving every point by <= Delta changes s by <= (1 - e^{-2 tau Delta}) B."),
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
        facts=(Fact("later scores", le(LATER_SCORE_GAP, 2)),),
    ),
)
