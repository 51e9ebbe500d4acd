"""Alg 4 (Phased-SCO) batches: which ranges are disjoint, and which phase counts leave full batches.

The printed closed ranges [2^{-i} n, 2^{-i+1} n] share endpoint users (DISPROVED; a shared user
would be charged twice), half-open integer ranges are disjoint (PROVED); T = ceil(log(n/N_0)) can
leave the last batch below N_0 (DISPROVED), T = floor(log2(n/N_0)) cannot (PROVED).
"""

from __future__ import annotations

import math

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

DISJOINT_PRINTED = "ghazi2023/alg4_batches_closed_ranges"
DISJOINT_CORRECTED = "ghazi2023/alg4_batches_half_open"
SIZE_PRINTED = "ghazi2023/alg4_last_batch_ceil"
SIZE_CORRECTED = "ghazi2023/alg4_last_batch_floor"


def _disjoint_printed() -> CheckResult:
    proof = Proof(DISJOINT_PRINTED)
    proof.given("Thm 5.1's privacy proof uses parallel composition, which needs pairwise disjoint batches x^(i)")
    n = 8
    batches = {i: {u for u in range(1, n + 1) if sp.Rational(n, 2**i) <= u <= sp.Rational(n, 2 ** (i - 1))} for i in (1, 2)}
    shared = sorted(batches[1] & batches[2])
    proof.refute("n = 8: batch 1 = users [4, 8], batch 2 = users [2, 4]", {"n": n, "batch 1": sorted(batches[1]),
                 "batch 2": sorted(batches[2]), "shared users": shared}, -sp.Integer(len(shared)))
    return proof.result()


def _disjoint_corrected() -> CheckResult:
    proof = Proof(DISJOINT_CORRECTED)
    proof.given("batch i = users u with floor(n/2^i) < u <= floor(n/2^{i-1}) (note ALG-4 proposal)")
    k = sp.Symbol("k", nonnegative=True, integer=True)
    f = sp.Symbol("f", nonnegative=True)
    proof.nonneg("consecutive bounds are ordered: floor(2y) >= floor(y) for y = k + f (k integer, 0 <= f < 1): 2k + floor(2f) >= k",
                 (2 * k + sp.floor(2 * f)) - k)
    proof.assume("disjoint half-open ranges", "half-open ranges (a_i, a_{i-1}] with a_T <= ... <= a_1 <= a_0 = n are pairwise disjoint")
    bad = 0
    for nn in range(1, 3001):
        t = max(1, int(math.log2(nn)))
        bounds = [nn >> i for i in range(t + 1)]  # floor(n/2^i)
        users = [u for i in range(1, t + 1) for u in range(bounds[i] + 1, bounds[i - 1] + 1)]
        bad += len(users) != len(set(users))
    proof.numeric_count("exhaustive: no user in two batches for every n = 1..3000", 3000, bad)
    return proof.result()


def _size_printed() -> CheckResult:
    proof = Proof(SIZE_PRINTED)
    proof.given("batch i holds about n/2^i users; T = ceil(log(n/N_0)) (natural log as everywhere in the paper; log2 gives the same T here)")
    n0 = sp.Integer(100)
    n = 3 * n0
    t = sp.ceiling(sp.log(n / n0))
    proof.refute("n = 3 N_0 = 300: T = 2 and the last batch has n/2^T = 75 < N_0 users", {"N_0": 100, "n": 300, "T": t,
                 "last batch n/2^T": n / 2**t, "log2 reading T": sp.ceiling(sp.log(n / n0, 2))}, n / 2**t - n0)
    return proof.result()


def _size_corrected() -> CheckResult:
    proof = Proof(SIZE_CORRECTED)
    proof.given("T = floor(log2(n/N_0)) >= 1 (n >= 2 N_0), N_0 a positive integer; batch T = users floor(n/2^T) < u <= floor(n/2^{T-1})")
    n, n0 = sp.symbols("n N_0", positive=True)
    phi = sp.Symbol("phi", nonnegative=True)  # log2(n/N_0) = T + phi, 0 <= phi < 1
    big_t = sp.Symbol("T", positive=True, integer=True)
    proof.monotone_nonneg("n/2^T - N_0 = N_0 (2^phi - 1) >= 0", n0 * (2**phi - 1), phi, 0)
    proof.zero("... since n = N_0 2^{T + phi}", (n / 2**big_t - n0).subs(n, n0 * 2 ** (big_t + phi)) - n0 * (2**phi - 1))
    proof.assume("integer batch sizes", "floor(2y) - floor(y) >= floor(y) and floor(n/2^T) >= N_0 when n/2^T >= N_0 (N_0 integer)")
    bad, cases = 0, 0
    for nn in range(2, 2001, 3):
        for base in (1, 2, 5, 17, 60):
            if nn < 2 * base:
                continue
            t = math.floor(math.log2(nn / base))
            while 2 ** (t + 1) * base <= nn:  # guard the float log2
                t += 1
            while 2**t * base > nn:
                t -= 1
            size = (nn >> (t - 1)) - (nn >> t)
            bad += size < base
            cases += 1
    proof.numeric_count("exhaustive: the last batch has >= N_0 users (n <= 2000, N_0 in {1, 2, 5, 17, 60})", cases, bad)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=DISJOINT_PRINTED,
        source="Ghazi et al. 2023, Alg 4 line 8 (x^(i) = (x_l : l in [2^{-i} n, 2^{-i+1} n])) and Thm 5.1's parallel composition; note ALG-4, P15",
        statement="(as printed) The batches x^(i) = users in [2^{-i} n, 2^{-i+1} n], i = 1..T, are pairwise disjoint.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=_disjoint_printed,
        role="printed",
        sibling=DISJOINT_CORRECTED,
    ),
    LemmaCheck(
        name=DISJOINT_CORRECTED,
        source="Ghazi et al. 2023, Alg 4 line 8 with half-open integer ranges (note ALG-4 proposal)",
        statement="(corrected) The batches {u : floor(n/2^i) < u <= floor(n/2^{i-1})}, i = 1..T, are pairwise disjoint.",
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=_disjoint_corrected,
        role="corrected",
        sibling=DISJOINT_PRINTED,
    ),
    LemmaCheck(
        name=SIZE_PRINTED,
        source="Ghazi et al. 2023, Alg 4 line 2 (T = ceil(log(n/N_0))) vs the minimum batch size N_0 (proof of Thm 5.1); note E7",
        statement="(as printed) With T = ceil(log(n/N_0)), every batch, including the last (about n/2^T users), has at least N_0 users.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=_size_printed,
        role="printed",
        sibling=SIZE_CORRECTED,
    ),
    LemmaCheck(
        name=SIZE_CORRECTED,
        source="Ghazi et al. 2023, Alg 4 line 2 with T = floor(log2(n/N_0)) (note E7 proposal)",
        statement="(corrected) With T = floor(log2(n/N_0)) >= 1 and integer N_0, the last batch has n/2^T >= N_0 users (also after flooring).",
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=_size_corrected,
        role="corrected",
        sibling=SIZE_PRINTED,
    ),
)
