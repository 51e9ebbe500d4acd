"""Erratum E3: Alg 2's printed threshold lacks the union bound over deletion sets that Cor 3.7 / Thm 3.1 need.

DISPROVED at the note's numbers; the threshold Delta* with it dominates Thm 3.6 at the union-bounded
level on every sub-dataset the check touches (PROVED).
"""

from __future__ import annotations

import sympy as sp

from dpaudit.bounds.ghazi2023 import KAPPA, THRESHOLD_ALG2, threshold_union
from dpaudit.bounds.symbols import L, delta, epsilon, gamma, m, mu, n
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2023/alg2_threshold_union_bound_printed"
CORRECTED = "ghazi2023/alg2_threshold_union_bound_corrected"


def _thm36_at(level: sp.Expr, users: sp.Expr) -> sp.Expr:
    """Thm 3.6's bound 5 G sqrt(ln(1/level)) / (mu (users - 1) sqrt(m)) for a dataset of ``users`` users."""
    return 5 * L * sp.sqrt(sp.log(1 / level)) / (mu * (users - 1) * sp.sqrt(m))


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("what Cor 3.7's proof needs: Thm 3.6 for each of the <= (n + 1)^{4 kappa + 1} pairs (S, i), |S| <= 4 kappa, "
                "at level beta/(n + 1)^{4 kappa + 1}, on sub-datasets of n - |S| >= n - 4 kappa users")
    point = {n: 10**4, m: 10**4, gamma: sp.Rational(1, 100), epsilon: 1, delta: sp.Rational(1, 10**5), L: 1, mu: 1}
    kappa = KAPPA.subs(point)
    needed = _thm36_at(gamma / (n + 1) ** (4 * kappa + 1), n - 4 * kappa).subs(point)
    printed = THRESHOLD_ALG2.subs(point)
    proof.refute("n = m = 10^4, beta = 0.01, (eps, delta) = (1, 1e-5), kappa = 27: printed Delta vs the union-bounded need",
                 {"n": 10**4, "m": 10**4, "beta": 0.01, "kappa": kappa, "printed Delta (G = mu = 1)": printed,
                  "needed": needed}, printed - needed)
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.cite("union bound", "P[some (S, i) fails] <= sum of the probabilities; each at level beta/(n + 1)^{4 kappa + 1}")
    proof.assume("counting", "#{(S, i): |S| <= r, i not in S} <= n sum_{s <= r} C(n, s) <= (n + 1)^{r + 1} (C(n, s) <= C(r, s) n^s)")
    proof.assume("Thm 3.6 on sub-datasets", "conditioned on which users are deleted, x^pi_{-S} is a random permutation of its items")
    k_, t = sp.symbols("k t", integer=True, nonnegative=True)  # k = kappa; a sub-dataset deletes s = 4k - t users
    nn = sp.Symbol("n", integer=True, positive=True)
    users = 4 * k_ + 2 + nn  # n >= 4 kappa + 2 users in total
    union = threshold_union(k_).subs(n, users)
    level = gamma / (users + 1) ** (4 * k_ + 1)
    proof.equal("ln(1/level) = (4 kappa + 1) ln(n + 1) + ln(1/beta)",
                sp.expand_log(sp.log(1 / level), force=True),
                sp.expand_log((4 * k_ + 1) * sp.log(users + 1) + sp.log(1 / gamma), force=True))
    core = 5 * L * sp.sqrt((4 * k_ + 1) * sp.log(users + 1) + sp.log(1 / gamma)) / (mu * sp.sqrt(m))
    # ln(1/level) >= 0 (level <= beta < 1, a failure probability, and log is increasing) is named ell (a printed
    # premise): the kernel proves a sqrt defined only from an argument it can sign, and it does not sign this log
    ell = sp.Symbol("ell", nonnegative=True)
    log_inverse_level = (4 * k_ + 1) * sp.log(users + 1) + sp.log(1 / gamma)
    proof.assume("ell = ln(1/level) >= 0", "level = beta/(n + 1)^{4 kappa + 1} <= beta < 1 and log is increasing")
    proof.equal("Delta* = C / (n - 4 kappa - 1) with C = 5 G sqrt(ln(1/level)) / (mu sqrt(m)), ln(1/level) = ell",
                union.subs(log_inverse_level, ell), (core / (users - 4 * k_ - 1)).subs(log_inverse_level, ell))
    proof.nonneg("Thm 3.6 at the level on n - s users is C / (n - s - 1); for s = 4 kappa - t <= 4 kappa: "
                 "1/(n - 4 kappa - 1) - 1/(n - s - 1) >= 0",
                 sp.factor(sp.together(1 / (users - 4 * k_ - 1) - 1 / (users - (4 * k_ - t) - 1))))
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2023, Alg 2 line 3 (Delta = 10 G sqrt(log(1/beta))/(mu n sqrt(m))) vs Cor 3.7 and Thm 3.1; note erratum E3",
        statement=("(as printed) Alg 2's Delta is at least Thm 3.6's bound at the union-bounded level beta/(n + 1)^{4 kappa + 1} on "
                   "sub-datasets of n - 4 kappa users, so Delta_bar_{4 kappa} theta*(x^pi) <= Delta w.p. 1 - beta as Thm 3.1 needs."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2023, Cor 3.7 with explicit constants (Thm 3.6 + union bound); note ALG-2 Delta* and erratum E3",
        statement=("(corrected) Delta* = 5 G sqrt((4 kappa + 1) ln(n + 1) + ln(1/beta))/(mu (n - 4 kappa - 1) sqrt(m)) is at least "
                   "Thm 3.6's bound at level beta/(n + 1)^{4 kappa + 1} on every sub-dataset of n - s users, s <= 4 kappa."),
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
