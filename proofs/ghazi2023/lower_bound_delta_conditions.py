"""Erratum E11 (delta conditions): Thms D.7/D.8's delta conditions against those Lemmas D.5/D.6 need.

Thms D.7/D.8 state delta <= sqrt(d)/(200 sqrt(n) sqrt(log n)) resp. sqrt(d)/(200 sqrt(n sqrt(log
n))), which do not imply the condition delta <= sqrt(d)/(100 psi n sqrt(log(100 psi n/sqrt(d))))
that Lemmas D.5/D.6 need at psi = 1 (DISPROVED); on the theorems' range n >= sqrt(d) the lemma's
condition implies both printed ones, so stating the theorems with it is consistent (PROVED).
"""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2023/lower_bound_delta_conditions_printed"
CORRECTED = "ghazi2023/lower_bound_delta_conditions_corrected"


def _lemma_condition(n: sp.Expr, d: sp.Expr) -> sp.Expr:
    return sp.sqrt(d) / (100 * n * sp.sqrt(sp.log(100 * n / sp.sqrt(d))))  # Lemma D.5/D.6 at psi = 1


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("a theorem proved through Lemma D.6 must admit only deltas the lemma admits")
    n, d = sp.Integer(10**4), sp.Integer(100)
    for name, allowed in (("D.7", sp.sqrt(d) / (200 * sp.sqrt(n) * sp.sqrt(sp.log(n)))),
                          ("D.8", sp.sqrt(d) / (200 * sp.sqrt(n * sp.sqrt(sp.log(n)))))):
        proof.refute(f"Thm {name}'s largest delta at n = 10^4, d = 100 against Lemma D.6's", {
            "theorem": name, "n": 10**4, "d": 100, "theorem's delta": allowed, "lemma's delta": _lemma_condition(n, d)},
            _lemma_condition(n, d) - allowed)
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("the theorems' range n >= sqrt(d)/eps with eps <= 1, so n >= sqrt(d)")
    n = sp.Symbol("n", positive=True)
    w = sp.Symbol("w", nonnegative=True)
    rd = sp.Symbol("r", positive=True)  # sqrt(d)
    proof.nonneg("log(100 n/sqrt(d)) - log 100 >= 0 for n = sqrt(d)(1 + w)",
                 sp.expand_log(sp.log(100 * rd * (1 + w) / rd) - sp.log(100), force=True))
    # D.7: lemma's delta <= D.7's  <=>  200 sqrt(n log n) <= 100 n sqrt(L1)  <=  4 log n <= n log 100 (L1 >= log 100)
    proof.monotone_nonneg("n log 100 - 4 log n >= 0 for n >= 1 (D.7)", n * sp.log(100) - 4 * sp.log(n), n, 1)
    # D.8: 200 sqrt(n sqrt(log n)) <= 100 n sqrt(L1)  <=  4 sqrt(log n) <= n log 100; sqrt(log n) <= log n + 1
    proof.monotone_nonneg("n log 100 - 4 (log n + 1) >= 0 for n >= 2 (D.8, with sqrt(log n) <= log n + 1)",
                          n * sp.log(100) - 4 * (sp.log(n) + 1), n, 2)
    x = sp.Symbol("x", nonnegative=True)
    proof.certificate("sqrt(x) <= x + 1 for x = log n >= 0", (x + 1) - sp.sqrt(x), (sp.sqrt(x) - sp.Rational(1, 2))**2 + sp.Rational(3, 4))
    proof.assume("algebra", "for positive sides, sqrt(d)/(100 n sqrt(L1)) <= sqrt(d)/(200 sqrt(n log n)) iff n L1 >= 4 log n, and "
               "<= sqrt(d)/(200 sqrt(n sqrt(log n))) iff n L1 >= 4 sqrt(log n); at n = 1 (log n = 0) both printed bounds are "
               "infinite and the implication is trivial")
    rng = proof.rng
    import numpy as np
    ns = np.exp(rng.uniform(0, 20, 400))
    ds = np.minimum(ns**2, np.exp(rng.uniform(0, 20, 400)))  # n >= sqrt(d)
    lemma = np.sqrt(ds) / (100 * ns * np.sqrt(np.log(100 * ns / np.sqrt(ds))))
    d7 = np.sqrt(ds) / (200 * np.sqrt(ns) * np.sqrt(np.maximum(np.log(ns), 1e-300)))
    proof.numeric_le("lemma's delta <= D.7's at 400 seeded (n, d) with n >= sqrt(d)", lemma, np.where(ns > 1, d7, np.inf),
                     {"n": ns, "d": ds})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2023, Thms D.7 and D.8 (delta conditions) vs Lemmas D.5/D.6; note erratum E11",
        statement=("(as printed) The delta conditions of Thm D.7 (delta <= sqrt(d)/(200 sqrt(n) sqrt(log n))) and Thm D.8 "
                   "(delta <= sqrt(d)/(200 sqrt(n sqrt(log n)))) imply Lemma D.6's delta <= sqrt(d)/(100 n sqrt(log(100 n/sqrt(d)))) (psi = 1)."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2023, Thms D.7/D.8 stated with Lemma D.6's delta condition; note erratum E11",
        statement=("(corrected) For n >= sqrt(d) (the theorems' range), Lemma D.6's condition at psi = 1 implies both printed "
                   "conditions: the theorems hold with the lemma's (stronger) hypothesis on delta."),
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
