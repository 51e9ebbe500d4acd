"""[DERIVED, note 2.8] Tail of a sum of two Laplace variables, and the union bound that sets nu.

P(Lap(b1) + Lap(b2) > t) = (b1^2 e^{-t/b1} - b2^2 e^{-t/b2})/(2(b1^2 - b2^2)), and the union bound
P(L_q + L_th >= (b_q + b_th) ln(1/delta_1)) <= delta_1 used to set the corrected threshold nu.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import integrate

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2025/laplace_sum_tail"


def closed_form(t: float, b1: float, b2: float) -> float:
    """``P(X + Y > t)`` for independent ``X ~ Lap(b1)``, ``Y ~ Lap(b2)``, ``b1 != b2``, ``t >= 0`` (floats)."""
    return (b1**2 * np.exp(-t / b1) - b2**2 * np.exp(-t / b2)) / (2 * (b1**2 - b2**2))


def prove_tail(proof: Proof) -> tuple[sp.Symbol, sp.Symbol, sp.Symbol, sp.Expr]:
    """Record the convolution proof of the closed-form tail on ``proof``; returns ``(b1, b2, t, tail)``."""
    proof.given("X ~ Lap(b1), Y ~ Lap(b2) independent, b1 != b2, t >= 0; P(X + Y > t) = int f_X(x) P(Y > t - x) dx")
    b1, b2 = sp.symbols("b1 b2", positive=True)
    t = sp.Symbol("t", nonnegative=True)
    x = sp.Symbol("x", real=True)
    tail_y = lambda s: sp.exp(-s / b2) / 2  # P(Y > s) for s >= 0  # noqa: E731
    head_y = lambda s: 1 - sp.exp(s / b2) / 2  # P(Y > s) for s < 0  # noqa: E731
    fx_neg, fx_pos = sp.exp(x / b1) / (2 * b1), sp.exp(-x / b1) / (2 * b1)
    up, kap = 1 / b1 + 1 / b2, 1 / b2 - 1 / b1  # kap != 0 because b1 != b2
    # antiderivatives of the three pieces (x < 0, 0 <= x <= t, x > t); each is checked by differentiation
    f1 = sp.exp(-t / b2) / (4 * b1) * sp.exp(up * x) / up
    f2 = sp.exp(-t / b2) / (4 * b1) * sp.exp(kap * x) / kap
    f3 = -sp.exp(-x / b1) / 2 + sp.exp(t / b2) / (4 * b1) * sp.exp(-up * x) / up
    for name, (anti, integrand) in {"x < 0": (f1, fx_neg * tail_y(t - x)), "0 <= x <= t": (f2, fx_pos * tail_y(t - x)),
                                    "x > t": (f3, fx_pos * head_y(t - x))}.items():
        proof.equal(f"F' equals the integrand f_X(x) P(Y > t - x) for {name}", sp.diff(anti, x), integrand)
    proof.assume("limits at infinity", "F_1 -> 0 as x -> -oo and F_3 -> 0 as x -> +oo (exponents with coefficients up = 1/b1 + 1/b2 > 0, 1/b1 > 0)")
    total = f1.subs(x, 0) + (f2.subs(x, t) - f2.subs(x, 0)) + (0 - f3.subs(x, t))
    target = (b1**2 * sp.exp(-t / b1) - b2**2 * sp.exp(-t / b2)) / (2 * (b1**2 - b2**2))
    proof.equal("the convolution integral equals the closed form (b1 != b2)", total, target, hypotheses=[sp.Ne(b1, b2)])
    return b1, b2, t, target


def _run() -> CheckResult:
    proof = Proof(NAME)
    b1, b2, _t, _target = prove_tail(proof)
    tail_y = lambda s: sp.exp(-s / b2) / 2  # P(Y > s) for s >= 0  # noqa: E731
    lg = sp.Symbol("ell", positive=True)  # ell = ln(1/delta_1)
    proof.equal("union bound: P(X >= b1 ell) + P(Y >= b2 ell) = e^{-ell}/2 + e^{-ell}/2 = delta_1",
                tail_y(b2 * lg).subs(b2, b1) + tail_y(b2 * lg), sp.exp(-lg))
    rng = proof.rng
    pts, lhs, rhs = [], [], []
    for _ in range(60):
        bb1, bb2, tt = float(rng.uniform(0.2, 5)), float(rng.uniform(0.2, 5)), float(rng.uniform(0, 15))
        if abs(bb1 - bb2) < 1e-3:
            continue
        def density_times_tail(v: float, b1_: float = bb1, b2_: float = bb2, t_: float = tt) -> float:
            tail = 0.5 * np.exp(-(t_ - v) / b2_) if t_ - v >= 0 else 1 - 0.5 * np.exp((t_ - v) / b2_)
            return float(np.exp(-abs(v) / b1_) / (2 * b1_) * tail)

        num, _err = integrate.quad(density_times_tail, -60 * bb1, tt + 60 * bb1, points=[0.0, tt], limit=200, epsabs=1e-13)
        lhs.append(num)
        rhs.append(closed_form(tt, bb1, bb2))
        pts.append(f"b1={bb1:.3f}, b2={bb2:.3f}, t={tt:.3f}")
    proof.numeric_le("closed form vs quadrature at 60 seeded (b1, b2, t) (|difference| <= 1e-10)", np.abs(np.array(lhs) - np.array(rhs)), 1e-10,
                     {"case": np.array(pts)})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2025, Lemma 3.8 / Alg 4 threshold, note 2.8 [DERIVED]: nu_s >= c0 B + (b_q + b_th) ln(1/delta_1)",
    statement=("For independent Lap(b1), Lap(b2) with b1 != b2 and t >= 0: P(Lap(b1) + Lap(b2) > t) = "
               "(b1^2 e^{-t/b1} - b2^2 e^{-t/b2})/(2(b1^2 - b2^2)); and P(L_q + L_th >= (b_q + b_th) ln(1/delta_1)) <= delta_1."),
    expected=Verdict.PROVED,
    papers=("ghazi2025",),
    check=_run,
)
