"""Thm 3.3's sensitivity step: the two released centres are at most 8 kappa Delta apart.

They are also at most (2 r_1 + 3) Delta <= (4 kappa + 1) Delta apart; and erratum E4: the proof's
count of the common sub-dataset omits the differing user (printed DISPROVED; corrected PROVED, the
conclusion survives).

Setting (proof of Thm 3.3): ``x, x'`` differ in user ``i``; ``S`` is chosen for ``x`` at ``R1 = r_1`` and
``S'`` for ``x'`` at ``r_1 + 1``, so ``|S| <= r_1``, ``|S'| <= r_1 + 1``, ``r_1 <= 2 kappa - 1``. The common
sub-dataset is ``x* = x_{-(S ∪ S' ∪ {i})} = x'_{-(S ∪ S' ∪ {i})}`` (P2 of Observation 3.5). From
``x_{-S}`` it is reached by deleting the users of ``S' ∪ {i}`` not in ``S`` one at a time, and from
``x'_{-S'}`` those of ``S ∪ {i}`` not in ``S'``. Every intermediate deletion set ``U`` has
``|U| <= |S ∪ S' ∪ {i}| - 1 <= 2 r_1 + 1 <= 4 kappa - 1``, so stability of ``S`` (resp. ``S'``) bounds each
step by Delta, and the triangle inequality adds the steps.
"""

from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict, Violation, st

LEMMA = "ghazi2023/thm33_centre_distance"
PRINTED = "ghazi2023/thm33_common_count_printed"
CORRECTED = "ghazi2023/thm33_common_count_corrected"

_KAPPA = sp.Symbol("kappa", integer=True, positive=True)
_T = sp.Symbol("t", integer=True, nonnegative=True)  # r_1 = 2 kappa - 1 - t
_R1 = 2 * _KAPPA - 1 - _T


def _stable_sets(values: dict[frozenset[int], float], n: int, r: int, horizon: int, delta: float) -> list[frozenset[int]]:
    """Every S with |S| <= r and no bad U ⊇ S, |U| <= horizon (the unrolled Alg 1 line 5)."""
    def bad(u: frozenset[int]) -> bool:
        return any(abs(values[u] - values[u | {j}]) > delta for j in range(n) if j not in u)
    bads = [u for size in range(horizon + 1) for u in map(frozenset, itertools.combinations(range(n), size)) if bad(u)]
    return [s for size in range(r + 1) for s in map(frozenset, itertools.combinations(range(n), size))
            if not any(s <= u for u in bads)]


