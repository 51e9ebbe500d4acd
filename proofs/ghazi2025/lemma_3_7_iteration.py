"""Lemma 3.7: with the same users after the differing step, ||x_t - y_t||_inf never grows.

A composition of Lemma 3.2, Alg 2's Lipschitz and affine properties and the box projection,
cross-checked by simulated trajectories.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from dpaudit.proofs.common.box_projection_nonexpansive import CHECK as BOX
from dpaudit.proofs.common.box_projection_nonexpansive import INPUT_GAP, PROJ_GAP
from dpaudit.proofs.ghazi2025._alg2 import alg2
from dpaudit.proofs.ghazi2025.alg2_estimator import CHECK as ALG2
from dpaudit.proofs.ghazi2025.alg2_estimator import EST_GAP, PERTURBATION_EST
from dpaudit.proofs.ghazi2025.lemma_3_2_contraction import CHECKS as LEMMA_3_2
from dpaudit.proofs.ghazi2025.lemma_3_2_contraction import INPUT_GAP as INPUT_GAP_32
from dpaudit.proofs.ghazi2025.lemma_3_2_contraction import STEP_GAP

from dpaudit.userlevel.projections import project_box
from dpaudit.verify import NUMERIC_RTOL, CheckResult, Fact, LemmaCheck, Proof, Verdict, le

NAME = "ghazi2025/lemma_3_7_iteration_sensitivity"

#: ||x_t - y_t||_inf for t >= t0 and ||x_{t0} - y_{t0}||_inf (for Proof.depends).
LATER_GAP, START_GAP = sp.symbols("later_gap start_gap", nonnegative=True)


def _dd_hessian(rng: np.random.Generator, d: int) -> np.ndarray:
    off = rng.normal(size=(d, d))
    off = (off + off.T) / 2
    np.fill_diagonal(off, 0.0)
    return off + np.diag(np.abs(off).sum(1) + rng.exponential(0.5, size=d))


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("per-user losses convex, beta-smooth (Def 2.2) with DD Hessians (Assumptions 2.4, 2.5); eta <= 2/beta; box domain",
                "robust statistic = coordinate-wise median; the two runs use the same users at every step after the differing one")
    proof.assume("affine equivariance rewrites the step", "x -> Pi(x - eta Alg2({q_i(x)}, s)) = Pi(Alg2({x - eta q_i(x)}, eta s)) "
                 "by Alg 2's affine equivariance (a = -eta, b = x): the step is the box projection of Alg 2 applied to the "
                 "users' gradient steps")
    # one step t -> t + 1: gap D = ||x_t - y_t||_inf; each user's gradient step moves the pair by at most D (Lemma 3.2),
    # so Alg 2's inputs are perturbed by at most D; Alg 2 then moves by at most D; the box projection does not expand
    step, est = sp.symbols("user_step_gap alg2_gap", nonnegative=True)
    gap, out = START_GAP, LATER_GAP  # one step, in the Fact's own symbols (the induction over t is the premise below)
    proof.depends("||x_{t+1} - y_{t+1}||_inf <= ||x_t - y_t||_inf", le(out, gap),
                  [LEMMA_3_2[0].fact("contraction", {STEP_GAP: step, INPUT_GAP_32: gap}),
                   ALG2.fact("lipschitz", {EST_GAP: est, PERTURBATION_EST: step}),
                   BOX.fact("linf", {PROJ_GAP: out, INPUT_GAP: est})], establishes="no growth")
    proof.assume("induction over t", "a gap that does not grow in one step does not grow over any number of steps")
    rng = proof.rng
    ratios: list[float] = []
    where: list[str] = []
    for trial in range(60):
        d, b, steps = int(rng.integers(1, 5)), int(rng.integers(4, 9)), 8
        hess = [[_dd_hessian(rng, d) for _ in range(b)] for _ in range(steps)]
        targets = rng.normal(0, 3, size=(steps, b, d))
        beta = max(float(np.abs(h).sum(1).max()) for row in hess for h in row)
        eta = 2 / beta * float(rng.uniform(0.1, 1.0))
        radius, box = float(rng.uniform(0.05, 2.0)), 5.0
        targets2 = targets.copy()
        targets2[0, 0] = rng.normal(0, 30, size=d)  # the differing user sits in the first batch
        x = y = np.zeros(d)
        gaps = []
        for t in range(steps):
            qx = np.array([hess[t][i] @ (x - targets[t, i]) for i in range(b)])
            qy = np.array([hess[t][i] @ (y - targets2[t, i]) for i in range(b)])
            x = project_box(x - eta * alg2(qx, radius), -box, box)
            y = project_box(y - eta * alg2(qy, radius), -box, box)
            gaps.append(float(np.max(np.abs(x - y))))
        base = max(gaps[0], np.finfo(float).tiny)
        ratios.extend(g / base for g in gaps[1:])
        where.extend([f"trial {trial}, t={t + 2}" for t in range(steps - 1)])
    proof.numeric_le("simulated trajectories: ||x_t - y_t||_inf <= ||x_1 - y_1||_inf (60 seeded runs, DD quadratic users)", ratios, 1.0,
                     {"step": np.array(where)}, atol=64 * NUMERIC_RTOL)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2025, Lemma 3.7 (sequential sensitivity) from Lemmas 3.2, 3.5 and Assumption 3.3; note section 3 chain step 2 and 5.13",
    statement=("Under Assumptions 2.4-2.5, eta <= 2/beta, a box domain and the coordinate-wise median in Alg 2, if the two runs see the same "
               "users after step t0 then ||x_t - y_t||_inf <= ||x_{t0} - y_{t0}||_inf for all t >= t0."),
    expected=Verdict.UNDECIDED,  # its chain instantiates Facts defined by where= (not allowed since issue 19)
    papers=("ghazi2025",),
    check=_run,
    facts=(Fact("no growth", le(LATER_GAP, START_GAP)),),
)
