"""Lemma 3.5: |Pi_[a-r, a+r](c) - Pi_[b-r, b+r](d)| <= max(|a - b|, |c - d|) (hence <= 1 under the lemma's hypotheses),
PROVED in 1-D; the same statement for Euclidean balls in R^2 is false (control, DISPROVED)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.bounds.verdict import CheckResult, Verdict
from dpaudit.userlevel.projections import clamp, project_l2_ball
from proofs._core import NUMERIC_RTOL, LemmaCheck, Proof, Violation, finite_floats
from proofs._geometry import clamp as sym_clamp
from proofs._geometry import prove_clamp_properties

NAME = "ghazi2025/lemma_3_5_clip_lipschitz"
CONTROL = "ghazi2025/lemma_3_5_euclidean_balls_2d"


def prove_lemma_3_5(proof: Proof) -> None:
    """Record the symbolic proof of the general form on ``proof`` (reused by other checks)."""
    a = sp.Symbol("a", real=True)
    rr = sp.Symbol("r", nonnegative=True)
    u, p, s, v = sp.symbols("u p s v", nonnegative=True)
    # shift invariance: Pi_[a-r, a+r](c) = a + Pi_[-r, r](c - a), three placements of c
    shift = {"c <= a - r": a - rr - u, "c inside (2r = p + s)": a - rr + p, "c >= a + r": a + rr + v}
    residuals = [sym_clamp(c, a - rr, a + rr) - (a + sym_clamp(c - a, -rr, rr)) for c in shift.values()]
    residuals[1] = residuals[1].subs(rr, (p + s) / 2)
    proof.zeros("shift: Pi_[a-r,a+r](c) = a + Pi_[-r,r](c - a)", residuals)
    prove_clamp_properties(proof, prefix="phi = Pi_[-r,r]: ")
    proof.cite("consequence", "phi monotone and 1-Lipschitz give phi(u) - phi(w) = t (u - w) with t in [0, 1] (u = c - a, w = d - b), "
               "so c' - d' = (1 - t)(a - b) + t (c - d)")
    big_a, big_c = sp.symbols("A C", real=True)
    s1, s2 = sp.symbols("s1 s2", positive=True)
    t = s1 / (s1 + s2)  # t in (0, 1); t = 0, 1 are the end points themselves
    z = (1 - t) * big_a + t * big_c
    proof.nonneg("convexity: (1 - t) A^2 + t C^2 - ((1 - t) A + t C)^2 >= 0", sp.factor((1 - t) * big_a**2 + t * big_c**2 - z**2))
    e = sp.Symbol("e", nonnegative=True)
    proof.cases("(1 - t) A^2 + t C^2 <= max(A^2, C^2)", {"A^2 >= C^2 (A^2 = C^2 + e)": (big_c**2 + e) - ((1 - t) * (big_c**2 + e) + t * big_c**2),
                                                        "C^2 >= A^2 (C^2 = A^2 + e)": (big_a**2 + e) - ((1 - t) * big_a**2 + t * (big_a**2 + e))})


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.assume("a, b, c, d real, r >= 0; c' = Pi_[a-r, a+r](c), d' = Pi_[b-r, b+r](d)")
    prove_lemma_3_5(proof)

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
    proof.assume("balls B(a, 1), B(b, 1) in R^2 with Euclidean projections")
    a, b = sp.Matrix([0, 0]), sp.Matrix([1, 0])
    c, d = sp.Matrix([sp.Rational(3, 2), sp.sqrt(3) / 2]), sp.Matrix([2, 0])
    proj = lambda x, ctr: ctr + (x - ctr) / sp.Max(1, (x - ctr).norm())  # noqa: E731
    c1, d1 = proj(c, a), proj(d, b)
    gap = (c1 - d1).norm()
    proof.exact("hypotheses: ||a - b|| = 1 and ||c - d|| = 1", (a - b).norm() == 1 and sp.simplify((c - d).norm() - 1) == 0, 1)
    proof.refute("a = (0, 0), b = (1, 0), r = 1, c = (3/2, sqrt(3)/2), d = (2, 0): ||c' - d'|| vs 1",
                 {"a": [0, 0], "b": [1, 0], "c": ["3/2", "sqrt(3)/2"], "d": [2, 0], "||c' - d'||": gap}, 1 - gap)
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
