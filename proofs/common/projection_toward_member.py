"""Projecting onto a convex set never moves a point away from any member of the set."""

from __future__ import annotations

import numpy as np

from dpaudit.bounds.verdict import CheckResult, Verdict
from dpaudit.userlevel.projections import project_box, project_l2_ball
from proofs._core import NUMERIC_RTOL, LemmaCheck, Proof, Violation, finite_floats, st, vectors
from proofs._geometry import A, ball_toward_member_residuals, clamp, clamp_ordered_cases

NAME = "common/projection_toward_member"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.assume("K is a box prod_i [a_i, b_i] or an l_2 ball B(c, r); x in K",
                 "box: coordinate-wise, |Pi(u)_i - x_i| <= |u_i - x_i| for x_i in [a_i, b_i] gives the l_2 and l_inf claims",
                 "ball: u - c and x - c span a plane; distances follow from norms and the angle (law of cosines)")
    # 1-D box: x in [a, b] is the 'y' or 'x' of an ordered case lying inside; |Pi(u) - x| <= |u - x|.
    residuals = {}
    for name, c in clamp_ordered_cases():
        b = c["b"]
        for member, other in (("y", "x"), ("x", "y")):
            m, u = c[member], c[other]
            if clamp(m, A, b) != m:  # this case does not place the member inside [a, b]
                continue
            residuals[f"{name}, member={member}"] = (u - m) ** 2 - (clamp(u, A, b) - m) ** 2
    proof.cases("box, per coordinate: (u - x)^2 - (Pi(u) - x)^2 >= 0 for x in [a, b]", residuals)
    for case, (residual, certificate) in ball_toward_member_residuals().items():
        proof.certificate(f"ball: |u - x|^2 - |P(u) - x|^2 >= 0, {case}", residual, certificate)

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
    source="Ghazi et al. 2023, note 5.13 and erratum E6 (projecting theta_hat onto K is non-expansive toward theta* in K); Lowy et al. 2024, note 5.10",
    statement=("For K a box or a Euclidean ball in R^d and any x in K, u in R^d: ||Pi_K(u) - x||_2 <= ||u - x||_2, "
               "and Pi_K(x) = x."),
    expected=Verdict.PROVED,
    papers=("ghazi2023", "lowy2024"),
    check=_run,
)
