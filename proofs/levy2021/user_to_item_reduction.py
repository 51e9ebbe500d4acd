"""Prop 3 / Lemma D.3 reduction from users to items.

z_j = Y + W_j - W_bar with Y ~ N(mu, sigma^2/m), W_j ~ N(0, sigma^2) iid gives z_1..z_m iid N(mu,
sigma^2) and mean(z) = Y exactly.
"""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "levy2021/user_to_item_reduction"


def _mul(x: tuple[sp.Expr, sp.Expr], y: tuple[sp.Expr, sp.Expr], m: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(a I + b J)(c I + e J) in the commutative algebra spanned by I and J = 1 1^T, where J^2 = m J."""
    a, b = x
    c, e = y
    return (a * c, a * e + b * c + b * e * m)


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("Y ~ N(mu, (sigma^2/m) I) independent of W_1..W_m iid N(0, sigma^2 I); z = Y 1 + (I - J/m) W, J = 1 1^T")
    proof.assume("coordinates separate", "the coordinates of Y and W are independent, so one coordinate suffices")
    proof.assume("Gaussian law from two moments", "z is linear in jointly Gaussian variables, hence Gaussian, so its mean and "
                 "covariance determine its law; uncorrelated jointly Gaussian coordinates are independent")
    m = sp.Symbol("m", positive=True, integer=True)
    sigma = sp.Symbol("sigma", positive=True)
    centering = (sp.Integer(1), -1 / m)  # I - J/m
    sq = _mul(centering, centering, m)
    proof.equal("(I - J/m)^2 = I - J/m (idempotent; uses J^2 = m J): coefficient of J", sq[1], centering[1])
    proof.equal("... and coefficient of I", sq[0], centering[0])
    cov = (sigma**2 * sq[0], sigma**2 / m + sigma**2 * sq[1])  # (sigma^2/m) J + sigma^2 (I - J/m)(I - J/m)^T
    proof.equal("Cov(z) = (sigma^2/m) J + sigma^2 (I - J/m)^2 = sigma^2 I: coefficient of I", cov[0], sigma**2)
    proof.equal("... and coefficient of J", cov[1], sp.Integer(0))
    # mean(z) = (1/m) 1^T z = Y + (1/m) 1^T (I - J/m) W, and 1^T (a I + b J) = (a + b m) 1^T
    proof.zero("mean(z) = Y: 1^T (I - J/m) = (1 - m/m) 1^T = 0, for every m", centering[0] + centering[1] * m)
    ys, ws = sp.symbols("Y"), sp.symbols("W0:6")
    means_ok = all(sp.simplify(sum(ys + w - sum(ws[:mm]) / mm for w in ws[:mm]) / mm - ys) == 0 for mm in (1, 2, 3, 6))
    proof.instance("mean(z) = Y written out for m = 1, 2, 3, 6", means_ok, point={"m": "1, 2, 3 or 6"}, cases=4)
    ok = True
    for mm in range(1, 9):
        jm = sp.ones(mm, mm)
        cen = sp.eye(mm) - jm / mm
        cov_m = (sigma**2 / mm) * jm + sigma**2 * cen * cen.T
        ok = ok and sp.simplify(cov_m - sigma**2 * sp.eye(mm)) == sp.zeros(mm, mm)
    proof.instance("explicit m x m covariance equals sigma^2 I for m = 1..8 (sympy matrices)", ok, point={"m": "1..8"}, cases=8)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Levy et al. 2021, Prop 3 (user-level to item-level reduction, note ALG-10 / L17); Ghazi et al. 2023, Lemma D.3",
    statement=("If Y ~ N(mu, (sigma^2/m) I) and W_1..W_m ~ N(0, sigma^2 I) are independent, then z_j = Y + W_j - mean(W) "
               "are i.i.d. N(mu, sigma^2 I) and mean(z) = Y."),
    expected=Verdict.PROVED,
    papers=("levy2021", "ghazi2023"),
    check=_run,
)
