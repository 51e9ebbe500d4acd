"""App. A: for sum_i v_i = 0, E||sum_{j<=m} v_pi(j)||^2 = m (N - m)/(N - 1) (1/N) sum_i ||v_i||^2 <= m G^2."""

from __future__ import annotations

import itertools
from fractions import Fraction

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Region, Verdict, eq, le, lt

NAME = "ghazi2023/lemma38_second_moment"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("v_1..v_N with sum_i v_i = 0 and ||v_i|| <= G; pi uniform, so {pi(1..m)} is a uniform m-subset; 1 <= m <= N, N >= 2")
    proof.assume("second moment of a uniform m-subset", "E||sum||^2 = m E||v_a||^2 + m(m - 1) E<v_a, v_b> (a != b uniform); "
                 "E<v_a, v_b> = (||sum v||^2 - S)/(N(N - 1)) = -S/(N(N - 1)), S = sum ||v_i||^2")
    m, big_n, big_s = sp.symbols("m N S", positive=True)
    second = m * big_s / big_n + m * (m - 1) * (-big_s / (big_n * (big_n - 1)))
    proof.equal("m S/N - m(m - 1) S/(N(N - 1)) = m (N - m)/(N - 1) * S/N", second, m * (big_n - m) / (big_n - 1) * big_s / big_n,
                hypotheses=[big_n >= 2])  # N >= 2 (given)
    g = sp.Symbol("G", positive=True)
    mi, ni = sp.symbols("m_i N_i", positive=True, integer=True)
    s_gap = sp.Symbol("s", nonnegative=True)  # S = N G^2 - s, since each ||v_i||^2 <= G^2
    bound = (mi * g**2 - mi * (ni - mi) / (ni - 1) * (ni * g**2 - s_gap) / ni)
    domain = [le(1, mi), le(mi, ni), le(2, ni)]
    regions = [Region.where("m < N", lt(mi, ni), le(1, mi)), Region.where("m = N >= 2", eq(mi, ni), le(2, ni))]
    proof.cases("<= m G^2 (S = N G^2 - s, s >= 0)", bound, regions, domain=domain)
    rng = proof.rng
    ok, cases = True, 0
    for big in (3, 5, 7):
        for _ in range(4):
            vs = [(Fraction(int(rng.integers(-9, 10)), int(rng.integers(1, 5))), Fraction(int(rng.integers(-9, 10)), int(rng.integers(1, 5))))
                  for _ in range(big)]
            mx, my = sum((v[0] for v in vs), Fraction(0)) / big, sum((v[1] for v in vs), Fraction(0)) / big
            vs = [(v[0] - mx, v[1] - my) for v in vs]  # centre: sum v_i = 0 exactly
            total_sq = sum(v[0] ** 2 + v[1] ** 2 for v in vs)
            for mm in range(1, big + 1):
                subsets = list(itertools.combinations(vs, mm))
                mean = sum((sum(v[0] for v in c) ** 2 + sum(v[1] for v in c) ** 2) for c in subsets) / len(subsets)
                formula = Fraction(mm * (big - mm), big - 1) * total_sq / big
                ok = ok and mean == formula
                cases += 1
    proof.instance("exact enumeration over all m-subsets, rational vectors in Q^2, N in {3, 5, 7}", ok,
                   point={"N": "3, 5 or 7"}, cases=cases)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2023, App. A (proof of Lemma 3.8: E||sum_{j in [m]} v_{i_j}||^2 <= m G^2); note 5.9(a)",
    statement=("If sum_{i=1}^N v_i = 0 and ||v_i|| <= G, then for a uniformly random permutation pi, "
               "E||sum_{j=1}^m v_pi(j)||^2 = m(N - m)/(N - 1) * (1/N) sum_i ||v_i||^2 <= m G^2 (1 <= m <= N, N >= 2)."),
    expected=Verdict.PROVED,
    papers=("ghazi2023",),
    check=_run,
)
