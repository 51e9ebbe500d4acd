"""Laplace privacy loss: sup_x |ln p(x)/p(x - Delta)| = Delta/b; Alg 1's noise is eps/2-DP; Var = 2 b^2."""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import stats

from dpaudit.accounting.calibrate import laplace_scale
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Region, Verdict

NAME = "levy2021/laplace_privacy_loss"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("Lap(b) density p(x) = exp(-|x|/b)/(2b), b > 0; shift Delta >= 0")
    b = sp.Symbol("b", positive=True)
    x = sp.Symbol("x", real=True)
    big_delta = sp.Symbol("Delta", nonnegative=True)
    # log p(x) - log p(x - Delta) = (|x - Delta| - |x|)/b; every ordering of x, 0, Delta is a case
    loss = (sp.Abs(x - big_delta) - sp.Abs(x)) / b
    regions = Region.orders([x, 0, big_delta])
    proof.cases("ln p(x) - ln p(x - Delta) <= Delta/b", big_delta / b - loss, regions)
    proof.cases("ln p(x) - ln p(x - Delta) >= -Delta/b", big_delta / b + loss, regions)
    u = sp.Symbol("u", nonnegative=True)
    proof.zero("attained for x <= 0", loss.subs(x, -u) - big_delta / b)
    tau, n, eps = sp.symbols("tau n epsilon", positive=True)
    proof.zero("Thm 1: (4 tau/n) / (8 tau/(n eps)) = eps/2", (4 * tau / n) / (8 * tau / (n * eps)) - eps / 2)
    var = 2 * sp.integrate(x**2 * sp.exp(-x / b) / (2 * b), (x, 0, sp.oo))
    proof.zero("Var Lap(b) = 2 b^2", var - 2 * b**2)
    proof.zero("Thm 1 noise variance 2 (8 tau/(n eps))^2 = 128 tau^2/(n^2 eps^2)",
               2 * (8 * tau / (n * eps)) ** 2 - 128 * tau**2 / (n**2 * eps**2))
    rng = proof.rng
    bb = rng.uniform(0.1, 5.0, size=500)
    dd = rng.uniform(0.0, 3.0, size=500)
    xx = rng.normal(0.0, 4.0, size=500)
    loss = np.abs(stats.laplace.logpdf(xx, scale=bb) - stats.laplace.logpdf(xx - dd, scale=bb))
    proof.numeric_le("scipy Laplace log-density ratio <= Delta/b (500 seeded points)", loss, dd / bb, {"x": xx, "b": bb, "Delta": dd})
    tt, nn, ee = rng.uniform(0.01, 10, 200), rng.integers(1, 10**6, 200), rng.uniform(0.01, 10, 200)
    impl = np.array([laplace_scale(4 * t / k, e / 2) for t, k, e in zip(tt, nn, ee, strict=True)])
    proof.numeric_le("dpaudit laplace_scale(4 tau/n, eps/2) >= 8 tau/(n eps) (rounded up)", 8 * tt / (nn * ee), impl,
                     {"tau": tt, "n": nn, "epsilon": ee})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Levy et al. 2021, Alg 1 line 2 / Thm 1 (xi ~ Lap(8 tau/(n eps))); docs/papers/levy2021.md, check L3",
    statement=("For Lap(b) and Delta >= 0: sup_x |ln p(x) - ln p(x - Delta)| = Delta/b. With Delta = 4 tau/n and b = 8 tau/(n eps) "
               "the Laplace stage of Alg 1 is eps/2-DP, and its variance is 2 b^2 = 128 tau^2/(n^2 eps^2)."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
