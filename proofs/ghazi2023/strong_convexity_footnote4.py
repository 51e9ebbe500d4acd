"""Erratum E10 (footnote 4): a gradient-growth characterisation of strong convexity, one direction of which fails.

'mu-strongly convex iff ||grad f(a) - grad f(b)|| >= mu ||a - b||'. The 'if' direction is false (f =
-theta^2; DISPROVED); the 'only if' direction holds (PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2023/footnote4_strong_convexity_iff"
CORRECTED = "ghazi2023/footnote4_strong_convexity_implies_growth"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("mu-strong convexity: f(a x + (1 - a) y) <= a f(x) + (1 - a) f(y) - a (1 - a) mu/2 ||x - y||^2 for a in [0, 1]")
    th, th2 = sp.symbols("theta theta_p", real=True)
    f = lambda v: -(v**2)  # noqa: E731
    mu = sp.Integer(1)
    grad_gap = sp.Abs(sp.diff(f(th), th) - sp.diff(f(th2), th2)) - mu * sp.Abs(th - th2)
    proof.zero("f = -theta^2 has ||grad f(a) - grad f(b)|| - mu ||a - b|| = |a - b| >= 0 (gradient condition holds, mu = 1)",
               sp.simplify(grad_gap - sp.Abs(th - th2)))
    x, y, a = sp.Integer(0), sp.Integer(1), sp.Rational(1, 2)
    margin = (a * f(x) + (1 - a) * f(y) - a * (1 - a) * mu / 2 * (x - y) ** 2) - f(a * x + (1 - a) * y)
    proof.refute("f = -theta^2, mu = 1, x = 0, y = 1, a = 1/2 violates strong convexity", {"f": "-theta^2", "mu": 1, "x": 0, "y": 1,
                 "a": "1/2"}, margin)
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("f differentiable and mu-strongly convex: f(y) >= f(x) + <g_x, y - x> + (mu/2)||y - x||^2 for all x, y")
    proof.assume("Cauchy-Schwarz in the plane", "Cauchy-Schwarz in R^d reduces to the plane spanned by g = g_x - g_y and v = x - y")
    fx, fy, gxv, gyv, v2, mu = sp.symbols("f_x f_y gx_v gy_v v2 mu", real=True)
    # (1) f_y - f_x + gx_v - (mu/2) v2 >= 0 with gx_v = <g_x, x - y>... written as inequalities with slacks s1, s2 >= 0
    s1, s2 = sp.symbols("s1 s2", nonnegative=True)
    ineq1 = fy - fx + gxv - mu / 2 * v2 - s1  # = 0: f_y = f_x + <g_x, y - x> + mu/2 |v|^2 + s1, with gx_v = <g_x, x - y>
    ineq2 = fx - fy - gyv - mu / 2 * v2 - s2  # = 0: f_x = f_y + <g_y, x - y> + mu/2 |v|^2 + s2
    proof.zero("adding the two first-order inequalities: <g_x - g_y, x - y> - mu ||x - y||^2 = s1 + s2 >= 0",
               (ineq1 + ineq2) - ((gxv - gyv) - mu * v2 - s1 - s2))
    g1, g2, w1, w2 = sp.symbols("g1 g2 v1 v2c", real=True)
    proof.certificate("Cauchy-Schwarz (plane): (g1^2 + g2^2)(v1^2 + v2^2) - (g1 v1 + g2 v2)^2 >= 0",
                      (g1**2 + g2**2) * (w1**2 + w2**2) - (g1 * w1 + g2 * w2) ** 2, (g1 * w2 - g2 * w1) ** 2)
    gn, vn = sp.symbols("gnorm vnorm", positive=True)
    slack = sp.Symbol("t", nonnegative=True)
    proof.zero("mu ||v||^2 <= ||g|| ||v|| and ||v|| > 0 give ||g|| - mu ||v|| = (||g|| ||v|| - mu ||v||^2)/||v||",
               (gn - mu * vn) - (gn * vn - mu * vn**2) / vn)
    del slack
    rng = proof.rng
    lhs, rhs = [], []
    for _ in range(300):
        d = int(rng.integers(1, 8))
        q, _ = np.linalg.qr(rng.normal(size=(d, d)))
        mu_ = float(rng.uniform(0.01, 3))
        lam = mu_ + rng.exponential(2.0, size=d)
        lam[0] = mu_
        amat = q @ np.diag(lam) @ q.T  # f = theta^T A theta / 2, mu-strongly convex
        v = rng.normal(size=d)
        lhs.append(mu_ * np.linalg.norm(v))
        rhs.append(np.linalg.norm(amat @ v))
    proof.numeric_le("quadratics with lambda_min(A) = mu: mu ||v|| <= ||A v|| (300 seeded, d <= 7)", lhs, rhs, {"case": np.arange(300)})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2023, footnote 4 ('f is mu-strongly convex iff ||grad f(theta) - grad f(theta')|| >= mu ||theta - theta'||'); note E10",
        statement="(as printed, 'if' direction) If ||grad f(a) - grad f(b)|| >= mu ||a - b|| for all a, b, then f is mu-strongly convex.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2023, footnote 4, 'only if' direction; note E10",
        statement="(corrected) If f is differentiable and mu-strongly convex, then ||grad f(a) - grad f(b)|| >= mu ||a - b|| for all a, b.",
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
