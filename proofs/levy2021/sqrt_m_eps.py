"""Transcription artifact 0(a): n sqrt(m eps) where n sqrt(m) eps is meant.

The seed prints n sqrt(m eps) in Thm 3 (i), (iii), Thm 4, Thm 5 and Alg 4. It is inconsistent with
the oracle variance nu^2 = T Gt^2 d/(n^2 m eps^2) Thm 3 itself states: plugging nu^2 into the SGD
bound R nu/sqrt(T) gives R Gt sqrt(d)/(n sqrt(m) eps), not R Gt sqrt(d)/(n sqrt(m eps)) (DISPROVED);
with n sqrt(m) eps the two agree (PROVED).
"""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "levy2021/sqrt_m_eps_printed"
CORRECTED = "levy2021/sqrt_m_times_eps"

R, Gt, d, n, m, eps, T = sp.symbols("R Gt d n m epsilon T", positive=True)
NU2 = T * Gt**2 * d / (n**2 * m * eps**2)  # Thm 3: the private oracle's variance


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("Thm 3: nu^2 = T Gt^2 d/(n^2 m eps^2); SGD with variance nu^2 over T steps: privacy term R nu/sqrt(T) (ALG-6 (i))")
    point = {R: 1, Gt: 1, d: 1, n: 1, m: 1, T: 1, eps: sp.Rational(1, 4)}
    lhs = (R * sp.sqrt(NU2) / sp.sqrt(T)).subs(point)
    rhs = (R * Gt * sp.sqrt(d) / (n * sp.sqrt(m * eps))).subs(point)
    proof.refute("eps = 1/4 (other symbols 1): R nu/sqrt(T) vs R Gt sqrt(d)/(n sqrt(m eps))", {"epsilon": "1/4", "R nu/sqrt(T)": lhs,
                 "printed term": rhs}, -sp.Abs(lhs - rhs))
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("Thm 3: nu^2 = T Gt^2 d/(n^2 m eps^2)")
    proof.equal("R nu/sqrt(T) = R Gt sqrt(d)/(n sqrt(m) eps)", R * sp.sqrt(NU2) / sp.sqrt(T), R * Gt * sp.sqrt(d) / (n * sp.sqrt(m) * eps))
    proof.equal("and its square matches the eps^2 of Thm 3 (ii) / Cor 2: (Gt sqrt(d)/(n sqrt(m) eps))^2 = Gt^2 d/(n^2 m eps^2)",
                (Gt * sp.sqrt(d) / (n * sp.sqrt(m) * eps)) ** 2, Gt**2 * d / (n**2 * m * eps**2))
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Levy et al. 2021, Thm 3 (i) as rendered in the seed (R Gt sqrt(d)/(n sqrt(m eps))) vs nu^2 in Thm 3; note 0(a)",
        statement="(as printed) With nu^2 = T Gt^2 d/(n^2 m eps^2), R nu/sqrt(T) = R Gt sqrt(d)/(n sqrt(m eps)).",
        expected=Verdict.DISPROVED,
        papers=("levy2021",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Levy et al. 2021, Thm 3 (i) read with n sqrt(m) eps (note 0(a); papers 000, 002, 003 quote it so)",
        statement="(corrected) With nu^2 = T Gt^2 d/(n^2 m eps^2), R nu/sqrt(T) = R Gt sqrt(d)/(n sqrt(m) eps).",
        expected=Verdict.PROVED,
        papers=("levy2021",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
