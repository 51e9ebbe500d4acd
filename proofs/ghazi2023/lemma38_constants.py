"""Lemma 3.8's constants.

4G sqrt(m L) + sqrt(m) G <= 5G sqrt(m L) iff L = ln(1/beta) >= 1 (beta <= 1/e), and the tail
exp(-t^2/(16 m G^2)) equals beta at t = 4G sqrt(m ln(1/beta)).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2023/lemma38_constants"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.cite("[GKKMMZ23] Prop A.1", "P[||sum_{j<=m} v_pi(j)|| >= t + sqrt(m) G] <= exp(-N t^2/(16 m (N - m) G^2)) (McDiarmid for permutations, Prop A.1)")
    m, g, beta = sp.symbols("m G beta", positive=True)
    k = sp.Symbol("k", positive=True)  # N = m + k (N = m makes the sum 0: nothing to bound)
    lg = sp.log(1 / beta)
    t = 4 * g * sp.sqrt(m * lg)
    proof.zero("exp(-t^2/(16 m G^2)) = beta at t = 4 G sqrt(m ln(1/beta))", sp.simplify(sp.exp(-t**2 / (16 * m * g**2))) - beta)
    proof.nonneg("N/(N - m) >= 1, so exp(-N t^2/(16 m (N-m) G^2)) <= exp(-t^2/(16 m G^2))", ((m + k) / k - 1))
    ell = sp.Symbol("ell", nonnegative=True)  # L = 1 + ell, i.e. beta <= 1/e
    big_l = 1 + ell
    proof.monotone_nonneg("5 G sqrt(m L) - (4 G sqrt(m L) + sqrt(m) G) = G sqrt(m)(sqrt(L) - 1) >= 0 for L >= 1",
                          sp.sqrt(big_l) - 1, ell, 0)
    proof.zero("... and the difference factors as G sqrt(m)(sqrt(L) - 1)",
               (5 * g * sp.sqrt(m * big_l) - (4 * g * sp.sqrt(m * big_l) + sp.sqrt(m) * g)) - g * sp.sqrt(m) * (sp.sqrt(big_l) - 1))
    rng = proof.rng
    bb = rng.uniform(1e-9, np.exp(-1), 500)
    proof.numeric_le("4 sqrt(L) + 1 <= 5 sqrt(L) at 500 seeded beta <= 1/e", 4 * np.sqrt(np.log(1 / bb)) + 1, 5 * np.sqrt(np.log(1 / bb)),
                     {"beta": bb})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2023, Lemma 3.8 and its proof in App. A (beta < 1/e, 5G sqrt(m log(1/beta))); note section 4",
    statement=("With t = 4G sqrt(m ln(1/beta)): exp(-t^2/(16 m G^2)) = beta, the factor N/(N - m) >= 1 only tightens the tail, and "
               "t + sqrt(m) G <= 5G sqrt(m ln(1/beta)) exactly when beta <= 1/e."),
    expected=Verdict.PROVED,
    papers=("ghazi2023",),
    check=_run,
)
