"""Alg 4 (Phased ERM): the rounds use at most n users in total, and objective (7) is lambda_t-strongly convex."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "levy2021/phased_erm_rounds"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("n_t = floor(n / 2^t) users in round t = 1..T, disjoint (Alg 4 line 4)",
                 "L(.; S_t) convex: L(y) - L(x) - <grad L(x), y - x> >= 0")
    n = sp.Symbol("n", positive=True)
    t, big_t = sp.symbols("t T", positive=True, integer=True)
    total = sp.summation(n / 2**t, (t, 1, big_t))
    proof.nonneg("sum_{t=1}^T n/2^t = n (1 - 2^{-T}) <= n (floors only lower it)", n - total)
    lam = sp.Symbol("lambda_t", positive=True)
    xs, ys, cs = sp.symbols("x0:3", real=True), sp.symbols("y0:3", real=True), sp.symbols("c0:3", real=True)
    reg = lambda v: lam / 2 * sum((vi - ci) ** 2 for vi, ci in zip(v, cs, strict=True))  # noqa: E731
    grad = [lam * (xi - ci) for xi, ci in zip(xs, cs, strict=True)]
    gap = reg(ys) - reg(xs) - sum(g * (yi - xi) for g, yi, xi in zip(grad, ys, xs, strict=True))
    proof.zero("regulariser (lambda_t/2)||theta - theta_hat||^2 has Bregman gap exactly (lambda_t/2)||y - x||^2 (d = 3)",
               gap - lam / 2 * sum((yi - xi) ** 2 for yi, xi in zip(ys, xs, strict=True)))
    proof.assume("convex plus strongly convex",
                 "objective (7) = L + regulariser; adding the convex L's non-negative Bregman gap gives lambda_t-strong convexity")
    rng = proof.rng
    nn = rng.integers(1, 10**7, 2000)
    used = np.array([sum(int(k) >> s for s in range(1, int(k).bit_length() + 1)) for k in nn])
    proof.numeric_le("integer sum_t floor(n/2^t) <= n for 2000 seeded n (all rounds with n_t >= 1)", used, nn, {"n": nn})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Levy et al. 2021, Alg 4 lines 3-4 and objective (7); docs/papers/levy2021.md, check L16",
    statement=("sum_{t >= 1} floor(n/2^t) <= n, so the rounds of Alg 4 can use disjoint users; and for convex L, "
               "L(theta) + (lambda_t/2)||theta - theta_hat||^2 is lambda_t-strongly convex."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
