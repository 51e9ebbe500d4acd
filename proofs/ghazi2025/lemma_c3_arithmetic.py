"""Lemma C.3's arithmetic.

n (4 eps sqrt(d) + d/(8n)) >= d/4 iff n >= sqrt(d)/(32 eps); and e^eps - 1 <= 2 eps for eps <= 1/10
(the proof's step), which in fact holds up to eps ~ 1.2564.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2025/lemma_c3_arithmetic"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("proof of Lemma C.3: E[A_i] <= 4 eps sqrt(d) + d/(8n) for each of the n terms, whose sum must reach d/4")
    n, eps, d = sp.symbols("n epsilon d", positive=True)
    proof.zero("n (4 eps sqrt(d) + d/(8n)) - d/4 = 4 eps sqrt(d) (n - sqrt(d)/(32 eps)): same sign as n - sqrt(d)/(32 eps)",
               n * (4 * eps * sp.sqrt(d) + d / (8 * n)) - d / 4 - 4 * eps * sp.sqrt(d) * (n - sp.sqrt(d) / (32 * eps)))
    x = sp.Symbol("x", real=True)
    proof.concave_nonneg("e^eps - 1 <= 2 eps on [0, 1/10]", 2 * x - (sp.exp(x) - 1), x, 0, sp.Rational(1, 10))
    proof.concave_nonneg("... and on [0, 5/4] (note: up to ~1.2564)", 2 * x - (sp.exp(x) - 1), x, 0, sp.Rational(5, 4))
    root = float(sp.nsolve(2 * x - (sp.exp(x) - 1), x, 1.25))
    proof.numeric_le("the positive root of 2x = e^x - 1 is 1.2564 (to 1e-4)", abs(root - 1.2564), 1e-4, {"root": root})
    xs = proof.rng.uniform(0, 0.1, 300)
    proof.numeric_le("e^eps - 1 <= 2 eps at 300 seeded eps in [0, 0.1]", np.expm1(xs), 2 * xs, {"epsilon": xs})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2025, proof of Lemma C.3 (n >= sqrt(d)/(32 eps); e^eps - 1 <= 2 eps for eps <= 1/10); note section 4",
    statement=("n (4 eps sqrt(d) + d/(8n)) >= d/4 if and only if n >= sqrt(d)/(32 eps); and e^eps - 1 <= 2 eps for 0 <= eps <= 1/10 "
               "(indeed for eps <= 5/4)."),
    expected=Verdict.PROVED,
    papers=("ghazi2025",),
    check=_run,
)
