"""Observation 3.5 (k-stability of replace-one neighbours), checked by exhaustive stability search on random small
instances; it is a combinatorial argument sympy cannot reproduce, so the verdict is UNDECIDED unless refuted."""

from __future__ import annotations

import hashlib

from dpaudit.proofs.ghazi2023._deletion import stability_k

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict, Violation, st

NAME = "ghazi2023/observation_3_5_stability"


def _f_factory(seed: int, data: list[int]):
    def value(mask: int) -> float:
        key = repr((seed, tuple(sorted(data[j] for j in range(len(data)) if mask >> j & 1))))
        level = hashlib.sha256(key.encode()).digest()[0] % 3
        return 0.7 * level  # Delta = 1: neighbouring levels are within Delta, levels 0 and 2 are not
    return value


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("x, x' replace-one neighbours (differ in user i); f arbitrary scalar function of the multiset of user data; "
                 "Delta = 1, kappa = 1 (horizon 4 kappa - |S|, note E4)")

    def prop(seed: int, data: list[int], i: int, new: int) -> None:
        n = len(data)
        other = list(data)
        other[i % n] = new
        k = stability_k(_f_factory(seed, data), n, 1, 1.0)
        k2 = stability_k(_f_factory(seed, other), n, 1, 1.0)
        for a, b in ((k, k2), (k2, k)):
            if b is not None and b <= 2 * 1 - 1 and (a is None or a > b + 1):
                raise Violation("k(x) > k(x') + 1 although k(x') <= 2 kappa - 1", seed=seed, x=data, x_prime=other, k=a, k_prime=b)

    proof.hypothesis("exhaustive k(x), k(x') for n = 1..6 users, data ids 0..3", prop, st.integers(0, 10**6),
                     st.lists(st.integers(0, 3), min_size=1, max_size=6), st.integers(0, 5), st.integers(0, 3), max_examples=150)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2023, Observation 3.5 (proof of Thm 3.3); note 5.4",
    statement=("For replace-one neighbours x, x' and r_1 >= 0: if X^{r_1}_stable(x') is non-empty then X^{r_1 + 1}_stable(x) is "
               "non-empty; equivalently k(x) <= k(x') + 1 whenever k(x') <= 2 kappa - 1."),
    expected=Verdict.UNDECIDED,
    papers=("ghazi2023",),
    check=_run,
)
