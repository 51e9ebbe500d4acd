"""Lemma 3.2: a gradient step is an l_inf contraction under a diagonally dominant Hessian.

For convex, beta-smooth f with a diagonally dominant Hessian and eta <= 2/beta (PROVED); without
diagonal dominance it is not (control, DISPROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, Fact, LemmaCheck, Proof, Region, Verdict, le

NAME = "ghazi2025/lemma_3_2_linf_contraction"
#: ||(x - eta grad f(x)) - (y - eta grad f(y))||_inf and ||x - y||_inf in the fact "the gradient step is an l_inf contraction"
STEP_GAP, INPUT_GAP = sp.symbols("step_gap input_gap", nonnegative=True)
CONTROL = "ghazi2025/lemma_3_2_without_diagonal_dominance"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("0 < eta <= 2/beta; row j of the Hessian: diagonal h >= 0 and off-diagonal absolute sum r with r <= h (convex + DD, Assumption 2.5) "
                 "and h + r <= beta (Def 2.2: beta bounds the max absolute row sum)")
    proof.cite("mean value theorem (integral form)", "(x - eta grad f(x)) - (y - eta grad f(y)) = (I - eta H)(x - y) with H = int_0^1 Hess f(y + s(x - y)) ds, "
               "which keeps the row bounds (averages of DD matrices with the same bounds)")
    proof.cite("induced l_inf norm", "||A v||_inf <= (max_j sum_i |A_ji|) ||v||_inf")
    # with u = eta h >= 0 and v = eta r >= 0: v <= u (r <= h, eta > 0) and u + v = eta (h + r) <= eta beta <= 2;
    # the row sum of I - eta H is |1 - u| + v, and the two cases are u <= 1 and u >= 1
    u, v = sp.symbols("u v", nonnegative=True)
    proof.given("u = eta h and v = eta r satisfy v <= u (r <= h) and u + v = eta (h + r) <= eta beta <= 2")
    hyp = [le(v, u), le(u + v, 2)]
    regions = [Region.where("eta h <= 1", le(u, 1), le(v, u)), Region.where("eta h >= 1", le(1, u), le(u + v, 2))]
    proof.cases("row sum of I - eta H: |1 - eta h| + eta r <= 1", 1 - (sp.Abs(1 - u) + v), regions, domain=hyp)
    # the fact: ||(I - eta H)(x - y)||_inf <= (row sum) ||x - y||_inf (the cited induced norm) <= ||x - y||_inf
    proof.establish("contraction", le(STEP_GAP, INPUT_GAP), where={STEP_GAP: (sp.Abs(1 - u) + v) * INPUT_GAP}, hypotheses=hyp)
    rng = proof.rng
    sums, where = [], []
    for _ in range(300):
        d = int(rng.integers(1, 9))
        off = rng.normal(size=(d, d))
        off = (off + off.T) / 2
        np.fill_diagonal(off, 0.0)
        diag = np.abs(off).sum(1) + rng.exponential(1.0, size=d)  # DD with a non-negative diagonal
        hess = off + np.diag(diag)
        beta_ = float(np.abs(hess).sum(1).max())
        eta_ = 2 / beta_ * float(rng.uniform(0.01, 1.0))
        if rng.random() < 0.2:
            eta_ = 2 / beta_  # the boundary
        sums.append(float(np.abs(np.eye(d) - eta_ * hess).sum(1).max()))
        where.append(d)
    proof.numeric_le("max row abs sum of I - eta H <= 1 for 300 seeded DD Hessians, eta <= 2/beta", sums, 1.0, {"d": np.array(where)})
    return proof.result()


def _control() -> CheckResult:
    proof = Proof(CONTROL)
    proof.given("f(x) = x^T H x / 2 with H = [[1, 3/2], [3/2, 4]]: convex (PSD) and beta-smooth with beta = 11/2 (max row sum), not DD")
    hess = sp.Matrix([[1, sp.Rational(3, 2)], [sp.Rational(3, 2), 4]])
    beta = max(sum(abs(v) for v in hess.row(i)) for i in range(2))
    eta = 2 / beta
    v = sp.Matrix([1, -1])
    out = (sp.eye(2) - eta * hess) * v
    gap = max(abs(t) for t in out)
    proof.refute("x - y = (1, -1), eta = 2/beta = 4/11: ||(I - eta H)(x - y)||_inf = 13/11 > 1", {"H": "[[1, 3/2], [3/2, 4]]",
                 "eta": str(eta), "(I - eta H)(1, -1)": [str(t) for t in out]}, max(abs(t) for t in v) - gap,
                 conditions={f"H is positive semidefinite: eigenvalue {ev} >= 0": ev for ev in hess.eigenvals()})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=NAME,
        source="Ghazi et al. 2025, Lemma 3.2 (contractivity) under Assumption 2.5; note 5.9",
        statement=("If f is convex, beta-smooth (Def 2.2, max absolute row sum of the Hessian <= beta) with diagonally dominant Hessian "
                   "and 0 < eta <= 2/beta, then ||(x - eta grad f(x)) - (y - eta grad f(y))||_inf <= ||x - y||_inf."),
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_run,
        facts=(Fact("contraction", le(STEP_GAP, INPUT_GAP)),),
    ),
    LemmaCheck(
        name=CONTROL,
        source="Ghazi et al. 2025, Lemma 3.2 without Assumption 2.5 (note 5.9 negative control, pitfall P4)",
        statement="(negative control) For convex beta-smooth f with eta <= 2/beta, without diagonal dominance, the gradient step is an l_inf contraction.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_control,
        role="control",
    ),
)
