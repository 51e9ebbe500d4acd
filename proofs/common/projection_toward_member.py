"""Projecting onto a convex set never moves a point away from any member of the set."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.userlevel.projections import project_box, project_l2_ball
from dpaudit.verify import (
    NUMERIC_RTOL,
    CheckResult,
    LemmaCheck,
    Proof,
    Region,
    Verdict,
    Violation,
    finite_floats,
    st,
    vectors,
)
from dpaudit.verify.geometry import A, B, clamp, prove_ball_toward_member

NAME = "common/projection_toward_member"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("K is a box prod_i [a_i, b_i] (coordinate-wise clamp) or an l_2 ball B(c, r); x in K")
    # box, one coordinate: x in [a, b], u any real; every ordering of u, x, a, b is a case
    u, x = sp.symbols("u x", real=True)
    member = [sp.Le(A, x, evaluate=False), sp.Le(x, B, evaluate=False)]
    proof.cases("box, per coordinate: (u - x)^2 - (Pi(u) - x)^2 >= 0 for x in [a, b]", (u - x) ** 2 - (clamp(u, A, B) - x) ** 2,
                Region.orders([u, x, A, B], domain=member), domain=member)
    proof.nonneg("box, summing coordinates: a sum of terms that are each >= 0 is >= 0 (one generic term t >= 0)",
                 sp.Symbol("t", nonnegative=True))
    prove_ball_toward_member(proof, prefix="ball: ")

    def prop(dim: int, data: list[float], radius: float) -> None:
        u, x_raw, c = (np.array(data[i * dim:(i + 1) * dim]) for i in range(3))
        x = project_l2_ball(x_raw, radius, c)  # a member of the ball
        pu = project_l2_ball(u, radius, c)
        scale = NUMERIC_RTOL * (radius + float(np.max(np.abs(np.concatenate([u, x_raw, c])))))  # rounding near c
        if np.linalg.norm(pu - x) > np.linalg.norm(u - x) * (1 + NUMERIC_RTOL) + scale:
            raise Violation("ball projection moved away from a member", u=u.tolist(), x=x.tolist(), c=c.tolist(), r=radius)
        low, high = c - radius, c + radius
        xb = project_box(x_raw, low, high)
        if np.linalg.norm(project_box(u, low, high) - xb) > np.linalg.norm(u - xb) * (1 + NUMERIC_RTOL):
            raise Violation("box projection moved away from a member", u=u.tolist(), x=xb.tolist(), c=c.tolist(), r=radius)
        if not np.array_equal(project_box(xb, low, high), xb):
            raise Violation("box projection is not the identity on K", x=xb.tolist())

    proof.hypothesis("project_l2_ball / project_box, d = 1..6", prop, st.integers(1, 6), vectors(18, -20.0, 20.0),
                     finite_floats(1e-2, 20.0), max_examples=150)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source=("Ghazi et al. 2023, Alg 3/4 and docs/papers/ghazi2023.md, erratum E6 (projecting theta_hat onto K is non-expansive toward theta* in K); "
            "Lowy et al. 2024, Alg 1 (projection)"),
    statement=("For K a box or a Euclidean ball in R^d and any x in K, u in R^d: ||Pi_K(u) - x||_2 <= ||u - x||_2, "
               "and Pi_K(x) = x."),
    expected=Verdict.PROVED,
    papers=("ghazi2023", "lowy2024"),
    check=_run,
)
