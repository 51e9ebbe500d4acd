"""Thm 4.1 proof chain: the summed noise term's closed form, and the balancing of lambda.

sum_{i=1}^{T-1} lambda_{i+1} d sigma_i^2 has a closed form below 16 c^2 d G^2/(3 lambda n^2 m), and
lambda R^2 + b/lambda >= 2 R sqrt(b) with equality at lambda = sqrt(b)/R.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2023/phased_erm_chain"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("lambda_i = lambda 4^i, sigma_i = c 2G/(lambda_i n sqrt(m)) (SCOutputPert's sigma with Delta proportional to 2G/(lambda_i n sqrt(m)))")
    lam, c, g, d, n, m = sp.symbols("lambda c G d n m", positive=True)
    i = sp.Symbol("i", positive=True, integer=True)
    big_t = sp.Symbol("T", positive=True, integer=True)
    lam_i = lambda j: lam * 4**j  # noqa: E731
    sigma_i = c * 2 * g / (lam_i(i) * n * sp.sqrt(m))
    total = sp.summation(sp.simplify(lam_i(i + 1) * d * sigma_i**2), (i, 1, big_t - 1))
    note = 2 ** (4 - 2 * big_t) * g**2 * c**2 * d * (4**big_t - 4) / (3 * lam * m * n**2)
    proof.equal("sum equals the note's closed form 2^{4-2T} G^2 c^2 d (4^T - 4)/(3 lambda m n^2)", total, note)
    limit = 16 * c**2 * d * g**2 / (3 * lam * n**2 * m)
    proof.equal("limit T -> infinity: 16 c^2 d G^2/(3 lambda n^2 m)", sp.limit(note, big_t, sp.oo), limit)
    proof.nonneg("every T: the sum is at most the limit", sp.simplify(limit - note))
    big_r, b = sp.symbols("R b", positive=True)
    proof.certificate("lambda R^2 + b/lambda - 2 R sqrt(b) = (R sqrt(lambda) - sqrt(b/lambda))^2 >= 0",
                      lam * big_r**2 + b / lam - 2 * big_r * sp.sqrt(b), (big_r * sp.sqrt(lam) - sp.sqrt(b / lam)) ** 2)
    proof.zero("equality at lambda = sqrt(b)/R", (lam * big_r**2 + b / lam - 2 * big_r * sp.sqrt(b)).subs(lam, sp.sqrt(b) / big_r))
    rng = proof.rng
    tt = rng.integers(2, 40, 200)
    direct = np.array([sum(4.0 ** (k + 1) * (2.0 / 4.0**k) ** 2 for k in range(1, t)) for t in tt])  # lambda = c = G = d = n = m = 1
    closed = 2.0 ** (4 - 2 * tt) * (4.0**tt - 4) / 3
    proof.numeric_eq("direct sums vs closed form at 200 seeded T (unit parameters)", direct, closed, {"T": tt})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source=("Ghazi et al. 2023, proof of Thm 4.1 (risk(M') <= O(lambda R^2 + G sqrt(d) sigma_T "
            "+ sum_{i=1}^{T-1} lambda_{i+1} d sigma_i^2)); note section 4 and 5.21"),
    statement=("With lambda_i = lambda 4^i and sigma_i = 2 c G/(lambda_i n sqrt(m)): sum_{i=1}^{T-1} lambda_{i+1} d sigma_i^2 = "
               "2^{4-2T} G^2 c^2 d (4^T - 4)/(3 lambda m n^2) <= 16 c^2 d G^2/(3 lambda n^2 m); and lambda R^2 + b/lambda >= 2 R sqrt(b), "
               "with equality at lambda = sqrt(b)/R."),
    expected=Verdict.PROVED,
    papers=("ghazi2023",),
    check=_run,
)
