"""Remark 3.4 for the coordinate-wise median: it satisfies Assumption 3.3.

(i) break point, (ii) 1-Lipschitz under per-point l_inf perturbation, (iii) affine equivariance.
"""

from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

from dpaudit.verify import (
    NUMERIC_RTOL,
    CheckResult,
    Fact,
    LemmaCheck,
    Proof,
    Region,
    Verdict,
    Violation,
    finite_floats,
    le,
    st,
    vectors,
)

NAME = "ghazi2025/median_satisfies_assumption_3_3"
#: facts: (i) ||median - X'||_inf <= rho when more than B/2 points lie in B_inf(X', rho); (ii) the median moves by
#: <= Delta when every point moves by <= Delta in l_inf
MEDIAN_DIST, RADIUS, MEDIAN_GAP, PERTURBATION = sp.symbols("median_dist radius median_gap perturbation", nonnegative=True)


def prove_order_statistics_lipschitz(proof: Proof, establish: bool = False) -> None:
    """max and min are non-expansive in l_inf; order statistics are max-min lattice formulas of them."""
    a, b, c, d = sp.symbols("a b c d", real=True)
    orders = Region.orders([a, b, c, d])
    bound = sp.Max(sp.Abs(a - c), sp.Abs(b - d))
    proof.cases("max is non-expansive: |max(a, b) - max(c, d)| <= max(|a - c|, |b - d|)", bound - sp.Abs(sp.Max(a, b) - sp.Max(c, d)), orders)
    proof.cases("min is non-expansive: |min(a, b) - min(c, d)| <= max(|a - c|, |b - d|)", bound - sp.Abs(sp.Min(a, b) - sp.Min(c, d)), orders)
    if establish:  # the two-argument case of the Fact; every B follows by the lattice premise below
        proof.establish("lipschitz", le(MEDIAN_GAP, PERTURBATION), where={MEDIAN_GAP: sp.Abs(sp.Max(a, b) - sp.Max(c, d)),
                                                                          PERTURBATION: bound})
    ok, cases = True, 0
    for size in range(1, 6):
        for perm in itertools.permutations(range(size)):
            for k in range(1, size + 1):
                lattice = max(min(perm[i] for i in subset) for subset in itertools.combinations(range(size), size - k + 1))
                ok = ok and lattice == k - 1
                cases += 1
    proof.instance("x_(k) = max over (B-k+1)-subsets of their min, every ordering of B <= 5 values", ok,
                   point={"B": "<= 5"}, cases=cases)
    proof.assume("order-statistic lattice formula for every B", "x_(k) = max over (B-k+1)-subsets of their min holds for every B "
                 "(the largest B-k+1 values attain it; every such subset contains a value of rank <= k); a max (min) of "
                 "non-expansive maps is non-expansive, by induction on the two-argument case")


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("median of B reals: x_((B+1)/2) for odd B, (x_(B/2) + x_(B/2+1))/2 for even B (numpy.median)")
    proof.assume("coordinates separate", "the coordinate-wise median acts on each coordinate alone, so (i)-(iii) in l_inf follow from 1-D")
    prove_order_statistics_lipschitz(proof, establish=True)
    j = sp.Symbol("j", positive=True, integer=True)
    # (i): more than B/2 values inside [lo, hi] leave at most (middle index - 1) values on either side
    proof.zeros("(i) B = 2j + 1: #inside >= j + 1 leaves <= B - (j + 1) = j outside on each side, so x_(j+1) is in [lo, hi]",
                [(2 * j + 1) - (j + 1) - j])
    proof.zeros("(i) B = 2j: #inside >= j + 1 leaves <= j - 1 on each side, so x_(j) and x_(j+1) (hence their mean) are in [lo, hi]",
                [2 * j - (j + 1) - (j - 1)])
    big_b = sp.Symbol("B", positive=True, integer=True)
    proof.zeros("(iii) a < 0 reverses the order: index k -> B + 1 - k maps the median's index set to itself",
                [(big_b + 1 - (big_b + 1) / 2) - (big_b + 1) / 2, (big_b + 1 - big_b / 2) - (big_b / 2 + 1)])

    def prop(b: int, data: list[float], pert: list[float], delta: float, scale: float, shift: float, lo_q: float, hi_q: float) -> None:
        x = np.array(data[:b])
        m = float(np.median(x))
        y = x + delta * np.array(pert[:b])
        if abs(float(np.median(y)) - m) > delta * (1 + NUMERIC_RTOL) + NUMERIC_RTOL * float(np.max(np.abs(x))):
            raise Violation("(ii) median moved by more than Delta", x=x.tolist(), delta=delta)
        if not np.isclose(float(np.median(scale * x + shift)), scale * m + shift, rtol=1e-12, atol=1e-9):
            raise Violation("(iii) median(a x + b) != a median(x) + b", x=x.tolist(), a=scale, b=shift)
        xs = np.sort(x)
        lo, hi = xs[int(lo_q * (b - 1))], xs[int(lo_q * (b - 1)) + int(hi_q * (b - 1 - int(lo_q * (b - 1))))]
        if np.sum((x >= lo) & (x <= hi)) > b / 2 and not (lo <= m <= hi):
            raise Violation("(i) median outside an interval holding more than B/2 points", x=x.tolist(), lo=float(lo), hi=float(hi))

    proof.hypothesis("numpy.median: (i), (ii), (iii) for B = 1..15", prop, st.integers(1, 15), vectors(15, -100, 100),
                     vectors(15, -1.0, 1.0), finite_floats(0, 10), finite_floats(-5, 5), finite_floats(-50, 50), finite_floats(0, 1),
                     finite_floats(0, 1), max_examples=150)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2025, Remark 3.4 (median satisfies Assumption 3.3 (i)-(iii)); note 1.4 and 5.4",
    statement=("The coordinate-wise median of B vectors satisfies Assumption 3.3: (i) if more than B/2 points lie in B_inf(X', rho) "
               "the median does; (ii) perturbing every point by at most Delta in l_inf moves it by at most Delta; "
               "(iii) median(a X + b) = a median(X) + b for every real a and vector b."),
    expected=Verdict.PROVED,
    papers=("ghazi2025",),
    check=_run,
    facts=(Fact("break point", le(MEDIAN_DIST, RADIUS)), Fact("lipschitz", le(MEDIAN_GAP, PERTURBATION))),
)
