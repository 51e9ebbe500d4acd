"""Red team s30, F0 / F0b: the certified claim is what the kernel decided, and every DISPROVED is re-checked.

``combine_results`` certified the caller's text as its claim ("0 >= 1" PROVED) and dropped the failing part's
counterexample; ``Proof.rechecked_pair``, ``numeric_count``, ``instance`` (with a bool) and ``refute`` recorded a
certified DISPROVED from values the caller supplied, with nothing re-checked (or with the label as the claim).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp

from dpaudit.bounds import check_inequality
from dpaudit.errors import InvalidArgument
from dpaudit.verify import LemmaCheck, Proof, Verdict, certified, combine_results, lipschitz
from dpaudit.verify.kernel import KernelError
from dpaudit.verify.verdict import _issue

X = sp.Symbol("x", real=True)
CLAMP = sp.Min(sp.Max(X, -1), 1)


# -- F0: combine_results -------------------------------------------------------------------------


def test_combined_proved_certifies_the_parts_claims_not_the_callers_text():
    # before: PROVED, certified, claim "0 >= 1"
    part = lipschitz(CLAMP, 1)
    r = combine_results("0 >= 1", part, check_inequality(X**2, X**2 + 1))
    assert r.verdict is Verdict.PROVED and certified(r)
    assert "0 >= 1" not in r.claim and r.statement == "0 >= 1"
    assert part.claim in r.claim and "x**2 <= x**2 + 1" in r.claim


def test_combined_proved_states_each_parts_domain_in_the_claim():
    on_box = lipschitz(X**2, 2, domain=(0, 1))
    r = combine_results("x^2 is 2-Lipschitz", on_box, check_inequality(X**2, X**2 + 1))
    assert r.verdict is Verdict.PROVED and certified(r)
    assert f"({on_box.claim} [on the domain: {'; '.join(on_box.domain)}])" in r.claim


def test_combined_disproved_keeps_the_failing_parts_counterexample_and_claim():
    # before: DISPROVED, certified, claim "x**2 >= 0 for all real x", counterexample None
    part = lipschitz(CLAMP, sp.Rational(1, 2))
    assert part.verdict is Verdict.DISPROVED and part.counterexample is not None
    r = combine_results("x**2 >= 0 for all real x", part)
    assert r.verdict is Verdict.DISPROVED and certified(r)
    assert r.counterexample == part.counterexample and r.claim == part.claim
    assert r.statement == "x**2 >= 0 for all real x"
    both = combine_results("both", lipschitz(CLAMP, 1), part)
    assert both.verdict is Verdict.DISPROVED and certified(both) and both.counterexample == part.counterexample


def test_a_disproved_is_never_said_to_fail_on_a_domain_its_counterexample_may_miss():
    # before: DISPROVED "x <= 0 for all x" on the domain x <= 0 (where it holds), certified, no counterexample
    part = check_inequality(X, 0)
    assert part.verdict is Verdict.DISPROVED
    r = combine_results("x <= 0 on x <= 0", part, domain=("x <= 0",), assumptions=("x is small",))
    assert r.verdict is Verdict.DISPROVED and certified(r) and r.counterexample == part.counterexample
    assert r.claim == part.claim and r.domain == part.domain and r.assumptions == part.assumptions
    assert "not part of the refuted claim" in r.details and "x <= 0" in r.details and "x is small" in r.details


def test_a_counterexample_given_must_be_a_failing_parts_own():
    part = lipschitz(CLAMP, sp.Rational(1, 2))
    with pytest.raises(InvalidArgument, match="not the counterexample of a failing part"):
        combine_results("s", part, counterexample={"x": 5})
    with pytest.raises(InvalidArgument, match="no part is a certified DISPROVED"):
        combine_results("s", lipschitz(CLAMP, 1), counterexample={"x": 5})
    assert combine_results("s", part, counterexample=part.counterexample).counterexample == part.counterexample


def test_a_certified_disproved_part_without_a_counterexample_is_an_internal_error():
    proof = Proof("test/combine-no-cex")
    proof.refute("1 <= 0", {"x": 0}, sp.Integer(-1))
    bare = _issue(proof.result().__class__(Verdict.DISPROVED, "1 <= 0"))  # certified, no counterexample
    with pytest.raises(KernelError, match="no counterexample"):
        combine_results("s", bare)


def test_the_runner_prints_the_conjunction_as_what_the_kernel_decided():
    check = LemmaCheck(name="test/comb", source="test", statement="label", expected=Verdict.PROVED,
                       check=lambda: combine_results("0 >= 1", lipschitz(CLAMP, 1)))
    result = check.run()
    assert result.verdict is Verdict.PROVED and "0 >= 1" not in result.claim and result.statement == "label"


# -- F0b: Proof methods that recorded a DISPROVED from the caller's values ---------------------------


def test_rechecked_pair_recomputes_the_violation_exactly():
    # before: the identity at x = 0, y = 1 (|f(x) - f(y)| = 1 = |x - y|) was a certified DISPROVED
    proof = Proof("test/pair-ok")
    point = {"x": [0.0], "y": [1.0], "f(x)": [0.0], "f(y)": [1.0]}
    assert not proof.rechecked_pair("identity is 1-Lipschitz", point, cases=1, note="", constant=1, norm=2)
    r = proof.result()
    assert r.verdict is Verdict.UNDECIDED and r.counterexample is None and "evidence only" in r.details
    proof = Proof("test/pair-bad")
    assert proof.rechecked_pair("f is 1/2-Lipschitz", point, cases=1, note="", constant=Fraction(1, 2), norm=2)
    r = proof.result()
    assert r.verdict is Verdict.DISPROVED and certified(r)
    assert r.claim.startswith("||f(x) - f(y)||_2 <= 1/2 ||x - y||_2 at x = ['0'], y = ['1']")
    assert "re-checked exactly: 1 > 1/2" in r.claim and r.counterexample["||f(x) - f(y)||_2"] == "1"


def test_rechecked_pair_is_exact_on_the_floats_values():
    # 0.1 + 0.2 != 0.3 in floats: |f(x) - f(y)| = 0.30000000000000004 vs 1 * |0.3 - 0| is a real (tiny) violation
    proof = Proof("test/pair-float")
    point = {"x": [0.3], "y": [0.0], "f(x)": [0.1 + 0.2], "f(y)": [0.0]}
    assert proof.rechecked_pair("f is 1-Lipschitz", point, cases=1, note="", constant=1, norm=1)
    swapped = Proof("test/pair-float-swapped")
    point = {"x": [0.1 + 0.2], "y": [0.0], "f(x)": [0.3], "f(y)": [0.0]}
    assert not swapped.rechecked_pair("f is 1-Lipschitz", point, cases=1, note="", constant=1, norm=1)


def test_rechecked_pair_sensitivity_form_compares_with_the_bound():
    proof = Proof("test/pair-sens")
    point = {"query(D)": [0.0, 0.0], "query(D')": [1.0, 1.0]}  # l2 distance sqrt(2)
    assert not proof.rechecked_pair("s", point, cases=1, note="", constant=sp.Rational(3, 2), norm=2,
                                    image=("query(D)", "query(D')"), preimage=None)
    assert proof.rechecked_pair("s", point, cases=1, note="", constant=sp.Rational(7, 5), norm=2,
                                image=("query(D)", "query(D')"), preimage=None)
    assert proof.result().counterexample["bound"] == "7/5"


def test_numeric_count_violations_are_evidence_only():
    # before: numeric_count(label, 10, 1, counterexample={"x": 1}) was a certified DISPROVED
    proof = Proof("test/count")
    assert not proof.numeric_count("x^2 >= 0", 10, 1, counterexample={"x": 1})
    r = proof.result()
    assert r.verdict is Verdict.UNDECIDED and r.counterexample is None and "evidence only" in r.details


def test_instance_with_a_bool_is_evidence_and_with_a_relation_is_decided():
    # before: instance(label, False, point={"x": 1}) was a certified DISPROVED with the label as its claim
    for holds in (False, sp.false):
        proof = Proof("test/instance-bool")
        assert not proof.instance("x^2 >= 0 for all real x", holds, point={"x": 1})
        assert proof.result().verdict is Verdict.UNDECIDED and proof.result().counterexample is None
    proof = Proof("test/instance-relation")
    assert not proof.instance("x^2 >= 0 for all real x", sp.Ge(-1, 0, evaluate=False), point={"x": 1})
    r = proof.result()
    assert r.verdict is Verdict.DISPROVED and certified(r) and r.claim == "-1 >= 0" and r.counterexample["x"] == 1
    ok = Proof("test/instance-holds")
    assert ok.instance("1 >= 0", sp.Ge(1, 0, evaluate=False), point={})
    with pytest.raises(InvalidArgument, match="free symbols"):
        ok.instance("x >= 0", sp.Ge(X, 0), point={})


def test_refute_certifies_the_sign_of_the_margin_not_the_label():
    # before: claim "" (the runner printed the label "x^2 >= 0" as what was disproved)
    proof = Proof("test/refute")
    assert proof.refute("x**2 >= 0 for all real x", {"x": 1}, sp.Integer(-1))
    r = proof.result()
    assert r.verdict is Verdict.DISPROVED and certified(r)
    assert r.claim == "-1 >= 0: the margin given for the point x=1" and "x**2" not in r.claim
    check = LemmaCheck(name="test/refute", source="test", statement="x^2 >= 0", expected=Verdict.DISPROVED,
                       check=lambda: _refuted())
    run = check.run()
    assert run.claim.startswith("-1 >= 0") and run.statement == "x^2 >= 0"


def _refuted():
    proof = Proof("test/refute-run")
    proof.refute("x**2 >= 0 for all real x", {"x": 1}, sp.Integer(-1))
    return proof.result()


def test_lipschitz_of_a_callable_still_disproves_through_the_exact_pair():
    r = lipschitz(lambda v: 3 * v, 1, dim=1, seed=0, budget=200)
    assert r.verdict is Verdict.DISPROVED and certified(r)
    assert any(k.startswith("||f(x) - f(y)||") for k in r.counterexample)


def test_combine_results_reads_one_domain_string_as_one_condition():
    import sympy as sp

    from dpaudit.bounds import check_inequality
    from dpaudit.verify import combine_results

    x = sp.Symbol("x", real=True)
    proved = combine_results("both", check_inequality(x, x + 1), check_inequality(x, x + 2), domain="x < 1")
    assert "x < 1" in proved.domain and "<" not in proved.domain
    refuted = combine_results("both", check_inequality(x, x + 1), check_inequality(x**2, x), domain="x < 1")
    assert "x; <; 1" not in refuted.details


def test_uncertified_parts_count_as_undecided_in_a_conjunction():
    # before: PROVED "0 >= 1" (and DISPROVED with the hand-written counterexample), uncertified but printed as verdicts
    from dpaudit.verify import CheckResult

    fake_proved = CheckResult(Verdict.PROVED, "0 >= 1")
    fake_refuted = CheckResult(Verdict.DISPROVED, "x**2 >= 0 for all x", counterexample={"x": 3})
    real = check_inequality(X**2, X**2 + 1)
    for parts in ((fake_proved,), (real, fake_proved), (fake_refuted,), (real, fake_refuted)):
        r = combine_results("label", *parts)
        assert r.verdict is Verdict.UNDECIDED and not certified(r) and r.counterexample is None
        assert "not issued by the kernel" in r.reason
    edited = real.__class__(**{**real.__dict__, "claim": "0 >= 1"})  # a copy with another claim is not certified
    assert combine_results("label", edited).verdict is Verdict.UNDECIDED
    # a certified failing part still refutes the conjunction beside an uncertified one
    refuted = check_inequality(X**2, X)
    r = combine_results("label", fake_proved, refuted)
    assert r.verdict is Verdict.DISPROVED and certified(r) and r.counterexample == refuted.counterexample
    with pytest.raises(InvalidArgument, match="not the counterexample of a failing part"):
        combine_results("label", fake_refuted, refuted, counterexample={"x": 3})


@pytest.mark.parametrize("expr", [sp.oo, sp.Float("inf") - 1, X + sp.oo, -sp.oo, float("inf"), -X**2 - sp.oo])
def test_infinities_are_refused_not_decided(expr):
    # before: decide_nonneg(Float('inf') - 1) and decide_nonneg(x + oo) were PROVED "oo >= 0" (sympy collapses them)
    from dpaudit.verify import decide_nonneg

    with pytest.raises(InvalidArgument, match="holds an infinity"):
        decide_nonneg(expr)
    with pytest.raises(InvalidArgument, match="holds an infinity"):
        check_inequality(1, expr)


@pytest.mark.parametrize("expr", [sp.zoo, sp.nan, 1 / (X - X)])
def test_zoo_and_nan_are_never_signed(expr):
    from dpaudit.verify import decide_nonneg

    assert decide_nonneg(expr) is Verdict.UNDECIDED


def test_constants_beyond_python_s_printing_limit_are_refused_not_a_crash():
    # before: a bare ValueError "Exceeds the limit (4300 digits) for integer string conversion" from z3 / the printer
    from dpaudit.verify import decision

    huge = sp.Integer(10) ** 5000
    for call in (lambda: decision(sp.Rational(10**5000 + 1, 10**5000) - 1), lambda: decision(huge - 1),
                 lambda: decision(X**2 + 1 / huge), lambda: check_inequality(X, huge),
                 lambda: lipschitz(X / huge, 1), lambda: lipschitz(X, 10**5000),
                 lambda: decision(sp.Pow(3, 10000, evaluate=False) - sp.Pow(2, 15850, evaluate=False)),
                 lambda: check_inequality(sp.floor(sp.Pow(10, 5000, evaluate=False) / 3), X)):
        with pytest.raises(InvalidArgument, match="digits are refused"):
            call()
    assert decision(sp.Integer(10) ** 3000 - X**2, hypotheses=[X >= 0, X <= 1]).verdict is Verdict.PROVED


def test_line_marks_a_verdict_the_kernel_did_not_issue():
    # before: an edited counterexample was printed as DISPROVED with no mark (certified() was already False)
    import dataclasses

    refuted = check_inequality(X**2, X)
    assert "not certified" not in refuted.line()
    edited = dataclasses.replace(refuted, counterexample={"x": 0})
    assert not certified(edited) and edited.line().endswith("edited after it was]")


def test_uncertified_as_undecided_keeps_kernel_verdicts_and_downgrades_the_rest():
    from dpaudit.errors import ArgumentTypeError
    from dpaudit.verify import CheckResult
    from dpaudit.verify.verdict import uncertified_as_undecided

    real = check_inequality(X**2, X**2 + 1)
    assert uncertified_as_undecided(real, "test") is real
    fake = uncertified_as_undecided(CheckResult(Verdict.DISPROVED, "x >= 0", counterexample={"x": -1}), "mine")
    assert fake.verdict is Verdict.UNDECIDED and fake.counterexample is None and fake.reason.startswith("mine returned")
    with pytest.raises(ArgumentTypeError, match="not a CheckResult"):
        uncertified_as_undecided("PROVED", "mine")
