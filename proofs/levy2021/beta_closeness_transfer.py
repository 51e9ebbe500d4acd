"""beta-closeness transfer: 0 <= f <= M and TV(P, Q) <= beta give E_P f <= E_Q f + M beta."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Region, Verdict

NAME = "levy2021/beta_closeness_transfer"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("P, Q on a common finite or countable set; TV(P, Q) = sum_k (p_k - q_k)_+ (Def 4); 0 <= f_k <= M")
    proof.assume("summing term-wise bounds", "E_P f - E_Q f = sum_k f_k (p_k - q_k) <= sum_k M (p_k - q_k)_+ = M TV(P, Q) "
                 "by the term-wise bound (absolutely convergent sums)")
    big_m = sp.Symbol("M", positive=True)
    f, p, q = sp.symbols("f p q", real=True)
    residual = big_m * sp.Max(p - q, 0) - f * (p - q)
    bounds = [sp.Le(0, f), sp.Le(f, big_m)]
    regions = [Region.where("p >= q, f <= M", sp.Le(q, p), sp.Le(f, big_m)), Region.where("p <= q, f >= 0", sp.Le(p, q), sp.Le(0, f))]
    proof.cases("term-wise: f_k (p_k - q_k) <= M (p_k - q_k)_+ for 0 <= f_k <= M", residual, regions, domain=bounds)
    rng = proof.rng
    lhs, rhs = [], []
    for _ in range(500):
        k = int(rng.integers(2, 30))
        p, qq = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        mm = float(rng.uniform(0.1, 10))
        fv = rng.uniform(0, mm, size=k)
        fv[rng.random(k) < 0.3] = mm  # extremes of the range
        lhs.append(float(fv @ p))
        rhs.append(float(fv @ qq + mm * 0.5 * np.abs(p - qq).sum()))
    proof.numeric_le("500 seeded pairs of distributions and functions", lhs, rhs, {"case": np.arange(500)})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Levy et al. 2021, Def 4 (beta-close) as used with Thm 1/Thm 2 and Cor 1; docs/papers/levy2021.md, check L13",
    statement="If 0 <= f <= M and TV(P, Q) <= beta, then E_P f <= E_Q f + M beta.",
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
