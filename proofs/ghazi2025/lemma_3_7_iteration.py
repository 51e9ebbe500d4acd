"""Lemma 3.7: with the same users after the differing step, ||x_t - y_t||_inf never grows.

A composition of Lemma 3.2, Alg 2's Lipschitz and affine properties and the box projection,
cross-checked by simulated trajectories.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from dpaudit.proofs.common.box_projection_nonexpansive import CHECK as BOX
from dpaudit.proofs.ghazi2025._alg2 import alg2
from dpaudit.proofs.ghazi2025.alg2_estimator import CHECK as ALG2
from dpaudit.proofs.ghazi2025.alg2_estimator import (
    EST_GAP,
    MEAN_X,
    MEAN_Y,
    PERTURBATION_EST,
    RS_X,
    RS_Y,
    S_CLIP,
)
from dpaudit.proofs.ghazi2025.lemma_3_2_contraction import CHECKS as LEMMA_3_2
from dpaudit.proofs.ghazi2025.lemma_3_2_contraction import INPUT_GAP as INPUT_GAP_32

from dpaudit.userlevel.projections import project_box
from dpaudit.verify import NUMERIC_RTOL, CheckResult, Fact, LemmaCheck, Proof, Verdict, le
from dpaudit.verify.geometry import clamp as sym_clamp
from dpaudit.verify.proof import LocalFact

NAME = "ghazi2025/lemma_3_7_iteration_sensitivity"

#: ||x_t - y_t||_inf for t >= t0 and ||x_{t0} - y_{t0}||_inf (for Proof.depends).
LATER_GAP, START_GAP = sp.symbols("later_gap start_gap", nonnegative=True)


#: the symbols of one step (besides the gaps), renamed by :func:`one_step_setting`'s ``suffix``
STEP_SYMBOLS = {"user_step_gap": sp.Symbol("user_step_gap", nonnegative=True), "s_step": sp.Symbol("s_step", nonnegative=True),
                "u": sp.Symbol("u", nonnegative=True), "v": sp.Symbol("v", nonnegative=True),
                "lo": sp.Symbol("lo", real=True), "hi": sp.Symbol("hi", real=True), "rs_x": RS_X, "rs_y": RS_Y,
                "mean_x": MEAN_X, "mean_y": MEAN_Y}


def one_step_setting(proof: Proof, gap: Any, out: Any, suffix: str = "") -> tuple[list[Any], dict[str, Any]]:
    """The hypotheses of one step t -> t + 1 in one coordinate, for :meth:`Proof.depends`, and the symbols used.

    D = ``gap`` = ||x_t - y_t||_inf; ``out`` is the new gap: the box projections of Alg 2's two estimates (Alg 2 on the
    users' steps, radius s_step = eta s by affine equivariance); u = eta h, v = eta r of a row of the Hessian (Lemma
    3.2's conditions); the robust statistic moves by at most the users' step gap (Assumption 3.3 (ii), a hypothesis
    of the lemma; the median satisfies it, Remark 3.4); the mean does (averaging); and each user's step moves the pair
    by at most (|1 - u| + v) D (Lemma 3.2's reduction). ``suffix`` renames the symbols (Lemma 3.10 states these
    hypotheses for a later step beside those of the first step); the returned map is name -> symbol.
    """
    names = {k: (sp.Symbol(v.name + suffix, **v.assumptions0) if suffix else v) for k, v in STEP_SYMBOLS.items()}
    step, u, v, lo, hi = names["user_step_gap"], names["u"], names["v"], names["lo"], names["hi"]
    est_x = sym_clamp(names["mean_x"], names["rs_x"] - names["s_step"], names["rs_x"] + names["s_step"])
    est_y = sym_clamp(names["mean_y"], names["rs_y"] - names["s_step"], names["rs_y"] + names["s_step"])
    local = [
        proof.given_fact("the new gap in one coordinate: the box projections of Alg 2's two estimates",
                         sp.Eq(out, sp.Abs(sym_clamp(est_x, lo, hi) - sym_clamp(est_y, lo, hi)))),
        proof.given_fact("the box is not empty", le(lo, hi)),
        proof.given_fact("u = eta h, v = eta r for a row of the Hessian: v <= u (Assumption 2.5: DD)", le(v, u)),
        proof.given_fact("... and u + v = eta (h + r) <= eta beta <= 2 (eta <= 2/beta)", le(u + v, 2)),
        proof.given_fact("Assumption 3.3 (ii) of the robust statistic: it moves by at most the users' step gap",
                         le(sp.Abs(names["rs_x"] - names["rs_y"]), step)),
        proof.assume_fact("averaging", "the mean of the users' steps moves by at most the largest step gap",
                          le(sp.Abs(names["mean_x"] - names["mean_y"]), step)),
        proof.assume_fact("Lemma 3.2's reduction", "each user's step moves the pair by at most the row sum (|1 - u| + v) times "
                          "||x_t - y_t||_inf (the mean value theorem and the induced l_inf norm cited in Lemma 3.2's proof)",
                          le(step, (sp.Abs(1 - u) + v) * gap)),
    ]
    return local, names


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
    # one step t -> t + 1, in one coordinate (coordinates separate), every Fact instantiated at its quantified symbols:
    # D = ||x_t - y_t||_inf; each user's gradient step moves the pair by at most (|1 - u| + v) D <= D (Lemma 3.2, with
    # u = eta h, v = eta r of a row of the Hessian); Alg 2's inputs (the users' steps) are then perturbed by at most
    # that, so its statistic (Assumption 3.3 (ii), a hypothesis of the lemma) and its mean (averaging) move by at most
    # that, and so does its estimate (Alg 2 (ii)); the box projection does not expand (box projection, l_inf)
    gap, out = START_GAP, LATER_GAP  # in the Fact's own symbols (the induction over t is the premise below)
    local, names = one_step_setting(proof, gap, out)
    x_, y_, lo_, hi_ = sp.symbols("x y lo hi", real=True)
    u_, v_ = sp.symbols("u v", nonnegative=True)
    est_x = sym_clamp(MEAN_X, RS_X - names["s_step"], RS_X + names["s_step"])
    est_y = sym_clamp(MEAN_Y, RS_Y - names["s_step"], RS_Y + names["s_step"])
    # (a) each user's step moves the pair by at most D (Lemma 3.2); (b) then the new gap is at most D. Two steps keep
    # each kernel query small; (b) lists (a)'s hypotheses too, so the Fact established carries all of them
    step, u, v = names["user_step_gap"], names["u"], names["v"]
    contraction = [local[2], local[3], local[6]]
    step_ok = proof.depends("each user's step moves the pair by at most ||x_t - y_t||_inf (Lemma 3.2)", le(step, gap),
                            [*contraction, LEMMA_3_2[0].fact("contraction", {INPUT_GAP_32: gap, u_: u, v_: v})])
    user_steps = LocalFact("each user's step moves the pair by at most D (Lemma 3.2)", le(step, gap), step_ok)
    proof.depends("||x_{t+1} - y_{t+1}||_inf <= ||x_t - y_t||_inf", le(out, gap),
                  [*local, user_steps,
                   ALG2.fact("lipschitz", {EST_GAP: sp.Abs(est_x - est_y), PERTURBATION_EST: step, S_CLIP: names["s_step"]}),
                   BOX.fact("linf", {x_: est_x, y_: est_y, lo_: names["lo"], hi_: names["hi"]})], establishes="no growth")
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
    expected=Verdict.PROVED,
    papers=("ghazi2025",),
    check=_run,
    facts=(Fact("no growth", le(LATER_GAP, START_GAP)),),
)
