"""Erratum E12: Prop B.1's proof displays the probability of the good event where the bad one is meant.

'Pr[||theta*(x) - theta*(D)|| <= bound] <= beta' (the good event has probability at most beta:
DISPROVED by a point mass); the intended 'Pr[... > bound] <= beta' holds, proved here for the
quadratic loss with bounded data via Hoeffding's inequality (PROVED).
"""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2023/prop_b1_direction_printed"
CORRECTED = "ghazi2023/prop_b1_direction_corrected"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("l(theta; x) = (mu/2)(theta - x)^2, D the point mass at 0: theta*(x) = theta*(D) = 0 for every sample")
    beta = sp.Rational(1, 10)
    proof.refute("beta = 0.1: the probability of the good event is 1 > beta",
                 {"beta": beta, "P[||theta*(x) - theta*(D)|| <= bound]": 1}, beta - 1)
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("quadratic case: l(theta; x) = (mu/2)(theta - x)^2, x in [-A, A], K = [-A, A], so G = 2 mu A, "
                 "theta*(x) = the mean of the N = nm items, theta*(D) = E x")
    proof.cite("Hoeffding", "P[|mean - E x| > t] <= 2 exp(-2 N t^2 / (2A)^2) for N i.i.d. items in [-A, A]")
    a, mu, nn, beta = sp.symbols("A mu N beta", positive=True)
    g = 2 * mu * a
    t = 30 * g * sp.sqrt(sp.log(2 / beta)) / (mu * sp.sqrt(nn))  # Prop B.1's radius
    exponent = sp.simplify(-2 * nn * t**2 / (2 * a) ** 2)
    proof.equal("Hoeffding's exponent at Prop B.1's radius is -1800 ln(2/beta)", exponent, -1800 * sp.log(2 / beta))
    proof.equal("ln(beta) - ln(2 exp(-1800 ln(2/beta))) = 1799 ln(2/beta)",
                sp.expand_log(sp.log(beta) - (sp.log(2) - 1800 * sp.log(2 / beta)), force=True),
                sp.expand_log(1799 * sp.log(2 / beta), force=True))
    w = sp.Symbol("w", nonnegative=True)  # 2/beta = 1 + w >= 1 for beta in (0, 1)
    proof.nonneg("1799 ln(2/beta) >= 0, so the tail 2 exp(-1800 ln(2/beta)) <= beta", 1799 * sp.log(1 + w))
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2023, proof of Prop B.1 (displayed 'Pr[... <= ...] <= beta'); note erratum E12",
        statement="(as printed) Pr[||theta*(x) - theta*(D)|| <= 30 G sqrt(log(2/beta))/(mu sqrt(nm))] <= beta.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2023, Prop B.1 with the inequality reversed (quadratic loss, bounded data); note erratum E12",
        statement=("(corrected) For l = (mu/2)(theta - x)^2 with items in [-A, A] (G = 2 mu A): "
                   "Pr[||theta*(x) - theta*(D)|| > 30 G sqrt(log(2/beta))/(mu sqrt(nm))] <= beta for every beta in (0, 1)."),
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
