"""My own check: the Huber loss (threshold 1) is 1-Lipschitz, by a case split over its kinks."""

import sympy as sp

from dpaudit.verify import LemmaCheck, Proof, Verdict, prove_by_cases

NAME = "mine/huber_lipschitz"


def huber(t):
    return sp.Piecewise((t**2 / 2, sp.Abs(t) <= 1), (sp.Abs(t) - sp.Rational(1, 2), True))


def _run():
    proof = Proof(NAME)
    proof.given("h(t) = t^2/2 for |t| <= 1, |t| - 1/2 otherwise")
    x, y = sp.symbols("x y", real=True)
    prove_by_cases(proof, "|h(x) - h(y)| <= |x - y|", sp.Abs(x - y) - sp.Abs(huber(x) - huber(y)))
    return proof.result()


CHECK = LemmaCheck(name=NAME, source="my notes, eq. (1)", statement="|h(x) - h(y)| <= |x - y| for all real x, y (Huber, threshold 1)",
                   expected=Verdict.PROVED, check=_run)
