"""Lemma C.7's bound E[sum M mu] >= d/2 - 2 alpha: false on [-1, 1]^d, true on {-1, 1}^d.

For M with values in [-1, 1]^d the bound fails (M = sign(mu)/10; DISPROVED); for M in {-1, 1}^d it
holds with equality (PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from dpaudit.proofs._tools import uniform_expectation

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2025/lemma_c7_cube"
CORRECTED = "ghazi2025/lemma_c7_signs"
mu = sp.Symbol("mu", real=True)



def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("d = 1, mu ~ U[-1, 1], M = sign(mu)/10 in [-1, 1]: signs always agree (mu = 0 has probability 0), so alpha = 0")
    lhs = uniform_expectation(sp.Rational(1, 10) * sp.Abs(mu), mu)
    rhs = sp.Rational(1, 2) - 2 * 0
    proof.refute("E[M mu] = 1/20 < d/2 - 2 alpha = 1/2", {"d": 1, "M": "sign(mu)/10", "alpha": 0, "E[M mu]": lhs, "d/2 - 2 alpha": rhs},
                 lhs - rhs)
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("M in {-1, 1}^d; alpha >= E sum_k |mu_k| 1(sign mu_k != sign M_k)")
    m0 = sp.Symbol("m0", positive=True)
    combos = [(sm, big_m) for sm in (1, -1) for big_m in (1, -1)]  # sign of mu (|mu| = m0 > 0) and M: the whole domain
    bad = [(sm, big_m) for sm, big_m in combos
           if sp.expand(big_m * sm * m0 - (m0 - 2 * m0 * (1 if sm != big_m else 0))) != 0]
    proof.exact("per coordinate M mu = |mu| - 2 |mu| 1(sign M != sign mu), for both signs of mu != 0 and both values of M",
                sp.Eq(sp.Integer(len(bad)), 0, evaluate=False), counterexample=lambda: {"sign mu": bad[0][0], "M": bad[0][1]}, cases=4)
    proof.equal("E|mu| = 1/2 for mu ~ U[-1, 1]", uniform_expectation(sp.Abs(mu), mu), sp.Rational(1, 2))
    proof.assume("linearity of expectation over coordinates", "E sum_k M_k mu_k = d/2 - 2 E sum_k |mu_k| 1(...) >= d/2 - 2 alpha")
    rng = proof.rng
    mus = rng.uniform(-1, 1, size=(400, 8))
    signs = np.where(rng.random((400, 8)) < 0.3, -np.sign(mus), np.sign(mus))
    lhs = (signs * mus).sum(1)
    rhs = np.abs(mus).sum(1) - 2 * (np.abs(mus) * (signs != np.sign(mus))).sum(1)
    proof.numeric_eq("pathwise identity at 400 seeded (mu, M), d = 8", lhs, rhs, {"case": np.arange(400)})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, Lemma C.7 (M : R^{n x d} -> [-1, 1]^d); docs/papers/ghazi2025.md, erratum E9",
        statement="(as printed) If M takes values in [-1, 1]^d and its weighted sign error is <= alpha, then E[sum_k M_k mu_k] >= d/2 - 2 alpha.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, Lemma C.7 for M in {-1, 1}^d (as Lemma C.3 uses it); docs/papers/ghazi2025.md, erratum E9",
        statement="(corrected) If M takes values in {-1, 1}^d and its weighted sign error is <= alpha, then E[sum_k M_k mu_k] >= d/2 - 2 alpha.",
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
