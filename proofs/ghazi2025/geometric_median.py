"""App. B.10: the geometric median violates Assumption 3.3(ii): moving every point by <= alpha moves it by 1."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2025/geometric_median_violates_ii"


def _unit_sum_sq(p: sp.Matrix, others: list[sp.Matrix]) -> sp.Expr:
    total = sp.zeros(2, 1)
    for q in others:
        total += (q - p) / (q - p).norm()
    return sp.nsimplify(total.dot(total))


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.cite("[Kuhn73] Weber optimality", "a data point p of multiplicity w minimises sum_q ||x - q|| iff ||sum_{q != p} (q - p)/||q - p|| || <= w; "
               "strict inequality makes it the unique minimiser (Kuhn 1973)")
    alpha = sp.Rational(1, 100)
    o, e1, e1a, ea = sp.Matrix([0, 0]), sp.Matrix([1, 0]), sp.Matrix([1, alpha]), sp.Matrix([0, alpha])
    pts, pts2 = [o, o, e1, e1a], [o, ea, e1, e1]
    moved = max(max(abs(t) for t in (a - b)) for a, b in zip(pts, [o, ea, e1, e1], strict=True))
    proof.exact("P' is P with every point moved by <= alpha = 1/100 in l_inf", sp.Le(moved, alpha, evaluate=False), cases=4,
                counterexample=lambda: {"largest move": moved, "alpha": alpha})
    proof.nonneg("M(P) = (0, 0): 2^2 - ||unit vectors to (1, 0), (1, alpha)||^2 > 0", 4 - _unit_sum_sq(o, [e1, e1a]))
    proof.nonneg("M(P') = (1, 0): 2^2 - ||unit vectors to (0, 0), (0, alpha)||^2 > 0", 4 - _unit_sum_sq(e1, [o, ea]))
    gap = max(abs(t) for t in (o - e1))
    proof.exact("||M(P) - M(P')||_inf = 1 > alpha", [sp.Eq(gap, 1, evaluate=False), sp.Lt(alpha, 1, evaluate=False)],
                counterexample=lambda: {"gap": gap, "alpha": alpha})
    rng = proof.rng
    cost = lambda x, ps: sum(np.linalg.norm(x - np.array(p, dtype=float).ravel()) for p in ps)  # noqa: E731
    grid = rng.uniform(-0.5, 1.5, size=(400, 2))
    lhs = [cost(np.zeros(2), pts)] * 400
    rhs = [cost(g, pts) for g in grid]
    proof.numeric_le("cost of (0, 0) for P is below the cost at 400 seeded points", lhs, rhs, {"point": np.arange(400)})
    lhs2 = [cost(np.array([1.0, 0.0]), pts2)] * 400
    rhs2 = [cost(g, pts2) for g in grid]
    proof.numeric_le("cost of (1, 0) for P' is below the cost at the same points", lhs2, rhs2, {"point": np.arange(400)})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2025, App. B.10 (geometric median, quoting [DK09])",
    statement=("For P = {(0,0), (0,0), (1,0), (1,alpha)} and P' = {(0,0), (0,alpha), (1,0), (1,0)} with alpha = 1/100, each point moves by "
               "<= alpha but the geometric medians are (0,0) and (1,0): the geometric median violates Assumption 3.3(ii)."),
    expected=Verdict.PROVED,
    papers=("ghazi2025",),
    check=_run,
)
