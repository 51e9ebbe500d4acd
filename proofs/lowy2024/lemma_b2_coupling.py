"""Lemma B.2 with an explicit constant: Algorithm 1's robust means move by <= 6 tau (t + 1)/(g - 1) w.p. >= 1 - zeta.

The paper states ``||y - y'|| <~ tau log(1/zeta)/C`` [Lemma B.2, from AL24 Lemma 3.5] with a hidden constant;
the note (Sec. 3.4) derives ``9 tau (1 + max(33, log2(1/zeta)))/C``. This check proves the refined form the
audit preset calibrates to (:func:`dpaudit.userlevel.lowy2024.privacy.alg1_coupling_sensitivity`) and the
note's constant as its special case, from exact steps, with the probabilistic facts cited.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from dpaudit.proofs.lowy2024._coupling import mean_difference_step

from dpaudit.userlevel.lowy2024.outlier_removal import (
    concentration_score,
    inclusion_probability,
    pairwise_sq_distances,
    point_scores,
)
from dpaudit.userlevel.lowy2024.privacy import alg1_coupling_sensitivity
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict, Violation, st

NAME = "lowy2024/lemma_b2_explicit_coupling"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("points y_1..y_C, C > 6; D' replaces y_{j0}; scores s(D), s(D') >= gamma C at radius tau; g = ceil(gamma C) >= 2C/3 + 1",
                "ranks h at 2 tau, ramp p = clip((h - C/2)/(C/6), 0, 1) [Alg 1 lines 12-17]; coins of index j shared: U_j < p_j")
    proof.cite("stochastic domination", "a sum of independent Bernoulli(p_j) with p_j <= 6/C over at most C - g indices is "
               "dominated by Bin(C - g, 6/C) (couple each with a Bernoulli(6/C))")
    proof.cite("coupling lemma", "if ||mean - mean'|| <= Delta except with probability zeta, the Gaussian mechanism's (eps, delta) "
               "for sensitivity Delta gives (eps, delta + zeta) [e.g. AL24, Lemma 3.5's use]")
    big_c, g, slack = sp.symbols("C g s", positive=True)
    # (1) the score is the average rank at tau, so some a has h^tau_a >= g: its tau-ball B holds g points, pairwise within 2 tau,
    # each with rank >= g at 2 tau in D and >= g - 1 >= 2C/3 in D' (j0 may leave): the unchanged ones have p = p' = 1
    g_val = 2 * big_c / 3 + 1 + slack
    proof.nonneg("g - 1 >= 2C/3: the unchanged points of B keep p' = 1", (g_val - 1) - 2 * big_c / 3)
    # (2) a kept point j of D has > C/2 neighbours within 2 tau; they meet B (C/2 + g > C), so ||y_j - y_a|| <= 2 tau + tau
    proof.nonneg("|N_j| + |B| - C > 0 for a kept j of D: C/2 + g - C > 0", big_c / 2 + g_val - big_c)
    proof.nonneg("|N'_j| + |B minus j0| - C > 0 for a kept j of D': C/2 + g - 1 - C > 0", big_c / 2 + g_val - 1 - big_c)
    proof.given("so every kept point of D and D' lies within 3 tau of y_a (triangle inequality: 2 tau + tau)")
    # (3) ramp slope: |h - h'| <= 1 for j != j0, so |p - p'| <= 6/C (the ramp is (6/C)-Lipschitz in h)
    h = sp.Symbol("h", real=True)
    proof.equal("ramp slope on its linear piece d/dh (h - C/2)/(C/6) = 6/C", sp.diff((h - big_c / 2) / (big_c / 6), h), 6 / big_c)
    proof.given("the ramp is constant (0 or 1) off [C/2, 2C/3] and continuous: (6/C)-Lipschitz in h (checked in "
                "lowy2024/inclusion_ramp_lipschitz)")
    # (4) means: S = A u P, S' = A u Q within rho = 3 tau of y_a, |S|, |S'| >= g - 1
    mean_difference_step(proof)
    tau, t_q = sp.symbols("tau t", positive=True)
    flips = t_q + 1  # p + q <= X + 2 <= t + 1 when X <= t - 1 (j0 counts on both sides)
    bound = 2 * 3 * tau * flips / (g - 1)
    proof.equal("Delta = 2 (3 tau)(t + 1)/(g - 1) = 6 tau (t + 1)/(g - 1)", bound, 6 * tau * (t_q + 1) / (g - 1),
                hypotheses=[g > 1])  # g >= 2C/3 + 1 > 1 (given above)
    # (5) the note's constant: g >= 2C/3 gives 9 tau (t + 1)/C; Chernoff with mean <= 6 gives t = max(33, log2(1/zeta))
    proof.equal("with g - 1 >= 2C/3: 6 tau (t+1)/(2C/3) = 9 tau (t+1)/C", 6 * tau * (t_q + 1) / (2 * big_c / 3),
                9 * tau * (t_q + 1) / big_c)
    proof.cite("Chernoff bound", "P(X >= t) <= e^{-mu} (e mu/t)^t <= (6 e/t)^t for E X <= 6 < t (MGF of independent Bernoullis)")
    tt = sp.Symbol("t", positive=True)
    proof.monotone_nonneg("(6e/t)^t <= 2^{-t} for t >= 33: log t - log(12 e) >= 0", sp.log(tt) - sp.log(12 * sp.E), tt, 33)
    proof.given("hence t = max(33, ceil(log2(1/zeta))) has P(X >= t) <= zeta (the note's Sec. 3.4 constant)")

    def prop(c: int, seed: int) -> None:  # the implementation's structure on stress configurations (can only refute)
        rng = np.random.default_rng(seed)
        core = int(rng.integers(int(0.8 * c), c - 1))
        ang = rng.uniform(0, 2 * np.pi, size=c)
        rad = np.r_[0.5 * np.sqrt(rng.random(core)), rng.uniform(1.9, 2.4, size=c - core)]
        pts = rad[:, None] * np.c_[np.cos(ang), np.sin(ang)]
        other = pts.copy()
        j0 = int(rng.integers(0, c))
        other[j0] = [40.0, 0.0]
        gamma = (np.floor(2 * c / 3) + 2) / c
        g_int = int(np.ceil(gamma * c - 1e-12))
        d2 = [pairwise_sq_distances(x) for x in (pts, other)]
        if min(concentration_score(x, 1.0) for x in d2) < gamma * c:
            return
        probs = [inclusion_probability(point_scores(x, 2.0), c) for x in d2]
        for coins in rng.random((20, c)):
            keep = [coins < p for p in probs]
            flips_here = int(np.sum(keep[0] != keep[1])) - int(keep[0][j0] != keep[1][j0]) + int(keep[0][j0]) + int(keep[1][j0])
            gap = float(np.linalg.norm(pts[keep[0]].mean(axis=0) - other[keep[1]].mean(axis=0)))
            if gap > 6 * flips_here / (g_int - 1) + 1e-9:
                raise Violation("robust means farther apart than 6 tau (flips + 2)/(g - 1)", c=c, seed=seed, gap=gap)
        delta_fn, _ = alg1_coupling_sensitivity(1.0, c, gamma, 1e-3)
        if delta_fn < 6 * 1 / (g_int - 1):
            raise Violation("implementation's Delta below 6 tau/(g - 1)", c=c, delta=delta_fn)

    proof.hypothesis("stress configurations, C in [20, 60], 20 coupled coin draws each", prop, st.integers(20, 60),
                     st.integers(0, 2**31 - 1), max_examples=100)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, Lemma B.2 (from [AL24, Lemma 3.5])",
    statement=("If both scores at tau are >= gamma C with g = ceil(gamma C) >= 2C/3 + 1, C > 6, ranks at 2 tau and the ramp, "
               "then under shared coins ||mean(S) - mean(S')|| <= 6 tau (X + 2)/(g - 1) where X, the number of unchanged "
               "indices kept on one side only, is dominated by Bin(C - g, 6/C); so Delta = 6 tau (t + 1)/(g - 1) except with "
               "probability zeta when P(Bin(C - g, 6/C) >= t) <= zeta. With g >= 2C/3 and t = max(33, ceil(log2(1/zeta))): "
               "Delta = 9 tau (1 + t)/C (the note's constant)."),
    expected=Verdict.PROVED,
    papers=("lowy2024",),
    check=_run,
)
