"""Euclidean projection onto an l_2 ball is non-expansive (1-Lipschitz in l_2) in d dimensions."""

from __future__ import annotations

import numpy as np

from dpaudit.userlevel.projections import project_l2_ball
from dpaudit.verify import (
    NUMERIC_RTOL,
    CheckResult,
    LemmaCheck,
    Proof,
    Verdict,
    Violation,
    finite_floats,
    st,
    vectors,
)
from dpaudit.verify.geometry import prove_ball_nonexpansive

NAME = "common/l2_ball_projection_nonexpansive"


def _run() -> CheckResult:
    proof = Proof(NAME)
    prove_ball_nonexpansive(proof)

    def prop(dim: int, data: list[float], radius: float) -> None:
        x, y, c = (np.array(data[i * dim:(i + 1) * dim]) for i in range(3))
        px, py = project_l2_ball(x, radius, c), project_l2_ball(y, radius, c)
        # floats near c carry an absolute rounding error of a few ulps of the largest coordinate involved
        scale = NUMERIC_RTOL * (radius + float(np.max(np.abs(np.concatenate([x, y, c])))))
        if np.linalg.norm(px - py) > np.linalg.norm(x - y) * (1 + NUMERIC_RTOL) + scale:
            raise Violation("l_2-ball projection expands distance", x=x.tolist(), y=y.tolist(), c=c.tolist(), r=radius)
        if np.linalg.norm(px - c) > radius * (1 + NUMERIC_RTOL) + scale:
            raise Violation("projection leaves the ball", x=x.tolist(), c=c.tolist(), r=radius)

    proof.hypothesis("project_l2_ball in d = 1..8", prop, st.integers(1, 8), vectors(24, -50.0, 50.0),
                     finite_floats(1e-3, 50.0), max_examples=150)
    rng = proof.rng
    x, y = rng.normal(0, 2, size=(2, 1000, 20))
    r = rng.uniform(0.1, 5.0, size=(1000, 1))
    lhs = np.linalg.norm(project_l2_ball(x, 1.0) * r - project_l2_ball(y, 1.0) * r, axis=-1)
    proof.numeric_le("d = 20, 1000 seeded pairs (scaled unit ball)", lhs, np.linalg.norm(x - y, axis=-1) * r[:, 0],
                     {"pair": np.arange(1000)})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source=("Levy et al. 2021, Alg 3 (Pi_Theta non-expansive; docs/papers/levy2021.md, check L15); Ghazi et al. 2023, Alg 3/4 (the K_i balls); Lowy "
            "et al. 2024, Alg 1 (projection)"),
    statement=("For the ball K = {y : ||y - c||_2 <= r} in R^d (r > 0, d >= 1), the Euclidean projection satisfies "
               "||P(x) - P(y)||_2 <= ||x - y||_2 for all x, y in R^d."),
    expected=Verdict.PROVED,
    papers=("levy2021", "ghazi2023", "lowy2024"),
    check=_run,
)
