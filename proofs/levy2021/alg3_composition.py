"""Alg 3 budget: eps' = eps/(2 sqrt(2 T ln(2/delta))), delta' = delta/(2T) compose to (eps, delta) for eps <= 1."""

from __future__ import annotations

import math

import numpy as np

from dpaudit.accounting.composition import advanced_composition
from dpaudit.bounds.levy2021 import prove_alg3_budget
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "levy2021/alg3_composition"


def _run() -> CheckResult:
    proof = Proof(NAME)
    prove_alg3_budget(proof)  # the same argument backs dpaudit.bounds.levy2021.check_alg3_composition
    rng = proof.rng
    n = 500
    ee = rng.uniform(0.001, 1.0, n)
    ee[:50] = 1.0
    dl = np.exp(rng.uniform(np.log(1e-12), np.log(0.99), n))
    tt = rng.integers(1, 10**5, n)
    tot = [advanced_composition(e / (2 * math.sqrt(2 * t * math.log(2 / d))), d / (2 * t), int(t), d / 2)
           for e, d, t in zip(ee, dl, tt, strict=True)]
    proof.numeric_le("dpaudit advanced_composition: total eps <= eps (500 seeded points, 50 at eps = 1)",
                     [g.epsilon for g in tot], ee, {"epsilon": ee, "delta": dl, "T": tt})
    proof.numeric_le("total delta <= delta", [g.delta for g in tot], dl, {"epsilon": ee, "delta": dl, "T": tt})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Levy et al. 2021, Alg 3 line 2 and Thm 3 (privacy for eps <= 1); docs/papers/levy2021.md, P4 and check L8",
    statement=("With eps' = eps/(2 sqrt(2 T ln(2/delta))) and delta' = delta/(2T): sqrt(2 T ln(2/delta)) eps' = eps/2, "
               "T delta' + delta/2 = delta, and for 0 < eps <= 1 the second DRV term T eps'(e^{eps'} - 1) is at most eps/2, "
               "so the T-step composition is (eps, delta)-DP."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
