"""Remark 3.4 for the trimmed mean: a 10%-trimmed mean fails Assumption 3.3(i); trimming at least floor(B/3) per side works.

The printed claim is DISPROVED; a symmetric trimmed mean removing k >= floor(B/3) values per side
satisfies (i) for balls holding >= 2B/3 points (PROVED).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp
from scipy import stats

from dpaudit.verify import (
    CheckResult,
    LemmaCheck,
    Proof,
    Verdict,
    Violation,
    finite_floats,
    st,
    vectors,
)

PRINTED = "ghazi2025/remark_3_4_trimmed_mean"
CORRECTED = "ghazi2025/remark_3_4_trimmed_mean_third"


def trimmed_mean(x: np.ndarray, k: int) -> float:
    """Mean after removing the k smallest and the k largest values (requires 2k < len(x))."""
    xs = np.sort(x)
    return float(xs[k: len(xs) - k].mean())


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("10%-trimmed mean of B = 10 values removes the smallest and the largest value; rho = 0, X' = 0")
    values = [Fraction(0)] * 6 + [Fraction(100)] * 4
    kept = sorted(values)[1:-1]
    tm = sum(kept, Fraction(0)) / len(kept)
    proof.refute("{0 x 6, 100 x 4}: trimmed mean 75/2 is outside B_inf(0, 0) = {0}", {"values": "0 x 6, 100 x 4", "trim": "10%",
                 "trimmed mean": sp.Rational(tm.numerator, tm.denominator)}, -sp.Abs(sp.Rational(tm.numerator, tm.denominator)),
                 conditions={"6 > B/2 = 5 of the points lie in B_inf(0, 0)": sum(v == 0 for v in values) > 5})
    impl = float(stats.trim_mean(np.array([0.0] * 6 + [100.0] * 4), 0.1))
    proof.numeric_eq("scipy.stats.trim_mean(., 0.1) = 37.5", impl, 37.5, {"impl": impl})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("B values, k per side with floor(B/3) <= k < B/2; at least ceil(2B/3) values lie in [lo, hi]")
    proof.assume("trimming removes the outliers", "the values below lo are the smallest ones, so removing the k smallest removes "
                 "them all when there are <= k (same above)")
    proof.assume("division by 3", "every integer B >= 0 is 3j, 3j + 1 or 3j + 2 for an integer j >= 0")
    j = sp.Symbol("j", nonnegative=True, integer=True)
    for rho in (0, 1, 2):
        b = 3 * j + rho
        proof.equal(f"B - ceil(2B/3) = floor(B/3) for B = 3j + {rho}: at most floor(B/3) <= k values lie outside",
                    b - sp.ceiling(sp.Rational(2, 3) * b), sp.floor(sp.Rational(1, 3) * b))
    proof.assume("a mean of values in [lo, hi] is in [lo, hi]", "the kept values lie in [lo, hi], so their mean does")

    def prop(b: int, data: list[float], lo: float, width: float, extra: int) -> None:
        inside_n = -(-2 * b // 3)  # ceil(2B/3)
        hi = lo + width
        x = np.array(data[:b])
        x[:inside_n] = lo + (x[:inside_n] % 1.0) * width  # ceil(2B/3) points in [lo, hi]
        k = min(b // 3 + extra, (b - 1) // 2)
        if k < b // 3:
            return
        tm = trimmed_mean(x, k)
        if not (lo - 1e-9 <= tm <= hi + 1e-9):
            raise Violation("trimmed mean outside [lo, hi]", x=x.tolist(), k=k, lo=lo, hi=hi)

    proof.hypothesis("trim k >= floor(B/3) per side, B = 1..20", prop, st.integers(1, 20), vectors(20, -1e3, 1e3), finite_floats(-10, 10),
                     finite_floats(0, 5), st.integers(0, 3), max_examples=150)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, Remark 3.4 ('the trimmed mean satisfies Assumption 3.3'), property (i); note 1.4 [ERRATUM]",
        statement="(as printed) The (10%-)trimmed mean satisfies Assumption 3.3(i): if more than B/2 points lie in B_inf(X', rho), so does it.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, Remark 3.4 corrected (note 1.4: trim k >= floor(B/3) per side; the proofs use balls with >= 2B/3 points)",
        statement=("(corrected) A symmetric trimmed mean removing k values per side, floor(B/3) <= k < B/2, lies in [lo, hi] whenever "
                   "at least ceil(2B/3) of the B values do."),
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
