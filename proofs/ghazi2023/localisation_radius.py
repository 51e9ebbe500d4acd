"""Erratum E6: the regularised minimiser lies within G/lambda of theta_hat only when theta_hat is in K.

The minimiser over K of L + (lambda/2)||. - theta_hat||^2; printed 'always' (DISPROVED); with
theta_hat in K, e.g. after projecting (PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.userlevel.projections import clamp, project_box
from dpaudit.verify import (
    NUMERIC_RTOL,
    CheckResult,
    LemmaCheck,
    Proof,
    Verdict,
    Violation,
    finite_floats,
    st,
    vectors,
)
from dpaudit.verify.geometry import clamp as sym_clamp

PRINTED = "ghazi2023/localisation_radius_any_center"
CORRECTED = "ghazi2023/localisation_radius_center_in_K"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("K = [-1, 1], L(theta) = G theta (convex, G-Lipschitz), F(theta) = L(theta) + (lambda/2)(theta - theta_hat)^2")
    proof.assume("1-D quadratic over an interval", "the minimiser over an interval of a 1-D strictly convex quadratic is the clamp "
                 "of its unconstrained minimiser theta_hat - G/lambda")
    g, lam, hat = sp.Integer(1), sp.Integer(1), sp.Integer(5)
    theta = sym_clamp(hat - g / lam, -1, 1)
    proof.refute("G = 1, lambda = 1, theta_hat = 5 (a noisy iterate outside K): |theta* - theta_hat| vs G/lambda",
                 {"G": 1, "lambda": 1, "theta_hat": 5, "K": "[-1, 1]", "theta*": theta}, g / lam - sp.Abs(theta - hat))
    impl = float(clamp(5.0 - 1.0, -1.0, 1.0))
    proof.numeric_eq("dpaudit clamp gives the same minimiser", impl, float(theta), {"impl": impl})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("F = L + (lambda/2)||. - theta_hat||^2, L convex and G-Lipschitz on K convex, theta_hat in K, theta* = argmin_K F, r = ||theta* - theta_hat||")
    proof.assume("first-order optimality over K", "F(theta_hat) - F(theta*) >= (lambda/2) r^2 (theta_hat in K, first-order optimality of theta* over K)")
    proof.assume("Lipschitz bound on L", "F(theta_hat) - F(theta*) = L(theta_hat) - L(theta*) - (lambda/2) r^2 <= G r - (lambda/2) r^2")
    lam, g, r = sp.symbols("lambda G r", positive=True)
    proof.zero("(lambda/2) r^2 <= G r - (lambda/2) r^2  <=>  lambda r (G/lambda - r) >= 0", (g * r - lam * r**2) - lam * r * (g / lam - r))
    proof.assume("divide by lambda r > 0", "lambda r > 0 (r = 0 is trivial), hence r <= G/lambda")

    def prop(dim: int, data: list[float], lam_: float) -> None:
        low = np.array(data[:dim])
        high = low + np.abs(np.array(data[dim:2 * dim])) + 1e-3
        hat = project_box(np.array(data[2 * dim:3 * dim]), low, high)  # theta_hat in K
        grad = np.array(data[3 * dim:4 * dim])  # linear loss <grad, theta>, G = ||grad||
        theta = project_box(hat - grad / lam_, low, high)  # separable minimiser over the box
        if np.linalg.norm(theta - hat) > np.linalg.norm(grad) / lam_ * (1 + NUMERIC_RTOL):
            raise Violation("minimiser farther than G/lambda", hat=hat.tolist(), grad=grad.tolist(), lam=lam_)

    proof.hypothesis("linear losses on boxes in d = 1..6 via dpaudit project_box", prop, st.integers(1, 6), vectors(24, -10.0, 10.0),
                     finite_floats(1e-2, 100.0), max_examples=150)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2023, Alg 3/4 (K_i = B(theta_hat_{i-1}, G/lambda_i), theta*_{l_i,K_i} = theta*_{l_i,K}); note erratum E6",
        statement=("(as printed) For any theta_hat, the minimiser over K of L + (lambda/2)||theta - theta_hat||^2 (L convex, G-Lipschitz) "
                   "lies within G/lambda of theta_hat."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2023, Alg 3/4 with theta_hat_{i-1} projected onto K; note E6 and 5.14",
        statement=("(corrected) If theta_hat is in K, the minimiser over K of L + (lambda/2)||theta - theta_hat||^2 "
                   "(L convex, G-Lipschitz) lies within G/lambda of theta_hat."),
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
