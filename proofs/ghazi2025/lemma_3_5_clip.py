"""Lemma 3.5: |Pi_[a-r, a+r](c) - Pi_[b-r, b+r](d)| <= max(|a - b|, |c - d|), PROVED in 1-D.

Hence <= 1 under the lemma's hypotheses; the same statement for Euclidean balls in R^2 is false
(control, DISPROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.userlevel.projections import clamp, project_l2_ball
from dpaudit.verify import (
    NUMERIC_RTOL,
    CheckResult,
    Fact,
    LemmaCheck,
    Proof,
    Region,
    Verdict,
    Violation,
    eq,
    finite_floats,
    le,
    lt,
)
from dpaudit.verify.geometry import clamp as sym_clamp
from dpaudit.verify.geometry import prove_clamp_properties

NAME = "ghazi2025/lemma_3_5_clip_lipschitz"
#: |c' - d'|, |a - b| and |c - d| in the fact "Lemma 3.5, general form"
OUT_GAP, CENTRE_GAP, POINT_GAP = sp.symbols("out_gap centre_gap point_gap", nonnegative=True)
CONTROL = "ghazi2025/lemma_3_5_euclidean_balls_2d"


def prove_lemma_3_5(proof: Proof) -> None:
    """Record the symbolic proof of the general form on ``proof`` (reused by other checks)."""
    a, c = sp.symbols("a c", real=True)
    rr = sp.Symbol("r", nonnegative=True)
    # shift invariance: Pi_[a-r, a+r](c) = a + Pi_[-r, r](c - a), every placement of c relative to a -+ r
    shift = sym_clamp(c, a - rr, a + rr) - (a + sym_clamp(c - a, -rr, rr))
    proof.cases("shift: Pi_[a-r,a+r](c) = a + Pi_[-r,r](c - a)", -(shift**2), Region.orders([c, a - rr, a + rr]))
    prove_clamp_properties(proof, prefix="phi = Pi_[-r,r]: ")
    proof.assume("monotone 1-Lipschitz map: convex combination", "phi monotone and 1-Lipschitz give phi(u) - phi(w) = t (u - w) "
                 "with t in [0, 1] (u = c - a, w = d - b), so c' - d' = (1 - t)(a - b) + t (c - d)")
    big_a, big_c, t = sp.symbols("A C t", real=True)
    unit = [le(0, t), le(t, 1)]
    t_cases = {"0 <= t < 1": [le(0, t), lt(t, 1)], "t = 1": [eq(t, 1)]}
    z = (1 - t) * big_a + t * big_c
    proof.cases("convexity: ((1 - t) A + t C)^2 <= (1 - t) A^2 + t C^2 for t in [0, 1]", (1 - t) * big_a**2 + t * big_c**2 - z**2,
                [Region.where(name, *conds) for name, conds in t_cases.items()], domain=unit)
    pa, pc = sp.symbols("A_sq C_sq", nonnegative=True)  # A^2, C^2
    regions = [Region.where(f"{o}, {name}", *rel, *conds) for o, rel in (("A^2 <= C^2", [le(pa, pc)]), ("C^2 <= A^2", [le(pc, pa)]))
               for name, conds in t_cases.items()]
    proof.cases("(1 - t) A^2 + t C^2 <= max(A^2, C^2) for t in [0, 1]", sp.Max(pa, pc) - ((1 - t) * pa + t * pc), regions, domain=unit)


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("a, b, c, d real, r >= 0; c' = Pi_[a-r, a+r](c), d' = Pi_[b-r, b+r](d)")
    prove_lemma_3_5(proof)
    a, b, c, d = sp.symbols("a b c d", real=True)
    r = sp.Symbol("r", nonnegative=True)
    proof.establish("general", le(OUT_GAP, sp.Max(CENTRE_GAP, POINT_GAP)),
                    where={OUT_GAP: sp.Abs(sym_clamp(c, a - r, a + r) - sym_clamp(d, b - r, b + r)),
                           CENTRE_GAP: sp.Abs(a - b), POINT_GAP: sp.Abs(c - d)})

    def prop(a: float, b: float, c: float, d: float, r: float) -> None:
        c1, d1 = float(clamp(c, a - r, a + r)), float(clamp(d, b - r, b + r))
        bound = max(abs(a - b), abs(c - d))
        if abs(c1 - d1) > bound * (1 + NUMERIC_RTOL) + NUMERIC_RTOL * (abs(a) + abs(b) + r):
            raise Violation("|c' - d'| > max(|a - b|, |c - d|)", a=a, b=b, c=c, d=d, r=r)

    proof.hypothesis("dpaudit clamp on floats", prop, finite_floats(-100, 100), finite_floats(-100, 100), finite_floats(-100, 100),
                     finite_floats(-100, 100), finite_floats(0, 100), max_examples=150)
    return proof.result()


def _control() -> CheckResult:
    proof = Proof(CONTROL)
    proof.given("balls B(a, 1), B(b, 1) in R^2 with Euclidean projections")
    a, b = sp.Matrix([0, 0]), sp.Matrix([1, 0])
    c, d = sp.Matrix([sp.Rational(3, 2), sp.sqrt(3) / 2]), sp.Matrix([2, 0])
    proj = lambda x, ctr: ctr + (x - ctr) / sp.Max(1, (x - ctr).norm())  # noqa: E731
    c1, d1 = proj(c, a), proj(d, b)
    gap = (c1 - d1).norm()
    proof.refute("a = (0, 0), b = (1, 0), r = 1, c = (3/2, sqrt(3)/2), d = (2, 0): ||c' - d'|| vs 1",
                 {"a": [0, 0], "b": [1, 0], "c": ["3/2", "sqrt(3)/2"], "d": [2, 0], "||c' - d'||": gap}, 1 - gap,
                 conditions={"||a - b|| = 1": sp.Eq((a - b).norm(), 1), "||c - d|| = 1": sp.Eq((c - d).norm(), 1)})
    impl = float(np.linalg.norm(project_l2_ball(np.array([1.5, np.sqrt(3) / 2]), 1.0) - project_l2_ball(np.array([2.0, 0.0]), 1.0, [1.0, 0.0])))
    proof.numeric_le("dpaudit project_l2_ball gives the same gap", abs(impl - float(gap)), 1e-12, {"impl": impl})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=NAME,
        source="Ghazi et al. 2025, Lemma 3.5 (and its use in Lemma 3.7); note section 4 'general form' and 5.3",
        statement=("For reals a, b, c, d and r >= 0: |Pi_[a-r, a+r](c) - Pi_[b-r, b+r](d)| <= max(|a - b|, |c - d|); in particular "
                   "|a - b| <= 1 and |c - d| <= 1 give |c' - d'| <= 1 (the lemma as stated)."),
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_run,
        facts=(Fact("general", le(OUT_GAP, sp.Max(CENTRE_GAP, POINT_GAP))),),
    ),
    LemmaCheck(
        name=CONTROL,
        source="Ghazi et al. 2025, remark after Lemma 3.5 ('Lemma 3.5 does not hold in high dimensions'); note 5.3 negative control",
        statement="(negative control) Lemma 3.5 with Euclidean balls in R^2: ||a - b|| <= 1 and ||c - d|| <= 1 give ||c' - d'|| <= 1.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_control,
        role="control",
    ),
)
