"""Lemma C.4 ([KLSU19] Lemma 6.8, the fingerprinting identity).

For X_1..X_n ~ N(p, 1) and f : R^n -> [-1, 1], E[(1 - p^2)(f(X) - p) sum_i (X_i - p)] = (1 - p^2)
g'(p) with g(p) = E f(X). PROVED: the Gaussian density's p-derivative is sum_i (x_i - p) times the
density, and E[X_i - p] = 0.
"""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2025/lemma_c4_fingerprinting"

P = sp.Symbol("p", real=True)


def _phi(x: sp.Expr) -> sp.Expr:
    return sp.exp(-((x - P) ** 2) / 2) / sp.sqrt(2 * sp.pi)


def _expect(expr: sp.Expr, xs: list[sp.Symbol]) -> sp.Expr:
    """E[expr] of a polynomial for independent X_i ~ N(p, 1): X_i = p + Z_i, E Z^k = (k - 1)!! for even k, 0 for odd k."""
    zs = [sp.Symbol(f"z_{x.name}", real=True) for x in xs]
    poly = sp.Poly(sp.expand(expr.subs({x: P + z for x, z in zip(xs, zs, strict=True)})), *zs)
    out = sp.Integer(0)
    for powers, coeff in poly.terms():
        out += coeff * sp.Mul(*(sp.factorial2(k - 1) if k % 2 == 0 else 0 for k in powers))
    return sp.expand(out)


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("X_1..X_n i.i.d. N(p, 1), f : R^n -> [-1, 1] measurable, g(p) = E_p f(X)")
    proof.assume("differentiation under the integral sign", "|f| <= 1 and |d/dp prod_i phi(x_i - p)| is dominated by an integrable "
                 "function uniformly for p in a neighbourhood, so g'(p) = int f(x) d/dp prod_i phi(x_i - p) dx (dominated convergence)")
    x = sp.Symbol("x", real=True)
    proof.zero("d/dp log phi(x - p) = x - p (score of the unit Gaussian)", sp.diff(sp.log(_phi(x)), P) - (x - P))
    xs = list(sp.symbols("x1:4", real=True))
    dens = sp.Mul(*(_phi(v) for v in xs))
    proof.zero("n = 3: d/dp prod_i phi(x_i - p) = (sum_i (x_i - p)) prod_i phi(x_i - p) (product rule; the same for every n)",
               sp.diff(dens, P) - sum(v - P for v in xs) * dens)
    proof.zero("E[X_i - p] = int (x - p) phi(x - p) dx = 0, so E[p sum_i (X_i - p)] = 0",
               sp.integrate((x - P) * _phi(x), (x, -sp.oo, sp.oo)))
    f_x, sum_dev, g_prime = sp.symbols("E_f_sum E_sum gprime", real=True)  # E[f S], E[S], g'(p) = E[f S]
    proof.zero("(1 - p^2)(E[f S] - p E[S]) = (1 - p^2) g'(p) when E[f S] = g'(p) and E[S] = 0",
               ((1 - P**2) * (f_x - P * sum_dev) - (1 - P**2) * g_prime).subs({f_x: g_prime, sum_dev: 0}))
    two = list(sp.symbols("y1:3", real=True))
    for label, f in {"f = X1 X2": two[0] * two[1], "f = X1^2 - X2": two[0] ** 2 - two[1], "f = X1^3/3": two[0] ** 3 / 3}.items():
        lhs = _expect((1 - P**2) * (f - P) * (two[0] + two[1] - 2 * P), two)
        rhs = (1 - P**2) * sp.diff(_expect(f, two), P)
        residual = sp.simplify(lhs - rhs)
        proof.instance(f"n = 2, {label}: both sides computed exactly from the Gaussian moments", residual == 0, point={"f": label, "lhs - rhs": residual})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2025, Lemma C.4 (= [KLSU19] Lemma 6.8, eq. (7)); note section 4",
    statement=("For every p and f : R^n -> [-1, 1], with g(p) = E_{X_1..X_n ~ N(p, 1)} f(X): "
               "E[(1 - p^2)(f(X) - p) sum_i (X_i - p)] = (1 - p^2) g'(p)."),
    expected=Verdict.PROVED,
    papers=("ghazi2025",),
    check=_run,
)
