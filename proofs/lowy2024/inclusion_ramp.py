"""The soft inclusion probability p(h) is continuous and (6/k)-Lipschitz.

p is 0 below k/2, linear with slope 6/k, 1 above 2k/3; so a one-point change (|h - h'| <= 1) moves
it by <= 6/k.
"""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import (
    NUMERIC_RTOL,
    CheckResult,
    LemmaCheck,
    Proof,
    Verdict,
    Violation,
    finite_floats,
    st,
)
from dpaudit.verify.geometry import clamp, prove_clamp_properties

NAME = "lowy2024/inclusion_ramp_lipschitz"


def ramp(h: float, k: int) -> float:
    """p(h) as printed in Alg 1 lines 15-17 / Alg 2 lines 8-11."""
    if h < k / 2:
        return 0.0
    if h >= 2 * k / 3:
        return 1.0
    return (h - k / 2) / (k / 6)


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("p(h) = 0 for h < k/2, (h - k/2)/(k/6) for k/2 <= h < 2k/3, 1 for h >= 2k/3")
    k = sp.Symbol("k", positive=True)
    u, s, v = sp.symbols("u s v", nonnegative=True)
    form = lambda h: clamp(6 * (h - k / 2) / k, 0, 1)  # noqa: E731
    proof.zeros("p(h) = clamp(6 (h - k/2)/k, 0, 1) on each piece (h = k/2 - u; k/2 + (k/6) s/(1 + s); 2k/3 + v)",
                [form(k / 2 - u) - 0, form(k / 2 + k / 6 * s / (1 + s)) - (k / 6 * s / (1 + s)) / (k / 6), form(2 * k / 3 + v) - 1])
    proof.zeros("continuity at the knots: the middle formula gives 0 at k/2 and 1 at 2k/3", [(k / 2 - k / 2) / (k / 6), (2 * k / 3 - k / 2) / (k / 6) - 1])
    prove_clamp_properties(proof, prefix="clamp: ")
    proof.assume("Lipschitz constants multiply under composition", "p = clamp o (affine map with slope 6/k), so |p(h) - p(h')| <= (6/k)|h - h'|")

    def prop(kk: int, h1: float, dh: float) -> None:
        h2 = h1 + dh
        if abs(ramp(h1, kk) - ramp(h2, kk)) > 6 / kk * abs(dh) * (1 + NUMERIC_RTOL) + NUMERIC_RTOL:
            raise Violation("ramp moved by more than (6/k)|dh|", k=kk, h=h1, dh=dh)

    proof.hypothesis("printed piecewise p(h) for k = 1..500, |dh| <= 1", prop, st.integers(1, 500), finite_floats(0, 500),
                     finite_floats(-1.0, 1.0), max_examples=150)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, Alg 1 lines 15-17 and Alg 2 lines 8-11 (p_j), used in Lemma B.2 / [AL24, Lemma 3.5]; note 5.2-5.3",
    statement="p(h) is continuous, equals clamp(6(h - k/2)/k, 0, 1), and |p(h) - p(h')| <= (6/k)|h - h'|; in particular <= 6/k when |h - h'| <= 1.",
    expected=Verdict.PROVED,
    papers=("lowy2024",),
    check=_run,
)
