"""TDLap (T2, T3): adjacent masses differ by exactly a factor e^{eps} or e^{-eps}."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.mechanisms.discrete import tdlap_kappa, tdlap_pmf
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2023/tdlap_adjacent_ratio"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("p(x)/p(x - 1) = exp(-eps (|x - kappa| - |x - 1 - kappa|)) for x in {1..2 kappa}")
    eps = sp.Symbol("epsilon", positive=True)
    kap = sp.Symbol("kappa", positive=True, integer=True)
    a = sp.Symbol("a", nonnegative=True, integer=True)
    ratio = lambda x: sp.exp(-eps * (sp.Abs(x - kap) - sp.Abs(x - 1 - kap)))  # noqa: E731
    proof.zero("x = kappa - a <= kappa: ratio = e^{eps}", ratio(kap - a) - sp.exp(eps))
    proof.zero("x = kappa + 1 + a >= kappa + 1: ratio = e^{-eps}", ratio(kap + 1 + a) - sp.exp(-eps))
    proof.nonneg("so P[R = r] <= e^eps P[R = r - 1] (T2) and, by symmetry, <= e^eps P[R = r + 1] (T3): e^eps - e^-eps >= 0",
                 sp.exp(eps) - sp.exp(-eps))
    rng = proof.rng
    worst, where = [], []
    for _ in range(200):
        e_ = float(rng.uniform(0.01, 5.0))
        d_ = float(np.exp(rng.uniform(np.log(1e-12), np.log(0.5))))
        pmf = tdlap_pmf(e_, d_)
        kk = tdlap_kappa(e_, d_)
        logr = np.log(pmf[1:]) - np.log(pmf[:-1])
        expect = np.where(np.arange(1, 2 * kk + 1) <= kk, e_, -e_)
        worst.append(float(np.max(np.abs(logr - expect))) / e_)
        where.append(f"eps={e_:.4f}, delta={d_:.3e}")
    proof.numeric_le("dpaudit tdlap_pmf: log-ratios equal +-eps (relative 1e-9)", worst, 1e-9, {"setting": np.array(where)})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2023, Def 3.4 and proof of Thm 3.3 eqs. (2)-(3)",
    statement=("For TDLap(eps, delta): P[R = r] = e^{eps} P[R = r - 1] for 1 <= r <= kappa and P[R = r] = e^{-eps} P[R = r - 1] "
               "for kappa < r <= 2 kappa; hence P[R = r] <= e^{eps} P[R = r -+ 1] for every admissible r."),
    expected=Verdict.PROVED,
    papers=("ghazi2023",),
    check=_run,
)
