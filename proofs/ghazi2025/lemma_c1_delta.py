"""Lemma C.1 assumes delta <= 1/(dnm), but the proof of Lemma C.3 it rests on needs delta <= 1/(dn^2).

The stated hypothesis does not give it when m < n (DISPROVED); delta <= 1/(d n max(n, m)) gives both
(PROVED).
"""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict, prove_by_cases

PRINTED = "ghazi2025/lemma_c1_delta_printed"
CORRECTED = "ghazi2025/lemma_c1_delta_both"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("Lemma C.1: eps <= 0.1, delta <= 1/(dnm); the proof of Lemma C.3 (used for C.1): 'when delta <= 1/dn^2'")
    n, m, d = sp.Integer(4), sp.Integer(1), sp.Integer(1)
    delta = 1 / (d * n * m)
    proof.refute("n = 4, m = 1, d = 1, delta = 1/(dnm) = 1/4: is delta <= 1/(dn^2) = 1/16?", {"n": 4, "m": 1, "d": 1, "delta": delta},
                 1 / (d * n**2) - delta, conditions={"delta <= 1/(dnm)": sp.Le(delta, 1 / (d * n * m)), "m < n": sp.Lt(m, n)})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("delta <= 1/(d n max(n, m)) with n, m, d >= 1")
    n, m, d = sp.symbols("n m d", positive=True)
    big = sp.Max(n, m)
    prove_by_cases(proof, "1/(d n max(n, m)) <= 1/(dnm) (cases n vs m)", 1 / (d * n * m) - 1 / (d * n * big))
    prove_by_cases(proof, "1/(d n max(n, m)) <= 1/(dn^2) (cases n vs m)", 1 / (d * n**2) - 1 / (d * n * big))
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, Lemma C.1 (delta <= 1/(dnm)) vs the proof of Lemma C.3 ('when delta <= 1/dn^2'); note section 4",
        statement="(as printed) Lemma C.1's hypothesis delta <= 1/(dnm) implies the delta <= 1/(dn^2) its proof uses, for all n, m, d >= 1.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, Lemma C.1 with delta <= 1/(d n max(n, m)) (note section 4: the delta inconsistency of C.1)",
        statement="(corrected) delta <= 1/(d n max(n, m)) implies both delta <= 1/(dnm) (the statement) and delta <= 1/(dn^2) (the proof).",
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
