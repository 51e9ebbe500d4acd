"""Alg 2's 1-D range: every coordinate of U X lies in [-sqrt(d) B, sqrt(d) B] when X is in [-B, B]^d."""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.linalg import hadamard

from dpaudit.bounds.verdict import CheckResult, Verdict
from proofs._core import LemmaCheck, Proof
from proofs.levy2021.hadamard_rotation import CHECK as HADAMARD

NAME = "levy2021/rotated_coordinate_range"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.assume("X in [-B, B]^d, U orthogonal (levy2021/hadamard_rotation_orthogonal)")
    proof.depends("U preserves the l_2 norm", [HADAMARD])
    d = 4
    ys = sp.symbols(f"y0:{d}", real=True)
    proof.nonneg("|Y_j| <= ||Y||_2: sum_i Y_i^2 - Y_0^2 >= 0 (d = 4 written out; the sum is termwise)",
                 sum(y**2 for y in ys) - ys[0] ** 2)
    big_b = sp.Symbol("B", positive=True)
    thetas = sp.symbols(f"theta0:{d}", real=True)  # X_i = B cos(theta_i) covers [-B, B]
    proof.nonneg("||X||_2^2 <= d B^2 for X_i = B cos(theta_i) in [-B, B] (d = 4 written out)",
                 d * big_b**2 - sum((big_b * sp.cos(t)) ** 2 for t in thetas))
    rng = proof.rng
    lhs, rhs = [], []
    for k in range(0, 9):
        dd = 2**k
        u = hadamard(dd) / np.sqrt(dd) * rng.choice([-1.0, 1.0], size=dd)
        bb = rng.uniform(0.1, 10.0, size=(60, 1))
        x = rng.uniform(-1.0, 1.0, size=(60, dd)) * bb
        x[:10] = np.sign(x[:10]) * bb[:10]  # corners of the box
        lhs.append(np.max(np.abs(x @ u.T), axis=1))
        rhs.append(np.sqrt(dd) * bb[:, 0])
    proof.numeric_le("max_j |(U X)_j| <= sqrt(d) B, d = 1..256, incl. box corners", np.concatenate(lhs), np.concatenate(rhs),
                     {"case": np.arange(540)})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Levy et al. 2021, Alg 2 line 3 (WinsorizedMean1D(..., sqrt(d) B)); note ALG-2 [DERIVED]",
    statement="For X in [-B, B]^d and the orthogonal U of Alg 2, every coordinate satisfies |(U X)_j| <= ||X||_2 <= sqrt(d) B.",
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
