"""Alg 2's 1-D range: every coordinate of U X lies in [-sqrt(d) B, sqrt(d) B] when X is in [-B, B]^d."""

from __future__ import annotations

import numpy as np
import sympy as sp
from dpaudit.proofs.levy2021.hadamard_rotation import CHECK as HADAMARD
from dpaudit.proofs.levy2021.hadamard_rotation import NORM_UX_SQ, NORM_X_SQ
from scipy.linalg import hadamard

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Region, Verdict

NAME = "levy2021/rotated_coordinate_range"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("X in [-B, B]^d, Y = U X with U the rotation of Alg 2 (levy2021/hadamard_rotation_orthogonal)")
    y, x_i = sp.symbols("y_j X_i", real=True)
    rest, slack = sp.symbols("rest s", nonnegative=True)
    big_b, d = sp.symbols("B d", positive=True)
    coord_sq, norm_y_sq, norm_x_sq = sp.symbols("y_j_sq norm_Y_sq norm_X_sq", nonnegative=True)
    # ||Y||^2 = y_j^2 + rest with rest >= 0 (the other coordinates' squares)
    to_norm = proof.show("Y_j^2 <= ||Y||_2^2", sp.Le(coord_sq, norm_y_sq), where={coord_sq: y**2, norm_y_sq: y**2 + rest})
    interval = [sp.Le(-big_b, x_i), sp.Le(x_i, big_b)]
    proof.cases("each coordinate X_i in [-B, B] has B^2 - X_i^2 = s_i >= 0", big_b**2 - x_i**2,
                Region.orders([x_i, -big_b, 0, big_b], domain=interval), domain=interval)
    # summing the d coordinates: ||X||^2 = d B^2 - s with s = sum_i s_i >= 0
    box = proof.show("||X||_2^2 <= d B^2 (sum of the d coordinate bounds)", sp.Le(norm_x_sq, d * big_b**2),
                     where={norm_x_sq: d * big_b**2 - slack})
    # the facts are used as shown (where= applied): ||Y||^2 = y_j^2 + rest and ||X||^2 = d B^2 - s
    proof.depends("(U X)_j^2 <= ||U X||_2^2 = ||X||_2^2 <= d B^2, i.e. |(U X)_j| <= sqrt(d) B", sp.Le(y**2, d * big_b**2),
                  [to_norm, HADAMARD.fact("norm", {NORM_UX_SQ: y**2 + rest, NORM_X_SQ: d * big_b**2 - slack}), box])
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
    source="Levy et al. 2021, Alg 2 line 3 (WinsorizedMean1D(..., sqrt(d) B)); docs/papers/levy2021.md, ALG-2",
    statement="For X in [-B, B]^d and the orthogonal U of Alg 2, every coordinate satisfies |(U X)_j| <= ||X||_2 <= sqrt(d) B.",
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
