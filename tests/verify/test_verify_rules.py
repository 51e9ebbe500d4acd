"""The verdict rule of dpaudit.verify is enforced by the code: exact steps vs finite instances, premises,
trivial steps, checked implications (depends) and refutations whose hypotheses are verified."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import strategies as st

from dpaudit.verify import (
    Fact,
    LemmaCheck,
    Proof,
    Verdict,
    Violation,
    certified,
    decide_nonneg,
    decide_zero,
    exact_sign,
    finite_floats,
    le,
)
from dpaudit.verify.kernel import KernelError

X = sp.Symbol("x", real=True)
P = sp.Symbol("p", positive=True)


def test_verify_deciders_are_three_valued():
    assert decide_nonneg(X**2) is Verdict.PROVED
    assert decide_nonneg(-(X**2) - 1) is Verdict.DISPROVED
    assert decide_nonneg(P - 1) is Verdict.DISPROVED  # fails at a point the kernel re-checks (P = 1/2)
    # true (x >= 0: exp(x) >= 1 + x + x^2/2 + x^3/6) but beyond Z3's facts about exp, on an unbounded domain
    Q = sp.Symbol("q", nonnegative=True)
    assert decide_nonneg(sp.exp(Q) - 1 - Q - Q**2 / 2 - Q**3 / 6) is Verdict.UNDECIDED
    assert decide_zero((X + 1) ** 2 - X**2 - 2 * X - 1) is Verdict.PROVED
    assert decide_zero(X - P) is not Verdict.PROVED
    assert exact_sign(sp.E - 3) == -1 and exact_sign(sp.pi - 3) == 1 and exact_sign(sp.Integer(0)) == 0
    assert exact_sign(-sp.oo) == -1
    with pytest.raises(TypeError, match="float"):
        exact_sign(0.1)
    with pytest.raises(TypeError, match="float"):
        exact_sign(sp.Float(0.5) + sp.pi)


def test_verify_max_min_abs_bounds_are_used_and_can_fail():
    a, b, c = sp.symbols("a b c", nonnegative=True)
    assert decide_nonneg(sp.Max(a, b) - a) is Verdict.PROVED  # Max(a, b) >= a
    assert decide_nonneg(c - sp.Max(c - a, c - b)) is Verdict.PROVED  # both branches hold
    assert decide_nonneg(sp.Abs(X) - X) is Verdict.PROVED
    assert decide_nonneg(sp.Max(a, b) - a - 1) is not Verdict.PROVED  # the bound is not enough: not proved
    assert decide_nonneg(c / 2 - sp.Max(c - a, c - b)) is not Verdict.PROVED


def test_verify_sampling_alone_proves_nothing():
    proof = Proof("test/sampling")
    xs = proof.rng.uniform(0, 1, 500)
    assert proof.numeric_le("x^2 <= x on [0, 1]", xs**2, xs, {"x": xs})
    proof.instance("x^2 <= x at x = 1/2", sp.Rational(1, 4) <= sp.Rational(1, 2), point={"x": "1/2"})
    result = proof.result()
    assert result.verdict is Verdict.UNDECIDED and "cross-checks" in result.reason


def test_verify_undecided_step_gives_undecided_not_disproved():
    proof = Proof("test/undecided")
    proof.nonneg("p - 1 >= 0 (false for p < 1, but no counterexample is recorded)", P - 1)
    result = proof.result()
    assert result.verdict is Verdict.UNDECIDED and result.counterexample is None
    assert "p - 1" in result.reason


def test_verify_exact_step_refuses_floats_and_needs_a_counterexample_to_fail():
    proof = Proof("test/exact")
    with pytest.raises(ValueError, match="not a truth value"):
        proof.exact("float comparison", np.float64(0.1) + np.float64(0.2) > np.float64(0.3))
    with pytest.raises(ValueError, match="float"):
        proof.exact("float comparison", sp.Le(sp.Float(0.1) + sp.Float(0.2), sp.Float(0.3), evaluate=False))
    half = sp.Eq(sp.Rational(1, 3) * 2, sp.Rational(1, 2), evaluate=False)
    with pytest.raises(ValueError, match="counterexample"):
        proof.exact("1/3 + 1/3 = 1/2", half)
    proof.exact("1/3 + 1/3 = 1/2", half, counterexample={"sum": "2/3"})
    result = proof.result()
    assert result.verdict is Verdict.DISPROVED and result.counterexample["sum"] == "2/3"


def test_verify_a_failing_finite_instance_refutes():
    proof = Proof("test/instance")  # the relation itself, decided by the kernel (a bool computed elsewhere is evidence)
    proof.instance("x^2 >= x at x = 1/2", sp.Ge(sp.Rational(1, 4), sp.Rational(1, 2), evaluate=False), point={"x": "1/2"})
    result = proof.result()
    assert result.verdict is Verdict.DISPROVED and result.counterexample["x"] == "1/2" and result.claim == "1/4 >= 1/2"


def test_verify_a_proof_and_a_counterexample_together_raise():
    proof = Proof("test/contradiction")
    proof.nonneg("x^2 >= 0", X**2)
    proof.instance("x^2 >= x at x = 1/2", sp.Ge(sp.Rational(1, 4), sp.Rational(1, 2), evaluate=False), point={"x": "1/2"})
    with pytest.raises(KernelError, match="counterexample"):
        proof.result()


def test_verify_a_float_instance_is_evidence_only():
    proof = Proof("test/float-instance")
    proof.instance("0.1 + 0.2 <= 0.3 in floats", bool(0.1 + 0.2 <= 0.3), point={"x": 0.1})
    result = proof.result()
    assert result.verdict is Verdict.UNDECIDED and "evidence only" in result.details


def test_verify_steps_decided_before_the_step_do_not_prove():
    proof = Proof("test/trivial")
    tau, n = sp.symbols("tau n", positive=True)
    proof.zero("4 tau/n = 4 tau/n", 4 * tau / n - 4 * tau / n)  # the caller's own arithmetic: literally 0
    assert proof.steps[-1].trivial
    result = proof.result()
    assert result.verdict is Verdict.UNDECIDED and "already 0" in result.reason
    proof.equal("(4 tau/n)/(8 tau/(n eps)) is not compared with itself", (tau + 1) ** 2, tau**2 + 2 * tau + 1)
    assert not proof.steps[-1].trivial
    assert proof.result().verdict is Verdict.PROVED


def test_verify_premises_are_printed_beside_the_verdict():
    proof = Proof("test/premises")
    proof.given("x real")  # a hypothesis: part of the statement, not a premise
    proof.cite("[DR14] Thm A.1", "the classical Gaussian mechanism")
    proof.assume("reduction to the plane", "two vectors span a plane")
    proof.nonneg("x^2 >= 0", X**2)
    result = proof.result()
    assert result.verdict_text() == "PROVED given [DR14] Thm A.1; reduction to the plane"
    assert [p.kind for p in result.premises] == ["cited", "assumed"]
    assert result.assumptions == ("x real", "symbols: x real")  # the given hypothesis, then the symbols decided over
    assert "[given [DR14] Thm A.1; reduction to the plane]" in result.line()


def test_verify_refutation_needs_a_negative_margin_and_verified_hypotheses():
    proof = Proof("test/refute")
    assert not proof.refute("margin 1/10 is not a counterexample", {"x": 1}, sp.Rational(1, 10))
    assert not proof.refute("negative margin, but the point is outside the domain", {"x": -1}, sp.Integer(-1),
                            conditions={"x >= 0": sp.Integer(-1)})
    assert proof.result().verdict is Verdict.UNDECIDED
    assert proof.refute("negative margin inside the domain", {"x": 2}, sp.Integer(-1), conditions={"x >= 0": sp.Integer(2)})
    assert proof.result().verdict is Verdict.DISPROVED


@pytest.mark.parametrize("margin", [0.5 - 0.7, -1e-300, sp.Integer(-1), float("nan")])
def test_verify_quadrature_refutation_is_evidence_only(margin):
    # a quadrature margin rests on the integrator's error estimate, which is not a bound: never a DISPROVED
    proof = Proof("test/quadrature")
    assert not proof.refute("a loss of 0.7 > 0.5 measured by quadrature", {"loss": 0.7}, margin, method="quadrature")
    result = proof.result()
    assert result.verdict is Verdict.UNDECIDED and result.counterexample is None, result.line()
    assert not result.premises, result.premises_text()
    assert "evidence only" in result.details and "error estimate is not a bound" in result.details, result.details


def test_verify_quadrature_margin_that_holds_is_recorded_and_proves_nothing():
    proof = Proof("test/quadrature-ok")
    assert not proof.refute("a loss of 0.3 <= 0.5 measured by quadrature", {"loss": 0.3}, 0.2, method="quadrature")
    result = proof.result()
    assert result.verdict is Verdict.UNDECIDED and "quadrature margin 0.2 >= 0" in result.details


def test_verify_line_prints_premises_beside_a_disproved():
    proof = Proof("test/premised-refutation")
    proof.assume("a reduction to one coordinate", "the statement holds iff it holds on the first coordinate")
    assert proof.refute("x <= 1 fails at x = 2", {"x": 2}, sp.Integer(1) - 2)
    result = proof.result()
    assert result.verdict is Verdict.DISPROVED and certified(result)
    assert "[given a reduction to one coordinate]" in result.line(), result.line()
    # and a DISPROVED without premises says nothing of them
    bare = Proof("test/bare-refutation")
    assert bare.refute("x <= 1 fails at x = 2", {"x": 2}, sp.Integer(1) - 2)
    assert "[given" not in bare.result().line()


def test_verify_hypothesis_failure_is_reported_with_cases():
    proof = Proof("test/hypothesis")

    def prop(v: float) -> None:
        if v > 10:
            raise Violation("too big", v=v)

    assert not proof.hypothesis("v <= 10", prop, st.integers(0, 100), max_examples=50)
    result = proof.result()
    # the property's own Violation is its word, not the kernel's: evidence only, with the failing values printed
    assert result.verdict is Verdict.UNDECIDED and result.counterexample is None and result.cases > 0
    assert "evidence only" in result.details and "'v': 1" in result.details
    # so is a float violation
    floats = Proof("test/hypothesis-floats")
    assert not floats.hypothesis("v <= 10", prop, finite_floats(0, 100), max_examples=50)
    assert floats.result().verdict is Verdict.UNDECIDED and "evidence only" in floats.result().details


# -- depends: the dependencies' facts must imply the goal -------------------------------------------

GAP_IN, GAP_OUT = sp.symbols("gap_in gap_out", nonnegative=True)


def _lemma(name: str, holds: bool) -> LemmaCheck:
    def run():
        proof = Proof(name)
        proof.cite(f"[{name}]", "a cited step")
        proof.nonneg("the lemma", X**2 if holds else P - 1)
        return proof.result()

    return LemmaCheck(name=name, source="test fixture, Lemma 1", statement="the map is 1-Lipschitz",
                      expected=Verdict.PROVED if holds else Verdict.UNDECIDED, check=run,
                      facts=(Fact("lipschitz", le(GAP_OUT, GAP_IN)),))


def test_verify_depends_checks_the_implication_and_inherits_premises():
    inner, outer = _lemma("test/inner", True), _lemma("test/outer", True)
    a, b, c = sp.symbols("a b c", nonnegative=True)  # gaps: input, after the inner map, after both
    chain = [inner.fact("lipschitz", {GAP_OUT: b, GAP_IN: a}), outer.fact("lipschitz", {GAP_OUT: c, GAP_IN: b})]
    proof = Proof("test/compose")
    assert proof.depends("the composition is 1-Lipschitz", le(c, a), chain) is Verdict.PROVED
    result = proof.result()
    assert result.verdict is Verdict.PROVED
    # the fixtures' proofs do not establish their Fact: it is printed as a premise
    assert result.premises_text() == ("[test/inner]; unproved Fact test/inner:lipschitz; [test/outer]; "
                                      "unproved Fact test/outer:lipschitz")
    # a goal the facts do not imply is not a proof step (constant 1/2 instead of 1)
    weaker = Proof("test/compose-half")
    assert weaker.depends("the composition is 1/2-Lipschitz", le(c, a / 2), chain) is Verdict.UNDECIDED
    assert weaker.result().verdict is Verdict.UNDECIDED


def test_verify_depends_on_an_unproved_lemma_is_not_a_proof():
    shaky = _lemma("test/shaky", False)
    a, b = sp.symbols("a b", nonnegative=True)
    proof = Proof("test/uses-shaky")
    proof.depends("uses an undecided lemma", le(b, a), [shaky.fact("lipschitz", {GAP_OUT: b, GAP_IN: a})])
    result = proof.result()
    assert result.verdict is Verdict.UNDECIDED and "test/shaky is undecided" in result.details


def test_verify_local_facts_take_part_in_depends():
    proof = Proof("test/local")
    y, rest = sp.Symbol("y", real=True), sp.Symbol("rest", nonnegative=True)
    coord, norm = sp.symbols("coord norm", nonnegative=True)
    bound = sp.Symbol("B", positive=True)
    # show() returns what it showed, where= applied (y^2 <= y^2 + rest), so the other facts and the goal are
    # stated on the same quantities
    to_norm = proof.show("y^2 <= ||Y||^2", le(coord, norm), where={coord: y**2, norm: y**2 + rest})
    assert to_norm.relation == le(y**2, y**2 + rest)
    box = proof.given_fact("||Y||^2 <= B^2", le(y**2 + rest, bound**2))
    assert proof.depends("y^2 <= B^2", le(y**2, bound**2), [to_norm, box]) is Verdict.PROVED
    assert proof.depends("y^2 <= B^2 / 2 does not follow", le(y**2, bound**2 / 2), [to_norm, box]) is Verdict.UNDECIDED


def test_verify_lemmacheck_accepts_a_users_own_check_without_papers():
    check = LemmaCheck(name="mine/x2", source="my notes", statement="x^2 >= 0", expected=Verdict.PROVED,
                       check=lambda: Proof("mine/x2").result())
    assert check.papers == ()
    with pytest.raises(ValueError, match="role"):
        LemmaCheck(name="mine/bad", source="s", statement="s", expected=Verdict.PROVED, check=lambda: None, role="erratum")
    with pytest.raises(ValueError, match="without spaces"):
        LemmaCheck(name="has space", source="s", statement="s", expected=Verdict.PROVED, check=lambda: None)
    with pytest.raises(TypeError, match="CheckResult"):
        LemmaCheck(name="mine/none", source="s", statement="s", expected=Verdict.PROVED, check=lambda: None).run()
