"""Negative control: Thm 3.3's guarantee is for replace-one neighbours only.

Under add/remove, Alg 1 can output ⊥ with probability 1 on x and 0 on x plus one user.
"""

from __future__ import annotations

import math

import sympy as sp
from dpaudit.proofs.ghazi2023._deletion import stability_k, stability_k_symmetric

from dpaudit.mechanisms.discrete import tdlap_kappa
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2023/alg1_add_remove_neighbours"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("Alg 1 outputs ⊥ iff no stable x_{-S} with |S| <= R1 exists, R1 in {0..2 kappa}; so k(x) = None gives P[⊥] = 1 "
                 "and k(x) = 0 gives P[⊥] = 0",
                 "f(y) = 10 Delta 1[|y| = n0 - 4 kappa - 1] (note P1), n0 = 4 kappa + 5 users")
    eps, delta = 1.0, 0.5
    kappa = tdlap_kappa(eps / 2, delta / (math.exp(eps / 2) + 2))
    n0 = 4 * kappa + 5
    f = lambda size: 10.0 if size == n0 - 4 * kappa - 1 else 0.0  # noqa: E731  (Delta = 1)
    k_x, k_added = stability_k_symmetric(f, n0, kappa, 1.0), stability_k_symmetric(f, n0 + 1, kappa, 1.0)
    # the size-based search agrees with exhaustive enumeration on a small instance (kappa = 1, n0 = 9)
    small = lambda size: 10.0 if size == 4 else 0.0  # noqa: E731
    brute = [stability_k(lambda mask: small(bin(mask).count("1")), nn, 1, 1.0) for nn in (9, 10)]
    proof.instance("the size-based stability search agrees with exhaustive enumeration at kappa = 1 (n0 = 9, 10)",
                   brute == [None, 0] and [stability_k_symmetric(small, nn, 1, 1.0) for nn in (9, 10)] == brute,
                   point={"kappa": 1, "n0": "9, 10", "exhaustive k": str(brute)}, cases=2)
    p_bot_x, p_bot_added = sp.Integer(1 if k_x is None else 0), sp.Integer(1 if k_added is None else 0)
    margin = sp.E * p_bot_added + sp.Rational(1, 2) - p_bot_x  # e^eps P[⊥ | x + u] + delta - P[⊥ | x], eps = 1
    proof.refute("P[⊥ | x] <= e^eps P[⊥ | x + u] + delta fails (eps = 1, delta = 1/2)", {"epsilon": eps, "delta": delta,
                 "kappa": kappa, "|x|": n0, "P[bottom | x]": 1, "P[bottom | x + u]": 0}, margin,
                 conditions={f"kappa = {kappa}: k(x) = None for |x| = {n0}": k_x is None,
                             f"k(x + u) = 0 for |x + u| = {n0 + 1}": k_added == 0})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2023, Thm 3.3 (stated for replace-one user-level neighbours, Def 1.1); note pitfall P1 and 5.5",
    statement="(negative control) Alg 1 (DelOutputPert) is (eps, delta)-DP also for add/remove-one-user neighbours.",
    expected=Verdict.DISPROVED,
    papers=("ghazi2023",),
    check=_run,
    role="control",
)
