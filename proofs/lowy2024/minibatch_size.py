"""Finding F5: the proof of Thm C.3 asserts 'the assumption in the theorem ensures K_i <= n_i'.

With T_i = (1 + sqrt(beta/lambda_i)) log(ndm) this fails, e.g. for linear (0-smooth) losses
(DISPROVED); K_i <= n_i does hold when n_i >= 1000 L/eps and T_i >= (1000 eps L)^2/L' (PROVED), L =
log(n_i^2 m^2 e^eps/delta), L' = log(1/delta).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "lowy2024/thm_c3_minibatch_fits_phase"
CORRECTED = "lowy2024/thm_c3_minibatch_fits_phase_condition"


def k_i(n_i: sp.Expr, m: sp.Expr, eps: sp.Expr, delta: sp.Expr, t_i: sp.Expr) -> sp.Expr:
    """Alg 3 line 4: K_i = 500 log(n_i^2 m^2 e^eps/delta) (1/eps + n_i eps/sqrt(T_i log(1/delta)))."""
    return 500 * sp.log(n_i**2 * m**2 * sp.exp(eps) / delta) * (1 / eps + n_i * eps / sp.sqrt(t_i * sp.log(1 / delta)))


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("Thm C.3: eps <= 10, delta < 1/(mn), any beta >= 0 (Remark 3.4: no bound on beta is needed); "
                 "T_i = (1 + sqrt(beta/lambda_i)) log(ndm), the proof of Thm D.3's choice; phase 1, q = 1/4")
    n, m, d, eps, delta, q = sp.Integer(10**6), sp.Integer(100), sp.Integer(10), sp.Integer(1), sp.Rational(1, 10**9), sp.Rational(1, 4)
    n1 = (1 - 2 ** (-q)) * n / 2**q
    t1 = (1 + 0) * sp.log(n * d * m)  # beta = 0: linear losses are 0-smooth, convex and L-Lipschitz on a bounded domain
    k1 = k_i(n1, m, eps, delta, t1)
    proof.refute("beta = 0, n = 1e6, m = 100, d = 10, eps = 1, delta = 1e-9: K_1 vs n_1", {"beta": 0, "n": 10**6, "m": 100,
                 "d": 10, "epsilon": 1, "delta": "1e-9", "n_1": n1, "T_1": t1, "K_1": k1}, n1 - k1,
                 conditions={"delta = 1e-9 < 1/(mn) = 1e-8": delta < 1 / (m * n), "eps <= 10": eps <= 10})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("K_i as in Alg 3 line 4; L = log(n_i^2 m^2 e^eps/delta) > 0, L' = log(1/delta) > 0")
    eps, lg, lgp = sp.symbols("epsilon L Lp", positive=True)
    a = sp.Symbol("a", nonnegative=True)
    big_n = 1000 * lg / eps + a  # n_i >= 1000 L/eps
    proof.nonneg("first part: 500 L/eps <= n_i/2", big_n / 2 - 500 * lg / eps)
    b = sp.Symbol("b", nonnegative=True)  # T_i = (1000 eps L)^2/L' + b
    t_i = (1000 * eps * lg) ** 2 / lgp + b
    proof.monotone_nonneg("second part: n_i/2 - 500 L n_i eps/sqrt(T_i L') >= 0 for T_i = (1000 eps L)^2/L' + b, b >= 0",
                          big_n / 2 - 500 * lg * big_n * eps / sp.sqrt(t_i * lgp), b, 0)
    rng = proof.rng
    lgv, lpv, ee = rng.uniform(1, 80, 400), rng.uniform(1, 60, 400), rng.uniform(0.01, 10, 400)
    nn = 1000 * lgv / ee * rng.uniform(1, 50, 400)
    tt = (1000 * ee * lgv) ** 2 / lpv * rng.uniform(1, 50, 400)
    kv = 500 * lgv * (1 / ee + nn * ee / np.sqrt(tt * lpv))
    proof.numeric_le("K_i <= n_i at 400 seeded points of the region", kv, nn, {"L": lgv, "Lp": lpv, "epsilon": ee})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Lowy et al. 2024, proof of Thm C.3 ('the assumption in the theorem ensures K_i <= n_i') with Alg 3's K_i; note finding F5",
        statement=("(as printed) Under Thm C.3's assumptions (eps <= 10, delta < 1/(mn), any beta) and T_i = (1 + sqrt(beta/lambda_i)) log(ndm), "
                   "the minibatch size K_i = 500 log(n_i^2 m^2 e^eps/delta)(1/eps + n_i eps/sqrt(T_i log(1/delta))) is at most n_i."),
        expected=Verdict.DISPROVED,
        papers=("lowy2024",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Lowy et al. 2024, Alg 3 line 4: a sufficient condition for K_i <= n_i (note F5; the note's alternative is K_i := min(K_i, n_i))",
        statement=("(corrected) If n_i >= 1000 L/eps and T_i >= (1000 eps L)^2/L' (L = log(n_i^2 m^2 e^eps/delta), L' = log(1/delta)), "
                   "then K_i <= n_i."),
        expected=Verdict.PROVED,
        papers=("lowy2024",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
