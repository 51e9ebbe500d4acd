"""Shared steps of the explicit Lemmas B.2 and C.2 (helpers; not a check)."""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import Proof, Region

# |A| = a common kept points, P and Q the points kept on one side only (p = |P|, q = |Q|), all within rho of a centre
A_, P_, Q_ = sp.symbols("a p q", nonnegative=True)


def mean_difference_step(proof: Proof) -> None:
    """Item 9 of the note, scalar form: a|q - p|/((a+p)(a+q)) + p/(a+p) + q/(a+q) <= 2(p + q)/min(a+p, a+q).

    With every point within rho of a centre c: ``mean(A u P) - mean(A u Q)`` is
    ``u_A (q - p)/((a+p)(a+q)) + u_P/(a+p) - u_Q/(a+q)`` with ``||u_A|| <= a rho`` (sums of ``y - c``),
    so its norm is at most rho times the left side (the triangle inequality, assumed below).
    """
    proof.assume("triangle inequality for the sums", "||u_A (q-p)/((a+p)(a+q)) + u_P/(a+p) - u_Q/(a+q)|| <= rho (a |q-p|/((a+p)(a+q)) "
                 "+ p/(a+p) + q/(a+q)) when ||u_A|| <= a rho, ||u_P|| <= p rho, ||u_Q|| <= q rho (sums of y - c over each set)")
    lhs = A_ * sp.Abs(Q_ - P_) / ((A_ + P_) * (A_ + Q_)) + P_ / (A_ + P_) + Q_ / (A_ + Q_)
    rhs = 2 * (P_ + Q_) / sp.Min(A_ + P_, A_ + Q_)
    s = sp.Symbol("s", positive=True)
    pp, qq = sp.symbols("p q", positive=True)
    # both kept sets are non-empty: either a > 0 (write a = s), or a = 0 and p, q > 0
    proof.cases("mean difference <= 2 rho (p + q)/min(|S|, |S'|), a > 0", (rhs - lhs).subs(A_, s), Region.orders([P_, Q_]))
    proof.cases("mean difference <= 2 rho (p + q)/min(|S|, |S'|), a = 0", (rhs - lhs).subs({A_: 0, P_: pp, Q_: qq}),
                Region.orders([pp, qq]))
