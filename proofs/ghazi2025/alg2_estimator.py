"""Alg 2's estimate X_est = clip(mean, rs - s, rs + s): in B_inf(rs, s), equal to the mean when |mean - rs| <= s,
1-Lipschitz under per-point l_inf perturbations, and affine equivariant (with radius |a| s)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.bounds.verdict import CheckResult, Verdict
from proofs._core import NUMERIC_RTOL, LemmaCheck, Proof, Violation, finite_floats, st, vectors
from proofs._geometry import clamp as sym_clamp
from proofs.ghazi2025._alg2 import alg2
from proofs.ghazi2025.lemma_3_5_clip import CHECKS as LEMMA_3_5
from proofs.ghazi2025.median_assumption import CHECK as MEDIAN

NAME = "ghazi2025/alg2_estimator_properties"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.assume("robust statistic = coordinate-wise median; X_est = clip(mean, rs - s, rs + s) per coordinate (Alg 2)")
    proof.depends("median satisfies Assumption 3.3 and Lemma 3.5 (general form)", [MEDIAN, LEMMA_3_5[0]])
    big_delta = sp.Symbol("Delta", nonnegative=True)
    al = sp.symbols("alpha0:3", nonnegative=True)
    proof.nonneg("mean is 1-Lipschitz: Delta - mean(iota) >= 0 for iota_i = Delta - alpha_i (B = 3 written out; termwise in general)",
                 big_delta - sum(big_delta - a for a in al) / 3)
    proof.cite("Lipschitz step", "mean and median each move by <= Delta, so Lemma 3.5 gives |X_est - Y_est| <= max(Delta, Delta) = Delta")
    r = sp.Symbol("r", real=True)
    s, u, p, q, v = sp.symbols("s u p q v", nonnegative=True)
    a_pos = sp.Symbol("a", positive=True)
    b = sp.Symbol("b", real=True)
    # affine equivariance per region of m relative to [r - s, r + s]
    regions = {"m below": r - s - u, "m inside": r - s + p, "m above": r + s + v}
    pos, neg = [], []
    for mv in regions.values():
        lhs = sym_clamp(a_pos * mv + b, a_pos * r + b - a_pos * s, a_pos * r + b + a_pos * s)
        pos.append(lhs - (a_pos * sym_clamp(mv, r - s, r + s) + b))
        lhs_n = sym_clamp(-a_pos * mv + b, -a_pos * r + b - a_pos * s, -a_pos * r + b + a_pos * s)
        neg.append(lhs_n - (-a_pos * sym_clamp(mv, r - s, r + s) + b))
    pos[1] = pos[1].subs(s, (p + q) / 2)
    neg[1] = neg[1].subs(s, (p + q) / 2)
    proof.zeros("affine, a > 0: clip(a m + b; a r + b -+ a s) = a clip(m; r -+ s) + b", pos)
    proof.zeros("affine, a < 0: clip(a m + b; a r + b -+ |a| s) = a clip(m; r -+ s) + b", neg)

    def prop(bsz: int, dim: int, data: list[float], pert: list[float], delta: float, radius: float, scale: float, shift: float) -> None:
        x = np.array(data[: bsz * dim]).reshape(bsz, dim)
        est = alg2(x, radius)
        rs, mean = np.median(x, axis=0), x.mean(0)
        tol = NUMERIC_RTOL * (1 + np.abs(x).max())
        if np.any(np.abs(est - rs) > radius + tol):
            raise Violation("X_est outside B_inf(rs, s)", x=x.tolist(), s=radius)
        close = np.abs(mean - rs) <= radius
        if np.any(np.abs(est - mean)[close] > tol):
            raise Violation("X_est != mean although |mean - rs| <= s", x=x.tolist(), s=radius)
        y = x + delta * np.array(pert[: bsz * dim]).reshape(bsz, dim)
        if np.max(np.abs(alg2(y, radius) - est)) > delta + 4 * tol:
            raise Violation("X_est moved by more than Delta", x=x.tolist(), delta=delta, s=radius)
        if not np.allclose(alg2(scale * x + shift, abs(scale) * radius), scale * est + shift, rtol=1e-9, atol=1e-7):
            raise Violation("affine equivariance fails", x=x.tolist(), a=scale, b=shift)

    proof.hypothesis("reference Alg 2 (numpy median + clip), B = 1..7, d = 1..2", prop, st.integers(1, 7), st.integers(1, 2),
                     vectors(14, -50, 50), vectors(14, -1.0, 1.0), finite_floats(0, 5), finite_floats(0, 10), finite_floats(-4, 4),
                     finite_floats(-20, 20), max_examples=150)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2025, Alg 2 (projection of the mean towards the robust statistic) and its use in Lemmas 3.6-3.7; note 5.7",
    statement=("For X_est = clip(mean, rs - s, rs + s) with rs the coordinate-wise median: X_est in B_inf(rs, s); X_est = mean when "
               "||mean - rs||_inf <= s; moving every point by <= Delta in l_inf moves X_est by <= Delta; and "
               "Alg2({a X_i + b}, |a| s) = a Alg2({X_i}, s) + b."),
    expected=Verdict.PROVED,
    papers=("ghazi2025",),
    check=_run,
)
