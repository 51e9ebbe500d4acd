"""Erratum E1 is harmless: the typeset deltabar = delta / e^{epsbar + 2} also satisfies (e^{epsbar} + 2) deltabar <= delta."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2023/alg1_deltabar_typeset_is_safe"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("typeset line 3: deltabar = delta / e^{epsbar + 2}, epsbar = eps/2 >= 0")
    x = sp.Symbol("x", nonnegative=True)  # epsbar
    # delta - (e^x + 2) delta / e^{x+2} >= 0  <=>  e^x (e^2 - 1) - 2 >= 0
    proof.zero("delta - (e^x + 2) delta e^{-x-2} = delta e^{-x-2} (e^x (e^2 - 1) - 2)",
               sp.simplify((1 - (sp.exp(x) + 2) * sp.exp(-x - 2)) - sp.exp(-x - 2) * (sp.exp(x) * (sp.E**2 - 1) - 2)))
    proof.monotone_nonneg("e^x (e^2 - 1) - 2 >= 0 for x >= 0", sp.exp(x) * (sp.E**2 - 1) - 2, x, 0)
    rng = proof.rng
    xs = rng.uniform(0, 10, 500)
    proof.numeric_le("(e^x + 2) / e^{x+2} <= 1 at 500 seeded epsbar", (np.exp(xs) + 2) * np.exp(-xs - 2), 1.0, {"epsbar": xs})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2023, Alg 1 line 3 as typeset (deltabar = delta/e^{epsbar+2}); docs/papers/ghazi2023.md, erratum E1",
    statement="For every epsbar >= 0, (e^{epsbar} + 2) * delta / e^{epsbar + 2} <= delta, so the typeset deltabar is also a valid (smaller) choice.",
    expected=Verdict.PROVED,
    papers=("ghazi2023",),
    check=_run,
)
