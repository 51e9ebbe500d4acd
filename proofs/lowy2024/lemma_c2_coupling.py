"""Lemma C.2 with an explicit constant: Algorithm 2's robust minibatch means move by <= 8 tau (t + 1)/(f - 1) w.p. >= 1 - zeta.

The paper's ``||g - g'|| <~ tau log(1/zeta)/K_i`` [Lemma C.2, from AL24 Lemma 3.5] hides its constant;
Algorithm 2 scores *and* ranks at ``2 tau``, so the ball argument of Lemma B.2 does not apply. This
check proves the form :func:`dpaudit.userlevel.lowy2024.privacy.alg2_coupling_sensitivity` uses: at
least ``f`` points have ``h >= 2K/3 + 1`` when the score is ``>= gamma K``; their unchanged ones are
kept on both sides; kept points of one dataset are within ``4 tau`` of each other (the note's item 5).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from dpaudit.proofs.lowy2024._coupling import mean_difference_step

from dpaudit.userlevel.lowy2024.privacy import alg2_kept_count
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict, Violation, st

NAME = "lowy2024/lemma_c2_explicit_coupling"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("K users' mean gradients; D' replaces user j0; scores s(D), s(D') >= gamma K at radius 2 tau; ranks h at 2 tau "
                "[Alg 2 lines 6-11]; h_out = ceil(2K/3) is the largest rank below 2K/3 + 1; f = the number of points with "
                "h >= 2K/3 + 1; coins of unchanged users shared")
    proof.cite("stochastic domination", "flips of at most K - f independent coins, each with |p - p'| <= 6/K, are dominated by "
               "Bin(K - f, 6/K)")
    proof.cite("retained diameter", "two points with h > K/2 share a 2 tau-neighbour, so they are within 4 tau "
               "(checked in lowy2024/retained_set_diameter)")
    big_k, gamma, f, h_out = sp.symbols("K gamma f h_out", positive=True)
    # (1) sum_j h_j = s K >= gamma K^2 with h <= K on the f points and h <= h_out elsewhere: gamma K^2 <= f K + (K - f) h_out
    slack = sp.Symbol("s", nonnegative=True)
    f_min = (gamma * big_k**2 - big_k * h_out) / (big_k - h_out)
    # if f < f_min then f K + (K - f) h_out < gamma K^2: write f = f_min - slack and K = h_out + u with u > 0
    u = sp.Symbol("u", positive=True)
    total = (f * big_k + (big_k - f) * h_out).subs(f, f_min - slack).subs(big_k, h_out + u)
    proof.nonneg("f below f_min = (gamma K^2 - K h_out)/(K - h_out) would give sum h < gamma K^2",
                 sp.expand(gamma * (h_out + u) ** 2 - total) - slack * u)
    # (2) the f - 1 unchanged such points have h' >= 2K/3 in D': p = p' = 1; |S|, |S'| >= f - 1
    proof.nonneg("h >= 2K/3 + 1 gives h' >= h - 1 >= 2K/3", (2 * big_k / 3 + 1 + slack - 1) - 2 * big_k / 3)
    # (3) a common kept point c (one of the f - 1): all kept points of D and of D' within 4 tau of c (retained diameter)
    mean_difference_step(proof)
    tau, t_q = sp.symbols("tau t", positive=True)
    proof.equal("Delta = 2 (4 tau)(t + 1)/(f - 1)", 2 * 4 * tau * (t_q + 1) / (f - 1), 8 * tau * (t_q + 1) / (f - 1),
                hypotheses=[f > 1])  # the bound divides by f - 1 (more than one kept user)
    proof.given("two robust means of vectors clamped to the L-ball are also at most 2L apart: Delta = min(., 2L)")

    def prop(k: int, gamma_num: int) -> None:  # the implementation's kept count is the bound (can only refute)
        g = gamma_num / 1000
        fk = alg2_kept_count(k, g)
        h_out_k = math.ceil(2 * k / 3)
        if h_out_k < k and fk < (g * k * k - k * h_out_k) / (k - h_out_k) - 1e-9:
            raise Violation("kept count below its bound", k=k, gamma=g, f=fk)
        # an extremal configuration: f points at full rank K, the rest at h_out; its score must not exceed gamma K
        # unless f >= the bound (so the bound is attained, not loose by more than one point)
        if fk >= 1 and h_out_k < k:
            s_max = ((fk - 1) * k + (k - fk + 1) * h_out_k) / k
            if s_max >= g * k + 1e-9:
                raise Violation("a configuration with f - 1 full ranks reaches gamma K: the count is not the least", k=k, f=fk)

    proof.hypothesis("kept counts of the implementation, K in [6, 400], gamma in [0.667, 1]", prop, st.integers(6, 400),
                     st.integers(667, 1000), max_examples=150)
    rng = proof.rng
    ks, gs = rng.integers(10, 1000, 300), rng.uniform(0.7, 0.99, 300)
    fs = np.array([alg2_kept_count(int(k), float(g)) for k, g in zip(ks, gs, strict=True)])
    hs = np.ceil(2 * ks / 3)
    proof.numeric_le("gamma K^2 <= f K + (K - f) h_out at 300 seeded (K, gamma)", gs * ks**2, fs * ks + (ks - fs) * hs,
                     {"K": ks, "gamma": gs})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, Lemma C.2 (from [AL24, Lemma 3.5]), Alg 2 lines 6-13",
    statement=("If both minibatch scores at 2 tau are >= gamma K, at least f >= (gamma K^2 - K h_out)/(K - h_out) points have "
               "h >= 2K/3 + 1 (h_out = ceil(2K/3)); their unchanged ones are kept on both sides, and under shared coins "
               "||mean(S) - mean(S')|| <= 8 tau (X + 2)/(f - 1) with X dominated by Bin(K - f, 6/K): Delta = 8 tau (t + 1)/(f - 1) "
               "except with probability zeta when P(Bin(K - f, 6/K) >= t) <= zeta."),
    expected=Verdict.PROVED,
    papers=("lowy2024",),
    check=_run,
)
