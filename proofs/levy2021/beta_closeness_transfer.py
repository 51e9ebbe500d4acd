"""beta-closeness transfer: 0 <= f <= M and TV(P, Q) <= beta give E_P f <= E_Q f + M beta."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.bounds.verdict import CheckResult, Verdict
from proofs._core import LemmaCheck, Proof

NAME = "levy2021/beta_closeness_transfer"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.assume("P, Q on a common finite or countable set; TV(P, Q) = sum_k (p_k - q_k)_+ (Def 4)",
                 "E_P f - E_Q f = sum_k f_k (p_k - q_k), bounded term-wise and summed")
    big_m = sp.Symbol("M", positive=True)
    h, g, q = sp.symbols("h g q", nonnegative=True)  # f = M - h in [0, M] (f >= 0 below), p - q = +g or -g
    f = sp.Symbol("f", nonnegative=True)
    proof.cases("term-wise: f_k (p_k - q_k) <= M (p_k - q_k)_+",
                {"p >= q (p = q + g, f = M - h)": big_m * g - (big_m - h) * g, "p < q (p = q - g, f >= 0)": 0 - f * (-g)})
    del q
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
    source="Levy et al. 2021, Def 4 (beta-close) as used with Thm 1/Thm 2 and Cor 1; note L13",
    statement="If 0 <= f <= M and TV(P, Q) <= beta, then E_P f <= E_Q f + M beta.",
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
