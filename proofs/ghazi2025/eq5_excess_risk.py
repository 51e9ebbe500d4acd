"""Eq. (5) of the lower bound: the excess risk of F(x) = -<x, mu> on [-1, 1]^d.

F(M) - F(x*) = sum_i (sign mu_i - M_i) mu_i >= sum_i |mu_i| 1(sign mu_i != sign M_i) for every M in
[-1, 1]^d.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Region, Verdict, eq, le, lt

NAME = "ghazi2025/eq5_excess_risk_sign_error"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("F(x) = -<x, mu> on [-1, 1]^d, sign(0) = 0; M in [-1, 1]^d")
    mus = sp.symbols("mu0:3", real=True)
    ms = sp.symbols("M0:3", real=True)
    f = lambda x: -sum(xi * mi for xi, mi in zip(x, mus, strict=True))  # noqa: E731
    proof.equal("F(M) - F(sign mu) = sum_i (sign mu_i - M_i) mu_i (written out for d = 3; both sides are sums over i)",
                f(ms) - f([sp.sign(m) for m in mus]), sum((sp.sign(m) - mm) * m for m, mm in zip(mus, ms, strict=True)))
    proof.assume("coordinates add up", "both sides of the inequality are sums over coordinates of the same per-coordinate terms")
    mu, big_m = sp.symbols("mu M", real=True)
    # per coordinate: (sign mu - M) mu >= |mu| 1(sign mu != sign M); the cases are the signs of mu and of M
    indicator = sp.Piecewise((0, sp.Eq(sp.sign(mu), sp.sign(big_m))), (1, True))
    residual = (sp.sign(mu) - big_m) * mu - sp.Abs(mu) * indicator
    box = [le(-1, big_m), le(big_m, 1)]
    mu_signs = {"mu < 0": [lt(mu, 0)], "mu = 0": [eq(mu, 0)], "mu > 0": [lt(0, mu)]}
    m_signs = {"-1 <= M < 0": [le(-1, big_m), lt(big_m, 0)], "M = 0": [eq(big_m, 0)], "0 < M <= 1": [lt(0, big_m), le(big_m, 1)]}
    regions = [Region.where(f"{a}, {b}", *ca, *cb) for a, ca in mu_signs.items() for b, cb in m_signs.items()]
    proof.cases("per coordinate: (sign mu - M) mu - |mu| 1(sign mu != sign M) >= 0 for M in [-1, 1]", residual, regions, domain=box)
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
