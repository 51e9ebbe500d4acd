"""Alg 2's good event: the two Laplace tails at K/20.

P(|Lap(16/eps)| > K/20) = e^{-K eps/320} <= (delta/A')^{1.5625} and P(|Lap(8/eps)| > K/20) = e^{-K
eps/160} when K >= 500 log(A'/delta)/eps.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import stats

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "lowy2024/alg2_bad_event"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("A' = n_i^2 m^2 e^eps >= delta, K >= 500 log(A'/delta)/eps (Alg 3's K_i, first factor)")
    eps, k, b, t = sp.symbols("epsilon K b t", positive=True)
    x = sp.Symbol("x", real=True)
    tail = 2 * sp.integrate(sp.exp(-x / b) / (2 * b), (x, t, sp.oo))
    proof.zero("P(|Lap(b)| > t) = e^{-t/b}", tail - sp.exp(-t / b))
    proof.zero("b = 16/eps, t = K/20: e^{-K eps/320}", sp.exp(-(k / 20) / (16 / eps)) - sp.exp(-k * eps / 320))
    lg = sp.Symbol("L", positive=True)  # L = log(A'/delta)
    h = sp.Symbol("h", nonnegative=True)  # K eps = 500 L + h
    proof.monotone_nonneg("e^{-K eps/320} <= e^{-500 L/320} for K eps = 500 L + h, h >= 0",
                          sp.exp(-500 * lg / 320) - sp.exp(-(500 * lg + h) / 320), h, 0)
    proof.zero("e^{-500 L/320} = (delta/A')^{1.5625}", sp.exp(-500 * lg / 320) - sp.exp(-lg) ** sp.Rational(15625, 10000))
    proof.zero("b = 8/eps: e^{-K eps/160} = (e^{-K eps/320})^2", sp.exp(-(k / 20) / (8 / eps)) - sp.exp(-k * eps / 320) ** 2)
    rng = proof.rng
    kk, ee = rng.uniform(1, 1e5, 300), rng.uniform(0.01, 10, 300)
    proof.numeric_eq("scipy Laplace: P(|Lap(16/eps)| > K/20) = e^{-K eps/320}", 2 * stats.laplace.sf(kk / 20, scale=16 / ee),
                     np.exp(-kk * ee / 320), {"K": kk, "epsilon": ee})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, proof of Thm C.1 (good event E_i, K_i >= 500 log(.)/eps); note 4.6",
    statement=("P(|Lap(16/eps)| > K/20) = e^{-K eps/320}, and for K >= 500 log(A'/delta)/eps this is at most (delta/A')^{1.5625} "
               "(likewise e^{-K eps/160} for Lap(8/eps))."),
    expected=Verdict.PROVED,
    papers=("lowy2024",),
    check=_run,
)
