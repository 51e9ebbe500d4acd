"""Alg 3 budget: eps' = eps/(2 sqrt(2 T ln(2/delta))), delta' = delta/(2T) compose to (eps, delta) for eps <= 1."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.accounting.composition import advanced_composition
from dpaudit.bounds.verdict import CheckResult, Verdict
from proofs._core import LemmaCheck, Proof

NAME = "levy2021/alg3_composition"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.cite("composition", "[DR14] Thm 3.20 with slack delta/2: T adaptive (eps', delta')-DP steps are "
               "(sqrt(2 T ln(2/delta)) eps' + T eps'(e^{eps'} - 1), T delta' + delta/2)-DP")
    proof.assume("0 < eps <= 1 (Thm 3), 0 < delta < 1, T >= 1")
    eps, delta, big_t, lg = sp.symbols("epsilon delta T L", positive=True)  # L = ln(2/delta) >= ln 2
    ep = eps / (2 * sp.sqrt(2 * big_t * lg))
    proof.zero("sqrt(2 T ln(2/delta)) eps' = eps/2", sp.sqrt(2 * big_t * lg) * ep - eps / 2)
    proof.zero("T delta/(2T) + delta/2 = delta", big_t * delta / (2 * big_t) + delta / 2 - delta)
    x = sp.Symbol("x", real=True)
    proof.concave_nonneg("e^x - 1 <= (e - 1) x on [0, 1]; here eps' <= 1/(2 sqrt(2 ln 2)) < 1", (sp.E - 1) * x - (sp.exp(x) - 1), x, 0, 1)
    proof.zero("T eps'^2 = eps^2/(8 L)", big_t * ep**2 - eps**2 / (8 * lg))
    a, ell = sp.symbols("a ell", nonnegative=True)  # eps = 1/(1 + a) in (0, 1], L = ln 2 + ell
    proof.nonneg("(e - 1) eps^2/(8 L) <= eps/2 for eps <= 1, L >= ln 2",
                 (eps / 2 - (sp.E - 1) * eps**2 / (8 * lg)).subs({eps: 1 / (1 + a), lg: sp.log(2) + ell}))
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
    source="Levy et al. 2021, Alg 3 line 2 and Thm 3 (privacy for eps <= 1); note P4 and L8",
    statement=("With eps' = eps/(2 sqrt(2 T ln(2/delta))) and delta' = delta/(2T): sqrt(2 T ln(2/delta)) eps' = eps/2, "
               "T delta' + delta/2 = delta, and for 0 < eps <= 1 the second DRV term T eps'(e^{eps'} - 1) is at most eps/2, "
               "so the T-step composition is (eps, delta)-DP."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
