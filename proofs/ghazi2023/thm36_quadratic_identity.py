"""Thm 3.6 for the quadratic loss: ||theta*(x) - theta*(x_{-n})|| = ||xbar_n - xbar|| / (n - 1) exactly."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2023/thm36_quadratic_identity"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("l(theta; x) = (mu/2)||theta - x||^2, unconstrained; theta*(x) minimises the average loss over all n m items")
    proof.assume("coordinates separate", "the loss is a sum over coordinates, so one coordinate suffices")
    n = sp.Symbol("n", positive=True, integer=True)
    xbar, xn = sp.symbols("xbar xbar_n", real=True)  # overall mean and user n's mean (each user has m items)
    theta_all = xbar
    theta_minus = (n * xbar - xn) / (n - 1)  # mean of the remaining (n - 1) m items
    proof.zero("theta*(x) - theta*(x_{-n}) = (xbar_n - xbar)/(n - 1)", theta_all - theta_minus - (xn - xbar) / (n - 1),
               hypotheses=[n >= 2])  # removing user n leaves n - 1 >= 1 users
    mu, count = sp.symbols("mu N", positive=True)
    th, total, z = sp.symbols("theta S z", real=True)
    # d/dtheta sum_i (mu/2)(theta - z_i)^2 = sum_i mu (theta - z_i) = mu (N theta - S) for N items with sum S
    proof.equal("each term's derivative: d/dtheta (mu/2)(theta - z)^2 = mu (theta - z)", sp.diff(mu / 2 * (th - z) ** 2, th), mu * (th - z))
    proof.zero("first-order condition: mu (N theta - S) = 0 at theta = S/N, the mean (strictly convex: the minimiser)",
               (mu * (count * th - total)).subs(th, total / count))
    rng = proof.rng
    lhs, rhs = [], []
    for _ in range(200):
        nn, mm, dd = int(rng.integers(2, 30)), int(rng.integers(1, 20)), int(rng.integers(1, 6))
        data = rng.normal(size=(nn, mm, dd)) * rng.uniform(0.1, 10)
        full = data.reshape(-1, dd).mean(0)
        minus = data[:-1].reshape(-1, dd).mean(0)
        lhs.append(np.linalg.norm(full - minus))
        rhs.append(np.linalg.norm(data[-1].mean(0) - full) / (nn - 1))
    proof.numeric_eq("numpy means of 200 seeded user-level datasets", lhs, rhs, {"case": np.arange(200)})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2023, Thm 3.6 (deletion stability of theta*), quadratic case",
    statement=("For l(theta; x) = (mu/2)||theta - x||^2 and n users with m items each, "
               "||theta*(x) - theta*(x_{-n})|| = ||xbar_n - xbar|| / (n - 1), where xbar_n is user n's mean and xbar the overall mean."),
    expected=Verdict.PROVED,
    papers=("ghazi2023",),
    check=_run,
)
