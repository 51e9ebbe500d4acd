"""Replace-one sensitivity of the clipped mean is (b - a)/n, i.e. 4 tau / n for width 4 tau."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.userlevel.projections import clamp
from dpaudit.verify import (
    NUMERIC_RTOL,
    CheckResult,
    LemmaCheck,
    Proof,
    Verdict,
    Violation,
    finite_floats,
    st,
    vectors,
)
from dpaudit.verify.geometry import A, B, X, Y, clamp_regions
from dpaudit.verify.geometry import clamp as sym_clamp

NAME = "levy2021/clipped_mean_sensitivity"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("replace-one neighbours: X and X' differ only in the n-th entry; n >= 1 is public", "a <= b fixed (data-independent)",
                "Alg 1: |b - a| = 4 tau, so (b - a)/n = 4 tau/n")
    n = sp.Symbol("n", positive=True, integer=True)
    rest = sp.Symbol("S_rest", real=True)  # sum of the n - 1 shared clipped entries
    cx, cx2 = sp.symbols("Pi_x Pi_xp", real=True)
    proof.zero("mean(Pi(X)) - mean(Pi(X')) = (Pi(x_n) - Pi(x'_n)) / n", (rest + cx) / n - (rest + cx2) / n - (cx - cx2) / n)
    proof.cases("|Pi(x) - Pi(x')| <= b - a (clamp maps into [a, b])",
                (B - A) - sp.Abs(sym_clamp(X, A, B) - sym_clamp(Y, A, B)), clamp_regions(X, Y), domain=[sp.Le(A, B, evaluate=False)])
    b = A + sp.Symbol("w", positive=True)
    proof.zero("attained at x_n = a, x'_n = b", (sym_clamp(b, A, b) - sym_clamp(A, A, b)) - (b - A))

    def prop(data: list[float], replacement: float, low: float, width_: float, n_: int) -> None:
        x = np.array(data[:n_])
        x2 = x.copy()
        x2[-1] = replacement
        a, bb = low, low + width_
        diff = abs(float(np.mean(clamp(x, a, bb)) - np.mean(clamp(x2, a, bb))))
        if diff > (bb - a) / n_ * (1 + NUMERIC_RTOL) + NUMERIC_RTOL * max(abs(a), abs(bb)):
            raise Violation("clipped-mean sensitivity above (b - a)/n", n=n_, diff=diff, a=a, b=bb)

    proof.hypothesis("dpaudit clamp + mean, n = 1..20", prop, vectors(20, -1e3, 1e3), finite_floats(), finite_floats(-50, 50),
                     finite_floats(0.0, 100.0), st.integers(1, 20), max_examples=150)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Levy et al. 2021, Alg 1 line 2 and Thm 1 proof (P1); docs/papers/levy2021.md, check L2 (sensitivity 4 tau/n)",
    statement=("For a <= b and replace-one neighbours X, X' in R^n: |mean(Pi_[a,b](X)) - mean(Pi_[a,b](X'))| <= (b - a)/n, "
               "with equality at x_n = a, x'_n = b; with |b - a| = 4 tau (Alg 1) the sensitivity is exactly 4 tau / n."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
