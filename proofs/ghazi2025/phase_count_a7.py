"""Erratum A7: how many phases leave every phase a full batch.

With S = ceil(log(n/B)) phases (one reading of Alg 5 line 1), the last phase can have fewer than B
users (DISPROVED at n = 3B); with S = floor(log2(n/B)) and n >= 2B every phase n_s = n/2^s holds a
full batch (PROVED), and the implementation's phases each hold at least B users and use at most n
(cross-checked).
"""

from __future__ import annotations

import sympy as sp
from dpaudit.proofs.ghazi2025._preset import safe_parameters

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2025/phase_count_printed"
CORRECTED = "ghazi2025/phase_count_floor_log2"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("Alg 5 line 1, S = ceil(log n / B) read as ceil(ln(n/B)); phase s gets n_s = n/2^s users (line 3)")
    big_b, n = sp.Integer(100), sp.Integer(300)
    phases = sp.ceiling(sp.log(n / big_b))
    last = n / 2**phases
    proof.refute("n = 300, B = 100: S = ceil(ln 3) = 2, n_S = 300/4 = 75 < B", {"n": 300, "B": 100, "S": phases, "n_S": last},
                 last - big_b, conditions={"n >= 2B (phase 1 holds a batch)": sp.Ge(n, 2 * big_b)})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("n >= 2B, B >= 1; S = floor(log2(n/B)); n_s = n/2^s for s = 1..S")
    k = sp.Symbol("k", nonnegative=True)  # 2^S <= n/B because S = floor(log2(n/B)): n/B = 2^S (1 + k)
    big_b, big_s = sp.Symbol("B", positive=True), sp.Symbol("S", positive=True, integer=True)
    n = big_b * 2**big_s * (1 + k)
    proof.nonneg("n_S = n/2^S >= B", n / 2**big_s - big_b)
    j = sp.Symbol("j", nonnegative=True, integer=True)  # s = S - j
    proof.nonneg("n_s >= n_S for s = S - j <= S: n/2^(S-j) - n/2^S = (n/2^S)(2^j - 1)", n / 2 ** (big_s - j) - n / 2**big_s)
    proof.nonneg("S >= 1 when n >= 2B: log2(n/B) >= 1", sp.log(2 * (1 + k)) / sp.log(2) - 1)
    for (cfg, params) in safe_parameters():
        b, users = params.batch_size, params.phase_users
        proof.instance(f"implementation at (n, m, d, eps, delta, loss) = {cfg}: every phase >= B users, total <= n",
                       all(u >= b for u in users) and sum(users) <= cfg[0], point={"config": cfg, "B": b, "phase users": users})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, Alg 5 line 1 (S = ceil(log n / B)) with n_s = n/2^s (line 3); note 2.7 A7",
        statement="(as printed, reading S = ceil(ln(n/B))) For n >= 2B, every phase s <= S has n_s = n/2^s >= B users.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, Alg 5 with S = floor(log2(n/B)) (note 2.7 A7); dpaudit RobustStatsLocalization.parameters",
        statement=("(corrected) For n >= 2B and S = floor(log2(n/B)) >= 1, every phase s <= S has n/2^s >= B users; the safe "
                   "preset's phases (cross-checked at 5 configurations) each hold >= B users and use <= n in total."),
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
