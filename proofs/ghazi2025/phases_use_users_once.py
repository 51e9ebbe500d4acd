"""Alg 5 uses each user in at most one phase, so it makes at most m n gradient computations.

sum_{s=1}^{S} n/2^s = n (1 - 2^{-S}) <= n: each user's m items are differentiated once.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2025/phases_use_users_once"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("phase s uses n_s = n/2^s fresh users (Alg 5 line 3), each once, with m gradients per user (Alg 1 line 4)")
    n, m = sp.symbols("n m", positive=True)
    s, big_s = sp.symbols("s S", positive=True, integer=True)
    total = sp.summation(n / 2**s, (s, 1, big_s))
    proof.zero("sum_{s=1}^{S} n/2^s = n (1 - 2^{-S})", sp.simplify(total - n * (1 - 2 ** (-big_s))))
    proof.nonneg("n (1 - 2^{-S}) <= n", n * 2 ** (-big_s))
    proof.nonneg("gradient computations m n (1 - 2^{-S}) <= m n", m * n - m * n * (1 - 2 ** (-big_s)))
    nn = proof.rng.integers(1, 10**9, 1000)
    used = np.array([sum(int(v) >> k for k in range(1, int(v).bit_length() + 1)) for v in nn])
    proof.numeric_le("integer phases floor(n/2^s) use <= n users (1000 seeded n)", used, nn, {"n": nn})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2025, Alg 5 lines 3-4 and Thm 3.1 ('mn gradient computations'); note 2.6 and 6",
    statement="The phases of Alg 5 use sum_s n/2^s <= n distinct users, so the algorithm computes at most m n per-item gradients.",
    expected=Verdict.PROVED,
    papers=("ghazi2025",),
    check=_run,
)
