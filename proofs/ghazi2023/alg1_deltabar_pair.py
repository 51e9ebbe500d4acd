"""Erratum E1 as a pair: the typeset deltabar against deltabar = delta/(e^{epsbar} + 2).

With the typeset deltabar = delta/e^{epsbar + 2} the proof's closing identity (e^{epsbar} + 2)
deltabar = delta fails (DISPROVED; the reading is still private, see
``alg1_deltabar_typeset_is_safe``); with deltabar = delta/(e^{epsbar} + 2) it holds exactly
(PROVED).
"""

from __future__ import annotations

import sympy as sp

from dpaudit.bounds.ghazi2023 import DELTA_BAR, EPS_BAR
from dpaudit.bounds.symbols import delta, epsilon
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2023/alg1_deltabar_identity_printed"
CORRECTED = "ghazi2023/alg1_deltabar_identity_corrected"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    typeset = delta / sp.exp(EPS_BAR + 2)
    point = {epsilon: 1, delta: sp.Rational(1, 10**5)}
    proof.refute("eps = 1, delta = 1e-5: (e^{epsbar} + 2) delta e^{-epsbar-2} vs delta",
                 {"epsilon": 1, "delta": "1e-5", "(e^epsbar + 2) deltabar": ((sp.exp(EPS_BAR) + 2) * typeset).subs(point)},
                 -sp.Abs(((sp.exp(EPS_BAR) + 2) * typeset - delta).subs(point)))
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.equal("(e^{epsbar} + 2) deltabar = delta for deltabar = delta/(e^{epsbar} + 2)", (sp.exp(EPS_BAR) + 2) * DELTA_BAR, delta)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2023, Alg 1 line 3 as typeset (deltabar = delta/e^{epsbar+2}) and the end of the proof of Thm 3.3; note E1",
        statement="(as printed) deltabar = delta/e^{epsbar + 2} satisfies the proof's closing identity (e^{epsbar} + 2) deltabar = delta.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2023, Alg 1 line 3 read as deltabar = delta/(e^{epsbar} + 2); end of the proof of Thm 3.3; note E1",
        statement="(corrected) deltabar = delta/(e^{epsbar} + 2) satisfies (e^{epsbar} + 2) deltabar = delta for every eps, delta.",
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