def _lemma() -> CheckResult:
    proof = Proof(LEMMA)
    proof.given("x, x' replace-one neighbours differing in user i; r_1 <= 2 kappa - 1; S in X^{r_1}_stable(x), "
                "S' in X^{r_1+1}_stable(x') (P1 of Observation 3.5: no bad U above S, resp. S', with |U| <= 4 kappa)")
    proof.assume("P2", "x_{-V} = x'_{-V} for every V containing i (neighbours share every sub-dataset without user i)")
    proof.assume("P3", "triangle inequality along the deletion path; a step from a deletion set U that is not bad "
                 "moves f by at most Delta (the definition of bad)")
    proof.assume("P4", "|(S' ∪ {i}) \\ S| <= |S'| + 1, |(S ∪ {i}) \\ S'| <= |S| + 1, |S ∪ S' ∪ {i}| <= |S| + |S'| + 1")
    steps = (_R1 + 2) + (_R1 + 1)
    proof.nonneg("the deepest intermediate set: 4 kappa - 1 - (|S| + |S'| + 1 - 1) >= 0 with |S| <= r_1, |S'| <= r_1 + 1",
                 (4 * _KAPPA - 1) - (_R1 + (_R1 + 1)))
    proof.equal("number of steps (r_1 + 2) + (r_1 + 1) = 2 r_1 + 3", steps, 2 * _R1 + 3)
    proof.nonneg("2 r_1 + 3 <= 4 kappa + 1 for r_1 <= 2 kappa - 1", (4 * _KAPPA + 1) - (2 * _R1 + 3))
    proof.nonneg("4 kappa + 1 <= 8 kappa for kappa >= 1 (the paper's 8 kappa Delta)", 8 * _KAPPA - (4 * _KAPPA + 1) + 0 * _T)

    compared = [0]

    def prop(seed: int, n: int, i: int, new: int) -> None:
        rng = np.random.default_rng(seed)
        kappa, delta = 1, 1.0
        ids = rng.integers(0, 3, size=n)
        ids2 = ids.copy()
        ids2[i % n] = new
        table = rng.normal(0.0, 0.6, size=(4,) * 3)  # f of a multiset of ids in {0, 1, 2}: a random table (symmetric)

        def f_values(arr: np.ndarray) -> dict[frozenset[int], float]:
            out = {}
            for size in range(4 * kappa + 2):
                for u in map(frozenset, itertools.combinations(range(n), size)):
                    counts = np.bincount(np.delete(arr, list(u)), minlength=3)
                    out[u] = float(table[min(counts[0], 3), min(counts[1], 3), min(counts[2], 3)])
            return out

        v, v2 = f_values(ids), f_values(ids2)
        for r1 in range(2 * kappa):
            for s in _stable_sets(v, n, r1, 4 * kappa, delta):
                for s2 in _stable_sets(v2, n, r1 + 1, 4 * kappa, delta):
                    compared[0] += 1
                    gap = abs(v[s] - v2[s2])
                    if gap > (2 * r1 + 3) * delta + 1e-12:
                        raise Violation("released centres farther than (2 r_1 + 3) Delta", seed=seed, n=n, r1=r1,
                                        S=sorted(s), S_prime=sorted(s2), gap=gap)

    proof.hypothesis("every pair of stable sets on random symmetric f, kappa = 1, n = 6..8", prop, st.integers(0, 10**6),
                     st.integers(6, 8), st.integers(0, 7), st.integers(0, 2), max_examples=40)
    proof.numeric_count("pairs (S, S') of stable sets compared in the property above (the check is not vacuous)",
                        compared[0], 0 if compared[0] > 0 else 1, {"pairs": compared[0]})
    return proof.result()


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("|x*| = n - |S ∪ S' ∪ {i}|: x* keeps the users outside S, S' and the differing user i (P2)")
    n, r1 = 10, 1
    s, s_prime, i = {0}, {1, 2}, 3  # |S| = r_1, |S'| = r_1 + 1, i in neither
    common = n - len(s | s_prime | {i})
    proof.refute("n = 10, r_1 = 1, S = {0}, S' = {1, 2}, i = 3: |x*| = 6 against the printed n - r_1 - (r_1 + 1) = 7",
                 {"n": n, "r_1": r1, "S": sorted(s), "S'": sorted(s_prime), "i": i, "|x*|": common},
                 sp.Integer(common) - (n - r1 - (r1 + 1)))
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("|S| <= r_1, |S'| <= r_1 + 1, r_1 <= 2 kappa - 1")
    proof.assume("P4", "|S ∪ S' ∪ {i}| <= |S| + |S'| + 1")
    n = sp.Symbol("n", integer=True, positive=True)
    proof.nonneg("|x*| - (n - (2 r_1 + 2)) >= 0 (worst case |S| = r_1, |S'| = r_1 + 1)", (n - (_R1 + (_R1 + 1) + 1)) - (n - (2 * _R1 + 2)))
    proof.nonneg("n - (2 r_1 + 2) >= n - 4 kappa: the proof's |x*| >= |x| - 4 kappa still holds", (n - (2 * _R1 + 2)) - (n - 4 * _KAPPA))
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=LEMMA,
        source="Ghazi et al. 2023, proof of Thm 3.3 ('||f(x_hat_{r1}) - f(x_hat'_{r1+1})|| <= 8 kappa Delta'); note section 3 step 5 and 5.6",
        statement=("For replace-one neighbours x, x' (differing in user i), r_1 <= 2 kappa - 1, S in X^{r_1}_stable(x) and "
                   "S' in X^{r_1+1}_stable(x'): ||f(x_{-S}) - f(x'_{-S'})|| <= (2 r_1 + 3) Delta <= (4 kappa + 1) Delta <= 8 kappa Delta."),
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=_lemma,
    ),
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2023, proof of Thm 3.3 ('|x*| >= |x| - r_1 - (r_1 + 1) >= |x| - 4 kappa'); note erratum E4",
        statement="(as printed) The common sub-dataset x* = x_hat_{r1} ∩ x_hat'_{r1+1} has at least |x| - r_1 - (r_1 + 1) users.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2023, proof of Thm 3.3 with the differing user counted; note erratum E4",
        statement=("(corrected) |x*| >= |x| - (2 r_1 + 2) >= |x| - 4 kappa for r_1 <= 2 kappa - 1: the differing user is "
                   "outside x* too, and the bound the proof uses still holds."),
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
