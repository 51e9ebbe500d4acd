"""Lemma A.8's amplification eps' = (e^eps - 1) M/N is never below the tight log(1 + (M/N)(e^eps - 1)) (conservative)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "lowy2024/subsampling_amplification_conservative"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.cite("[BBG18] amplification by subsampling",
               "sampling M of N without replacement amplifies eps-DP to log(1 + (M/N)(e^eps - 1)) (Balle, Barthe, Gaboardi 2018)")
    x = sp.Symbol("x", nonnegative=True)  # x = (M/N)(e^eps - 1) >= 0
    proof.monotone_nonneg("x - log(1 + x) >= 0 for x >= 0", x - sp.log(1 + x), x, 0)
    rng = proof.rng
    ee = rng.uniform(0, 10, 500)
    frac = rng.uniform(0, 1, 500)
    proof.numeric_le("at 500 seeded (eps, M/N)", np.log1p(frac * np.expm1(ee)), frac * np.expm1(ee), {"epsilon": ee, "M/N": frac})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, Lemma A.8 ([Ull17]: eps' = (e^eps - 1) M/N, delta' = delta M/N)",
    statement="For eps >= 0 and 0 <= M <= N: (e^eps - 1) M/N >= log(1 + (M/N)(e^eps - 1)), so Lemma A.8 is a valid (conservative) bound.",
    expected=Verdict.PROVED,
    papers=("lowy2024",),
    check=_run,
)
