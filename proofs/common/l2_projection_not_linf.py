"""Negative control: Euclidean projection onto an l_2 ball is NOT 1-Lipschitz in l_inf."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.userlevel.projections import project_l2_ball
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "common/l2_ball_projection_not_linf_lipschitz"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("unit ball B(0, 1) in R^2; P(x) = x / max(1, ||x||_2)")
    x = (sp.Rational(-1, 5), sp.Rational(11, 10))
    y = (sp.Rational(-3, 5), sp.Rational(4, 5))
    nx, ny = sp.sqrt(sum(v**2 for v in x)), sp.sqrt(sum(v**2 for v in y))
    px = tuple(v / sp.Max(1, nx) for v in x)
    py = tuple(v / sp.Max(1, ny) for v in y)
    gap = sp.Max(*[abs(a - b) for a, b in zip(px, py, strict=True)])
    dist = sp.Max(*[abs(a - b) for a, b in zip(x, y, strict=True)])
    proof.refute("x = (-1/5, 11/10), y = (-3/5, 4/5): ||P(x) - P(y)||_inf vs ||x - y||_inf",
                 {"x": [str(v) for v in x], "y": [str(v) for v in y], "||P(x)-P(y)||_inf": gap, "||x-y||_inf": dist},
                 dist - gap)
    # the same pair through dpaudit's implementation
    fx, fy = np.array(x, dtype=float), np.array(y, dtype=float)
    impl_gap = float(np.max(np.abs(project_l2_ball(fx, 1.0) - project_l2_ball(fy, 1.0))))
    proof.numeric_le("dpaudit project_l2_ball on the same pair agrees with the exact gap",
                     abs(impl_gap - float(gap)), 1e-12, {"impl_gap": impl_gap})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2025, section 3 after Lemma 3.5 ('does not hold in high dimensions'); docs/papers/ghazi2025.md, pitfall P15",
    statement=("(negative control) The Euclidean projection onto the unit l_2 ball in R^2 satisfies "
               "||P(x) - P(y)||_inf <= ||x - y||_inf for all x, y."),
    expected=Verdict.DISPROVED,
    papers=("ghazi2025",),
    check=_run,
    role="control",
)
