"""Lemma 2.3's proof bounds a squared difference of gradients with 4 eta^2 L^2; 16 eta^2 L^2 is right.

The term is eta^2 ||g_t - grad F(x_t) - g'_t + grad F(y_t)||^2 (printed 4 eta^2 L^2, DISPROVED; 16
eta^2 L^2, PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "lowy2024/lemma23_step_bound_4L2"
CORRECTED = "lowy2024/lemma23_step_bound_16L2"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("f(., z) L-Lipschitz: every stochastic gradient has norm <= L; g_t ~ grad f(x_t, z), E g_t = grad F(x_t)")
    big_l = sp.Integer(1)
    # one coordinate, data uniform on 4 points: gradients at x are (L, -L, -L, -L), at y are (-L, L, L, L)
    grad_fx, grad_fy = sp.Rational(-1, 2) * big_l, sp.Rational(1, 2) * big_l
    g, g2 = big_l, -big_l  # realised samples z_1 at x_t and at y_t
    value = (g - grad_fx - g2 + grad_fy) ** 2
    proof.refute("L = 1: gradients (1, -1, -1, -1) at x_t and (-1, 1, 1, 1) at y_t, sample z_1 at both", {"L": 1,
                 "grad F(x_t)": "-1/2", "grad F(y_t)": "1/2", "g_t": 1, "g'_t": -1, "value / L^2": value}, 4 * big_l**2 - value)
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.cite("triangle inequality", "||a - b - c + d|| <= ||a|| + ||b|| + ||c|| + ||d|| <= 4L when each norm is <= L")
    big_l = sp.Symbol("L", positive=True)
    th = sp.Symbol("theta", real=True)
    s = 4 * big_l * sp.cos(th) ** 2  # any value in [0, 4L]
    proof.certificate("(4L)^2 - s^2 >= 0 for s in [0, 4L] (s = 4L cos^2 theta)", 16 * big_l**2 - s**2,
                      16 * big_l**2 * sp.sin(th) ** 2 * (1 + sp.cos(th) ** 2))
    rng = proof.rng
    vals, where = [], []
    for _ in range(500):
        d = int(rng.integers(1, 6))
        vecs = rng.normal(size=(4, d))
        vecs *= rng.uniform(0, 1, size=(4, 1)) / np.linalg.norm(vecs, axis=1, keepdims=True)  # norms <= L = 1
        a, b, c, e = vecs
        vals.append(float(np.sum((a - b - c + e) ** 2)))
        where.append(d)
    proof.numeric_le("500 seeded 4-tuples of vectors with norm <= 1: ||a - b - c + d||^2 <= 16", vals, 16.0, {"d": np.array(where)})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Lowy et al. 2024, proof of Lemma 2.3 / B.4 ('eta^2 ||g_t - grad F(x_t) - g'_t + grad F(y_t)||^2 <= 4 eta^2 L^2'); note 4.1",
        statement="(as printed) For L-Lipschitz losses, ||g_t - grad F(x_t) - g'_t + grad F(y_t)||^2 <= 4 L^2.",
        expected=Verdict.DISPROVED,
        papers=("lowy2024",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Lowy et al. 2024, proof of Lemma 2.3 with 16 eta^2 L^2 (note 4.1; absorbed by the lemma's <~)",
        statement="(corrected) For L-Lipschitz losses, ||g_t - grad F(x_t) - g'_t + grad F(y_t)||^2 <= 16 L^2.",
        expected=Verdict.PROVED,
        papers=("lowy2024",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
