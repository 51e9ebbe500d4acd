"""Observation 3.5 (k-stability of replace-one neighbours), proved.

The paper's three-line proof, made exact. Unrolled (Def 3.2 with Alg 1 line 5), ``x_{-S}`` is in ``X^r_stable(x)``
iff ``|S| <= r`` and no deletion set ``U`` with ``S ⊆ U`` and ``|U| <= 4 kappa`` is *bad* for ``x``
(``||f(x_{-U}) - f(x_{-U-j})|| > Delta`` for some ``j``). Neighbours ``x, x'`` differ only in user ``i``,
so ``bad_x(U) = bad_{x'}(U)`` whenever ``i`` is in ``U`` (both evaluate ``f`` on the same sub-datasets).
Take a stable ``S'`` for ``x'`` and put ``S = S' ∪ {i}`` (which is ``S'`` itself when ``i`` is in ``S'``,
the paper's first case). For every deletion set ``U`` the step below is a propositional implication in
six atoms, decided over all 64 assignments: so it holds for every ``U``, every ``n`` and every ``f``.
"""

from __future__ import annotations

import hashlib
import itertools

import numpy as np
import sympy as sp
from sympy.logic.boolalg import And, Equivalent, Implies, Not

from dpaudit.userlevel.ghazi2023.stability import bitmask_stability
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict, Violation, st

NAME = "ghazi2023/observation_3_5_stability"


def _f_factory(seed: int, data: list[int]):
    def value(users: np.ndarray) -> np.ndarray:
        key = repr((seed, tuple(sorted(int(v) for v in users))))
        return np.array([0.7 * (hashlib.sha256(key.encode()).digest()[0] % 3)])  # Delta = 1: levels 0 and 2 are far
    return value


def _k(seed: int, data: list[int]) -> int | None:
    n = len(data)
    f = _f_factory(seed, data)
    arr = np.asarray(data)

    def values(masks: np.ndarray) -> np.ndarray:
        keep = ((masks[:, None] >> np.arange(n)) & 1) == 0
        return np.stack([f(arr[row]) for row in keep])

    k = int(bitmask_stability(n, values, kappa=1, threshold=1.0).k[0])
    return None if k < 0 else k


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("x, x' replace-one neighbours differing in user i (Def 1.1); f any function of datasets; Delta > 0",
                "P1 (Def 3.2 and Alg 1 line 5, unrolled): x_{-S} in X^r_stable(x) iff |S| <= r and no U "
                "with S ⊆ U, |U| <= 4 kappa is bad for x, bad_x(U) meaning ||f(x_{-U}) - f(x_{-U-j})|| > Delta for some j")
    proof.assume("P2", "for every U containing i, x_{-U} = x'_{-U} and x_{-U-j} = x'_{-U-j} (the users other than i agree), "
                 "so bad_x(U) = bad_x'(U)")
    proof.assume("P3", "|S' ∪ {i}| <= |S'| + 1")
    a, b, c, d, bad, bad_prime = sp.symbols("a b c d B Bp")  # per U: S' ⊆ U, i in U, |U| <= 4 kappa, S'∪{i} ⊆ U, bad_x, bad_x'
    premises = And(Equivalent(d, And(a, b)), Implies(b, Equivalent(bad, bad_prime)), Implies(And(a, c), Not(bad_prime)))
    claim = Implies(And(d, c), Not(bad))
    atoms = (a, b, c, d, bad, bad_prime)
    failing = [dict(zip(atoms, values, strict=True)) for values in itertools.product((True, False), repeat=len(atoms))
               if And(premises, Not(claim)).subs(dict(zip(atoms, values, strict=True))) is sp.true]
    proof.exact("for every deletion set U: [S' stable for x' at U] and P2 imply [S' ∪ {i} stable for x at U] "
                "(propositional, all 64 assignments of the six atoms)", sp.Eq(sp.Integer(len(failing)), 0, evaluate=False),
                counterexample=lambda: {"assignment": str(failing[0])}, cases=64, note="valid")
    r1 = sp.Symbol("r_1", integer=True, nonnegative=True)
    slack = sp.Symbol("t", integer=True, nonnegative=True)
    proof.nonneg("|S' ∪ {i}| <= |S'| + 1 <= r_1 + 1 with |S'| = r_1 - t", (r1 + 1) - ((r1 - slack) + 1))

    def prop(seed: int, data: list[int], i: int, new: int) -> None:
        n = len(data)
        if n < 6:
            return
        other = list(data)
        other[i % n] = new
        k, k2 = _k(seed, data), _k(seed, other)
        for a_, b_ in ((k, k2), (k2, k)):
            if b_ is not None and b_ <= 1 and (a_ is None or a_ > b_ + 1):
                raise Violation("k(x) > k(x') + 1 although k(x') <= 2 kappa - 1", seed=seed, x=data, x_prime=other,
                                k=a_, k_prime=b_)

    proof.hypothesis("k(x) <= k(x') + 1 by the bitmask search of dpaudit (kappa = 1, n = 6..9, data ids 0..3)", prop,
                     st.integers(0, 10**6), st.lists(st.integers(0, 3), min_size=6, max_size=9), st.integers(0, 8),
                     st.integers(0, 3), max_examples=120)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2023, Observation 3.5 (proof of Thm 3.3)",
    statement=("For replace-one neighbours x, x' and r_1 >= 0: if X^{r_1}_stable(x') is non-empty then X^{r_1 + 1}_stable(x) is "
               "non-empty; equivalently k(x) <= k(x') + 1 whenever k(x') <= 2 kappa - 1."),
    expected=Verdict.PROVED,
    papers=("ghazi2023",),
    check=_run,
)
