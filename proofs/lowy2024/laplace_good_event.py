"""Finding F1: the printed constant C = 100 log(.)/eps can leave the bad event above delta/(10 e^eps).

With C = 100 log(20 n m e^eps/delta)/eps, P(bad event) = 2 (delta/(20 n m e^eps))^{2/3} exceeds
delta/(10 e^eps) when delta < 20 e^eps/(nm)^2 (printed claim, DISPROVED); with C = 150 log(.)/eps it
never does (PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "lowy2024/alg1_good_event_c100"
CORRECTED = "lowy2024/alg1_good_event_c150"
_TAIL = "P(|Lap(b)| >= t) = exp(-t/b) for t >= 0; the bad event of E_i and E'_i is the union of two such tails"


def bad_event(c_c: sp.Expr, n: sp.Expr, m: sp.Expr, eps: sp.Expr, delta: sp.Expr) -> sp.Expr:
    """Probability of the bad event of ``E_i`` and ``E'_i``: two tails ``exp(-t/b)``, ``t = 2C/15``, ``b = 20/eps``."""
    big_c = c_c * sp.log(20 * n * m * sp.exp(eps) / delta) / eps
    return 2 * sp.exp(-(2 * big_c / 15) / (20 / eps))


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.cite("Laplace tail", _TAIL)
    n, m, eps, delta, q = sp.Integer(10**6), sp.Integer(1), sp.Integer(1), sp.Rational(1, 10**12), sp.Rational(1, 4)
    cond = n ** (1 - q) - (100 / (1 - 2 ** (-q))) * sp.log(n / delta) / eps
    bad = bad_event(sp.Integer(100), n, m, eps, delta)
    allowed = delta / (10 * sp.exp(eps))
    proof.refute("n = 10^6, m = 1, eps = 1, delta = 1e-12, q = 1/4", {"n": 10**6, "m": 1, "epsilon": 1, "delta": "1e-12", "q": "1/4",
                 "P(bad)": bad, "allowed delta/(10 e^eps)": allowed}, allowed - bad,
                 conditions={"eps <= 10": eps <= 10, "n^{1-q} >= 100 log(n/delta)/(eps (1 - 2^{-q}))": cond,
                             "m = 1 <= n^J": m <= 1})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.cite("Laplace tail", _TAIL)
    n, m, eps, delta = sp.symbols("n m epsilon delta", positive=True)
    a, b = sp.symbols("a b", nonnegative=True)
    bad = sp.simplify(sp.expand_log(bad_event(sp.Integer(150), n, m, eps, delta), force=True))
    proof.zero("c_C = 150: P(bad) = 2 delta/(20 n m e^eps) = delta/(10 n m e^eps)", sp.simplify(bad - delta / (10 * n * m * sp.exp(eps))))
    proof.nonneg("delta/(10 e^eps) - delta/(10 n m e^eps) >= 0 for n, m >= 1",
                 (delta / (10 * sp.exp(eps)) - delta / (10 * n * m * sp.exp(eps))).subs({n: 1 + a, m: 1 + b}))
    rng = proof.rng
    nn, mm = rng.integers(1, 10**9, 400), rng.integers(1, 10**4, 400)
    ee = rng.uniform(0.01, 10.0, 400)
    dd = np.exp(rng.uniform(np.log(1e-30), np.log(0.5), 400))
    big_c = 150 * np.log(20 * nn * mm * np.exp(ee) / dd) / ee
    proof.numeric_le("2 exp(-(2C/15) eps/20) <= delta/(10 e^eps) at 400 seeded points", 2 * np.exp(-(2 * big_c / 15) * ee / 20),
                     dd / (10 * np.exp(ee)), {"n": nn, "m": mm, "epsilon": ee, "delta": dd})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Lowy et al. 2024, proof of Thm B.1 (P(E_i and E'_i) >= 1 - delta/(10 e^eps) with C = 100 log(20 n m e^eps/delta)/eps); note finding F1",
        statement=("(as printed) For every n, m >= 1, eps in (0, 10], delta in (0, 1) meeting Thm B.1's conditions: "
                   "2 P(|Lap(20/eps)| >= 2C/15) <= delta/(10 e^eps) with C = 100 log(20 n m e^eps/delta)/eps."),
        expected=Verdict.DISPROVED,
        papers=("lowy2024",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Lowy et al. 2024, proof of Thm B.1 with C = 150 log(20 n m e^eps/delta)/eps (note F1 proposal)",
        statement=("(corrected) With C = 150 log(20 n m e^eps/delta)/eps: 2 P(|Lap(20/eps)| >= 2C/15) = delta/(10 n m e^eps) "
                   "<= delta/(10 e^eps) for all n, m >= 1."),
        expected=Verdict.PROVED,
        papers=("lowy2024",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
