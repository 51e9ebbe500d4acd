"""Eq. (5) of the lower bound: for F(x) = -<x, mu> on [-1, 1]^d, F(M) - F(x*) = sum_i (sign mu_i - M_i) mu_i
>= sum_i |mu_i| 1(sign mu_i != sign M_i) for every M in [-1, 1]^d."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.bounds.verdict import CheckResult, Verdict
from proofs._core import LemmaCheck, Proof

NAME = "ghazi2025/eq5_excess_risk_sign_error"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.assume("x* = sign(mu) minimises F(x) = -<x, mu> over [-1, 1]^d; sign(0) = 0; coordinates add up")
    mus = sp.symbols("mu0:3", real=True)
    ms = sp.symbols("M0:3", real=True)
    f = lambda x: -sum(xi * mi for xi, mi in zip(x, mus, strict=True))  # noqa: E731
    proof.zero("F(M) - F(sign mu) = sum_i (sign mu_i - M_i) mu_i (d = 3)",
               f(ms) - f([sp.sign(m) for m in mus]) - sum((sp.sign(m) - mm) * m for m, mm in zip(mus, ms, strict=True)))
    m0 = sp.Symbol("m0", positive=True)
    t, s = sp.symbols("t s", nonnegative=True)
    # mu > 0: sign = 1; agreeing M = 1 - t in (0, 1] (t < 1), disagreeing M = -s in [-1, 0]
    # mu < 0: sign = -1; agreeing M = -(1 - t), disagreeing M = s
    proof.cases("per coordinate: (sign mu - M) mu - |mu| 1(sign mu != sign M) >= 0",
                {"mu > 0, signs agree": (1 - (1 - t)) * m0, "mu > 0, signs differ": (1 + s) * m0 - m0,
                 "mu < 0, signs agree": (-1 + (1 - t)) * (-m0), "mu < 0, signs differ": (-1 - s) * (-m0) - m0})
    rng = proof.rng
    mu = rng.uniform(-1, 1, size=(500, 10))
    mm = rng.uniform(-1, 1, size=(500, 10))
    mm[:100] = np.sign(rng.normal(size=(100, 10)))
    lhs = (np.abs(mu) * (np.sign(mu) != np.sign(mm))).sum(1)
    rhs = ((np.sign(mu) - mm) * mu).sum(1)
    proof.numeric_le("500 seeded (mu, M), d = 10 (100 with M in {-1, 1}^d)", lhs, rhs, {"case": np.arange(500)})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2025, Section 4, eq. (5) (lower-bound instance f(x; z) = -<x, z> on [-1, 1]^d); note 2.9 and 5.18",
    statement=("For mu in R^d and M in [-1, 1]^d: F(M) - F(sign mu) = sum_i (sign mu_i - M_i) mu_i >= sum_i |mu_i| 1(sign mu_i != sign M_i), "
               "where F(x) = -<x, mu>."),
    expected=Verdict.PROVED,
    papers=("ghazi2025",),
    check=_run,
)
