"""Coordinate-wise box projection is 1-Lipschitz in l_inf and non-expansive in l_2, in d dimensions."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.userlevel.projections import project_box, project_linf_ball
from dpaudit.verify import (
    NUMERIC_RTOL,
    CheckResult,
    Fact,
    LemmaCheck,
    Proof,
    Verdict,
    Violation,
    le,
    st,
    vectors,
)
from dpaudit.verify.geometry import prove_clamp_properties

NAME = "common/box_projection_nonexpansive"
#: ||Pi_K(x) - Pi_K(y)|| and ||x - y|| (in l_inf or l_2) in the facts "the box projection is non-expansive"
PROJ_GAP, INPUT_GAP = sp.symbols("proj_gap input_gap", nonnegative=True)


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("box K = prod_i [a_i, b_i] with a_i <= b_i; its Euclidean projection is the coordinate-wise clamp Pi_[a_i, b_i]")
    prove_clamp_properties(proof, prefix="per coordinate, ")
    # aggregation over coordinates: with g_i = |Pi(x)_i - Pi(y)_i| <= e_i = |x_i - y_i| (write e_i = g_i + h_i,
    # h_i >= 0), max_i and the sum of squares keep the bound; each is shown for one generic term, and a
    # finite sum (max) of terms that are each >= 0 (each <= its bound) is >= 0 (<= the max of the bounds)
    g, h = sp.symbols("g h", nonnegative=True)
    proof.nonneg("l_2, per term: (g_i + h_i)^2 - g_i^2 >= 0, so sum_i g_i^2 <= sum_i e_i^2", (g + h) ** 2 - g**2)
    proof.assume("max of termwise bounds", "g_i <= e_i for every i gives max_i g_i <= max_i e_i (definition of max)")
    # the facts, per coordinate (the aggregation over coordinates is the step above and its premise)
    x, y, lo, hi = sp.symbols("x y lo hi", real=True)
    per_coordinate = {PROJ_GAP: sp.Abs(sp.Min(sp.Max(x, lo), hi) - sp.Min(sp.Max(y, lo), hi)), INPUT_GAP: sp.Abs(x - y)}
    for name in ("linf", "l2"):
        proof.establish(name, le(PROJ_GAP, INPUT_GAP), where=per_coordinate, hypotheses=[le(lo, hi)])

    def prop(dim: int, data: list[float]) -> None:
        x, y = np.array(data[:dim]), np.array(data[dim:2 * dim])
        low = np.array(data[2 * dim:3 * dim])
        high = low + np.abs(np.array(data[3 * dim:4 * dim]))
        px, py = project_box(x, low, high), project_box(y, low, high)
        if np.max(np.abs(px - py)) > np.max(np.abs(x - y)) * (1 + NUMERIC_RTOL):
            raise Violation("box projection expands l_inf distance", x=x.tolist(), y=y.tolist(), low=low.tolist(), high=high.tolist())
        if np.linalg.norm(px - py) > np.linalg.norm(x - y) * (1 + NUMERIC_RTOL):
            raise Violation("box projection expands l_2 distance", x=x.tolist(), y=y.tolist(), low=low.tolist(), high=high.tolist())
        c, r = low, np.abs(high - low)
        qx, qy = project_linf_ball(x, c, r), project_linf_ball(y, c, r)
        if np.max(np.abs(qx - qy)) > np.max(np.abs(x - y)) * (1 + NUMERIC_RTOL):
            raise Violation("l_inf-ball projection expands l_inf distance", x=x.tolist(), y=y.tolist(), c=c.tolist(), r=r.tolist())

    proof.hypothesis("project_box / project_linf_ball in d = 1..6", prop, st.integers(1, 6), vectors(24, -100.0, 100.0), max_examples=150)
    rng = proof.rng
    x, y = rng.normal(0, 3, size=(2, 500, 16))
    low = rng.uniform(-2, 0, size=(500, 16))
    high = low + rng.exponential(1.0, size=(500, 16))
    lhs = np.max(np.abs(project_box(x, low, high) - project_box(y, low, high)), axis=-1)
    proof.numeric_le("l_inf, d = 16, 500 seeded pairs", lhs, np.max(np.abs(x - y), axis=-1), {"pair": np.arange(500)})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source=("Ghazi et al. 2025, Lemma 3.7 (box step); Levy et al. 2021, Alg 3 (docs/papers/levy2021.md, check L15); Ghazi et al. 2023, Alg 3/4; Lowy "
            "et al. 2024, Alg 1 (projection)"),
    statement=("For a box K = prod_i [a_i, b_i] in R^d (a_i <= b_i), the coordinate-wise projection Pi_K satisfies "
               "||Pi_K(x) - Pi_K(y)||_inf <= ||x - y||_inf and ||Pi_K(x) - Pi_K(y)||_2 <= ||x - y||_2 for all x, y in R^d, d >= 1."),
    expected=Verdict.PROVED,
    papers=("ghazi2025", "levy2021", "ghazi2023", "lowy2024"),
    check=_run,
    facts=(Fact("linf", le(PROJ_GAP, INPUT_GAP)), Fact("l2", le(PROJ_GAP, INPUT_GAP))),
)
