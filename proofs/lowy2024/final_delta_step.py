"""Finding F4: the last step of Thm C.1's proof needs 4 T zeta (2 e^{eps/2} + 1) <= delta.

With zeta = delta/(10 T e^eps) this fails for eps < 0.2766 (DISPROVED at eps = 0.1); with zeta =
delta/(20 T e^eps) it holds for all eps >= 0 (PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "lowy2024/thm_c1_final_delta_step"
CORRECTED = "lowy2024/thm_c1_final_delta_step_half_zeta"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("proof of Thm C.1: P(.) <= e^{eps/2} P'(., E') + 4 T zeta (2 e^{eps/2} + 1) <= e^eps P'(.) + delta, zeta = delta/(10 T_i e^eps)",
                 "the last inequality must hold when P'(.) = 0, i.e. 4 T zeta (2 e^{eps/2} + 1) <= delta")
    eps = sp.Rational(1, 10)
    big_t, delta = sp.symbols("T delta", positive=True)
    zeta = delta / (10 * big_t * sp.exp(eps))
    lhs = sp.simplify(4 * big_t * zeta * (2 * sp.exp(eps / 2) + 1) / delta)  # in units of delta
    proof.refute("eps = 0.1 (allowed: eps <= 10): 4 T zeta (2 e^{eps/2} + 1)/delta", {"epsilon": "1/10", "ratio to delta": lhs}, 1 - lhs)
    x = sp.Symbol("x", real=True)
    root = sp.nsolve(sp.Rational(2, 5) * (2 * sp.exp(-x / 2) + sp.exp(-x)) - 1, x, 0.3)
    proof.numeric_le("the step holds exactly for eps >= 0.2766 (root of 0.4 (2 e^{-eps/2} + e^{-eps}) = 1)", abs(float(root) - 0.27662), 1e-5,
                     {"root": float(root)})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("zeta = delta/(20 T_i e^eps) (halved; the Laplace bad events then need K_i's log term larger by log 2 only)")
    eps = sp.Symbol("epsilon", nonnegative=True)
    big_t, delta = sp.symbols("T delta", positive=True)
    zeta = delta / (20 * big_t * sp.exp(eps))
    ratio = sp.simplify(4 * big_t * zeta * (2 * sp.exp(eps / 2) + 1) / delta)
    proof.zero("4 T zeta (2 e^{eps/2} + 1)/delta = (2 e^{-eps/2} + e^{-eps})/5", sp.simplify(ratio - (2 * sp.exp(-eps / 2) + sp.exp(-eps)) / 5))
    proof.monotone_nonneg("1 - (2 e^{-eps/2} + e^{-eps})/5 >= 0 for eps >= 0", 1 - (2 * sp.exp(-eps / 2) + sp.exp(-eps)) / 5, eps, 0)
    ee = proof.rng.uniform(0, 10, 500)
    proof.numeric_le("at 500 seeded eps in [0, 10]", (2 * np.exp(-ee / 2) + np.exp(-ee)) / 5, 1.0, {"epsilon": ee})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Lowy et al. 2024, proof of Thm C.1 (last display, zeta = delta/(10 T_i e^eps)); note finding F4",
        statement="(as printed) For every eps in (0, 10] and T >= 1, with zeta = delta/(10 T e^eps): 4 T zeta (2 e^{eps/2} + 1) <= delta.",
        expected=Verdict.DISPROVED,
        papers=("lowy2024",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Lowy et al. 2024, proof of Thm C.1 with zeta = delta/(20 T_i e^eps) (our proposal; note F4)",
        statement="(corrected) For every eps >= 0 and T >= 1, with zeta = delta/(20 T e^eps): 4 T zeta (2 e^{eps/2} + 1) <= delta.",
        expected=Verdict.PROVED,
        papers=("lowy2024",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
