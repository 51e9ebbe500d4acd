"""Thm D.7's arithmetic.

B = G/mu, sigma = B/(1000 sqrt d), alpha = d sigma/(100 eps n sqrt m) give d sigma/(50 alpha eps
sqrt m) = 2n > n and (mu/2) alpha^2 = G^2 d/(2 10^10 mu eps^2 n^2 m).
"""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2023/thm_d7_arithmetic"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("B = G/mu, sigma = B/(1000 sqrt(d)), psi = 1, alpha = d sigma/(100 eps n sqrt(m)) (proof of Thm D.7)")
    g, mu, d, eps, n, m = sp.symbols("G mu d epsilon n m", positive=True)
    big_b = g / mu
    sigma = big_b / (1000 * sp.sqrt(d))
    alpha = d * sigma / (100 * eps * n * sp.sqrt(m))
    proof.zero("Lemma D.6's conclusion d sigma/(50 alpha eps sqrt m) equals 2n (> n: contradiction)", d * sigma / (50 * alpha * eps * sp.sqrt(m)) - 2 * n)
    proof.zero("(mu/2) alpha^2 = G^2 d/(2 10^10 mu eps^2 n^2 m)", mu / 2 * alpha**2 - g**2 * d / (2 * 10**10 * mu * eps**2 * n**2 * m))
    h = sp.Symbol("h", nonnegative=True)  # n = sqrt(12) sqrt(d)/(100 eps) + h
    proof.nonneg("alpha^2 <= d sigma^2/(12 m) when n >= sqrt(12) sqrt(d)/(100 eps)",
                 (d * sigma**2 / (12 * m) - alpha**2).subs(n, sp.sqrt(12) * sp.sqrt(d) / (100 * eps) + h))
    q = sp.Symbol("q", nonnegative=True)  # m = (1 + q)^2 >= 1
    proof.nonneg("B - sigma sqrt(d)/sqrt(m) - 100 sqrt(d) sigma > 0 for m >= 1 (Lemma D.6's condition on B, psi = 1)",
                 (big_b - sigma * sp.sqrt(d) / sp.sqrt(m) - 100 * sp.sqrt(d) * sigma).subs(m, (1 + q) ** 2))
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2023, proof of Thm D.7 (strongly convex lower bound) with Lemma D.6; note 5.20",
    statement=("With B = G/mu, sigma = B/(1000 sqrt d), alpha = d sigma/(100 eps n sqrt m): d sigma/(50 alpha eps sqrt m) = 2n, "
               "(mu/2) alpha^2 = G^2 d/(2 * 10^10 mu eps^2 n^2 m), alpha^2 <= d sigma^2/(12 m) whenever n >= sqrt(12 d)/(100 eps), "
               "and B > sigma sqrt(d)/sqrt(m) + 100 sqrt(d) sigma for m >= 1."),
    expected=Verdict.PROVED,
    papers=("ghazi2023",),
    check=_run,
)
