"""The verdict machinery can fail: false statements are never PROVED, and sympy's None stays UNDECIDED."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.bounds.verdict import Verdict
from proofs._core import Proof, Violation, decide_nonneg, decide_zero, exact_negative, finite_floats
from proofs._geometry import A, clamp, clamp_ordered_cases


def test_proofs_decide_nonneg_is_three_valued():
    x = sp.Symbol("x", real=True)
    p = sp.Symbol("p", positive=True)
    assert decide_nonneg(x**2) is Verdict.PROVED
    assert decide_nonneg(-(x**2) - 1) is Verdict.DISPROVED
    assert decide_nonneg(p - 1) is Verdict.UNDECIDED  # unknown sign: never turned into DISPROVED
    assert decide_zero((x + 1) ** 2 - x**2 - 2 * x - 1) is Verdict.PROVED
    assert decide_zero(x - p) is not Verdict.PROVED


def test_proofs_undecided_step_gives_undecided_not_disproved():
    proof = Proof("test/undecided")
    proof.nonneg("p - 1 >= 0 (false for p < 1, but no counterexample is recorded)", sp.Symbol("p", positive=True) - 1)
    result = proof.result()
    assert result.verdict is Verdict.UNDECIDED
    assert result.counterexample is None


def test_proofs_a_wrong_lipschitz_constant_is_not_proved():
    """The clamp case analysis with constant 1/2 instead of 1 must not be PROVED (the check can fail)."""
    proof = Proof("test/clamp-half")
    residuals = {name: (c["y"] - c["x"]) / 2 - (clamp(c["y"], A, c["b"]) - clamp(c["x"], A, c["b"]))
                 for name, c in clamp_ordered_cases()}
    proof.cases("|Pi(x) - Pi(y)| <= |x - y| / 2", residuals)
    assert proof.result().verdict is not Verdict.PROVED


def test_proofs_numeric_violation_becomes_a_counterexample():
    proof = Proof("test/numeric")
    proof.nonneg("x^2 >= 0", sp.Symbol("x", real=True) ** 2)
    xs = np.array([0.5, 2.0, 3.0])
    proof.numeric_le("x <= 1", xs, 1.0, {"x": xs})
    result = proof.result()
    assert result.verdict is Verdict.DISPROVED
    assert result.counterexample["x"] == 3.0


def test_proofs_hypothesis_failure_is_reported_with_cases():
    proof = Proof("test/hypothesis")

    def prop(v: float) -> None:
        if v > 10:
            raise Violation("too big", v=v)

    assert not proof.hypothesis("v <= 10", prop, finite_floats(0, 100), max_examples=50)
    result = proof.result()
    assert result.verdict is Verdict.DISPROVED
    assert result.counterexample["v"] > 10
    assert result.cases > 0


def test_proofs_refute_needs_a_negative_margin():
    proof = Proof("test/refute")
    assert not proof.refute("margin 1/10 is not a counterexample", {"x": 1}, sp.Rational(1, 10))
    assert proof.result().verdict is Verdict.UNDECIDED
    assert exact_negative(sp.E - 3) is True
    assert exact_negative(-sp.oo) is True
    assert exact_negative(sp.pi - 3) is False
