"""Thm 5's lower-bound instance treats R as a radius where Sec 2 defines it as the diameter.

theta* = R E Z/||E Z|| then lies outside the ball of diameter R (DISPROVED); theta* = (R/2) E Z/||E
Z|| lies in it and minimises the linear loss there (PROVED, given Cauchy-Schwarz).
"""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "levy2021/thm5_theta_star_printed"
CORRECTED = "levy2021/thm5_theta_star_half_diameter"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("Sec 2: ||theta - theta'|| <= R on Theta (R the diameter); Theta = B_2(0, R/2); Thm 5's proof: theta* = R E Z/||E Z||")
    big_r = sp.Integer(1)
    proof.refute("R = 1: ||theta*|| = R vs the radius R/2", {"R": 1, "||theta*||": big_r}, big_r / 2 - big_r)
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.cite("Cauchy-Schwarz", "<theta, mu> <= ||theta|| ||mu||")
    proof.given("Theta = B_2(0, R/2), l(theta; z) = -<theta, z>, mu = E Z != 0; theta* = (R/2) mu/||mu||")
    big_r = sp.Symbol("R", positive=True)
    mu = sp.symbols("mu1:4", real=True)
    norm = sp.sqrt(sum(v**2 for v in mu))
    theta = [big_r / 2 * v / norm for v in mu]
    proof.equal("||theta*|| = R/2 (d = 3, mu != 0)", sp.sqrt(sum(t**2 for t in theta)).subs({mu[0]: sp.Symbol("p", positive=True)}), big_r / 2)
    proof.equal("L(theta*) = -<theta*, mu> = -(R/2) ||mu||, the Cauchy-Schwarz lower bound over Theta",
                -sum(t * v for t, v in zip(theta, mu, strict=True)), -(big_r / 2) * norm,
                hypotheses=[sum(v**2 for v in mu) > 0])  # mu != 0 (given)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Levy et al. 2021, Thm 5 proof (theta* = R E Z/||E Z||) vs Sec 2 (R is the diameter of Theta); note section 4, Thm 5",
        statement="(as printed) theta* = R E Z/||E Z|| lies in Theta, the ball of diameter R centred at 0.",
        expected=Verdict.DISPROVED,
        papers=("levy2021",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Levy et al. 2021, Thm 5 with theta* = (R/2) E Z/||E Z|| (R the diameter, Sec 2); note section 4",
        statement="(corrected) theta* = (R/2) E Z/||E Z|| has norm R/2, so it lies in Theta = B_2(0, R/2), and minimises -<theta, E Z> there.",
        expected=Verdict.PROVED,
        papers=("levy2021",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
