"""Alg 2 budget algebra: eps' sqrt(2 d ln(1/delta)) = eps/2, and basic composition d eps' <= eps iff d <= 8 ln(1/delta)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "levy2021/alg2_budget_algebra"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("eps' = eps / sqrt(8 d ln(1/delta)) (Alg 2 line 3), 0 < delta < 1, d >= 1")
    eps, d, lg = sp.symbols("epsilon d L", positive=True)  # L = ln(1/delta) > 0
    eps_p = eps / sp.sqrt(8 * d * lg)
    proof.zero("first DRV term: eps' sqrt(2 d ln(1/delta)) = eps/2", eps_p * sp.sqrt(2 * d * lg) - eps / 2)
    proof.zero("eps - d eps' = eps (sqrt(8L) - sqrt(d)) / sqrt(8L)", (eps - d * eps_p) - eps * (sp.sqrt(8 * lg) - sp.sqrt(d)) / sp.sqrt(8 * lg))
    proof.zero("(sqrt(8L) - sqrt(d))(sqrt(8L) + sqrt(d)) = 8L - d, so sign(eps - d eps') = sign(8 ln(1/delta) - d)",
               (sp.sqrt(8 * lg) - sp.sqrt(d)) * (sp.sqrt(8 * lg) + sp.sqrt(d)) - (8 * lg - d))
    rng = proof.rng
    ee = rng.uniform(0.01, 10, 1000)
    dl = np.exp(rng.uniform(np.log(1e-12), np.log(0.5), 1000))
    dd = rng.integers(1, 2000, 1000)
    basic = dd * ee / np.sqrt(8 * dd * np.log(1 / dl))
    agree = (basic <= ee) == (dd <= 8 * np.log(1 / dl))
    proof.numeric_count("d eps' <= eps exactly when d <= 8 ln(1/delta) (1000 seeded points)", 1000, int(np.sum(~agree)),
                        {"index": int(np.argmin(agree))} if not agree.all() else None)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Levy et al. 2021, Alg 2 line 3 and Thm 2 (privacy via advanced composition [23]); docs/papers/levy2021.md, P2, P2' and checks L8, L22",
    statement=("With eps' = eps/sqrt(8 d ln(1/delta)): eps' sqrt(2 d ln(1/delta)) = eps/2 exactly, and the basic-composition "
               "total d eps' is <= eps if and only if d <= 8 ln(1/delta)."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
