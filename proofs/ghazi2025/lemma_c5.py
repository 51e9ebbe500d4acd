"""Lemma C.5: E_{p ~ U[-1,1]}[(1 - p^2) g'(p)] = E[g(p) p] as printed is off by a factor 2.

DISPROVED with g = p; integration by parts gives 2 E[g(p) p] (PROVED).
"""

from __future__ import annotations

import sympy as sp
from dpaudit.proofs._tools import uniform_expectation

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2025/lemma_c5_printed"
CORRECTED = "ghazi2025/lemma_c5_factor_two"
p = sp.Symbol("p", real=True)



def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    g = p
    lhs, rhs = uniform_expectation((1 - p**2) * sp.diff(g, p), p), uniform_expectation(g * p, p)
    proof.refute("g(p) = p: E[(1 - p^2) g'] = 2/3 but E[g p] = 1/3", {"g": "p", "lhs": lhs, "rhs": rhs}, -((lhs - rhs) ** 2))
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("g differentiable on [-1, 1] (the proof's g is an expectation of a bounded function of Gaussians, hence smooth)")
    g = sp.Function("g")
    proof.equal("d/dp[(1 - p^2) g(p)] = (1 - p^2) g'(p) - 2 p g(p)", sp.diff((1 - p**2) * g(p), p), (1 - p**2) * sp.diff(g(p), p) - 2 * p * g(p))
    proof.zeros("the boundary term (1 - p^2) g(p) vanishes at p = -1 and p = 1", [((1 - p**2) * g(p)).subs(p, 1), ((1 - p**2) * g(p)).subs(p, -1)])
    proof.cite("fundamental theorem of calculus", "so int (1 - p^2) g' dp = int 2 p g dp, i.e. E[(1 - p^2) g'] = 2 E[g p]")
    rng = proof.rng
    ok, cases = True, 0
    for _ in range(20):
        coeffs = [sp.Rational(int(rng.integers(-9, 10)), int(rng.integers(1, 5))) for _ in range(5)]
        gp = sum(c * p**k for k, c in enumerate(coeffs))
        lhs = sp.Poly((1 - p**2) * sp.diff(gp, p), p).integrate()
        rhs = sp.Poly(gp * p, p).integrate()
        ok = ok and (lhs.eval(1) - lhs.eval(-1)) / 2 == 2 * (rhs.eval(1) - rhs.eval(-1)) / 2
        cases += 1
    proof.instance("exact integrals for 20 seeded g (random quartic polynomials)", ok, point={"g": "a seeded quartic"}, cases=cases)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, Lemma C.5 (fingerprinting step of the lower bound, App. C); note section 4 [ERRATUM]",
        statement="(as printed) For differentiable g on [-1, 1] and p ~ U[-1, 1]: E[(1 - p^2) g'(p)] = E[g(p) p].",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, Lemma C.5 with the factor 2 from its own integration by parts (note section 4; only helps the bound)",
        statement="(corrected) For differentiable g on [-1, 1] and p ~ U[-1, 1]: E[(1 - p^2) g'(p)] = 2 E[g(p) p].",
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
