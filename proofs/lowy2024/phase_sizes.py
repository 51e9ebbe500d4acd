"""Alg 1 / Alg 3 phases: sum_i n_i = n 2^{-q}(1 - 2^{-lq}) <= n, so the gradient count sum_i C N_i m = sum_i n_i m <= n m."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "lowy2024/phase_sizes_and_gradient_count"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("n_i = (1 - 2^{-q}) n / 2^{iq}, i = 1..l (Alg 1 line 4, Alg 3 line 4); phase i runs C groups of N_i = n_i/C users, T_i = N_i m steps each")
    n, q = sp.symbols("n q", positive=True)
    i, ell = sp.symbols("i l", positive=True, integer=True)
    n_i = (1 - 2 ** (-q)) * n / 2 ** (i * q)
    total = sp.summation(n_i, (i, 1, ell))
    proof.zero("sum_{i=1}^{l} n_i = n 2^{-q} (1 - 2^{-lq})", sp.simplify(total - n * 2 ** (-q) * (1 - 2 ** (-ell * q))))
    w, v = sp.symbols("w v", positive=True)  # 2^{-q} = 1/(1 + w) in (0, 1), 2^{-lq} = v > 0
    proof.nonneg("n - n 2^{-q}(1 - 2^{-lq}) >= 0 (2^{-q} = 1/(1 + w), 2^{-lq} = v)", n - n / (1 + w) * (1 - v))
    c, m = sp.symbols("C m", positive=True)
    proof.zero("per phase: C groups x T_i = (n_i/C) m gradient steps = n_i m", c * (n_i / c) * m - n_i * m)
    rng = proof.rng
    nn = rng.integers(2, 10**8, 500)
    qq = rng.uniform(0.01, 1.0, 500)
    used = np.array([sum(math.floor((1 - 2 ** (-qv)) * nv / 2 ** (k * qv)) for k in range(1, int(math.log2(nv)) + 1))
                     for nv, qv in zip(nn, qq, strict=True)])
    proof.numeric_le("floored phase sizes use at most n users (500 seeded n, q)", used, nn, {"n": nn, "q": qq})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, Alg 1 line 4 and Thm 2.1/B.1 (gradient complexity sum_i T_i C <= nm)",
    statement=("For n_i = (1 - 2^{-q}) n/2^{iq}: sum_{i=1}^{l} n_i = n 2^{-q}(1 - 2^{-lq}) <= n, so the phases can use disjoint users "
               "and Alg 1 computes sum_i C (n_i/C) m = sum_i n_i m <= n m gradients."),
    expected=Verdict.PROVED,
    papers=("lowy2024",),
    check=_run,
)
