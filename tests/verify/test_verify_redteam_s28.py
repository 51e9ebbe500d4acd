"""Red-team findings of issue 19 (session s28): vacuity through given facts, crashes on inputs outside the kernel's
language, and two different symbols with one name."""

from __future__ import annotations

import io
import textwrap

import pytest
import sympy as sp

from dpaudit import bounds, verify
from dpaudit.errors import InvalidArgument
from dpaudit.verify import Proof, Verdict, le, runner

X = sp.Symbol("x", real=True)
Y = sp.Symbol("y", real=True)
A = sp.Symbol("a", real=True)


# -- 1. the relations of given facts are hypotheses of the proof ----------------------------------------------------

def test_contradictory_given_facts_make_a_proved_vacuous():
    proof = Proof("t/given-facts")
    facts = [proof.given_fact("x is a real number", le(1, X)), proof.given_fact("x is finite", le(X, 0))]
    proof.depends("0 <= -1", le(0, -1), facts)
    result = proof.result()
    assert result.verdict is Verdict.PROVED
    assert result.vacuity.startswith("vacuous"), result.vacuity
    assert set(result.domain) == {"1 <= x", "x <= 0"}  # the relations, not only the labels


def test_nonlinear_contradictory_given_facts_are_vacuous_and_a_satisfiable_one_is_not():
    proof = Proof("t/given-nonlinear")
    facts = [proof.given_fact("xy >= 1", le(1, X * Y)), proof.given_fact("in the unit disc", le(X**2 + Y**2, 1))]
    proof.depends("0 <= -1", le(0, -1), facts)
    assert proof.result().vacuity.startswith("vacuous")
    proof = Proof("t/given-one")
    proof.depends("x <= -1", le(X, -1), [proof.given_fact("x is a real number", le(X, -2))])
    result = proof.result()
    assert result.verdict is Verdict.PROVED and result.vacuity == ""
    assert result.domain == ("x <= -2",)


def test_contradictory_facts_taken_on_trust_make_a_proved_vacuous():
    proof = Proof("t/assumed-facts")
    facts = [proof.assume_fact("a", "trusted", le(1, X)), proof.assume_fact("b", "trusted", le(X, 0))]
    proof.depends("0 <= -1", le(0, -1), facts)
    assert proof.result().vacuity.startswith("vacuous")


def test_the_cli_prints_the_relations_of_given_facts_and_the_vacuity(tmp_path):
    (tmp_path / "vac.py").write_text(textwrap.dedent('''
        import sympy as sp
        from dpaudit.verify import LemmaCheck, Proof, Verdict, le
        x = sp.Symbol("x", real=True)
        def _run():
            p = Proof("mine/vacuous_depends")
            a = p.given_fact("x is a real number", le(1, x))
            b = p.given_fact("x is finite", le(x, 0))
            p.depends("0 <= -1", le(0, -1), [a, b])
            return p.result()
        CHECK = LemmaCheck(name="mine/vacuous_depends", source="me", statement="0 <= -1",
                           expected=Verdict.PROVED, check=_run)
    '''))
    out = io.StringIO()
    runner.main(["--path", str(tmp_path), "--no-builtin", "--premises"], stream=out)
    text = out.getvalue()
    assert "proved (vacuous)" in text, text
    assert "1 <= x" in text and "x <= 0" in text, text


# -- 2. inputs outside the kernel's language: UNDECIDED (or a correct verdict), never a traceback ---------------------

K = sp.Symbol("k", integer=True)
CRASHERS = {
    "where sqrt(x) < 0": lambda: bounds.check_inequality(X, X - 1, where=[sp.sqrt(X) < 0]),
    "where sqrt(x) <= -1": lambda: bounds.check_inequality(X, X - 1, where=[sp.sqrt(X) <= -1]),
    "lipschitz where sqrt(a) < -1": lambda: verify.lipschitz(A * X, 1, variables=[X], where=[sp.sqrt(A) < -1]),
    "Piecewise without otherwise": lambda: bounds.check_inequality(0, sp.Piecewise((1, X > 0))),
    "Sum": lambda: bounds.check_inequality(0, sp.Sum(1 / K**2, (K, 1, sp.oo)) - 1),
    "zoo": lambda: bounds.check_inequality(0, sp.zoo),
    "Derivative": lambda: bounds.check_inequality(0, sp.Derivative(X**2, X) - 2 * X),
    "identity with zoo": lambda: bounds.check_identity(sp.zoo, X),
    "identity with a Derivative": lambda: bounds.check_identity(sp.Derivative(X**2, X), 2 * X),
}


@pytest.mark.parametrize("case", sorted(CRASHERS))
def test_inputs_outside_the_language_are_undecided_not_a_crash(case):
    result = CRASHERS[case]()
    assert result.verdict is Verdict.UNDECIDED, (case, result)


def test_a_piecewise_without_otherwise_is_still_refuted_where_its_branch_fails():
    result = bounds.check_inequality(0, sp.Piecewise((-1, X > 0)))
    assert result.verdict is Verdict.DISPROVED, result


# -- 3. two different symbols with one name are refused, as lipschitz does -----------------------------------------

X_POS = sp.Symbol("x", positive=True)
X_PLAIN = sp.Symbol("x")
SAME_NAMES = {
    "check_inequality lhs/rhs": lambda: bounds.check_inequality(X_POS, X),  # before: "DISPROVED x <= x"
    "check_inequality where": lambda: bounds.check_inequality(0, X, where=[X_PLAIN >= 0]),
    "check_identity": lambda: bounds.check_identity(X_POS, X),
    "decision hypotheses": lambda: verify.decision(X, hypotheses=[X_PLAIN >= 0]),  # before: DISPROVED
    "decision expr": lambda: verify.decision(X + X_POS),
    "Proof.nonneg": lambda: Proof("t/alike").nonneg("x >= 0", X, hypotheses=[X_POS >= 1]),
}


@pytest.mark.parametrize("case", sorted(SAME_NAMES))
def test_two_symbols_with_one_name_are_an_invalid_argument(case):
    with pytest.raises(InvalidArgument, match=r"distinct names.*Symbol\('x'"):
        SAME_NAMES[case]()


def test_one_symbol_used_throughout_and_a_dummy_named_alike_are_accepted():
    assert verify.decision(X**2, hypotheses=[X >= 0]).verdict is Verdict.PROVED
    assert bounds.check_inequality(0, X_POS).verdict is Verdict.PROVED
    assert bounds.check_inequality(X, sp.Dummy("x", real=True)).verdict is Verdict.DISPROVED  # a Dummy is apart
