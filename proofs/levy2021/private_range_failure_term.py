"""The PrivateRange failure term of Thm 1: P(EM picks an empty bin) <= (K - 1) e^{-eps_r n/4} <= (B/tau) e^{-n eps/8}."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.mechanisms.selection import ExponentialMechanism
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "levy2021/private_range_failure_term"


def bin_counts(x: np.ndarray, tau: float, big_b: float) -> np.ndarray:
    """Counts of K = ceil(B/tau) bins of width 2 tau tiling [-B, B] (last bin closed); docs/papers/levy2021.md, ALG-A, steps 1-3."""
    k = math.ceil(big_b / tau)
    idx = np.clip(np.floor((np.clip(x, -big_b, big_b) + big_b) / (2 * tau)).astype(int), 0, k - 1)
    return np.bincount(idx, minlength=k).astype(float)


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("[DERIVED] reconstruction of Alg 6 (App D.1, not in the seed): EM with budget eps_r = eps/2 over "
                "K = ceil(B/tau) bins of width 2 tau, score = bin count (docs/papers/levy2021.md, ALG-A)")
    proof.assume("two bins", "n points in an interval of length 2 tau lie in at most 2 adjacent bins of width 2 tau")
    n = sp.Symbol("n", positive=True)
    g = sp.Symbol("g", nonnegative=True)
    c2 = sp.Symbol("c_2", nonnegative=True)
    proof.nonneg("two bins holding all n points: the larger count c_1 = c_2 + g satisfies c_1 >= n/2", (c2 + g) - (2 * c2 + g) / 2)
    eps, big_b, tau = sp.symbols("epsilon B tau", positive=True)
    e_cnt, j, w = sp.symbols("E j w", nonnegative=True)  # E empty bins (weight 1 each), K - 1 = E + j, Z = E + W
    big_w = sp.exp(eps / 2 * n / 4) + w  # W = weight of the non-empty bins >= exp(eps_r c_max/2) >= exp(eps_r n/4)
    proof.nonneg("P(empty) = E/(E + W) <= (K - 1)/W", (e_cnt + j) / big_w - e_cnt / (e_cnt + big_w))
    proof.nonneg("(K - 1)/W <= (K - 1) exp(-eps_r n/4) since W >= exp(eps_r n/4)", (e_cnt + j) * sp.exp(-eps / 2 * n / 4) - (e_cnt + j) / big_w)
    proof.zero("eps_r = eps/2: eps_r n / 4 = n eps / 8", (eps / 2) * n / 4 - n * eps / 8)
    h = sp.Symbol("h", nonnegative=True)  # K = ceil(B/tau) = B/tau + f with f = 1 - h < 1
    proof.nonneg("K - 1 <= B/tau since ceil(y) < y + 1", (big_b / tau) - (big_b / tau + (1 - h) - 1))
    rng = proof.rng
    lhs, rhs, where = [], [], []
    for _ in range(300):
        tau_, big = float(rng.uniform(0.05, 1.0)), float(rng.uniform(1.0, 20.0))
        n_ = int(rng.integers(2, 400))
        eps_ = float(rng.uniform(0.05, 2.0))
        center = rng.uniform(-big + tau_, big - tau_)
        x = center + rng.uniform(-tau_, tau_, size=n_)
        counts = bin_counts(x, tau_, big)
        probs = ExponentialMechanism(epsilon=eps_ / 2, sensitivity=1.0).probabilities(counts)
        lhs.append(float(probs[counts == 0].sum()))
        rhs.append((big / tau_) * math.exp(-n_ * eps_ / 8))
        where.append(f"n={n_}, eps={eps_:.3f}, tau={tau_:.3f}, B={big:.2f}")
    proof.numeric_le("exact EM probability of an empty bin <= (B/tau) exp(-n eps/8), 300 seeded concentrated samples",
                     lhs, rhs, {"setting": np.array(where)}, atol=1e-15)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Levy et al. 2021, Thm 1 (beta = gamma + (B/tau) exp(-n eps/8)); docs/papers/levy2021.md, ALG-A",
    statement=("For n points in an interval of length 2 tau inside [-B, B], the exponential mechanism with budget eps/2 over "
               "K = ceil(B/tau) bins of width 2 tau (score = count) picks an empty bin with probability <= (K - 1) exp(-n eps/8) "
               "<= (B/tau) exp(-n eps/8)."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
